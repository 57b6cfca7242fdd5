"""Availability (document 02, 03-conventions): per room, and per room type over a stay window."""

from __future__ import annotations

from datetime import date

from roomsync.core.api.pms import availability as api
from roomsync.emulator.pms.availability import CombinedAvailability, NightRun
from roomsync.emulator.pms.handlers.common import pms
from roomsync.emulator.pms.handlers.convert import to_model
from roomsync.emulator.pms.records import AgencyContract
from roomsync.emulator.pms.state import PmsState, check_stay
from roomsync.emulator.registry import Call, handles


def date_range(first: date, last: date) -> api.DateRange:
    return to_model(api.DateRange, date_from=first, date_to=last)


def _grouped(runs: list[NightRun]) -> list[api.AvailabilityDateRange]:
    """One entry per ``isAvailable`` value (in order of first appearance) with its runs in date order."""
    by_value: dict[int, list[api.DateRange]] = {}
    for run in runs:
        by_value.setdefault(run.is_available, []).append(date_range(run.first, run.last))
    return [
        api.AvailabilityDateRange(date_ranges=ranges, is_available=value)
        for value, ranges in by_value.items()
    ]


@handles("room_availability")
def room_availability(call: Call) -> api.RoomAvailabilityList:
    body: api.RoomAvailabilityRequest = call.body
    calendars = pms(call).room_calendars(body.date_from, body.date_to, group_dates=bool(body.group_dates))
    return api.RoomAvailabilityList(
        root=[
            api.RoomAvailability(
                room_id=calendar.room_id,
                room_type_id=calendar.room_type_id,
                availability_date_ranges=_grouped(calendar.runs),
            )
            for calendar in calendars
        ]
    )


def _window(call: Call) -> tuple[PmsState, api.RoomTypeAvailabilityRequest, CombinedAvailability]:
    state = pms(call)
    body: api.RoomTypeAvailabilityRequest = call.body
    check_stay(body.date_from, body.date_to)
    if body.booking_agency_id is not None:
        state.booking_agency(body.booking_agency_id, "bookingAgencyId")
    return state, body, state.combined(body.date_from, body.date_to)


def _contracts(contracts: list[AgencyContract]) -> list[api.AvailabilityContract]:
    return [
        api.AvailabilityContract(
            date_range=date_range(c.date_from, c.date_to), contract_id=c.id, price_list_id=c.price_list_id
        )
        for c in contracts
    ]


@handles("room_type_availability")
def room_type_availability(call: Call) -> api.RoomTypeAvailability:
    state, body, result = _window(call)
    return api.RoomTypeAvailability(
        available_rooms=[
            api.AvailableRoom(
                room_type_id=a.room_type_id,
                is_property_closed=a.is_property_closed,
                is_room_type_closed=a.is_room_type_closed,
                available=a.available,
            )
            for a in result.available_rooms
        ],
        contracts=_contracts(state.contracts_in(body.date_from, body.date_to, body.booking_agency_id)),
        closed_dates=[date_range(first, last) for first, last in result.closed_dates],
        sold_out_dates=[date_range(first, last) for first, last in result.sold_out_dates],
    )


@handles("room_type_availability_extended")
def room_type_availability_extended(call: Call) -> api.RoomTypeAvailabilityExtended:
    state, body, result = _window(call)
    extended: api.RoomTypeAvailabilityExtendedRequest = call.body
    prices, currency = state.stay_prices(
        body.date_from,
        body.date_to,
        booking_agency_id=body.booking_agency_id,
        promo_code=extended.promo_code,
        currency_code=extended.currency_code,
    )
    return api.RoomTypeAvailabilityExtended(
        available_rooms=[
            api.AvailableRoomExtended(
                room_type_id=a.room_type_id,
                is_property_closed=a.is_property_closed,
                is_room_type_closed=a.is_room_type_closed,
                available=a.available,
                price=prices.get(a.room_type_id),
                currency_code=currency,
            )
            for a in result.available_rooms
        ],
        contracts=_contracts(state.contracts_in(body.date_from, body.date_to, body.booking_agency_id)),
        closed_dates=[date_range(first, last) for first, last in result.closed_dates],
        sold_out_dates=[date_range(first, last) for first, last in result.sold_out_dates],
    )
