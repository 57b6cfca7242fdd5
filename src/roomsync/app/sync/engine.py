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

Every run is recorded in ``store.sync_runs`` (a plan is not: it writes nothing), with the
requests it spent, the operations and price elements the service accepted, and its result.
The request count model is in docs/sync.md.
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
import math
import time
from collections import Counter
from collections.abc import Awaitable, Callable, Collection, Iterable, Sequence
from dataclasses import dataclass, replace
from datetime import UTC, date, datetime, timedelta
from typing import Any

from roomsync.adapters.client import QuotaExhausted, ServiceClient, ServiceError
from roomsync.adapters.store import Store
from roomsync.adapters.store.webhook_records import SqlWebhookRecords
from roomsync.app.sync.channel import ListingRun, sync_listing
from roomsync.app.sync.closures import Closures, remembered_closures
from roomsync.app.sync.connected import push_connected_prices
from roomsync.app.sync.fingerprint import TypeDigests, listing_digest
from roomsync.app.sync.memo import SyncMemo
from roomsync.app.sync.own_reservations import own_reserved_rooms
from roomsync.app.sync.pms import PmsFacts, read_free_rooms, read_pms
from roomsync.app.sync.prices import PmsPrices
from roomsync.app.sync.report import ListingOutcome, ListingStatus, PricesResult, SyncReport
from roomsync.core.catalog.types import Priority
from roomsync.core.mapping import ListingMapping, Mapping
from roomsync.core.ports import ListingKey, ListingState
from roomsync.core.sync.price_detection import DEFAULT_WINDOW_NIGHTS
from roomsync.metrics import Metrics
from roomsync.settings import Settings

log = logging.getLogger("roomsync.sync")

ProgressHook = Callable[[str, int, int], None]
"""Called as ``(stage, done, total)`` while a run progresses (the CLI draws a bar from it)."""

MANAGED_CATEGORIES = frozenset({"Full", "Limited"})
"""``connected`` values under which the service manages a listing (document 01)."""


def utc_now() -> datetime:
    return datetime.now(UTC)


def no_progress(stage: str, done: int, total: int) -> None:
    return None


class NoMapping(Exception):
    """The property has no mapping loaded; the message says how to load one."""


class RequestRefused(ValueError):
    """The caller asked for something that cannot be done (a listing not in the mapping, dates
    outside the horizon): a mistake to correct, refused before any run is recorded or counted."""


@dataclass(frozen=True)
class SyncOptions:
    price_reads_per_sync: int | None = None
    """Most ``CombinedExtended`` reads one sync may spend; None: a quarter of the daily quota."""
    price_window_nights: int = DEFAULT_WINDOW_NIGHTS
    concurrency: int = 4
    """Requests in flight at once (price windows, listings)."""


ROOM_TYPE_GONE = "room type {id} is not in the PMS any more"
"""The pause reason of a listing whose room type the PMS no longer has; lifted by itself when the
room type is back (a mistyped mapping is refused at load; this is the room type deleted later)."""


def room_type_gone(reason: str | None) -> bool:
    return reason is not None and reason.startswith("room type ") and "not in the PMS any more" in reason


def pause_reason(state: ListingState, facts: dict[str, Any] | None) -> str | None:
    """Why a listing must not be synced, or None."""
    if state.paused:
        return state.pause_reason or "paused"
    if facts is not None and facts.get("missing"):
        return "not among the channel's listings (unlinked, removed, or its account unauthorized)"
    if state.sync_category is not None and state.sync_category not in MANAGED_CATEGORIES:
        return f"not connected (connected={state.sync_category})"
    return None


def pause_label(reason: str) -> str:
    """A bounded metric label for a pause reason."""
    if room_type_gone(reason):
        return "room_type_missing"
    for label in ("not connected", "not among", "unlinked", "suspend", "revoked"):
        if label in reason:
            return label.replace(" ", "_").replace("not_among", "missing")
    return "other"


