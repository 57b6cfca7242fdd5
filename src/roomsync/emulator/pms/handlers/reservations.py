"""Reservations (document 02): read, search, create, update, guests, extra charges, groups, payments."""

from __future__ import annotations

from datetime import date, timedelta
from decimal import Decimal
from typing import Any

from roomsync.core.api.base import IdResult
from roomsync.core.api.pms import payments as payments_api
from roomsync.core.api.pms import reservations as api
from roomsync.emulator.errors import ApiError, conflict, invalid
from roomsync.emulator.pms import records
from roomsync.emulator.pms.handlers import reservation_views as views
from roomsync.emulator.pms.handlers.common import path_id, path_ids, pms
from roomsync.emulator.pms.handlers.convert import sent_fields, to_model
from roomsync.emulator.pms.handlers.customers import customer_from_fields
from roomsync.emulator.pms.handlers.guests import connect
from roomsync.emulator.pms.invoices import money
from roomsync.emulator.pms.state import STATUS_CHUNK, PmsState, not_found
from roomsync.emulator.registry import Call, handles

FILTER_DAYS = 30
"""The reservation filter's default window: today to today plus 30 days (document 02)."""


@handles("get_reservation")
def get_reservation(call: Call) -> api.Reservation:
    state = pms(call)
    return views.basic(state, state.reservation(path_id(call)))


@handles("list_future_reservations")
def list_future_reservations(call: Call) -> api.ReservationExtendedList:
    """Reservations with a night from today on (any status), by arrival."""
    state = pms(call)
    future = sorted(
        (r for r in state.reservations.values() if r.date_to > call.today), key=lambda r: (r.date_from, r.id)
    )
    return api.ReservationExtendedList(root=[views.extended(state, r) for r in future])


def _requested(state: PmsState, ids: list[int]) -> list[records.Reservation]:
    """The reservations asked for, in the order asked, once each; unknown ids are left out."""
    seen: set[int] = set()
    found = []
    for reservation_id in ids:
        if reservation_id in state.reservations and reservation_id not in seen:
            seen.add(reservation_id)
            found.append(state.reservations[reservation_id])
    return found


@handles("get_reservations")
def get_reservations(call: Call) -> api.ReservationExtendedList:
    state = pms(call)
    body: api.ReservationIdsRequest = call.body
    return api.ReservationExtendedList(
        root=[views.extended(state, r) for r in _requested(state, body.reservation_ids)]
    )


@handles("get_reservations_v2")
def get_reservations_v2(call: Call) -> api.ReservationV2List:
    state = pms(call)
    body: api.ReservationIdsRequest = call.body
    return api.ReservationV2List(
        root=[views.version2(state, r) for r in _requested(state, body.reservation_ids)]
    )


@handles("create_reservation")
def create_reservation(call: Call) -> IdResult:
    state = pms(call)
    body: api.ReservationCreateRequest = call.body
    if getattr(body, "id", None) is not None:
        raise invalid("id", "id must not be sent when creating a reservation")
    new_customer: records.Customer | None = None
    if body.customer.id is not None:
        customer_id = state.customer(body.customer.id, "customer.id").id
    else:
        try:
            new_customer = customer_from_fields(state, state.allocate_id("customer"), body.customer)
        except ApiError as error:
            error.field = f"customer.{error.field}" if error.field else "customer"
            raise
        customer_id = new_customer.id
        state.customers[customer_id] = new_customer
    try:
        reservation = state.create_reservation(
            customer_id=customer_id,
            date_from=body.date_from,
            date_to=body.date_to,
            status=int(body.reservation_status),
            room_id=body.room_id,
            room_type_id=body.room_type_id,
            price_list_id=body.price_list_id,
            total_agreed_price=body.total_agreed_price,
            currency_code=body.currency_code,
            board=body.board.value if body.board else None,
            num_adults=body.num_adults,
            booking_agency_id=body.booking_agency_id,
            booking_agency_reference_code=body.booking_agency_reference_code,
            contract_id=body.contract_id,
            today=call.today,
            now=call.now,
        )
    except ApiError:
        if new_customer is not None:
            del state.customers[new_customer.id]
        raise
    return IdResult(id=reservation.id)


