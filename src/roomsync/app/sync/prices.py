"""PMS nightly prices within the budget: the core's detection planner, driven with real reads.

The planner (``roomsync.core.sync.price_detection``, docs/cost-model.md) decides which
``CombinedExtended`` windows to read; this module reads them, nearest first and a few at a time,
and keeps what it learns in the store's PMS price cache (``store.pms_prices``):

* a window whose total equals the sum of the cached nights settles them without nightly reads, so
  an unchanged horizon costs one read;
* a changed total is split until the changed nights are found;
* uncached nights (a cold cache, the night the horizon moved on to) are read one by one, nearest
  first, at most ``max_reads`` per sync: a cold cache is filled over successive syncs when the
  budget or the cap stops a sync before it is full. The changed windows' splits have a cap of
  their own (``max_narrowing_reads``), so a fill never starves the search for an edit. What each
  batch of reads learned is saved as soon as it is answered, so a run killed in the middle of a
  fill loses only the reads in flight: the next run (in this process, after a restart, or on
  another replica) reads none of the saved nights again.

The reads run at the ``PRICES`` priority, so the budget stops them (``QuotaExhausted``) before
availability pushes suffer. Whatever was not read keeps its cached price (a night with no cached
price has none: its channel price is left as it is).
"""

from __future__ import annotations

import asyncio
from collections.abc import Awaitable, Callable, Collection, Mapping
from dataclasses import dataclass, field
from datetime import date, datetime
from decimal import Decimal

from roomsync.adapters.client import QuotaExhausted, ServiceError
from roomsync.core.activity import edits_in
from roomsync.core.api.pms.availability import RoomTypeAvailabilityExtended
from roomsync.core.ports import PmsPriceCache
from roomsync.core.sync.desired import nights_through
from roomsync.core.sync.price_detection import (
    DEFAULT_WINDOW_NIGHTS,
    DetectionState,
    Totals,
    Window,
    next_reads,
    outcome,
    plan_detection,
    record,
    updated_cache,
)

WindowReader = Callable[[Window], Awaitable[RoomTypeAvailabilityExtended]]


class CurrencyMismatch(Exception):
    """The PMS prices come in another currency than the mapping declares."""


@dataclass
class PmsPrices:
    prices: dict[int, dict[date, Decimal]]
    """Nightly price per room type and night of the horizon (absent: not known)."""
    reads: int = 0
    complete: bool = True
    """False when the cap or the budget stopped the detection (unread windows keep cached prices)."""
    changed: int = 0
    """(room type, night) prices that differ from the cache (new ones included)."""
    edits: int = 0
    """The front-desk edits among them: runs of consecutive nights of a room type whose cached
    price changed (:func:`roomsync.core.activity.edits_in`; a night priced for the first time is
    not an edit)."""
    learned: int = 0
    unknown_nights: int = 0
    """(room type, night) pairs of the horizon with no price known after the run."""
    fill_reads: int = 0
    """Reads of nights that had no cached price (the cold cache's fill), a part of ``reads``."""
    unread_nights: int = 0
    """Nights of the horizon still without a price for some room type after the run."""
    first_unread: date | None = None
    """The first of them."""
    notes: list[str] = field(default_factory=list)
    failed: str | None = None
    """Why a read failed for good (retries spent): what was read before it is kept and cached."""


def _totals(answer: RoomTypeAvailabilityExtended, types: Collection[int], currency: str) -> Totals:
    totals: dict[int, Decimal | None] = {}
    for room in answer.available_rooms:
        if room.room_type_id not in types:
            continue
        if room.price is not None and room.currency_code and room.currency_code.upper() != currency:
            raise CurrencyMismatch(
                f"the PMS prices room type {room.room_type_id} in {room.currency_code}, but the mapping's "
                f"currency is {currency}; load a mapping in {room.currency_code}"
            )
        totals[room.room_type_id] = room.price
    return totals


