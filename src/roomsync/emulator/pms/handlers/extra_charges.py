"""The extra-charge catalog and the point-of-sale operations (document 02).

A POS system does not know reservation ids: it names the room title, plus the ticket's
``timeStamp`` and/or the customer's ``lastName``. The emulator finds the reservation that holds
that room on the ticket's day (today without a ``timeStamp``), narrowed by last name when given;
each ticket item becomes one extra-charge line of the configured generic POS item. A ticket is
identified by (reservation, ``timeStamp`` as sent); ``UpdatePos`` replaces that ticket's lines.
"""

from __future__ import annotations

from datetime import date, datetime
from decimal import Decimal

from roomsync.core.api.pms import extra_charges as api
from roomsync.emulator.errors import ApiError, conflict, invalid
from roomsync.emulator.pms import records
from roomsync.emulator.pms.handlers.common import pms, required_text
from roomsync.emulator.pms.handlers.convert import as_date, to_model
from roomsync.emulator.pms.invoices import money
from roomsync.emulator.pms.state import PmsState
from roomsync.emulator.registry import Call, handles


@handles("list_extra_charges")
def list_extra_charges(call: Call) -> api.ExtraChargeList:
    catalog = pms(call).extra_charges
    return api.ExtraChargeList(root=[to_model(api.ExtraCharge, catalog[i]) for i in sorted(catalog)])


@handles("list_extra_charge_categories")
def list_extra_charge_categories(call: Call) -> api.ExtraChargeCategoryList:
    categories = pms(call).extra_charge_categories
    return api.ExtraChargeCategoryList(
        root=[to_model(api.ExtraChargeCategory, categories[i]) for i in sorted(categories)]
    )


def ticket_key(time_stamp: date | datetime | None) -> str | None:
    return None if time_stamp is None else time_stamp.isoformat()


def find_pos_reservation(
    state: PmsState, room_title: str, last_name: str | None, day: date
) -> records.Reservation:
    """The reservation holding the room titled ``room_title`` on ``day`` (its departure day too)."""
    wanted = room_title.strip().casefold()
    room = next((r for r in state.sorted_rooms() if r.title.strip().casefold() == wanted), None)
    if room is None:
        raise ApiError(404, "NOT_FOUND", f"no room is titled {room_title!r}", "roomTitle")
    candidates = [
        r
        for r in state.reservations.values()
        if r.room_id == room.id and r.holds_room() and r.date_from <= day <= r.date_to
    ]
    if last_name:
        name = last_name.strip().casefold()
        candidates = [
            r for r in candidates if state.customer(r.customer_id).last_name.strip().casefold() == name
        ]
    if not candidates:
        who = f" for last name {last_name!r}" if last_name else ""
        raise ApiError(
            404, "NOT_FOUND", f"no reservation holds room {room.title} on {day.isoformat()}{who}", "roomTitle"
        )
    # The guest in the room that night first, then one checked in, then the latest arrival.
    return max(
        candidates,
        key=lambda r: (r.date_from <= day < r.date_to, r.reservation_status_id == 4, r.date_from, r.id),
    )


def _ticket_lines(
    state: PmsState,
    reservation: records.Reservation,
    items: list[api.PosItem],
    key: str | None,
    day: date,
    now: datetime,
) -> list[records.ReservationExtraCharge]:
    if state.pos_extra_charge_id is None or state.pos_extra_charge_id not in state.extra_charges:
        raise conflict("no generic extra charge item is configured for point-of-sale charges")
    lines = []
    for index, item in enumerate(items):
        name = required_text(item.name, f"items.{index}.Name")
        quantity = Decimal(str(item.quantity))
        if quantity <= 0:
            raise invalid(f"items.{index}.Quantity", "Quantity must be greater than 0")
        lines.append(
            records.ReservationExtraCharge(
                id=0,
                reservation_id=reservation.id,
                extra_charge_id=state.pos_extra_charge_id,
                title=name,
                quantity=quantity,
                unit_price=money(Decimal(str(item.price))),
                charge_date=day,
                create_date=now,
                notes=name,
                pos_time_stamp=key,
                is_pos=True,
            )
        )
    return lines


def _store(state: PmsState, lines: list[records.ReservationExtraCharge]) -> None:
    for line in lines:
        line.id = state.allocate_id("reservation_extra_charge")
        state.reservation_extra_charges[line.id] = line


@handles("post_pos_charge")
def post_pos_charge(call: Call) -> None:
    state = pms(call)
    body: api.PosChargeRequest = call.body
    day = as_date(body.time_stamp) if body.time_stamp is not None else call.today
    reservation = find_pos_reservation(
        state, required_text(body.room_title, "roomTitle"), body.last_name, day
    )
    lines = _ticket_lines(state, reservation, body.items, ticket_key(body.time_stamp), day, call.now)
    total = money(sum((line.total for line in lines), Decimal("0")))
    if money(Decimal(str(body.sum))) != total:
        raise invalid("sum", f"sum {body.sum} is not the total of the items ({total})")
    _store(state, lines)


@handles("update_pos_charge")
def update_pos_charge(call: Call) -> None:
    state = pms(call)
    body: api.PosChargeUpdateRequest = call.body
    day = as_date(body.time_stamp) if body.time_stamp is not None else call.today
    key = ticket_key(body.time_stamp)
    reservation = find_pos_reservation(
        state, required_text(body.room_title, "roomTitle"), body.last_name, day
    )
    old = [c for c in state.extra_charges_of(reservation.id) if c.is_pos and c.pos_time_stamp == key]
    if not old:
        shown = f"timeStamp {key}" if key else "no timeStamp"
        raise ApiError(
            404,
            "NOT_FOUND",
            f"reservation {reservation.id} has no point-of-sale ticket with {shown}",
            "timeStamp",
        )
    lines = _ticket_lines(state, reservation, body.items, key, day, call.now)
    for charge in old:
        del state.reservation_extra_charges[charge.id]
    _store(state, lines)
