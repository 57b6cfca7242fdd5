"""Reading the PMS within the budget (03-conventions): what one sync knows about the property.

Per sync, for the horizon ``first..last``:

* free rooms: ONE ``POST /v1/Availability/Room`` with ``groupDates=1`` (all rooms, all types);
* closures: ONE ``POST /v1/Availability/RoomType/Combined`` over the horizon, plus the splitting
  reads of :mod:`.closures` for a room type whose closed nights are not remembered yet;
* nightly prices: ``CombinedExtended`` windows planned by the core's price detection
  (:mod:`.prices`), one read when nothing changed.

An unchanged property therefore costs 3 requests. The availability reads run at the
``AVAILABILITY`` priority, the price reads at ``PRICES``.
"""

from __future__ import annotations

from collections.abc import Callable, Collection, Iterable
from dataclasses import dataclass
from datetime import date, datetime, timedelta

from roomsync.adapters.client import ServiceClient
from roomsync.adapters.store import Store
from roomsync.app.sync.closures import CheckReader, Closures, CombinedReader, read_closures
from roomsync.app.sync.prices import CurrencyMismatch, PmsPrices, detect_prices
from roomsync.core.api.pms.availability import (
    RoomAvailability,
    RoomAvailabilityRequest,
    RoomTypeAvailability,
    RoomTypeAvailabilityExtended,
    RoomTypeAvailabilityExtendedRequest,
    RoomTypeAvailabilityRequest,
)
from roomsync.core.catalog.types import Priority
from roomsync.core.ports import LocatedClosures
from roomsync.core.sync import free_room_ids_per_night
from roomsync.core.sync.convert import room_nights
from roomsync.core.sync.price_detection import Window


@dataclass
class PmsFacts:
    first_night: date
    last_night: date
    free_rooms: dict[int, dict[date, int]]
    closures: Closures
    prices: PmsPrices
    read_at: datetime | None = None
    """When the free rooms were read (the history of nights names the read its values came from)."""
    free_room_ids: dict[int, dict[date, frozenset[int]]] | None = None
    """Which rooms were free (the read that counted ``free_rooms``), for the guests' availability view."""


async def read_free_rooms(
    client: ServiceClient, first: date, last: date, priority: Priority
) -> dict[int, dict[date, int]]:
    return counts_of(await read_free_room_ids(client, first, last, priority))


async def read_free_room_ids(
    client: ServiceClient, first: date, last: date, priority: Priority
) -> dict[int, dict[date, frozenset[int]]]:
    """Which rooms are free per room type and night (one ``POST /v1/Availability/Room``)."""
    answer = await client.room_availability(free_rooms_request(first, last), priority=priority)
    return free_room_ids_in(answer, first, last)


def free_rooms_request(first: date, last: date) -> RoomAvailabilityRequest:
    """The free-room read of ``first..last``: every room of every type, nights grouped in runs."""
    return RoomAvailabilityRequest(date_from=first, date_to=last, group_dates=1)


def free_room_ids_in(
    answer: Iterable[RoomAvailability], first: date, last: date
) -> dict[int, dict[date, frozenset[int]]]:
    """Which rooms the answer to :func:`free_rooms_request` says are free, per room type and night."""
    return free_room_ids_per_night(room_nights(answer), first, last)


def counts_of(ids: dict[int, dict[date, frozenset[int]]]) -> dict[int, dict[date, int]]:
    """Free rooms per room type and night, counted."""
    return {t: {night: len(rooms) for night, rooms in per_night.items()} for t, per_night in ids.items()}


@dataclass(frozen=True)
class PmsRead:
    """What a run asks of the PMS: the free rooms, closures and prices of ``room_type_ids`` over
    ``first..last``, within its price reads, through ``client``, the prices kept in ``store``."""

    client: ServiceClient
    store: Store
    property_id: str
    room_type_ids: Collection[int]
    first: date
    last: date
    currency: str
    located: LocatedClosures
    """The closures located before (the check reads around them)."""
    now: datetime
    relocate_closures: bool
    price_read_caps: Callable[[], tuple[int, int]]
    """The most reads of nights with no cached price (the fill) and of changed windows of cached
    nights (their split to the edit) the run may spend, asked when the price reads begin: by then
    the server has said its quota, where a free licence's first start planned its fill at the
    settings' 1,500 and spent the day's 100 on it (the week bench, 2026-12-06)."""
    price_window_nights: int
    concurrency: int
    closure_types: Collection[int] | None = None
    """The types whose closures are checked (all of ``room_type_ids`` when None); the prices of
    every type of ``room_type_ids`` are detected."""


async def read_pms(read: PmsRead) -> PmsFacts:
    """Free rooms, closures and prices of the horizon."""
    rooms = await read_free_room_ids(read.client, read.first, read.last, Priority.AVAILABILITY)
    closures, prices = await read_closures_and_prices(read)
    return PmsFacts(
        read.first, read.last, counts_of(rooms), closures, prices, read_at=read.now, free_room_ids=rooms
    )


def closure_readers(client: ServiceClient) -> tuple[CheckReader, CombinedReader]:
    """The closure check's window read (``CombinedExtended``) and its locating read
    (``Combined``), both at the AVAILABILITY priority."""

    async def check(window: Window) -> RoomTypeAvailabilityExtended:
        request = RoomTypeAvailabilityExtendedRequest(date_from=window.date_from, date_to=window.date_to)
        return await client.room_type_availability_extended(request, priority=Priority.AVAILABILITY)

    async def combined(a: date, b: date) -> RoomTypeAvailability:
        request = RoomTypeAvailabilityRequest(date_from=a, date_to=b + timedelta(days=1))
        return await client.room_type_availability(request, priority=Priority.AVAILABILITY)

    return check, combined


async def read_closures_and_prices(read: PmsRead) -> tuple[Closures, PmsPrices]:
    """The closure check (its windows read with ``CombinedExtended`` at the AVAILABILITY priority),
    then the price detection, which takes the check's window totals as its first reads."""
    client = read.client
    check, combined = closure_readers(client)
    closures, answers = await read_closures(
        check,
        combined,
        read.first,
        read.last,
        read.room_type_ids if read.closure_types is None else read.closure_types,
        read.located,
        relocate=read.relocate_closures,
        window_nights=read.price_window_nights,
        concurrency=read.concurrency,
    )

    async def extended(window: Window) -> RoomTypeAvailabilityExtended:
        request = RoomTypeAvailabilityExtendedRequest(date_from=window.date_from, date_to=window.date_to)
        return await client.room_type_availability_extended(request, priority=Priority.PRICES)

    fill_reads, narrowing_reads = read.price_read_caps()
    try:
        prices = await detect_prices(
            extended,
            read.store.pms_prices,
            read.property_id,
            read.room_type_ids,
            read.first,
            read.last,
            currency=read.currency,
            now=read.now,
            max_reads=fill_reads,
            max_narrowing_reads=narrowing_reads,
            window_nights=read.price_window_nights,
            concurrency=read.concurrency,
            answered=answers,
        )
    except CurrencyMismatch as mismatch:
        prices = PmsPrices(prices={}, complete=False, notes=[f"prices not used: {mismatch}"])
    return closures, prices
