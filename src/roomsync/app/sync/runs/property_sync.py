"""What every run of one property shares (:class:`PropertySync`) and the helpers they read it with:
the horizon, the mapping, the listings' states, the closures the store holds, the cached prices."""

from __future__ import annotations

import asyncio
import logging
import math
from collections.abc import Callable, Collection, Iterable, Sequence
from dataclasses import dataclass, field, replace
from datetime import UTC, date, datetime, timedelta

from roomsync.adapters.client import ServiceClient
from roomsync.adapters.store import Store
from roomsync.app.sync.channel import ListingRun
from roomsync.app.sync.errors import NoMapping, RequestRefused
from roomsync.app.sync.history_writer import RunStamp
from roomsync.app.sync.pauses import pause_reason
from roomsync.app.sync.pms import PmsFacts, PmsRead
from roomsync.app.sync.prices import PmsPrices, cached_night_prices
from roomsync.app.sync.read_memo import FreeRoomsMemo
from roomsync.app.sync.recorder import RunRecorder
from roomsync.app.sync.report import ListingOutcome, SyncReport
from roomsync.core.catalog.types import Priority
from roomsync.core.mapping import ListingMapping, Mapping
from roomsync.core.ports import ListingFacts, ListingKey, ListingState, LocatedClosures
from roomsync.core.sync.desired import nights_through, spans_of
from roomsync.core.sync.price_detection import DEFAULT_WINDOW_NIGHTS
from roomsync.metrics import Metrics
from roomsync.property_context import PropertyContext
from roomsync.settings import Settings, UnreadPriceNights

log = logging.getLogger("roomsync.sync")

ProgressHook = Callable[[str, int, int], None]
"""Called as ``(stage, done, total)`` while a run progresses (the CLI draws a bar from it)."""

Window = tuple[date | None, date | None]
"""A run's first and last night, None for the horizon's own."""


def utc_now() -> datetime:
    return datetime.now(UTC)


def no_progress(stage: str, done: int, total: int) -> None:
    return None


@dataclass(frozen=True)
class SyncOptions:
    price_reads_per_sync: int | None = None
    """Most ``CombinedExtended`` reads one sync may spend on prices; None: ``price_read_share`` of
    the daily quota."""
    price_read_share: float = 0.25
    """A command-line sync may fill a cold price cache with a quarter of the day."""
    price_read_cap: Callable[[], int] | None = None
    """Asked at the start of each run for its most price reads, when set (the daemon's: what the
    day's plan affords, :func:`roomsync.app.daemon.price_reads.price_read_allowance`); it wins over
    the other two."""
    price_window_nights: int = DEFAULT_WINDOW_NIGHTS
    concurrency: int = 4
    """Requests in flight at once (price windows, listings)."""


@dataclass(frozen=True)
class PropertySync:
    """One property's context, store, client, run recorder, clock and options: what every kind of
    run (``roomsync.app.sync.runs``) is a function of."""

    context: PropertyContext
    store: Store
    client: ServiceClient
    recorder: RunRecorder
    clock: Callable[[], datetime] = utc_now
    options: SyncOptions = field(default_factory=SyncOptions)
    progress: ProgressHook = no_progress
    free_rooms_memo: FreeRoomsMemo = field(default_factory=FreeRoomsMemo, compare=False)
    """The last free-room read a poll decoded (:mod:`roomsync.app.sync.read_memo`)."""

    @classmethod
    def of(
        cls,
        context: PropertyContext,
        store: Store,
        client: ServiceClient,
        *,
        metrics: Metrics | None = None,
        clock: Callable[[], datetime] = utc_now,
        options: SyncOptions | None = None,
        progress: ProgressHook = no_progress,
    ) -> PropertySync:
        """The runs of ``context``'s property through ``client`` with ``store``, recorded (and
        counted in ``metrics``) by a recorder of their own."""
        recorder = RunRecorder(context, store, client, metrics=metrics, clock=clock)
        return cls(context, store, client, recorder, clock, options or SyncOptions(), progress)

    @property
    def property_id(self) -> str:
        return self.context.property_id

    @property
    def settings(self) -> Settings:
        return self.context.settings

    def key(self, entry: ListingMapping) -> ListingKey:
        """The key of a listing of this property's mapping."""
        return entry.listing_key(self.property_id)