class SyncEngine:
    def __init__(
        self,
        settings: Settings,
        store: Store,
        client: ServiceClient,
        *,
        memo: SyncMemo | None = None,
        metrics: Metrics | None = None,
        clock: Callable[[], datetime] = utc_now,
        options: SyncOptions | None = None,
        progress: ProgressHook = no_progress,
    ) -> None:
        self.settings = settings
        self.store = store
        self.client = client
        self.property_id = settings.effective_property_id
        self.memo = memo if memo is not None else store.sync_memo
        self.metrics = metrics
        self.clock = clock
        self.options = options or SyncOptions()
        self.progress = progress
        self.runs_in_flight: set[int] = set()
        """Ids of this engine's runs in progress (alive, whatever their heartbeat says)."""
        self._push_generation = 0
        self._pushed_at: dict[str, int] = {}
        """Listing -> generation of its last ``push_nights``: a sync that ran meanwhile must not
        keep its digest (its ledger moved under that sync's feet)."""

    # --- entry points ---------------------------------------------------------------------------

    async def sync_property(self) -> SyncReport:
        return await self._tracked("sync", False, lambda report: self._full(report))

    async def plan(self) -> SyncReport:
        return await self._tracked("plan", True, lambda report: self._full(report, dry_run=True))

    async def resync(
        self,
        listings: Collection[tuple[str, str]] | None = None,
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
                ignore_price_ledger=not listings,
            )

        return await self._tracked("resync", False, body)

    async def reconcile(self) -> SyncReport:
        async def body(report: SyncReport) -> None:
            await self._full(
                report,
                read_channel=True,
                relocate_closures=True,
                read_priority=Priority.RECONCILE,
            )

        return await self._tracked("reconcile", False, body)

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
        return await self._tracked(
            "push_nights",
            False,
            lambda report: self._push(report, room_type_id, wanted, priority, exclude_listing_id),
        )

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

    async def _tracked(
        self, kind: str, dry_run: bool, body: Callable[[SyncReport], Awaitable[None]]
    ) -> SyncReport:
        started = self.clock()
        clock_started = time.perf_counter()
        report = SyncReport(kind=kind, property_id=self.property_id, started_at=started, dry_run=dry_run)
        sent_before = Counter(self.client.requests_sent.by_operation)
        if not dry_run:
            report.run_id = await asyncio.to_thread(
                self.store.sync_runs.start_run, self.property_id, kind, started
            )
        failure: BaseException | None = None
        beating = None
        if report.run_id is not None:
            self.runs_in_flight.add(report.run_id)
            beating = asyncio.create_task(self._beat(report.run_id))
        try:
            await body(report)
            report.result = self._result_of(report)
        except QuotaExhausted as refused:
            report.result, report.error = "no_budget", str(refused)
        except (ServiceError, NoMapping) as error:
            report.result, report.error = "failed", str(error)
            if isinstance(error, NoMapping):
                failure = error
        except BaseException as error:  # a crash: record it, then let it go on
            report.result, report.error = "failed", f"{type(error).__name__}: {error}"
            failure = error
        if beating is not None:
            beating.cancel()
            with contextlib.suppress(asyncio.CancelledError):
                await beating
        report.finished_at = self.clock()
        sent = Counter(self.client.requests_sent.by_operation)
        sent.subtract(sent_before)
        report.requests_by_operation = +sent
        budget = self.client.budget()
        report.budget_remaining, report.budget_quota = budget.remaining, budget.quota
        if report.run_id is not None:
            try:
                await asyncio.to_thread(self._finish_run, report)
            finally:
                self.runs_in_flight.discard(report.run_id)
        self._measure(report, time.perf_counter() - clock_started)
        if failure is not None:
            raise failure
        return report

    async def _forget_digests(self, keys: Iterable[str]) -> None:
        """After writing outside a full sync: the listings' recorded digests no longer describe
        their ledgers, so the next full sync must not skip them, nor may a full sync running
        meanwhile keep digests it computed before (``_pushed_at``)."""
        self._push_generation += 1
        fresh = await asyncio.to_thread(self.memo.load, self.property_id)  # a sync may have saved meanwhile
        for key in keys:
            self._pushed_at[key] = self._push_generation
            fresh.get("digests", {}).pop(key, None)
        await asyncio.to_thread(self.memo.save, self.property_id, fresh)

    async def _beat(self, run_id: int) -> None:
        """Record every ``run_heartbeat_seconds`` that the run is alive (a killed process stops,
        and the daemon later closes the run as abandoned)."""
        interval = self.settings.run_heartbeat_seconds * self.settings.time_scale
        warned = False
        while True:
            await asyncio.sleep(interval)
            try:
                await asyncio.to_thread(self.store.sync_runs.beat_run, self.property_id, run_id, self.clock())
            except Exception as error:  # a missed beat only risks the run being called abandoned
                if not warned:
                    log.warning("sync run %d could not record its heartbeat: %s", run_id, error)
                    warned = True

    def _finish_run(self, report: SyncReport) -> None:
        assert report.run_id is not None and report.finished_at is not None
        detail = report.error
        if report.prices.messages and report.prices.result is not PricesResult.OK:
            prefix = (
                "price warnings" if report.prices.result is PricesResult.OK_WITH_WARNINGS else "price errors"
            )
            detail = "; ".join(filter(None, [detail, f"{prefix}: " + " | ".join(report.prices.messages)]))
        self.store.sync_runs.finish_run(
            self.property_id,
            report.run_id,
            report.finished_at,
            report.result,
            requests_spent=report.requests,
            operations=report.operations,
            price_elements=report.price_elements_sent,
            error=detail,
        )

    @staticmethod
    def _result_of(report: SyncReport) -> str:
        if report.dry_run:
            return "planned"
        trouble = {ListingStatus.FAILED, ListingStatus.NO_BUDGET}
        if report.pms.prices_failed is not None:
            return "partial"
        if any(o.status in trouble for o in report.listings) or report.prices.result in (
            PricesResult.ERROR,
            PricesResult.FAILED,
            PricesResult.NO_BUDGET,
        ):
            return "partial"
        if report.prices.result is PricesResult.OK_WITH_WARNINGS:
            return "ok_with_warnings"
        return "ok"

    def _measure(self, report: SyncReport, seconds: float) -> None:
        metrics = self.metrics
        if metrics is None or report.dry_run:
            return
        pid = self.property_id
        metrics.sync_runs.labels(pid, report.kind, report.result).inc()
        metrics.sync_seconds.labels(report.kind).observe(seconds)
        metrics.operations_sent.labels(pid).inc(report.operations)
        metrics.price_elements_sent.labels(pid).inc(report.price_elements_sent)
        finished = (report.finished_at or self.clock()).timestamp()
        for outcome in report.listings:  # the listings not being synced are counted from the store
            if outcome.status in (ListingStatus.WRITTEN, ListingStatus.UNCHANGED):
                metrics.listing_last_success.labels(pid, outcome.key).set(finished)
            if outcome.drift_days:
                metrics.drift_days.labels(pid).inc(outcome.drift_days)

    # --- a full run ------------------------------------------------------------------------------

    async def _check_request(
        self, listings: Collection[tuple[str, str]] | None, window: tuple[date | None, date | None]
    ) -> None:
        try:
            self._horizon(window)
        except ValueError as error:
            raise RequestRefused(str(error)) from None
        if listings:
            mapping = await self._mapping()
            unknown = sorted(set(listings) - {entry.key for entry in mapping.listings})
            if unknown:
                raise RequestRefused(
                    "not in the mapping: " + ", ".join(f"{a}/{b}" for a, b in unknown)
                )

    def _horizon(self, window: tuple[date | None, date | None] = (None, None)) -> list[date]:
        today = self.clock().date()
        first, last = today, today + timedelta(days=self.settings.horizon_days - 1)
        wanted_first = max(first, window[0]) if window[0] else first
        wanted_last = min(last, window[1]) if window[1] else last
        if wanted_first > wanted_last:
            raise ValueError(
                f"the dates {window[0]}..{window[1]} are outside the sync horizon {first}..{last}"
            )
        return [wanted_first + timedelta(days=n) for n in range((wanted_last - wanted_first).days + 1)]

    def _max_price_reads(self) -> int:
        if self.options.price_reads_per_sync is not None:
            return self.options.price_reads_per_sync
        return max(1, math.ceil(self.client.budget().quota / 4))  # the server's quota once it said one

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
        only: set[tuple[str, str]] | None = None,
        window: tuple[date | None, date | None] = (None, None),
        read_channel: bool = False,
        relocate_closures: bool = False,
        read_priority: Priority = Priority.AVAILABILITY,
        ignore_price_ledger: bool = False,
    ) -> None:
        mapping = await self._mapping()
        nights = self._horizon(window)
        report.first_night, report.last_night = nights[0], nights[-1]
        listings = [entry for entry in mapping.listings if only is None or entry.key in only]
        if only is not None:
            unknown = sorted(only - {entry.key for entry in mapping.listings})
            if unknown:
                raise ValueError("not in the mapping: " + ", ".join(f"{a}/{b}" for a, b in unknown))
        memo = await asyncio.to_thread(self.memo.load, self.property_id)
        generation = self._push_generation
        states = await self._listing_states(listings)
        if read_channel or any(s.sync_category is None and not s.paused for s in states.values()):
            await self._read_listings(mapping.listings, memo, read_priority, report)
            states = await self._listing_states(listings)
        pushes = mapping.connected if only is None else ()
        room_types = sorted({entry.room_type_id for entry in listings} | {p.room_type_id for p in pushes})
        self.progress("pms", 0, 1)
        facts = await read_pms(
            self.client,
            self.store,
            self.property_id,
            room_types,
            nights[0],
            nights[-1],
            currency=mapping.currency,
            memo=memo,
            now=self.clock(),
            relocate_closures=relocate_closures,
            max_price_reads=self._max_price_reads(),
            price_window_nights=self.options.price_window_nights,
            concurrency=self.options.concurrency,
        )
        await asyncio.to_thread(self.memo.save, self.property_id, memo)
        self._summarise_pms(report, facts, len(room_types))
        self.progress("pms", 1, 1)
        run = ListingRun(
            client=self.client,
            store=self.store,
            property_id=self.property_id,
            nights=nights,
            clock=self.clock,
            max_dates_per_request=self.settings.max_dates_per_request,
            dry_run=dry_run,
            read_channel=read_channel,
            read_priority=read_priority,
            trust_digests=not read_channel,
        )
        report.listings = await self._listings(run, listings, facts, states, memo)
        await self._forget_digests(outcome.key for outcome in report.listings)
        for key_text, pushed in self._pushed_at.items():
            if pushed > generation:
                memo.get("digests", {}).pop(key_text, None)
        await asyncio.to_thread(self.memo.save, self.property_id, memo)
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
        report.notes.extend(facts.closures.notes)
        report.notes.extend(facts.prices.notes)

    async def _listing_states(
        self, listings: Sequence[ListingMapping]
    ) -> dict[tuple[str, str], ListingState]:
        def load() -> dict[tuple[str, str], ListingState]:
            get = self.store.listing_states.get_listing_state
            return {e.key: get(ListingKey(self.property_id, e.account_id, e.listing_id)) for e in listings}

        return await asyncio.to_thread(load)

    async def _read_listings(
        self, listings: Sequence[ListingMapping], memo: dict[str, Any], priority: Priority, report: SyncReport
    ) -> None:
        """``GET Listings`` (one request): connection state and room count of every mapped listing."""
        try:
            found = {
                (x.account_id, x.listing_id): x for x in await self.client.list_listings(priority=priority)
            }
        except QuotaExhausted:
            report.notes.append(
                "the listings were not read (budget): their connection state is as last known"
            )
            return
        facts: dict[str, Any] = {}

        def record() -> None:
            states = self.store.listing_states
            for entry in listings:
                key = ListingKey(self.property_id, entry.account_id, entry.listing_id)
                listing = found.get(entry.key)
                if listing is None:
                    facts[f"{entry.account_id}/{entry.listing_id}"] = {"missing": True}
                    continue
                facts[f"{entry.account_id}/{entry.listing_id}"] = {
                    "total_inventory_count": listing.total_inventory_count
                }
                states.set_sync_category(key, listing.connected.value)
                states.set_approval_status(key, listing.approval_status.status_category.value)
                states.set_has_availability(key, listing.has_availability)

        await asyncio.to_thread(record)
        memo["listings"] = facts

    async def _listings(
        self,
        run: ListingRun,
        listings: Sequence[ListingMapping],
        facts: PmsFacts,
        states: dict[tuple[str, str], ListingState],
        memo: dict[str, Any],
    ) -> list[ListingOutcome]:
        bookings = await asyncio.to_thread(
            SqlWebhookRecords(self.store.engine).list_bookings, self.property_id
        )
        own = own_reserved_rooms(bookings)
        listing_facts: dict[str, Any] = memo.get("listings") or {}
        digests: dict[str, str] = memo.setdefault("digests", {})
        types = TypeDigests(
            run.nights,
            facts.free_rooms,
            facts.closures.room_types,
            facts.closures.property_closed,
            facts.prices.prices,
        )
        gate = asyncio.Semaphore(max(1, self.options.concurrency))
        done = 0
        total = len(listings)
        self.progress("listings", 0, total)

        await self._pause_for_missing_room_types(listings, facts, states, dry_run=run.dry_run)

        async def one(entry: ListingMapping) -> ListingOutcome:
            nonlocal done
            key_text = f"{entry.account_id}/{entry.listing_id}"
            known = listing_facts.get(key_text)
            reason = pause_reason(states[entry.key], known)
            count_cap = (known or {}).get("total_inventory_count")
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
                        state=states[entry.key],
                        digest=digest,
                        last_digest=digests.get(key_text),
                    )
            in_step = outcome.status in (ListingStatus.WRITTEN, ListingStatus.UNCHANGED)
            if in_step and not run.dry_run and not run.require_ledger:
                digests[key_text] = digest
            elif not in_step or outcome.read_channel or run.require_ledger:
                # not in step, or a plan's read / a partial push left the ledger short of a full sync
                digests.pop(key_text, None)
            done += 1
            self.progress("listings", done, total)
            return outcome

        try:
            async with asyncio.TaskGroup() as group:
                tasks = [group.create_task(one(entry)) for entry in listings]
        except BaseExceptionGroup as failed:  # a crash of one listing stops the run; report it as is
            raise failed.exceptions[0] from None
        return [task.result() for task in tasks]

    async def _pause_for_missing_room_types(
        self,
        listings: Sequence[ListingMapping],
        facts: PmsFacts,
        states: dict[tuple[str, str], ListingState],
        *,
        dry_run: bool,
    ) -> None:
        """A listing whose room type has no room in the PMS any more is paused with the reason,
        never written (its rooms would read as "none free": a whole horizon closed by a typo or a
        renovation); the pause lifts itself when the room type is back."""
        present = set(facts.free_rooms)
        for entry in listings:
            state = states[entry.key]
            missing = entry.room_type_id not in present
            if missing and not state.paused:
                reason = ROOM_TYPE_GONE.format(id=entry.room_type_id)
                log.warning("listing %s/%s paused: %s", entry.account_id, entry.listing_id, reason)
                state = replace(state, paused=True, pause_reason=reason)
            elif not missing and state.paused and room_type_gone(state.pause_reason):
                log.info("listing %s/%s resumed: room type %d is back", *entry.key, entry.room_type_id)
                state = replace(state, paused=False, pause_reason=None)
            else:
                continue
            states[entry.key] = state
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
        memo = await asyncio.to_thread(self.memo.load, self.property_id)
        states = await self._listing_states(listings)
        first, last = nights[0], nights[-1]
        free = await read_free_rooms(self.client, first, last, priority)
        report.pms.availability_reads = 1
        closures_memo = memo.get("closures") or {}
        property_closed = remembered_closures(
            {"room_types": {"0": closures_memo.get("property", [])}}, first, last
        )
        closures = Closures(
            property_closed=property_closed.get(0, frozenset()),
            room_types=remembered_closures(closures_memo, first, last),
        )

        def cached_prices() -> dict[int, dict[date, Any]]:
            rows = self.store.pms_prices.read_night_prices(self.property_id, room_type_id, first, last)
            return {
                room_type_id: {
                    night: row.price for night, row in rows.items() if row.currency == mapping.currency
                }
            }

        prices = PmsPrices(prices=await asyncio.to_thread(cached_prices))
        facts = PmsFacts(first, last, free, closures, prices)
        run = ListingRun(
            client=self.client,
            store=self.store,
            property_id=self.property_id,
            nights=nights,
            clock=self.clock,
            max_dates_per_request=self.settings.max_dates_per_request,
            write_priority=priority,
            require_ledger=True,
        )
        report.listings = await self._listings(run, listings, facts, states, memo)
        await self._forget_digests(outcome.key for outcome in report.listings)