async def detect_prices(
    read: WindowReader,
    cache: PmsPriceCache,
    property_id: str,
    room_type_ids: Collection[int],
    first: date,
    last: date,
    *,
    currency: str,
    now: datetime,
    max_reads: int,
    max_narrowing_reads: int,
    window_nights: int = DEFAULT_WINDOW_NIGHTS,
    concurrency: int = 4,
    answered: Mapping[Window, RoomTypeAvailabilityExtended] | None = None,
) -> PmsPrices:
    """Detect the prices of ``room_type_ids`` over ``first..last`` and update the cache.

    ``answered``: windows already read (the closure check's); the plan is cut at their starts and
    a planned window among them is settled from its answer, without a request."""
    types = sorted(set(room_type_ids))
    per_type = await asyncio.to_thread(cached_night_prices, cache, property_id, types, first, last, currency)
    cached = {(t, night): price for t, nights in per_type.items() for night, price in nights.items()}
    known = dict(answered or {})
    breaks = {window.first_night for window in known}
    state = plan_detection(types, first, last, cached, window_nights=window_nights, breaks=breaks)
    free = 0
    while ready := [window for window in next_reads(state) if window in known]:
        for window in ready:
            state = record(state, window, _totals(known.pop(window), set(types), currency))
            free += 1
    result = PmsPrices(prices={})

    saved: set[tuple[int, date]] = set()

    async def save_learned(learned: Mapping[tuple[int, date], Decimal | None]) -> None:
        priced = {key: price for key, price in learned.items() if price is not None}
        if priced:
            await asyncio.to_thread(_save_prices, cache, property_id, priced, currency, now)
            saved.update(priced)

    caps = ReadCaps(fill=max_reads, narrowing=max_narrowing_reads)
    state, stopped, failed, fill_reads = await _run_reads(
        read, state, set(types), currency, caps, concurrency, save_learned
    )
    result.fill_reads = fill_reads
    if stopped:
        result.notes.append(stopped)
    result.failed = failed
    found = outcome(state)
    result.reads = found.reads - free
    result.complete = found.complete
    result.learned = len(found.learned)
    result.changed = len(found.changed)
    result.edits = edits_in(key for key in found.changed if key in cached)
    fresh = updated_cache(state)
    unsaved = {key: price for key, price in found.learned.items() if key not in saved}
    await asyncio.to_thread(_save, cache, property_id, types, unsaved, fresh, currency, now)
    for (room_type_id, night), price in fresh.items():
        if first <= night <= last:
            result.prices.setdefault(room_type_id, {})[night] = price
    horizon_nights = (last - first).days + 1
    result.unknown_nights = sum(horizon_nights - len(result.prices.get(t, {})) for t in types)
    unread = unread_nights(result.prices, types, first, last)
    result.unread_nights = len(unread)
    result.first_unread = unread[0] if unread else None
    return result


def cached_night_prices(
    cache: PmsPriceCache,
    property_id: str,
    room_type_ids: Collection[int],
    first: date,
    last: date,
    currency: str,
) -> dict[int, dict[date, Decimal]]:
    """The nightly prices the cache holds per room type over ``first..last`` (no request); a price
    in another currency is not a price here."""
    return cache.read_prices_of_types(property_id, room_type_ids, first, last, currency)


def unread_nights(
    prices: Mapping[int, Mapping[date, Decimal]], types: Collection[int], first: date, last: date
) -> list[date]:
    """The nights of ``first..last`` without a price for some room type of ``types``, in order."""
    nights = nights_through(first, last)
    return [night for night in nights if any(night not in prices.get(t, {}) for t in types)]


@dataclass(frozen=True)
class ReadCaps:
    """The most reads one run spends on the cold cache's fill (nights with no cached price, read one
    by one) and on narrowing (the windows of cached nights, split where a total changed).

    Two caps, not one: with one, a free licence's 5 reads a run went to the nearest unread nights
    first, and a price edit in a 44-night window of cached nights, 6 reads deep, was never found
    (26 of 32 price edits not shown in the week bench, 2026-12-06)."""

    fill: int
    narrowing: int

    def batch(
        self, planned: list[Window], fills: Callable[[Window], bool], spent: tuple[int, int], most: int
    ) -> list[Window]:
        """The nearest of ``planned`` that each cap still affords (``spent``: fill and narrowing
        reads so far), at most ``most``."""
        left = {True: self.fill - spent[0], False: self.narrowing - spent[1]}
        batch: list[Window] = []
        for window in planned:
            kind = fills(window)
            if left[kind] > 0 and len(batch) < most:
                left[kind] -= 1
                batch.append(window)
        return batch


