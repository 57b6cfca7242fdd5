"""The sync engine: read the PMS within the budget, compare, compile with the pure core, send, record.

Entry points (the daemon calls them; the CLI too):

* :meth:`SyncEngine.sync_property`: one incremental sync of every mapped listing and of the
  connected channels' prices. Listings the ledger knows cost nothing to compare; a listing seen
  for the first time has its channel calendar read once.
* :meth:`SyncEngine.plan`: the same as a dry run. Nothing is sent to the channel; the reads
  still cost requests, and what they learned (PMS prices, closures, a first channel read) is kept
  so the sync that follows does not pay for it twice.
* :meth:`SyncEngine.resync`: ignore the ledger: re-read the channel (some listings, some dates)
  and push the whole difference; with every listing, re-push every connected-channel price.
* :meth:`SyncEngine.reconcile`: a resync of everything at the ``RECONCILE`` priority that also
  locates the room-type closures again and counts the days that had drifted from the ledger.
* :meth:`SyncEngine.push_nights`: the overbooking guard's targeted push of a few nights of one
  room type (one PMS read, one PUT per listing of the type, at ``GUEST`` priority by default).
* :meth:`SyncEngine.poll_availability`: the daemon's frequent poll (one PMS read when nothing
  changed) and :meth:`SyncEngine.repush_connected_prices`: its daily connected-price repair.

Every run is recorded by the :class:`~roomsync.app.sync.recorder.RunRecorder` in
``store.sync_runs`` (a plan is not: it writes nothing), with the requests it spent, the
operations and price elements the service accepted, and its result.
The request count model is in docs/sync.md.
"""

from __future__ import annotations

import asyncio
import logging
import math
from collections.abc import Callable, Collection, Iterable, Sequence
from dataclasses import dataclass, replace
from datetime import UTC, date, datetime, timedelta

from roomsync.adapters.client import QuotaExhausted, ServiceClient
from roomsync.adapters.store import Store
from roomsync.app.sync.channel import ListingRun, sync_listing
from roomsync.app.sync.closures import (
    Closures,
    changed_room_types,
    remembered,
    remembered_closures,
    spans_of,
    with_nights_replaced,
)
from roomsync.app.sync.connected import push_connected_prices
from roomsync.app.sync.errors import NoMapping, RequestRefused
from roomsync.app.sync.fingerprint import TypeDigests, listing_digest
from roomsync.app.sync.own_reservations import own_reserved_rooms
from roomsync.app.sync.pauses import (
    MANAGED_CATEGORIES,
    ROOM_TYPE_GONE,
    pause_reason,
    room_type_gone,
)
from roomsync.app.sync.pms import (
    PmsFacts,
    counts_of,
    read_closures_and_prices,
    read_free_room_ids,
    read_free_rooms,
    read_pms,
)
from roomsync.app.sync.prices import PmsPrices, cached_night_prices
from roomsync.app.sync.recorder import RunRecorder
from roomsync.app.sync.report import ListingOutcome, ListingStatus, SyncReport
from roomsync.core.catalog.types import Priority
from roomsync.core.mapping import ListingMapping, Mapping
from roomsync.core.ports import ListingFacts, ListingKey, ListingState, StoredDigest
from roomsync.core.sync.closure_windows import check_windows
from roomsync.core.sync.desired import nights_through
from roomsync.core.sync.price_detection import DEFAULT_WINDOW_NIGHTS, Window
from roomsync.metrics import Metrics
from roomsync.property import PropertyContext
from roomsync.settings import UnreadPriceNights

log = logging.getLogger("roomsync.sync")

ProgressHook = Callable[[str, int, int], None]
"""Called as ``(stage, done, total)`` while a run progresses (the CLI draws a bar from it)."""

