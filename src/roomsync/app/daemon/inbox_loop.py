"""One claim loop per replica for the webhook inboxes of every property it owns.

Each owned property still has its own :class:`InboxWorker` (its bridge, its order per
reservation, its retries); what is shared is the looking. A worker per property that asked the
inbox every second whether it had work cost three statements per property per second when idle:
fine for tens of properties, 3,000 statements a second for a thousand. This loop asks once for
all of them:

- every ``IDLE_POLL_SECONDS`` (at once when this process's receiver stored an event), one query
  names the owned properties with a pending event due; each of those, and each woken one, is
  drained by its worker in a task of its own (properties proceed side by side, as before; one
  property never has two at once);
- every ``UPKEEP_SECONDS``, one statement takes over the claims that dead workers left (older
  than ``webhook_claim_timeout_seconds``) and one query refreshes every property's backlog
  gauges;
- each property's housekeeping (expired holds, old records) runs every ``HOUSEKEEPING_SECONDS``
  in its own task slot, so it never runs beside that property's event processing.

A property given back (``remove``) is dropped at once and its event in progress, if any, is
awaited (the daemon bounds the wait by its grace period).
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
import time
from collections.abc import Callable
from dataclasses import dataclass
from datetime import datetime, timedelta

from roomsync.adapters.store import Store
from roomsync.adapters.store.webhook_records import InboxBacklog
from roomsync.app.webhooks.worker import (
    HOUSEKEEPING_SECONDS,
    IDLE_POLL_SECONDS,
    UPKEEP_SECONDS,
    WAKE_GATHER_SECONDS,
    InboxWorker,
)

log = logging.getLogger("roomsync.webhooks.claims")


@dataclass
class _Owned:
    worker: InboxWorker
    claim_timeout: float
    """The property's ``webhook_claim_timeout_seconds``."""
    housekeeping_due: float
    """``time.monotonic()`` of its next housekeeping (0: with its first turn)."""
    shown: InboxBacklog | None = None
    """The backlog its gauges show (an empty inbox that stays empty is not set again)."""


class InboxClaimLoop:
    def __init__(self, store: Store, clock: Callable[[], datetime]) -> None:
        self._sweep = store.inbox_sweep
        self._db = store.db_calls
        self._clock = clock
        self._owned: dict[str, _Owned] = {}
        self._busy: dict[str, asyncio.Task[None]] = {}
        self._woken: set[str] = set()
        self._event: asyncio.Event | None = None
        self._loop: asyncio.AbstractEventLoop | None = None
        self._last_upkeep = 0.0

    # --- what the daemons call ----------------------------------------------------------------

    def add(self, property_id: str, worker: InboxWorker, claim_timeout: float) -> None:
        """Serve ``property_id``'s inbox from the next turn (its earlier claims taken back first)."""
        self._owned[property_id] = _Owned(worker, claim_timeout, housekeeping_due=0.0)
        self._woken.add(property_id)
        if self._event is not None:
            self._event.set()

    async def remove(self, property_id: str) -> None:
        """Stop serving ``property_id``; returns when its event in progress, if any, is done."""
        self._owned.pop(property_id, None)
        self._woken.discard(property_id)
        task = self._busy.get(property_id)
        if task is not None:
            await task

    def wake(self, property_id: str) -> None:
        """An event of ``property_id`` was stored: look now. Safe to call from any thread."""
        if self._loop is not None:
            self._loop.call_soon_threadsafe(self._woke, property_id)

    def _woke(self, property_id: str) -> None:
        self._woken.add(property_id)
        if self._event is not None:
            self._event.set()

    # --- the loop -----------------------------------------------------------------------------

    async def run(self, stop: asyncio.Event) -> None:
        self._loop = asyncio.get_running_loop()
        self._event = asyncio.Event()
        while not stop.is_set():
            self._event.clear()
            try:
                await self._turn()
            except Exception:  # the store is down, say: keep the loop alive and try again
                log.exception("the webhook claim loop failed; trying again")
            woken = self._event.wait()
            stopping = stop.wait()
            waits = {asyncio.ensure_future(woken), asyncio.ensure_future(stopping)}
            done, pending = await asyncio.wait(
                waits, timeout=IDLE_POLL_SECONDS, return_when=asyncio.FIRST_COMPLETED
            )
            for task in pending:
                task.cancel()
                with contextlib.suppress(asyncio.CancelledError):
                    await task
            if done and not stop.is_set():
                # woken by a delivery: let a burst gather, so it is claimed in batches, not one by one
                await asyncio.sleep(WAKE_GATHER_SECONDS)
        busy = list(self._busy.values())
        if busy:
            await asyncio.gather(*busy, return_exceptions=True)

    async def _turn(self) -> None:
        owned = list(self._owned)
        if not owned:
            return
        now = self._clock()
        if time.monotonic() - self._last_upkeep >= UPKEEP_SECONDS:
            self._last_upkeep = time.monotonic()
            await self._upkeep(owned, now)
        due = await self._db(self._sweep.properties_with_due_events, owned, now)
        due |= self._woken
        self._woken = set()
        clock = time.monotonic()
        for property_id, entry in self._owned.items():
            housekeeping = entry.housekeeping_due <= clock
            if (property_id in due or housekeeping) and property_id not in self._busy:
                if housekeeping:
                    entry.housekeeping_due = clock + HOUSEKEEPING_SECONDS
                task = asyncio.create_task(
                    self._serve(property_id, entry.worker, housekeeping), name=f"roomsync-inbox-{property_id}"
                )
                self._busy[property_id] = task

    async def _upkeep(self, owned: list[str], now: datetime) -> None:
        by_timeout: dict[float, list[str]] = {}
        for property_id in owned:
            by_timeout.setdefault(self._owned[property_id].claim_timeout, []).append(property_id)
        for timeout, property_ids in by_timeout.items():
            stale_before = now - timedelta(seconds=timeout)
            released = await self._db(self._sweep.release_stale, property_ids, stale_before)
            for property_id, count in released.items():
                log.warning(
                    "property %s: took over %d webhook event(s) a worker claimed and never finished",
                    property_id,
                    count,
                )
                self._woken.add(property_id)
        backlogs = await self._db(self._sweep.backlogs, owned)
        for property_id, backlog in backlogs.items():
            entry = self._owned.get(property_id)
            if entry is not None and (backlog != entry.shown or backlog.open):  # open: its age grows
                entry.worker.show_backlog(backlog)
                entry.shown = backlog

    async def _serve(self, property_id: str, worker: InboxWorker, housekeeping: bool) -> None:
        """One turn of one property: housekeeping when due, then its events until none is claimable."""
        try:
            await worker.take_back_own_claims()
            if housekeeping:
                await worker.housekeeping(self._clock())
            while property_id in self._owned and await worker.run_once():
                pass
        except Exception:
            log.exception("property %s: the webhook worker failed; trying again", property_id)
        finally:
            self._busy.pop(property_id, None)
