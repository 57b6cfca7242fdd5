"""How a reservation record is shown: the basic object, the extended (v1) and the v2 object."""

from __future__ import annotations

from datetime import datetime
from typing import Any

from roomsync.core.api.pms import reservations as api
from roomsync.emulator.pms import records
from roomsync.emulator.pms.handlers.convert import to_model
from roomsync.emulator.pms.handlers.customers import customer_model
from roomsync.emulator.pms.handlers.guests import guest_model
from roomsync.emulator.pms.state import PmsState

COUNTRY_NAMES = {
    "GR": "Greece",
    "DE": "Germany",
    "GB": "United Kingdom",
    "IT": "Italy",
    "FR": "France",
    "ES": "Spain",
    "NL": "Netherlands",
    "US": "United States",
    "PL": "Poland",
    "SE": "Sweden",
    "CY": "Cyprus",
    "AT": "Austria",
    "BE": "Belgium",
    "CH": "Switzerland",
    "DK": "Denmark",
    "IE": "Ireland",
    "PT": "Portugal",
    "NO": "Norway",
    "FI": "Finland",
}

PAYMENT_STATUS_WORDS = {0: "Unpaid", 1: "PartiallyPaid", 2: "Paid"}
"""The XML words of the extended reservation's payment ``status`` (roomsync's choice)."""


def timestamp(moment: datetime) -> str:
    """ISO 8601 date-time with offset, as the service writes createDate and lastUpdate."""
    return moment.isoformat(timespec="seconds")


def basic(state: PmsState, reservation: records.Reservation) -> api.Reservation:
    """``GET /v1/Reservation/{id}``: the basic object with ``customerId``."""
    return to_model(
        api.Reservation,
        reservation,
        total_extra_taxes=state.total_extra_taxes(reservation),
        customer=None,
        customer_id=reservation.customer_id,
    )


def _extended_values(state: PmsState, reservation: records.Reservation) -> dict[str, Any]:
    room = state.rooms.get(reservation.room_id)
    room_type = state.room_types.get(reservation.room_type_id)
    agency = (
        state.booking_agencies.get(reservation.booking_agency_id) if reservation.booking_agency_id else None
    )
    customer = state.customer(reservation.customer_id)
    currency = reservation.currency_code
    others = [r for r in state.group_members(reservation) if r.id != reservation.id]

    def in_currency(amount: Any) -> Any:
        return state.convert(amount, currency) if currency in state.exchange_rates else amount

    return {
        "total_extra_taxes": state.total_extra_taxes(reservation),
        "agreed_price": reservation.total_agreed_price,
        "balance": state.balance(reservation),
        "create_date": timestamp(reservation.create_date),
        "last_update": timestamp(reservation.last_update),
        "other_reservations_in_group": (
            [api.GroupedReservation(id=r.id, room_type_id=r.room_type_id) for r in others] if others else None
        ),
        "num_nights": reservation.num_nights,
        "status": state.payment_status(reservation),
        "total_agreed_price_currency": in_currency(reservation.total_agreed_price),
        "total_extra_charges": state.total_extra_charges(reservation.id),
        "total_normal_price": reservation.normal_price,
        "total_normal_price_currency": in_currency(reservation.normal_price),
        "total_payments": state.total_payments(reservation.id),
        "board_title": records.BOARDS.get(reservation.board),
        "booking_agency_title": agency.title if agency else None,
        "booking_agency_customer_id": customer.id if agency else None,
        "booking_agency_customer_first_name": customer.first_name if agency else None,
        "booking_agency_customer_last_name": customer.last_name if agency else None,
        "guests": [guest_model(state.guests[i]) for i in reservation.guest_ids if i in state.guests],
        "reservation_status_title": records.STATUS_TITLES.get(reservation.reservation_status_id),
        "room_title": room.title if room else None,
        "room_type_title": room_type.title if room_type else None,
    }


def extended(state: PmsState, reservation: records.Reservation) -> api.ReservationExtended:
    """The extended object with flat customer fields (future reservations, ``/v1/Reservations``)."""
    customer = state.customer(reservation.customer_id)
    return to_model(
        api.ReservationExtended,
        reservation,
        **_extended_values(state, reservation),
        customer_country=COUNTRY_NAMES.get(customer.country_code or "", customer.country_code),
        customer_country_code=customer.country_code,
        customer_first_name=customer.first_name,
        customer_last_name=customer.last_name,
        customer_notes=customer.notes,
        customer_mobile=customer.mobile,
        customer_email=customer.email,
        customer_id=customer.id,
    )


def version2(state: PmsState, reservation: records.Reservation) -> api.ReservationV2:
    """The version 2 extended object: one ``customer`` object instead of the flat fields."""
    return to_model(
        api.ReservationV2,
        reservation,
        **_extended_values(state, reservation),
        customer=customer_model(state.customer(reservation.customer_id)),
    )