POLL = "poll"
DETECT = "detect"
REPUSH = "repush"
UNTOUCHED = frozenset({ListingStatus.UNCHANGED, ListingStatus.PAUSED, ListingStatus.SKIPPED})
"""A run's listing outcomes that leave a listing's ledger as it was."""

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
    day's plan affords, :func:`roomsync.app.daemon.planning.price_read_allowance`); it wins over
    the other two."""
    price_window_nights: int = DEFAULT_WINDOW_NIGHTS
    concurrency: int = 4
    """Requests in flight at once (price windows, listings)."""


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


class SyncEngine:
    """Syncs one property (its :class:`PropertyContext`) through ``client`` with ``store``."""

    def __init__(
        self,
        context: PropertyContext,
        store: Store,
        client: ServiceClient,
        *,
        metrics: Metrics | None = None,
        clock: Callable[[], datetime] = utc_now,
        options: SyncOptions | None = None,
        progress: ProgressHook = no_progress,
    ) -> None:
        self.context = context
        self.settings = context.settings
        self.store = store
        self.client = client
        self.property_id = context.property_id
        self.sync_state = store.sync_state
        """Closures, listing facts and digests kept between runs, as rows (compare-and-set)."""
        self.clock = clock
        self.options = options or SyncOptions()
        self.progress = progress
        self.recorder = RunRecorder(context, store, client, metrics=metrics, clock=clock)

    @property
    def metrics(self) -> Metrics | None:
        """Where the runs are counted (the recorder's)."""
        return self.recorder.metrics

    @metrics.setter
    def metrics(self, metrics: Metrics | None) -> None:
        self.recorder.metrics = metrics

    @property
    def runs_in_flight(self) -> set[int]:
        """Ids of this engine's runs in progress (alive, whatever their heartbeat says)."""
        return self.recorder.runs_in_flight

    @property
    def runs_starting(self) -> int:
        """Runs of this engine being recorded, their ids not known yet."""
        return self.recorder.runs_starting

    # --- entry points ---------------------------------------------------------------------------

    async def sync_property(self) -> SyncReport:
        return await self.recorder.run("sync", False, lambda report: self._full(report))

    async def plan(self) -> SyncReport:
        return await self.recorder.run("plan", True, lambda report: self._full(report, dry_run=True))

    async def resync(
        self,
        listings: Collection[ListingKey] | None = None,
        date_from: date | None = None,
        date_to: date | None = None,
    ) -> SyncReport:
        """Re-read the channel of ``listings`` (all when None) over ``date_from..date_to``.

        Raises :class:`RequestRefused` for a listing not in the mapping or dates outside the
        horizon, before any run is recorded (an operator's mistake is not a failed sync)."""
        await self._check_request(listings, (date_from, date_to))

        async def body(report: SyncReport) -> None:
            await self._full(
                report,
                only=set(listings) if listings else None,
                window=(date_from, date_to),
                read_channel=True,
                relocate_closures=True,
                ignore_price_ledger=not listings,
            )

        return await self.recorder.run("resync", False, body)

    async def plan_resync(
        self,
        listings: Collection[ListingKey] | None = None,
        date_from: date | None = None,
        date_to: date | None = None,
    ) -> SyncReport:
        """Dry run of :meth:`resync` (the console shows it before an admin confirms): the reads
        are real, one channel read per listing among them; nothing is written."""
        await self._check_request(listings, (date_from, date_to))

        async def body(report: SyncReport) -> None:
            only = set(listings) if listings else None
            window = (date_from, date_to)
            await self._full(
                report, dry_run=True, only=only, window=window, read_channel=True, relocate_closures=True
            )

        return await self.recorder.run("plan", True, body)

    async def reconcile(self) -> SyncReport:
        async def body(report: SyncReport) -> None:
            await self._full(
                report,
                read_channel=True,
                relocate_closures=True,
                read_priority=Priority.RECONCILE,
            )

        return await self.recorder.run("reconcile", False, body)

    async def push_nights(
        self,
        room_type_id: int,
        nights: Iterable[date],
        *,
        priority: Priority = Priority.GUEST,
        exclude_listing_id: str | None = None,
    ) -> SyncReport:
        """Push ``nights`` of ``room_type_id`` to its listings now (not ``exclude_listing_id``)."""
        wanted = sorted(set(nights))
        return await self.recorder.run(
            "push_nights",
            False,
            lambda report: self._push(report, room_type_id, wanted, priority, exclude_listing_id),
        )

    async def poll_availability(self) -> SyncReport:
        """The cheap, frequent poll: ONE PMS read (free rooms of every room type over the horizon),
        the closures and prices the store holds, then one ``PUT Inventory`` per listing whose
        calendar changed. An unchanged property costs one request. A listing the ledger does not
        know yet is left to the full sync."""
        return await self.recorder.run(POLL, False, self._poll)

    async def detect_changes(self) -> SyncReport:
        """The daemon's closure and price detection over the first ``detect_nights`` nights: the
        closure check's windows (one read when no room-type closure is known there; they also
        settle the price detection), then, only when a closure or a price changed, one free-room
        read and one ``PUT Inventory`` per listing whose calendar changed, and the connected
        prices. An unchanged property costs the check's reads."""
        return await self.recorder.run(DETECT, False, self._detect)

    async def repush_connected_prices(self) -> SyncReport:
        """Every desired connected-channel price again in ONE ``POST Prices``, from the cached PMS
        prices (no PMS read), ledger ignored: the service gives no way to read those prices back,
        so an occasional full re-push is the only repair."""
        return await self.recorder.run(REPUSH, False, self._repush)

    async def nights_changed(
        self,
        property_id: str,
        room_type_id: int,
        nights: Sequence[date],
        *,
        source_listing_id: str | None = None,
    ) -> None:
        """The webhook bridge's ``NightsChanged`` hook: the overbooking guard's push, at GUEST priority.

        Failures are in the report and the run record; the bridge keeps the nights and retries.
        """
        if property_id != self.property_id:
            raise ValueError(f"this engine syncs property {self.property_id!r}, not {property_id!r}")
        report = await self.push_nights(room_type_id, nights, exclude_listing_id=source_listing_id)
        if report.result not in ("ok", "ok_with_warnings"):
            raise RuntimeError(f"pushing {len(nights)} nights of room type {room_type_id}: {report.result}")

    # --- the run record ------------------------------------------------------------------------

    async def _forget_digests(self, outcomes: Iterable[ListingOutcome]) -> None:
        """After writing outside a full sync: the listings' recorded digests no longer describe
        their ledgers, so the next full sync must not skip them; their versions move on, so a
        full sync running meanwhile (in any process) cannot keep a digest it computed before."""
        keys = {ListingKey(self.property_id, o.account_id, o.listing_id) for o in outcomes}
        await asyncio.to_thread(self.sync_state.forget_digests, keys)

    # --- a full run ------------------------------------------------------------------------------

    async def _check_request(
        self, listings: Collection[ListingKey] | None, window: tuple[date | None, date | None]
    ) -> None:
        try:
            self._horizon(window)
        except ValueError as error:
            raise RequestRefused(str(error)) from None
        if listings:
            mapping = await self._mapping()
            unknown = self._unmapped(mapping, listings)
            if unknown:
                raise RequestRefused(unknown)

    def _key(self, entry: ListingMapping) -> ListingKey:
        """The key of a listing of this engine's property's mapping."""
        return entry.listing_key(self.property_id)

    def _unmapped(self, mapping: Mapping, listings: Collection[ListingKey]) -> str | None:
        """What of ``listings`` the mapping does not have, said for the caller (None: all mapped)."""
        unknown = sorted(set(listings) - {self._key(entry) for entry in mapping.listings})
        if not unknown:
            return None
        named = (
            key.text if key.property_id == self.property_id else f"{key.text} of property {key.property_id}"
            for key in unknown
        )
        return "not in the mapping: " + ", ".join(named)

    def _horizon(self, window: tuple[date | None, date | None] = (None, None)) -> list[date]:
        today = self.clock().date()
        first, last = today, today + timedelta(days=self.settings.horizon_days - 1)
        wanted_first = max(first, window[0]) if window[0] else first
        wanted_last = min(last, window[1]) if window[1] else last
        if wanted_first > wanted_last:
            raise ValueError(
                f"the dates {window[0]}..{window[1]} are outside the sync horizon {first}..{last}"
            )
        return nights_through(wanted_first, wanted_last)

    @property
    def _close_unpriced(self) -> bool:
        return self.settings.unread_price_nights is UnreadPriceNights.CLOSE

    def _max_price_reads(self) -> int:
        if self.options.price_read_cap is not None:
            return max(1, self.options.price_read_cap())
        if self.options.price_reads_per_sync is not None:
            return self.options.price_reads_per_sync
        quota = self.client.budget().quota  # the server's quota once it said one
        return max(1, math.ceil(quota * self.options.price_read_share))

    async def _mapping(self) -> Mapping:
        mapping = await asyncio.to_thread(self.store.mappings.load_mapping, self.property_id)
        if mapping is None:
            raise NoMapping(
                f"property {self.property_id!r} has no mapping: load one with `roomsync mappings load FILE` "
                "(`roomsync mappings suggest` prints a starting point)"
            )
        return mapping

    async def _full(
        self,
        report: SyncReport,
        *,
        dry_run: bool = False,
        only: set[ListingKey] | None = None,
        window: tuple[date | None, date | None] = (None, None),
        read_channel: bool = False,
        relocate_closures: bool = False,
        read_priority: Priority = Priority.AVAILABILITY,
        ignore_price_ledger: bool = False,
    ) -> None:
        mapping = await self._mapping()
        nights = self._horizon(window)
        report.first_night, report.last_night = nights[0], nights[-1]
        listings = [entry for entry in mapping.listings if only is None or self._key(entry) in only]
        if only is not None:
            unknown = self._unmapped(mapping, only)
            if unknown:
                raise ValueError(unknown)
        located = await asyncio.to_thread(self.sync_state.located_closures, self.property_id)
        states = await self._listing_states(listings)
        if read_channel or any(s.sync_category is None and not s.paused for s in states.values()):
            await self._read_listings(mapping.listings, read_priority, report)
            states = await self._listing_states(listings)
        pushes = mapping.connected if only is None else ()
        room_types = sorted({entry.room_type_id for entry in listings} | {p.room_type_id for p in pushes})
        listing_facts = await asyncio.to_thread(self.sync_state.listing_facts, self.property_id)
        closure_types = active_types(self.property_id, listings, states, listing_facts)
        self.progress("pms", 0, 1)
        read_at = self.clock()
        facts = await read_pms(
            self.client,
            self.store,
            self.property_id,
            room_types,
            nights[0],
            nights[-1],
            currency=mapping.currency,
            located=located,
            now=read_at,
            relocate_closures=relocate_closures,
            max_price_reads=self._max_price_reads(),
            price_window_nights=self.options.price_window_nights,
            concurrency=self.options.concurrency,
            closure_types=closure_types,
        )
        horizon = self._horizon()
        if (nights[0], nights[-1]) == (horizon[0], horizon[-1]):
            await self._save_closures(facts, closure_types, read_at)
        else:  # a date range: the closures located outside it stay (polls and guest checks use them)
            known = remembered(located, horizon[0], horizon[-1])
            kept = with_nights_replaced(known, facts.closures, nights[0], nights[-1], closure_types)
            await self._save_closures(replace(facts, closures=kept), closure_types, read_at)
        if facts.free_room_ids is not None:  # the guests' checks answer from it: fresh for free
            await asyncio.to_thread(
                self.store.availability_view.save_read,
                self.property_id,
                read_at,
                facts.free_rooms,
                facts.free_room_ids,
            )
        self._summarise_pms(report, facts, len(room_types))
        self.progress("pms", 1, 1)
        run = ListingRun(
            client=self.client,
            store=self.store,
            property_id=self.property_id,
            nights=nights,
            clock=self.clock,
            max_dates_per_request=self.settings.max_dates_per_request,
            close_unpriced=self._close_unpriced,
            dry_run=dry_run,
            read_channel=read_channel,
            read_priority=read_priority,
            trust_digests=not read_channel,
        )
        report.listings = await self._listings(run, listings, facts, states)
        if pushes:
            self.progress("prices", 0, 1)
            report.prices = await push_connected_prices(
                self.client,
                self.store,
                self.property_id,
                pushes,
                facts.prices.prices,
                nights,
                clock=self.clock,
                dry_run=dry_run,
                ignore_ledger=ignore_price_ledger,
            )
            self.progress("prices", 1, 1)

    async def _save_closures(self, facts: PmsFacts, room_types: Iterable[int], read_at: datetime) -> None:
        """Keep the closures this run read, per room type it read (an open one: no runs)."""
        closures = facts.closures
        stale = await asyncio.to_thread(
            self.sync_state.save_closures,
            self.property_id,
            read_at,
            spans_of(closures.property_closed),
            {t: spans_of(closures.closed_for(t)) for t in room_types},
        )
        if stale:
            log.info("closures of %s read meanwhile by another run were kept (newer)", sorted(stale, key=str))

    def _summarise_pms(self, report: SyncReport, facts: PmsFacts, room_types: int) -> None:
        summary = report.pms
        summary.room_types = room_types
        summary.availability_reads = 1
        summary.closure_reads = facts.closures.reads
        summary.closures_located = facts.closures.located
        summary.closures_remembered = facts.closures.remembered
        summary.price_reads = facts.prices.reads
        summary.prices_complete = facts.prices.complete
        summary.prices_failed = facts.prices.failed
        summary.prices_changed = facts.prices.changed
        summary.prices_unknown = facts.prices.unknown_nights
        summary.price_fill_reads = facts.prices.fill_reads
        summary.prices_unread_nights = facts.prices.unread_nights
        summary.first_unread_night = facts.prices.first_unread
        report.notes.extend(facts.closures.notes)
        report.notes.extend(facts.prices.notes)

    async def synced_every_listing_since(self, since: datetime) -> bool:
        """Whether every mapped listing roomsync manages (not paused, connected as ``Full`` or
        ``Limited``) was synced at ``since`` or later, and the connection of every other one is
        known (a listing mapped after ``since`` is neither); False without a mapping."""
        mapping = await asyncio.to_thread(self.store.mappings.load_mapping, self.property_id)
        if mapping is None:
            return False
        states = await self._listing_states(mapping.listings)
        floor = since if since.tzinfo else since.replace(tzinfo=UTC)

        def synced(state: ListingState) -> bool:
            at = state.last_synced_at
            return at is not None and (at if at.tzinfo else at.replace(tzinfo=UTC)) >= floor

        def covered(state: ListingState) -> bool:
            if state.sync_category is None:
                return False
            return state.paused or state.sync_category not in MANAGED_CATEGORIES or synced(state)

        return all(covered(state) for state in states.values())

    async def _listing_states(self, listings: Sequence[ListingMapping]) -> dict[ListingKey, ListingState]:
        def load() -> dict[ListingKey, ListingState]:
            get = self.store.listing_states.get_listing_state
            return {key: get(key) for key in map(self._key, listings)}

        return await asyncio.to_thread(load)

    async def _read_listings(
        self, listings: Sequence[ListingMapping], priority: Priority, report: SyncReport
    ) -> None:
        """``GET Listings`` (one request): connection state and room count of every mapped listing."""
        try:
            found = {
                ListingKey(self.property_id, x.account_id, x.listing_id): x
                for x in await self.client.list_listings(priority=priority)
            }
        except QuotaExhausted:
            report.notes.append(
                "the listings were not read (budget): their connection state is as last known"
            )
            return
        read_at = self.clock()

        def record() -> None:
            states = self.store.listing_states
            facts: list[ListingFacts] = []
            for entry in listings:
                key = self._key(entry)
                listing = found.get(key)
                if listing is None:
                    facts.append(ListingFacts(key, True, None, read_at))
                    continue
                facts.append(ListingFacts(key, False, listing.total_inventory_count, read_at))
                states.set_sync_category(key, listing.connected.value)
                states.set_approval_status(key, listing.approval_status.status_category.value)
                states.set_has_availability(key, listing.has_availability)
            self.sync_state.save_listing_facts(facts)

        await asyncio.to_thread(record)

    async def _listings(
        self,
        run: ListingRun,
        listings: Sequence[ListingMapping],
        facts: PmsFacts,
        states: dict[ListingKey, ListingState],
    ) -> list[ListingOutcome]:
        bookings = await asyncio.to_thread(
            self.store.webhook_records.list_bookings, self.property_id
        )
        own = own_reserved_rooms(bookings)
        listing_facts = await asyncio.to_thread(self.sync_state.listing_facts, self.property_id)
        # read before any listing is compared: a digest may be kept only if its row is unchanged
        # since (a targeted push or poll in any process moves the version on)
        digests = await asyncio.to_thread(self.sync_state.digests, self.property_id)
        types = TypeDigests(
            run.nights,
            facts.free_rooms,
            facts.closures.room_types,
            facts.closures.property_closed,
            facts.prices.prices,
            close_unpriced=run.close_unpriced,
        )
        gate = asyncio.Semaphore(max(1, self.options.concurrency))
        done = 0
        total = len(listings)
        self.progress("listings", 0, total)

        await self._pause_for_missing_room_types(listings, facts, states, dry_run=run.dry_run)

        async def one(entry: ListingMapping) -> ListingOutcome:
            nonlocal done
            key = self._key(entry)
            known = listing_facts.get(key)
            stored = digests.get(key)
            reason = pause_reason(states[key], known)
            count_cap = known.total_inventory_count if known is not None else None
            own_nights = own.get(entry.listing_id, {})
            digest = listing_digest(types, entry, own_nights, count_cap)
            if reason is not None:
                outcome = ListingOutcome(
                    entry.account_id,
                    entry.listing_id,
                    entry.room_type_id,
                    entry.kind.value,
                    ListingStatus.PAUSED,
                    reason,
                )
            else:
                async with gate:
                    outcome = await sync_listing(
                        run,
                        entry,
                        facts,
                        own_reserved=own_nights,
                        count_cap=count_cap,
                        state=states[key],
                        digest=digest,
                        last_digest=stored.digest if stored is not None else None,
                    )
            if not run.require_ledger:  # a poll's or push's callers forget what they wrote
                await self._settle_digest(run, entry, outcome, digest, stored)
            done += 1
            self.progress("listings", done, total)
            return outcome

        try:
            async with asyncio.TaskGroup() as group:
                tasks = [group.create_task(one(entry)) for entry in listings]
        except BaseExceptionGroup as failed:  # a crash of one listing stops the run; report it as is
            raise failed.exceptions[0] from None
        return [task.result() for task in tasks]

    async def _settle_digest(
        self,
        run: ListingRun,
        entry: ListingMapping,
        outcome: ListingOutcome,
        digest: str,
        stored: StoredDigest | None,
    ) -> None:
        """Keep the digest of a listing a full sync brought in step, unless its row changed since
        this run read it (compare-and-set); forget it when the ledger is short of a full sync."""
        in_step = outcome.status in (ListingStatus.WRITTEN, ListingStatus.UNCHANGED)
        key = self._key(entry)
        if in_step and not run.dry_run:
            if stored is not None and stored.digest == digest:
                return
            version = stored.version if stored is not None else 0
            now = await asyncio.to_thread(self.sync_state.keep_digest, key, digest, version)
            if now.version != version + 1:
                log.info("%s: digest not kept, its ledger changed during the run", outcome.key)
        elif (not in_step or outcome.read_channel) and stored is not None and stored.digest is not None:
            # not in step, or a plan's read left the ledger short of a full sync
            await asyncio.to_thread(self.sync_state.forget_digests, [key])

    async def _pause_for_missing_room_types(
        self,
        listings: Sequence[ListingMapping],
        facts: PmsFacts,
        states: dict[ListingKey, ListingState],
        *,
        dry_run: bool,
    ) -> None:
        """A listing whose room type has no room in the PMS any more is paused with the reason,
        never written (its rooms would read as "none free": a whole horizon closed by a typo or a
        renovation); the pause lifts itself when the room type is back."""
        present = set(facts.free_rooms)
        for entry in listings:
            key = self._key(entry)
            state = states[key]
            missing = entry.room_type_id not in present
            if missing and not state.paused:
                reason = ROOM_TYPE_GONE.format(id=entry.room_type_id)
                log.warning("listing %s paused: %s", key.text, reason)
                state = replace(state, paused=True, pause_reason=reason)
            elif not missing and state.paused and room_type_gone(state.pause_reason):
                log.info("listing %s resumed: room type %d is back", key.text, entry.room_type_id)
                state = replace(state, paused=False, pause_reason=None)
            else:
                continue
            states[key] = state
            if not dry_run:
                await asyncio.to_thread(
                    self.store.listing_states.set_paused, state.listing, state.paused, state.pause_reason
                )

    # --- the overbooking guard's push ----------------------------------------------------------

    async def _push(
        self,
        report: SyncReport,
        room_type_id: int,
        wanted: list[date],
        priority: Priority,
        exclude_listing_id: str | None,
    ) -> None:
        mapping = await self._mapping()
        horizon = set(self._horizon())
        nights = [night for night in wanted if night in horizon]
        if not nights:
            report.notes.append("no night of the push is inside the sync horizon")
            return
        report.first_night, report.last_night = nights[0], nights[-1]
        listings = [
            e
            for e in mapping.listings
            if e.room_type_id == room_type_id and e.listing_id != exclude_listing_id
        ]
        if not listings:
            report.notes.append(f"room type {room_type_id} feeds no other listing")
            return
        located = await asyncio.to_thread(self.sync_state.located_closures, self.property_id)
        states = await self._listing_states(listings)
        first, last = nights[0], nights[-1]
        read_at = self.clock()
        free = await read_free_rooms(self.client, first, last, priority)
        report.pms.availability_reads = 1
        closures = remembered(located, first, last)

        prices = await asyncio.to_thread(self._cached_prices, mapping, {room_type_id}, first, last)
        facts = PmsFacts(first, last, free, closures, prices, read_at=read_at)
        run = self._ledger_run(nights, priority)
        report.listings = await self._listings(run, listings, facts, states)
        await self._forget_digests(report.listings)

    # --- the daemon's cheap runs: the poll and the connected-price re-push ------------------------

    def _cached_prices(self, mapping: Mapping, room_types: set[int], first: date, last: date) -> PmsPrices:
        """The PMS prices the store holds for ``room_types`` over ``first..last`` (no request)."""
        cached = cached_night_prices(
            self.store.pms_prices, self.property_id, room_types, first, last, mapping.currency
        )
        return PmsPrices(prices=cached)

    async def _poll(self, report: SyncReport, closures: Closures | None = None) -> None:
        """Read the free rooms and push every listing whose calendar changed, from the ledger;
        with the closures the store holds, or ``closures`` (a detection's, just read)."""
        mapping = await self._mapping()
        nights = self._horizon()
        first, last = nights[0], nights[-1]
        report.first_night, report.last_night = first, last
        if closures is None:
            located = await asyncio.to_thread(self.sync_state.located_closures, self.property_id)
            closures = remembered(located, first, last)
        states = await self._listing_states(mapping.listings)
        read_started = self.clock()
        rooms = await read_free_room_ids(self.client, first, last, Priority.AVAILABILITY)
        free = counts_of(rooms)
        report.pms.availability_reads = 1
        # the webhook receiver answers guests from this view: each poll keeps it fresh for free
        await asyncio.to_thread(
            self.store.availability_view.save_read, self.property_id, read_started, free, rooms
        )
        room_types = {entry.room_type_id for entry in mapping.listings}
        prices = await asyncio.to_thread(self._cached_prices, mapping, room_types, first, last)
        facts = PmsFacts(first, last, free, closures, prices, read_at=read_started)
        run = self._ledger_run(nights)
        report.listings = await self._listings(run, mapping.listings, facts, states)
        # a listing whose ledger this poll may have changed must not be skipped by the next full
        # sync on the strength of a digest recorded before
        touched = [o for o in report.listings if o.status not in UNTOUCHED]
        if touched:
            await self._forget_digests(touched)

    async def detection_windows(self) -> list[Window]:
        """The windows the next detection will read when nothing changed (no request): its cost."""
        first, near, _ = self._near_nights()
        return await self._check_windows(first, near)

    async def warm_full_sync_cost(self) -> int:
        """What a full sync costs when nothing changed and every price is cached (no request): the
        free rooms and the closure check's windows over the horizon (docs/sync.md). A first full
        sync costs far more (the price fill, the closures located, every listing written whole),
        and the daemon must not plan the day's later full syncs at that cost."""
        nights = self._horizon()
        return 1 + len(await self._check_windows(nights[0], nights[-1]))

    async def _check_windows(self, first: date, last: date) -> list[Window]:
        """The closure check's windows over ``first..last`` around the closures the store knows."""
        mapping = await self._mapping()
        located = await asyncio.to_thread(self.sync_state.located_closures, self.property_id)
        types, _ = await self._watched_types(mapping)
        closed = remembered_closures(located, first, last)
        known = {t: spans_of(nights) for t, nights in closed.items() if t in types and nights}
        return check_windows(first, last, known, self.options.price_window_nights)

    def _near_nights(self) -> tuple[date, date, list[date]]:
        nights = self._horizon()
        return nights[0], min(nights[-1], nights[0] + timedelta(days=self.settings.detect_nights - 1)), nights

    async def _watched_types(self, mapping: Mapping) -> tuple[list[int], list[int]]:
        """The room types whose closures a detection checks: those of the listings roomsync may
        push to (a type whose every listing is paused or not connected needs no closure check
        until one is resumed, which the next full sync sees); and those whose prices it detects:
        these and the types feeding the connected channels (whose prices closures do not touch)."""
        states = await self._listing_states(mapping.listings)
        facts = await asyncio.to_thread(self.sync_state.listing_facts, self.property_id)
        active = active_types(self.property_id, mapping.listings, states, facts)
        return active, sorted(set(active) | {push.room_type_id for push in mapping.connected})

    async def _detect(self, report: SyncReport) -> None:
        mapping = await self._mapping()
        first, near, nights = self._near_nights()
        last = nights[-1]
        located = await asyncio.to_thread(self.sync_state.located_closures, self.property_id)
        closure_types, room_types = await self._watched_types(mapping)
        read_at = self.clock()
        checked, prices = await read_closures_and_prices(
            self.client,
            self.store,
            self.property_id,
            room_types,
            first,
            near,
            currency=mapping.currency,
            located=located,
            now=read_at,
            relocate_closures=False,
            max_price_reads=self._max_price_reads(),
            price_window_nights=self.options.price_window_nights,
            concurrency=self.options.concurrency,
            closure_types=closure_types,
        )
        known = remembered(located, first, last)
        closures = with_nights_replaced(known, checked, first, near, closure_types)
        changed = changed_room_types(known, closures, closure_types)
        summary = report.pms
        summary.closure_reads = checked.reads
        summary.closures_located = checked.located
        summary.price_reads = prices.reads
        summary.prices_complete = prices.complete
        summary.prices_failed = prices.failed
        summary.prices_changed = prices.changed
        summary.price_fill_reads = prices.fill_reads
        summary.closures_changed = changed
        summary.property_closures_changed = known.property_closed != closures.property_closed
        report.notes.extend(checked.notes)
        report.notes.extend(prices.notes)
        if not (changed or summary.property_closures_changed or prices.changed):
            report.first_night, report.last_night = first, near
            return
        await self._save_closures(PmsFacts(first, last, {}, closures, prices), closure_types, read_at)
        await self._poll(report, closures)
        summary.room_types = len(room_types)
        if prices.changed and mapping.connected:
            cached = await asyncio.to_thread(
                self._cached_prices, mapping, {p.room_type_id for p in mapping.connected}, first, last
            )
            report.prices = await push_connected_prices(
                self.client,
                self.store,
                self.property_id,
                mapping.connected,
                cached.prices,
                nights,
                clock=self.clock,
                dry_run=False,
            )

    async def _repush(self, report: SyncReport) -> None:
        mapping = await self._mapping()
        if not mapping.connected:
            report.notes.append("no [[connected]] room types in the mapping: nothing to re-push")
            return
        nights = self._horizon()
        report.first_night, report.last_night = nights[0], nights[-1]
        room_types = {push.room_type_id for push in mapping.connected}
        prices = await asyncio.to_thread(self._cached_prices, mapping, room_types, nights[0], nights[-1])
        report.prices = await push_connected_prices(
            self.client,
            self.store,
            self.property_id,
            mapping.connected,
            prices.prices,
            nights,
            clock=self.clock,
            dry_run=False,
            ignore_ledger=True,
        )

    def _ledger_run(self, nights: list[date], priority: Priority | None = None) -> ListingRun:
        """A run that writes from the ledger only (poll, targeted push, detection): a listing the
        ledger does not know is left to the full sync."""
        return ListingRun(
            client=self.client,
            store=self.store,
            property_id=self.property_id,
            nights=nights,
            clock=self.clock,
            max_dates_per_request=self.settings.max_dates_per_request,
            close_unpriced=self._close_unpriced,
            write_priority=priority,
            require_ledger=True,
        )