def _filter_date(reservation: records.Reservation, date_type: int) -> date | None:
    if date_type == 1:
        return reservation.date_from
    if date_type == 2:
        return reservation.date_to
    if date_type == 3:
        return reservation.actual_reservation_date
    if date_type == 4:
        return reservation.cancel_date.date() if reservation.cancel_date else None
    if date_type == 5:
        return reservation.create_date.date()
    return reservation.last_update.date()


def _contains(text: str | None, needle: str | None) -> bool:
    return needle is None or (text is not None and needle.casefold() in text.casefold())


@handles("filter_reservations")
def filter_reservations(call: Call) -> api.ReservationSearchResultList:
    state = pms(call)
    body: api.ReservationFilterRequest = call.body
    date_type = int(body.date_type_id) if body.date_type_id is not None else 1
    date_from = body.date_from or call.today
    date_to = body.date_to or call.today + timedelta(days=FILTER_DAYS)
    if date_from > date_to:
        raise invalid(
            "dateTo",
            f"dateTo ({date_to.isoformat()}, default today + 30 days) is before dateFrom ({date_from})",
        )
    if body.booking_agency_id is not None:
        state.booking_agency(body.booking_agency_id, "bookingAgencyId")
    hits = []
    for reservation_id in sorted(state.reservations):
        reservation = state.reservations[reservation_id]
        day = _filter_date(reservation, date_type)
        if day is None or not date_from <= day <= date_to:
            continue
        if (
            body.reservation_status_id is not None
            and reservation.reservation_status_id != body.reservation_status_id
        ):
            continue
        if body.booking_agency_id is not None and reservation.booking_agency_id != body.booking_agency_id:
            continue
        if not _contains(
            reservation.booking_agency_reference_code, body.booking_agency_reference_code_contains
        ):
            continue
        customer = state.customer(reservation.customer_id)
        full_name = f"{customer.first_name or ''} {customer.last_name}".strip()
        if not (
            _contains(full_name, body.customer_name_contains)
            and _contains(customer.email, body.email_contains)
        ):
            continue
        hits.append(
            api.ReservationSearchResult(
                reservation_id=reservation.id,
                create_date=reservation.create_date,
                last_update_date=reservation.last_update,
            )
        )
    return api.ReservationSearchResultList(root=hits)


@handles("add_reservation_guest")
def add_reservation_guest(call: Call) -> None:
    state = pms(call)
    body: api.ReservationGuestLink = call.body
    reservation = state.reservation(path_id(call))
    guest = state.guest(body.id, "id")
    if body.is_primary_guest is not None:
        guest.is_primary_guest = body.is_primary_guest
    connect(state, guest, reservation)
    reservation.last_update = call.now


@handles("list_checked_in_v2")
def list_checked_in_v2(call: Call) -> api.ReservationV2List:
    """Checked-in reservations (status 4) in house on a day of ``dateFrom``..``dateTo`` (both days)."""
    state = pms(call)
    body: api.CheckedInRequest = call.body
    found = sorted(
        (
            r
            for r in state.reservations.values()
            if r.reservation_status_id == records.ReservationStatus.CHECKED_IN
            and r.date_from <= body.date_to
            and r.date_to > body.date_from
        ),
        key=lambda r: (r.date_from, r.id),
    )
    return api.ReservationV2List(root=[views.version2(state, r) for r in found])


@handles("list_reservation_statuses_v2")
def list_reservation_statuses_v2(call: Call) -> api.ReservationStatusChunk:
    state = pms(call)
    body: api.ReservationStatusChunkRequest = call.body
    ids = sorted(i for i in state.reservations if i > body.last_reservation_id)[:STATUS_CHUNK]
    return api.ReservationStatusChunk(
        reservations=[
            api.ReservationStatusEntry(
                reservation_id=i,
                reservation_status_id=api.ReservationStatus(state.reservations[i].reservation_status_id),
            )
            for i in ids
        ]
    )


# --- updates -----------------------------------------------------------------------------------