def horizon(sync: PropertySync, window: Window = (None, None)) -> list[date]:
    """The nights of the horizon from today, or of ``window`` inside it (a ``ValueError`` when
    ``window`` is outside it)."""
    today = sync.clock().date()
    first, last = today, today + timedelta(days=sync.settings.horizon_days - 1)
    wanted_first = max(first, window[0]) if window[0] else first
    wanted_last = min(last, window[1]) if window[1] else last
    if wanted_first > wanted_last:
        raise ValueError(f"the dates {window[0]}..{window[1]} are outside the sync horizon {first}..{last}")
    return nights_through(wanted_first, wanted_last)


def near_nights(sync: PropertySync) -> tuple[date, date, list[date]]:
    """Tonight, the last night a detection checks (``detect_nights`` on) and the horizon."""
    nights = horizon(sync)
    return nights[0], min(nights[-1], nights[0] + timedelta(days=sync.settings.detect_nights - 1)), nights


async def load_mapping(sync: PropertySync) -> Mapping:
    return await asyncio.to_thread(mapping_of, sync)


def mapping_of(sync: PropertySync) -> Mapping:
    """The property's mapping, read in the caller's thread; :class:`NoMapping` when it has none."""
    mapping = sync.store.mappings.load_mapping(sync.property_id)
    if mapping is None:
        raise NoMapping(
            f"property {sync.property_id!r} has no mapping: load one with `roomsync mappings load FILE` "
            "(`roomsync mappings suggest` prints a starting point)"
        )
    return mapping


def unmapped(sync: PropertySync, mapping: Mapping, listings: Collection[ListingKey]) -> str | None:
    """What of ``listings`` the mapping does not have, said for the caller (None: all mapped)."""
    unknown = sorted(set(listings) - {sync.key(entry) for entry in mapping.listings})
    if not unknown:
        return None
    named = (
        key.text if key.property_id == sync.property_id else f"{key.text} of property {key.property_id}"
        for key in unknown
    )
    return "not in the mapping: " + ", ".join(named)


async def check_request(sync: PropertySync, listings: Collection[ListingKey] | None, window: Window) -> None:
    """Raise :class:`RequestRefused` for a listing not in the mapping or dates outside the
    horizon, before any run is recorded (an operator's mistake is not a failed sync)."""
    try:
        horizon(sync, window)
    except ValueError as error:
        raise RequestRefused(str(error)) from None
    if listings:
        unknown = unmapped(sync, await load_mapping(sync), listings)
        if unknown:
            raise RequestRefused(unknown)


NARROWING_SHARE = 0.15
"""The least of the quota a run may spend splitting changed price windows to the edited nights
(15 reads on a free licence, where an edit in a 90-night window takes 7), beside the fill's cap."""


def price_read_caps(sync: PropertySync) -> tuple[int, int]:
    """The most reads this run may spend on unread nights (:func:`max_price_reads`) and on narrowing
    changed price windows: the fill's cap, and never fewer than ``NARROWING_SHARE`` of the quota
    (the budget's reserve for prices stops them too)."""
    fill_reads = max_price_reads(sync)
    return fill_reads, max(fill_reads, math.ceil(sync.client.gate.quota * NARROWING_SHARE))


def max_price_reads(sync: PropertySync) -> int:
    """The most PMS price reads this run may spend (see :class:`SyncOptions`)."""
    options = sync.options
    if options.price_read_cap is not None:
        return max(1, options.price_read_cap())
    if options.price_reads_per_sync is not None:
        return options.price_reads_per_sync
    quota = sync.client.gate.quota  # the server's quota once it said one
    return max(1, math.ceil(quota * options.price_read_share))


def pms_read(
    sync: PropertySync,
    mapping: Mapping,
    room_types: Collection[int],
    first: date,
    last: date,
    *,
    located: LocatedClosures,
    now: datetime,
    relocate_closures: bool,
    closure_types: Collection[int],
) -> PmsRead:
    """The PMS read of a run of ``sync`` (its price reads, windows and concurrency from the options)."""
    return PmsRead(
        sync.client,
        sync.store,
        sync.property_id,
        room_types,
        first,
        last,
        currency=mapping.currency,
        located=located,
        now=now,
        relocate_closures=relocate_closures,
        price_read_caps=lambda: price_read_caps(sync),
        price_window_nights=sync.options.price_window_nights,
        concurrency=sync.options.concurrency,
        closure_types=closure_types,
    )


async def listing_states(
    sync: PropertySync, listings: Sequence[ListingMapping]
) -> dict[ListingKey, ListingState]:
    return await asyncio.to_thread(states_of, sync, listings)