async def _run_reads(
    read: WindowReader,
    state: DetectionState,
    types: set[int],
    currency: str,
    caps: ReadCaps,
    concurrency: int,
    save: Callable[[Mapping[tuple[int, date], Decimal | None]], Awaitable[None]],
) -> tuple[DetectionState, str | None, str | None, int]:
    """Read until done, the caps, the budget or a read that failed for good stops it; returns the
    state (every answer received is recorded, and saved by ``save`` batch by batch, so the cache
    keeps it), why it stopped, the failure when a read failed, and the fill reads (of nights that
    had no cached price)."""
    fill_reads = narrowing_reads = 0
    saved: set[tuple[int, date]] = set()

    def fills(window: Window) -> bool:
        return window.nights == 1 and any((t, window.first_night) not in state.cached for t in types)

    async def save_new() -> None:
        fresh = {key: price for key, price in state.learned.items() if key not in saved}
        saved.update(fresh)
        await save(fresh)

    while not state.done:
        batch = caps.batch(next_reads(state), fills, (fill_reads, narrowing_reads), max(1, concurrency))
        if not batch:
            return (
                state,
                f"price detection stopped after {state.reads} reads (the run's caps: {caps.fill} "
                f"unread nights, {caps.narrowing} narrowing reads)",
                None,
                fill_reads,
            )
        answers = await asyncio.gather(*(read(window) for window in batch), return_exceptions=True)
        refused = False
        failure: ServiceError | None = None
        for window, answer in zip(batch, answers, strict=True):
            if isinstance(answer, QuotaExhausted):
                refused = True
                continue
            if isinstance(answer, ServiceError):  # the client's retries are spent: stop, keep the rest
                failure = failure or answer
                continue
            if isinstance(answer, BaseException):
                raise answer
            if fills(window):
                fill_reads += 1
            else:
                narrowing_reads += 1
            state = record(state, window, _totals(answer, types, currency))
        await save_new()
        if failure is not None:
            return (
                state,
                f"price detection stopped after {state.reads} reads: a read failed ({failure}); "
                "what was read is kept and the next sync goes on from there",
                str(failure),
                fill_reads,
            )
        if refused:
            return (
                state,
                f"price detection stopped after {state.reads} reads: the day's budget for prices is spent",
                None,
                fill_reads,
            )
    return state, None, None, fill_reads


def _save(
    cache: PmsPriceCache,
    property_id: str,
    types: list[int],
    learned: dict[tuple[int, date], Decimal | None],
    fresh: dict[tuple[int, date], Decimal],
    currency: str,
    now: datetime,
) -> None:
    for room_type_id in types:
        if any(price is None for (t, _), price in learned.items() if t == room_type_id):
            # a night the PMS no longer prices must leave the cache; the port forgets per room type
            cache.clear_pms_prices(property_id, room_type_id)
            keep = {night: price for (t, night), price in fresh.items() if t == room_type_id}
        else:
            keep = {
                night: price
                for (t, night), price in learned.items()
                if t == room_type_id and price is not None
            }
        if keep:
            cache.save_night_prices(property_id, room_type_id, keep, currency, now)


def _save_prices(
    cache: PmsPriceCache,
    property_id: str,
    priced: Mapping[tuple[int, date], Decimal],
    currency: str,
    now: datetime,
) -> None:
    """Save fresh nightly prices as they come (the run's end saves what no batch did, and a room
    type's whole cache again where the PMS stopped pricing a night)."""
    per_type: dict[int, dict[date, Decimal]] = {}
    for (room_type_id, night), price in priced.items():
        per_type.setdefault(room_type_id, {})[night] = price
    cache.save_prices_of_types(property_id, per_type, currency, now)