STAY_FIELDS = ("date_from", "date_to", "room_id", "room_type_id", "reservation_status_id")
PLAIN_FIELDS = (
    "booking_agency_reference_code",
    "currency_code",
    "notes",
    "total_agreed_price",
    "board",
    "cancellation_fee_booking_agency",
    "cancellation_reason_id",
    "external_system_id",
    "promo_code",
    "booking_agency_id",
    "contract_id",
    "price_list_id",
)
READ_ONLY_FIELDS = (
    "actual_reservation_date",
    "group_id",
    "invoice_id",
    "invoice_number",
    "total_extra_taxes",
)
"""Ignored: a client that read the reservation first sends them back (groups have their own calls)."""
NOT_NULL = {
    "date_from": "dateFrom",
    "date_to": "dateTo",
    "room_id": "roomId",
    "room_type_id": "roomTypeId",
    "reservation_status_id": "reservationStatusId",
    "currency_code": "currencyCode",
    "total_agreed_price": "totalAgreedPrice",
    "board": "board",
}


def _apply_update(
    state: PmsState, reservation: records.Reservation, changes: dict[str, Any], call: Call
) -> None:
    """Check every change, then apply them all (stay first, as it is the one that may conflict)."""
    for name, label in NOT_NULL.items():
        if name in changes and changes[name] is None:
            raise invalid(label, f"{label} may not be null", "REQUIRED")
    customer = changes.pop("customer", None)
    customer_id = changes.pop("customer_id", None)
    if customer is not None:
        customer_id = customer.get("id") or customer_id
        if customer_id is None:
            raise invalid("customer.id", "an update names an existing customer by id")
    if customer_id is not None:
        state.customer(customer_id, "customerId" if customer is None else "customer.id")
    if changes.get("booking_agency_id") is not None:
        state.booking_agency(changes["booking_agency_id"], "bookingAgencyId")
    if changes.get("contract_id") is not None:
        state.agency_contract(changes["contract_id"], "contractId")
    if changes.get("price_list_id") is not None:
        state.price_list(changes["price_list_id"], "priceListId")
    if changes.get("total_agreed_price") is not None:
        changes["total_agreed_price"] = money(Decimal(str(changes["total_agreed_price"])))
        if changes["total_agreed_price"] < 0:
            raise invalid("totalAgreedPrice", "totalAgreedPrice cannot be negative")
    if changes.get("cancellation_fee_booking_agency") is not None:
        changes["cancellation_fee_booking_agency"] = money(
            Decimal(str(changes["cancellation_fee_booking_agency"]))
        )
    if changes.get("currency_code") is not None:
        changes["currency_code"] = changes["currency_code"].upper()
    stay = {name: changes[name] for name in STAY_FIELDS if name in changes}
    if stay:
        state.change_stay(
            reservation,
            room_id=stay.get("room_id"),
            room_type_id=stay.get("room_type_id"),
            date_from=stay.get("date_from"),
            date_to=stay.get("date_to"),
            status=stay.get("reservation_status_id"),
            today=call.today,
            now=call.now,
        )
    for name in PLAIN_FIELDS:
        if name in changes:
            setattr(reservation, name, changes[name])
    if customer_id is not None:
        reservation.customer_id = customer_id
    reservation.last_update = call.now


@handles("update_reservation")
def update_reservation(call: Call) -> None:
    """``PUT /v1/Reservation``: the fields given (not null) change; the others stay."""
    state = pms(call)
    body: api.ReservationUpdateRequest = call.body
    reservation = state.reservation(body.id, "id")
    changes = {name: value for name, value in sent_fields(body).items() if value is not None}
    for name in ("id", *READ_ONLY_FIELDS):
        changes.pop(name, None)
    _apply_update(state, reservation, changes, call)


@handles("update_reservation_fields")
def update_reservation_fields(call: Call) -> None:
    """``PUT /v1/Reservation/{id}``: the fields sent change, a null clears an optional one."""
    state = pms(call)
    body: api.ReservationFieldsUpdateRequest = call.body
    reservation = state.reservation(path_id(call))
    changes = sent_fields(body)
    sent_id = changes.pop("id", None)
    if sent_id is not None and sent_id != reservation.id:
        raise invalid("id", f"the body's id {sent_id} is not the path's reservation {reservation.id}")
    for name in READ_ONLY_FIELDS:
        changes.pop(name, None)
    _apply_update(state, reservation, changes, call)