def states_of(sync: PropertySync, listings: Sequence[ListingMapping]) -> dict[ListingKey, ListingState]:
    """The state of each of ``listings``, read in the caller's thread (a new one for a listing
    the store does not know)."""
    # one query for the property's listings, not one per listing: every run starts here
    listed = sync.store.listing_states.list_listing_states(sync.property_id)
    known = {state.listing: state for state in listed}
    return {key: known.get(key) or ListingState(listing=key) for key in map(sync.key, listings)}


def active_types(
    property_id: str,
    listings: Iterable[ListingMapping],
    states: dict[ListingKey, ListingState],
    facts: dict[ListingKey, ListingFacts],
) -> list[int]:
    """The room types of the listings of ``property_id`` roomsync may push to: only their
    closures matter (a type whose every listing is paused or not connected is checked again once
    one is resumed)."""
    active: set[int] = set()
    for entry in listings:
        key = entry.listing_key(property_id)
        if pause_reason(states[key], facts.get(key)) is None:
            active.add(entry.room_type_id)
    return sorted(active)


async def watched_types(sync: PropertySync, mapping: Mapping) -> tuple[list[int], list[int]]:
    """The room types whose closures a detection checks: those of the listings roomsync may
    push to (a type whose every listing is paused or not connected needs no closure check
    until one is resumed, which the next full sync sees); and those whose prices it detects:
    these and the types feeding the connected channels (whose prices closures do not touch)."""
    states = await listing_states(sync, mapping.listings)
    facts = await asyncio.to_thread(sync.store.sync_state.listing_facts, sync.property_id)
    active = active_types(sync.property_id, mapping.listings, states, facts)
    return active, sorted(set(active) | {push.room_type_id for push in mapping.connected})


def cached_prices(
    sync: PropertySync, mapping: Mapping, room_types: set[int], first: date, last: date
) -> PmsPrices:
    """The PMS prices the store holds for ``room_types`` over ``first..last`` (no request)."""
    cached = cached_night_prices(
        sync.store.pms_prices, sync.property_id, room_types, first, last, mapping.currency
    )
    return PmsPrices(prices=cached)


async def save_closures(
    sync: PropertySync, facts: PmsFacts, room_types: Iterable[int], read_at: datetime
) -> None:
    """Keep the closures this run read, per room type it read (an open one: no runs)."""
    closures = facts.closures
    stale = await asyncio.to_thread(
        sync.store.sync_state.save_closures,
        sync.property_id,
        read_at,
        spans_of(closures.property_closed),
        {t: closures.runs_of(t) for t in room_types},
    )
    if stale:
        log.info("closures of %s read meanwhile by another run were kept (newer)", sorted(stale, key=str))


async def forget_digests(sync: PropertySync, outcomes: Iterable[ListingOutcome]) -> None:
    """After writing outside a full sync: the listings' recorded digests no longer describe
    their ledgers, so the next full sync must not skip them; their versions move on, so a
    full sync running meanwhile (in any process) cannot keep a digest it computed before."""
    keys = {ListingKey(sync.property_id, o.account_id, o.listing_id) for o in outcomes}
    await asyncio.to_thread(sync.store.sync_state.forget_digests, keys)


def close_unpriced(sync: PropertySync) -> bool:
    """Whether a night with no known PMS price is pushed unavailable (``unread_price_nights``)."""
    return sync.settings.unread_price_nights is UnreadPriceNights.CLOSE


def stamp(sync: PropertySync, report: SyncReport) -> RunStamp:
    """What the history of the nights ``report``'s run writes says of the run."""
    return RunStamp(report.kind, report.run_id, report.trigger, sync.settings.history_keep_days)


def listing_run(sync: PropertySync, report: SyncReport, nights: list[date]) -> ListingRun:
    """What every listing of ``report``'s run over ``nights`` shares, with the default flags
    (a run of another kind sets its own with ``dataclasses.replace``)."""
    return ListingRun(
        client=sync.client,
        store=sync.store,
        property_id=sync.property_id,
        nights=nights,
        clock=sync.clock,
        max_dates_per_request=sync.settings.max_dates_per_request,
        stamp=stamp(sync, report),
        close_unpriced=close_unpriced(sync),
    )


def ledger_run(
    sync: PropertySync, report: SyncReport, nights: list[date], priority: Priority | None = None
) -> ListingRun:
    """A run that writes from the ledger only (poll, targeted push, detection): a listing the
    ledger does not know is left to the full sync."""
    return replace(listing_run(sync, report, nights), write_priority=priority, require_ledger=True)
