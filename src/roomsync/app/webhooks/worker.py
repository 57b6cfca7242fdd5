"""The inbox worker: claims stored webhook events and applies each once.

Claims come in batches, oldest first, never two events of one reservation (or host, or listing)
at a time and never one ahead of an earlier one still open (``WebhookInbox.claim_batch``). An
event that fails is put back with a growing wait (``webhook_retry_base_seconds`` doubling up to
``webhook_retry_max_seconds``; a refusal by the day's budget waits for the quota reset) and left
``failed`` after ``webhook_max_attempts`` tries, for a person to look at (``roomsync webhooks``).
An event whose write the service refuses as it is (a 4xx: 400 on a create, 404 for an id in the
body) is not retried at all: it is ``refused`` at once with the service's message, counted in
``roomsync_webhook_events_refused`` (alert ``RoomsyncWebhookRefused``), and waits for a person to
fix the cause and ``roomsync webhooks replay`` it.

A worker that dies mid-event loses nothing: each claim names its worker (``<replica>/<incarnation>``,
the replica from the ``replica_id`` setting, the incarnation this process), so a restarted
process of the same replica takes its earlier incarnation's claims back as soon as it starts;
another replica's claims wait ``webhook_claim_timeout_seconds``, then any worker takes them over.
Everything the bridge does is safe to do again. Several workers, in one process or in several
replicas sharing the database, may run at once.
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
import os
import socket
import uuid
from datetime import datetime, timedelta

from roomsync.adapters.client.errors import FatalError, NotFoundError, QuotaExhausted
from roomsync.adapters.store import Store
from roomsync.adapters.store.webhook_records import FORGET_BATCH_ROWS, InboxBacklog
from roomsync.adapters.webhooks.kinds import (
    ANSWERED_AT_CHECKOUT,
    LISTING_EVENTS,
    NOTHING_TO_APPLY,
    RECORDED_ONLY,
    RESERVATION_EVENTS,
)
from roomsync.app.webhooks.bridge import ReservationBridge, RetryLater
from roomsync.app.webhooks.listing_events import ListingEvents
from roomsync.app.webhooks.protocols import Clock
from roomsync.core.api import webhooks as events
from roomsync.core.codec import PayloadError
from roomsync.core.ports import InboxItem
from roomsync.metrics import Metrics
from roomsync.property_context import PropertyContext

log = logging.getLogger("roomsync.webhooks.worker")

BATCH_SIZE = 20
IDLE_POLL_SECONDS = 1.0
"""Longest sleep while idle: retries that became due are claimed at least this often."""
UPKEEP_SECONDS = 1.0
"""How often stale claims are taken over and the backlog gauges refreshed."""
HOUSEKEEPING_SECONDS = 60.0
WAKE_GATHER_SECONDS = 0.05
"""After a wake-up, how long a burst of deliveries may gather before it is claimed."""


class InboxWorker:
    def __init__(
        self,
        context: PropertyContext,
        store: Store,
        bridge: ReservationBridge,
        listing_events: ListingEvents,
        metrics: Metrics,
        clock: Clock,
        *,
        batch_size: int = BATCH_SIZE,
    ) -> None:
        settings = context.settings
        self._settings = settings
        self._property_id = context.property_id
        self._store = store
        self._bridge = bridge
        self._listing_events = listing_events
        self._metrics = metrics
        self._clock = clock
        self._batch_size = batch_size
        self._db = store.db_calls
        self._view = store.availability_view
        self._records = store.webhook_records
        self._wake: asyncio.Event | None = None
        self._loop: asyncio.AbstractEventLoop | None = None
        self._last_housekeeping: datetime | None = None
        self._last_upkeep: datetime | None = None
        self.replica = settings.replica_id or f"{socket.gethostname()}:{settings.serve_port}"
        self.incarnation = f"{os.getpid()}-{uuid.uuid4().hex[:8]}"
        self._took_back_own = False

    # --- running ------------------------------------------------------------------------------

    def wake(self) -> None:
        """Something was stored: look now. Safe to call from any thread."""
        if self._loop is not None and self._wake is not None:
            self._loop.call_soon_threadsafe(self._wake.set)

    async def run(self, stop: asyncio.Event | None = None) -> None:
        """Process events until ``stop`` is set (or the task is cancelled)."""
        self._loop = asyncio.get_running_loop()
        self._wake = asyncio.Event()
        stop = stop or asyncio.Event()
        force_upkeep = True
        while not stop.is_set():
            self._wake.clear()
            try:
                await self._upkeep(force=force_upkeep)
                force_upkeep = False
                handled = await self.run_once()
            except Exception:  # the store is down, say: keep the worker alive and try again
                log.exception("the webhook worker failed to claim events; trying again")
                handled = 0
            if handled:
                continue
            waiting = asyncio.ensure_future(self._wake.wait())
            stopping = asyncio.ensure_future(stop.wait())
            await asyncio.wait(
                {waiting, stopping}, timeout=IDLE_POLL_SECONDS, return_when=asyncio.FIRST_COMPLETED
            )
            for pending in (waiting, stopping):
                pending.cancel()
                with contextlib.suppress(asyncio.CancelledError):
                    await pending
            if waiting.done() and not waiting.cancelled():
                # woken by a delivery: let a burst gather, so it is claimed in batches, not one by one
                await asyncio.sleep(WAKE_GATHER_SECONDS)

    async def run_once(self) -> int:
        """Claim and process one batch; returns its size."""
        batch = await self._db(
            self._store.inbox.claim_batch,
            self._property_id,
            self._batch_size,
            self._clock(),
            f"{self.replica}/{self.incarnation}",
        )
        simple = [item for item in batch if item.action in NOTHING_TO_APPLY]
        if simple:  # already answered or only recorded: marked done in one statement
            await self._db(
                self._records.mark_claimed_done, self._property_id, [i.id for i in simple], self._clock()
            )
            for item in simple:
                self._metrics.webhooks.labels(self._property_id, item.action, "applied").inc()
        for item in batch:
            if item.action not in NOTHING_TO_APPLY:
                await self.process(item)
        return len(batch)

    async def drain(self, max_batches: int = 1000) -> int:
        """Process until nothing is claimable now; returns how many events were handled."""
        await self._upkeep(force=True)
        total = 0
        for _ in range(max_batches):
            handled = await self.run_once()
            if not handled:
                break
            total += handled
        return total

    # --- one event ----------------------------------------------------------------------------

    async def process(self, item: InboxItem) -> None:
        try:
            event = events.parse_webhook(item.body.encode())
        except PayloadError as error:  # it parsed when received: the model changed since
            await self._give_up(item, f"the stored body no longer parses: {error}")
            return
        try:
            summary = await self._apply(event, item)
        except (FatalError, NotFoundError) as error:
            await self._refused(item, error)
            return
        except Exception as error:
            await self._failed(item, error)
            return
        await self._db(self._store.inbox.mark_done, self._property_id, item.id, self._clock())
        self._metrics.webhooks.labels(self._property_id, event.action, "applied").inc()
        log.info("webhook %d %s applied: %s", item.id, event.action, summary)

    async def _apply(self, event: events.WebhookPayload, item: InboxItem) -> str:
        if isinstance(event, ANSWERED_AT_CHECKOUT):
            return "answered at checkout"
        if isinstance(event, RECORDED_ONLY):
            return "recorded"
        if isinstance(event, LISTING_EVENTS):
            return await self._listing_events.apply(event)
        if isinstance(event, events.ReservationRequestEvent):
            return await self._bridge.record_request(event)
        if isinstance(event, RESERVATION_EVENTS):
            return await self._bridge.apply(event, item.attempts)
        raise TypeError(f"no handling for {type(event).__name__}")

    async def _failed(self, item: InboxItem, error: Exception) -> None:
        reason = f"{type(error).__name__}: {error}"
        if item.attempts >= self._settings.webhook_max_attempts:
            await self._give_up(item, reason)
            return
        now = self._clock()
        wait = min(
            self._settings.webhook_retry_base_seconds * 2 ** max(item.attempts - 1, 0),
            self._settings.webhook_retry_max_seconds,
        )
        retry_at = now + timedelta(seconds=wait)
        if isinstance(error, QuotaExhausted) and error.resets_at is not None:
            retry_at = max(retry_at, error.resets_at)
        if isinstance(error, RetryLater):
            log.warning("webhook %d %s waits (try %d): %s", item.id, item.action, item.attempts, error)
        else:
            log.warning(
                "webhook %d %s failed (try %d), again at %s: %s",
                item.id,
                item.action,
                item.attempts,
                retry_at.isoformat(),
                reason,
                exc_info=not isinstance(error, RetryLater | QuotaExhausted),
            )
        await self._db(self._store.inbox.mark_failed, self._property_id, item.id, reason, now, retry_at)
        self._metrics.webhooks.labels(self._property_id, item.action, "retry").inc()

    async def _refused(self, item: InboxItem, error: FatalError | NotFoundError) -> None:
        """The service refused a write as it is (400 on a create, say): the same request would be
        refused again, so it is not retried; a person fixes the cause and replays the event."""
        detail = " ".join(
            part
            for part in (
                f"{error.operation}: the service answered {error.status}",
                f"{error.code}: {error.server_message}" if error.code else error.server_message,
                f"(field {error.field})" if error.field else None,
            )
            if part
        )
        reason = f"refused by the service, needs a person: {detail}"
        log.error(
            "webhook %d %s: %s; fix the cause, then `roomsync webhooks replay %d`",
            item.id,
            item.action,
            reason,
            item.id,
        )
        await self._db(self._store.inbox.mark_refused, self._property_id, item.id, reason, self._clock())
        self._metrics.webhooks.labels(self._property_id, item.action, "service_refused").inc()
        await self._update_gauges()

    async def _give_up(self, item: InboxItem, reason: str) -> None:
        log.error("webhook %d %s left failed after %d tries: %s", item.id, item.action, item.attempts, reason)
        await self._db(self._store.inbox.mark_failed, self._property_id, item.id, reason, self._clock())
        self._metrics.webhooks.labels(self._property_id, item.action, "failed").inc()

    # --- upkeep -------------------------------------------------------------------------------

    async def _upkeep(self, *, force: bool = False) -> None:
        """Take over dead workers' claims and refresh the gauges (every ``UPKEEP_SECONDS``), and
        release forgotten holds (every ``HOUSEKEEPING_SECONDS``)."""
        now = self._clock()
        if (
            not force
            and self._last_upkeep is not None
            and (now - self._last_upkeep).total_seconds() < UPKEEP_SECONDS
        ):
            return
        self._last_upkeep = now
        await self.take_back_own_claims()
        stale_before = now - timedelta(seconds=self._settings.webhook_claim_timeout_seconds)
        released = await self._db(self._store.inbox.release_stale, self._property_id, stale_before)
        if released:
            log.warning("took over %d webhook event(s) a worker claimed and never finished", released)
        await self._update_gauges()
        if (
            self._last_housekeeping is None
            or (now - self._last_housekeeping).total_seconds() >= HOUSEKEEPING_SECONDS
        ):
            self._last_housekeeping = now
            await self.housekeeping(now)

    async def take_back_own_claims(self) -> None:
        """Once, at the start: this replica's earlier incarnations' unfinished claims, at once."""
        if self._took_back_own:
            return
        inbox = self._store.inbox
        taken = await self._db(
            inbox.release_own_earlier_claims, self._property_id, self.replica, self.incarnation
        )
        self._took_back_own = True
        if taken:
            log.warning("took back %d webhook event(s) this replica was applying when it stopped", taken)

    async def housekeeping(self, now: datetime) -> None:
        """Expired holds, old availability nights and old records (``HOUSEKEEPING_SECONDS``)."""
        expired = await self._db(
            self._view.expire_holds,
            self._property_id,
            now - timedelta(seconds=self._settings.webhook_hold_expiry_seconds),
        )
        for code in expired:
            log.warning(
                "released the room held for %s: no reservation confirmation followed its booking", code
            )
        await self._db(self._view.forget_before, self._property_id, now.date() - timedelta(days=1))
        keep_from = now - timedelta(days=self._settings.webhook_keep_days)
        forgotten = 0
        while True:  # in short transactions, so the receiver's inserts never queue behind one long one
            deleted = await self._db(self._records.forget_processed_before, self._property_id, keep_from)
            forgotten += deleted
            if deleted < FORGET_BATCH_ROWS:
                break
        if forgotten:
            days = self._settings.webhook_keep_days
            log.info("forgot %d webhook record(s) older than %d days", forgotten, days)

    async def _update_gauges(self) -> None:
        self.show_backlog(await self._db(self._records.inbox_backlog, self._property_id))

    def show_backlog(self, backlog: InboxBacklog) -> None:
        """The backlog gauges (also set by a replica's claim loop, which counts for all at once)."""
        self._metrics.inbox_backlog.labels(self._property_id).set(backlog.open)
        self._metrics.refused_events.labels(self._property_id).set(backlog.refused)
        oldest = backlog.oldest_open_received_at
        age = 0.0 if oldest is None else max((self._clock() - oldest).total_seconds(), 0.0)
        self._metrics.inbox_oldest_age.labels(self._property_id).set(age)