# --- extra charges of a reservation ---------------------------------------------------------------


@handles("list_reservation_extra_charges")
def list_reservation_extra_charges(call: Call) -> api.ReservationExtraChargeList:
    state = pms(call)
    reservation = state.reservation(path_id(call))
    return api.ReservationExtraChargeList(
        root=[to_model(api.ReservationExtraCharge, c) for c in state.extra_charges_of(reservation.id)]
    )


@handles("add_reservation_extra_charge")
def add_reservation_extra_charge(call: Call) -> IdResult:
    state = pms(call)
    body: api.ReservationExtraChargeCreateRequest = call.body
    reservation = state.reservation(path_id(call))
    item = state.extra_charges.get(body.extra_charge_id)
    if item is None:
        raise not_found("extra charge", body.extra_charge_id, "extraChargeId")
    charge = records.ReservationExtraCharge(
        id=state.allocate_id("reservation_extra_charge"),
        reservation_id=reservation.id,
        extra_charge_id=item.id,
        title=item.title,
        quantity=Decimal(str(body.quantity)),
        unit_price=money(Decimal(str(body.unit_price))) if body.unit_price is not None else item.unit_price,
        charge_date=body.charge_date or call.today,
        create_date=call.now,
        notes=body.notes,
    )
    state.reservation_extra_charges[charge.id] = charge
    reservation.last_update = call.now
    return IdResult(id=charge.id)


@handles("delete_reservation_extra_charge")
def delete_reservation_extra_charge(call: Call) -> None:
    state = pms(call)
    reservation_id, charge_id = path_ids(call)
    reservation = state.reservation(reservation_id)
    charge = state.reservation_extra_charges.get(charge_id)
    if charge is None or charge.reservation_id != reservation.id:
        raise not_found(f"extra charge of reservation {reservation.id}", charge_id)
    del state.reservation_extra_charges[charge_id]
    reservation.last_update = call.now


# --- groups and payments ----------------------------------------------------------------------------


def _listed(state: PmsState, ids: list[int]) -> list[records.Reservation]:
    found = []
    for index, reservation_id in enumerate(dict.fromkeys(ids)):
        if reservation_id not in state.reservations:
            raise not_found("reservation", reservation_id, f"ReservationIds.{index}")
        found.append(state.reservations[reservation_id])
    return found


@handles("group_reservations")
def group_reservations(call: Call) -> api.ReservationGroupResult:
    """Group the reservations; one of them already in a group brings the others into it."""
    state = pms(call)
    body: api.ReservationGroupRequest = call.body
    members = _listed(state, body.reservation_ids)
    if len(members) < 2:
        raise invalid("ReservationIds", "grouping needs two or more different reservations")
    groups = sorted({r.group_id for r in members if r.group_id})
    if len(groups) > 1:
        raise conflict(f"the reservations belong to different groups ({', '.join(groups)})", "ReservationIds")
    group_id = groups[0] if groups else state.new_group_id()
    for reservation in members:
        reservation.group_id = group_id
        reservation.last_update = call.now
    return api.ReservationGroupResult(group_id=group_id)


@handles("ungroup_reservations")
def ungroup_reservations(call: Call) -> None:
    """Take the reservations out of their groups; a group whose last member leaves is gone."""
    state = pms(call)
    body: api.ReservationUngroupRequest = call.body
    members = _listed(state, body.reservation_ids)
    loose = [r.id for r in members if not r.group_id]
    if loose:
        raise conflict(f"reservation(s) {', '.join(map(str, loose))} belong to no group", "ReservationIds")
    for reservation in members:
        reservation.group_id = ""
        reservation.last_update = call.now


@handles("list_reservation_payments")
def list_reservation_payments(call: Call) -> payments_api.PaymentList:
    state = pms(call)
    reservation = state.reservation(path_id(call))
    group = [r.id for r in state.group_members(reservation)]
    return payments_api.PaymentList(
        root=[to_model(payments_api.Payment, p) for p in state.payments_of(group)]
    )
