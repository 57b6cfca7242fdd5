"""Between the sync engine's plain values and the API models, at the edge of the engine.

Why a separate module: the engine (calendar, diff, compile, apply, price detection) works on
small frozen values and never imports the API models, so it stays fast and independent of the
wire format. Only this module knows both, and the adapters call it just before sending and just
after reading.

Two details the conversion owns:

* ``PUT Inventory`` bodies are sent "as set" (``core.api.channel.InventoryUpdate``): a
  restriction field given as ``None`` is sent as ``null`` and unsets it, one not given is left
  alone. An :class:`OperationPlan` that sets restrictions always sets all four, so all four are
  given explicitly; the fields of groups it does not set are not given at all.
* An ``Inventory`` day whose ``dailyPrice`` is not an integer (the channel's default price can
  be a decimal) becomes ``price=None``: the operation's ``dailyPrice`` is an integer, so such a
  day always differs from a desired price and is rewritten, never silently rounded into a match.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from dataclasses import replace
from datetime import date
from typing import Any

from roomsync.core.api.channel import Availability as ApiAvailability
from roomsync.core.api.channel import Inventory, InventoryOperation, InventoryUpdate
from roomsync.core.api.channel_manager import PriceForDateRange, PricesRequest
from roomsync.core.api.channel_manager import RoomRateType as ApiRoomRateType
from roomsync.core.api.pms.availability import RoomAvailability
from roomsync.core.sync.calendar import Availability, DayState
from roomsync.core.sync.desired import NightRun, RoomNights
from roomsync.core.sync.plans import InventoryRequestPlan, OperationPlan, PricePlan


def operation_to_api(plan: OperationPlan) -> InventoryOperation:
    fields: dict[str, Any] = {
        "date_from": plan.date_from,
        "date_to": plan.date_to,
        "set_available": plan.available is not None,
        "count_eligible": plan.count is not None,
        "set_price": plan.price is not None,
        "set_restrictions": plan.restrictions is not None,
    }
    if plan.available is not None:
        fields["available"] = ApiAvailability(plan.available.value)
    if plan.count is not None:
        fields["count"] = plan.count
    if plan.price is not None:
        fields["daily_price"] = plan.price
    if plan.restrictions is not None:
        fields["min_nights"] = plan.restrictions.min_nights
        fields["max_nights"] = plan.restrictions.max_nights
        fields["closed_to_arrival"] = plan.restrictions.closed_to_arrival
        fields["closed_to_departure"] = plan.restrictions.closed_to_departure
    return InventoryOperation(**fields)


def inventory_update(account_id: str, listing_id: str, request: InventoryRequestPlan) -> InventoryUpdate:
    """The ``PUT Inventory`` body of one planned request of a listing."""
    return InventoryUpdate(
        account_id=account_id,
        listing_id=listing_id,
        operations=[operation_to_api(operation) for operation in request.operations],
    )


def day_from_inventory(entry: Inventory) -> DayState:
    """One ``Inventory`` day as the engine's current state of that day."""
    price = entry.daily_price
    integral_price = int(price) if price is not None and price == price.to_integral_value() else None
    count = entry.available_count
    return DayState(
        available=Availability(entry.availability.value),
        count=count if count is not None and count >= 0 else None,
        price=integral_price if integral_price is not None and integral_price >= 0 else None,
        min_nights=entry.min_nights if entry.min_nights >= 1 else None,
        max_nights=entry.max_nights if entry.max_nights >= 1 else None,
        closed_to_arrival=entry.closed_to_arrival,
        closed_to_departure=entry.closed_to_departure,
    )


def calendar_from_inventory(entries: Iterable[Inventory]) -> dict[date, DayState]:
    """A listing's current calendar from the answer of ``POST Inventory``."""
    return {entry.date: day_from_inventory(entry) for entry in entries}


CHANNEL_RESERVATION = "reserved"
"""The ``availabilityType`` of a single-unit night the channel's own reservation holds (document
01 leaves the values open; the sandbox's, docs/emulator.md, "Inventory read")."""


def calendar_from_read(entries: Iterable[Inventory], pushed: Mapping[date, DayState]) -> dict[date, DayState]:
    """A listing's current calendar from a channel read, for comparing with what roomsync pushed.

    A night the channel's own reservation holds reads ``unavailable`` whatever availability it
    holds underneath (03, "Channel inventory"), which shows again when the reservation ends: the
    read cannot see it, so such a night keeps the availability of ``pushed`` (the ledger), if it
    has the night. Otherwise every read would find it drifted and every run rewrite it, in vain;
    the other groups of the night read as they are.
    """
    calendar: dict[date, DayState] = {}
    for entry in entries:
        day = day_from_inventory(entry)
        under = pushed.get(entry.date) if entry.availability_type == CHANNEL_RESERVATION else None
        calendar[entry.date] = day if under is None else replace(day, available=under.available)
    return calendar


def prices_request(plan: PricePlan) -> PricesRequest:
    """The ``POST /v1/ChannelManager/Prices`` body of a price plan (one request for all elements)."""
    return PricesRequest(
        prices_for_date_ranges=[
            PriceForDateRange(
                date_from=element.date_from,
                date_to=element.date_to,
                room_type_id=element.room_type_id,
                room_rate_type=ApiRoomRateType(int(element.room_rate_type)),
                price=element.price,
            )
            for element in plan.elements
        ]
    )


def room_nights(entries: Iterable[RoomAvailability]) -> list[RoomNights]:
    """The ``POST /v1/Availability/Room`` answer as the engine reads it (rooms without a room type
    are left out)."""
    rooms: list[RoomNights] = []
    for entry in entries:
        if entry.room_type_id is None:
            continue
        runs = tuple(
            NightRun(span.date_from, span.date_to, bool(group.is_available))
            for group in entry.availability_date_ranges
            for span in group.date_ranges
        )
        rooms.append(RoomNights(entry.room_id, entry.room_type_id, runs))
    return rooms
