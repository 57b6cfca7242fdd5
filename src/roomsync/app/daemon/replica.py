"""One ``roomsync serve`` process: the properties it owns, each run by its own :class:`Daemon`.

The replica opens the database once and, every ``ownership_check_seconds``, asks its
:mod:`ownership <roomsync.adapters.store.ownership>` which properties to start and which to give back:
a property is started (its checks, runs, webhook worker and schedule) when taken, and stopped
(in-flight work finished and recorded) before it is given back, so two replicas never run one
property at once.

Webhooks are received by every replica for every property (``/webhooks/{channel}/{property}``):
the receiver stores the event and answers guest checks from the shared database; the owner's
worker applies it (woken at once when the owner received it, within a second otherwise).

A deployment of one property (no property rows) keeps today's behaviour: its checks run at start
and a failure stops the start with one line.
"""

from __future__ import annotations

import asyncio
import contextlib
import functools
import logging
import random
import socket
import time
from collections.abc import Callable
from dataclasses import dataclass
from datetime import datetime

from starlette.applications import Starlette

from roomsync.adapters.client import ServiceClient
from roomsync.adapters.store import Store
from roomsync.adapters.store.ownership import Ownership, SoleOwnership
from roomsync.app.daemon.inbox_loop import InboxClaimLoop
from roomsync.app.daemon.lock import DaemonAlreadyRunning, DaemonLock
from roomsync.app.daemon.observe import RequestMeter
from roomsync.app.daemon.runtime import Daemon, utc_now
from roomsync.app.daemon.startup import StartupError, check_settings, open_checked_store
from roomsync.app.daemon.status import collect_status
from roomsync.app.daemon_view import PropertyStatus
from roomsync.app.served_properties import ContextCache, usable_contexts
from roomsync.app.webhooks import create_receiver_app
from roomsync.metrics import Metrics
from roomsync.property_context import PropertyContext
from roomsync.settings import Settings

log = logging.getLogger("roomsync.replica")

RETRY_FAILED_START_SECONDS = 300.0
"""A property whose start failed (credentials, mapping) is tried again after this long."""


@dataclass
class _Failed:
    reason: str
    at: float


class Replica:
    """Everything one ``roomsync serve`` process runs; see the module docstring."""

    def __init__(
        self,
        settings: Settings,
        *,
        metrics: Metrics | None = None,
        clock: Callable[[], datetime] = utc_now,
        rng: random.Random | None = None,
    ) -> None:
        self.settings = settings
        self.metrics = metrics or Metrics()
        self.clock = clock
        self.rng = rng or random.Random()
        self.name = settings.replica_id or f"{socket.gethostname()}:{settings.serve_port}"
        self.contexts: dict[str, PropertyContext] = {}
        self._context_cache = ContextCache()
        self.daemons: dict[str, Daemon] = {}
        """The properties this replica owns and runs."""
        self.receivers: dict[str, Starlette] = {}
        self.failed: dict[str, _Failed] = {}
        self.single = False
        """A deployment of one property configured by the settings (no property rows)."""
        self._store: Store | None = None
        self._ownership: Ownership | None = None
        self._lock = DaemonLock(settings)
        self._receiver_clients: list[ServiceClient] = []
        self._task: asyncio.Task[None] | None = None
        self._inbox: InboxClaimLoop | None = None
        """One claim loop for the webhook inboxes of every property this replica owns."""
        self._inbox_task: asyncio.Task[None] | None = None
        self._inbox_stop = asyncio.Event()
        self._stopping = False
        self._changing = asyncio.Lock()
        self._deferred: set[str] = set()
        """Properties beyond the share kept until their run ends (logged once when they change)."""
        self.started = asyncio.Event()

    @property
    def store(self) -> Store:
        assert self._store is not None, "Replica.open() first"
        return self._store

    @property
    def stopping(self) -> bool:
        return self._stopping

    @property
    def postgres(self) -> bool:
        return self.settings.effective_database_url.startswith("postgresql")

    async def open(self, *, migrate: bool = False, admin_url: str | None = None) -> None:
        """Open the database, learn the properties, and (one-property deployment) run its checks."""
        try:
            if not self.postgres:
                # SQLite cannot coordinate replicas: a second process on the same database is refused
                try:
                    self._lock.acquire(admin_url)
                except DaemonAlreadyRunning as error:
                    raise StartupError(
                        f"{error}; SQLite serves one replica, use Postgres (database_url) for several"
                    ) from None
            else:
                # advertise where the admin API answers to the local CLI, if no other replica here does
                with contextlib.suppress(DaemonAlreadyRunning):
                    self._lock.acquire(admin_url)
            self._store = open_checked_store(self.settings, migrate=migrate)
            self._store.start_background_checkpoints(self.settings.sqlite_checkpoint_interval_seconds)
            self._inbox = InboxClaimLoop(self._store, self.clock)
            contexts = self.load_contexts()
            self.single = len(contexts) == 1 and contexts[0].from_settings
            if self.single:
                check_settings(self.settings)
            for context in contexts:
                self._add_receiver(context)
            if self.postgres:
                ownership = self.store.ownership(self.name)
                try:
                    await asyncio.to_thread(ownership.connect)  # counted among the live replicas now
                except RuntimeError as error:
                    raise StartupError(str(error)) from None
                self._ownership = ownership
            else:
                self._ownership = SoleOwnership()
            if self.single:
                # today's behaviour: the property starts with the process, and a property that
                # cannot start stops the start with one line (unless another replica owns it)
                only = contexts[0].property_id
                change = await asyncio.to_thread(self._ownership.check, [only])
                if only in change.take or only in self._ownership.held():
                    await self._start_property(contexts[0], raise_errors=True)
                else:
                    log.info("property %s is served by another replica: standing by", only)
        except BaseException:
            await self.close()
            raise

    def load_contexts(self) -> list[PropertyContext]:
        contexts, broken = usable_contexts(self.settings, self.store.properties, self._context_cache)
        for property_id, reason in broken:
            if property_id not in self.failed or self.failed[property_id].reason != reason:
                log.error("property %s cannot be served: %s", property_id, reason)
            self.failed[property_id] = _Failed(reason, time.monotonic())
        self.contexts = {context.property_id: context for context in contexts}
        return contexts

    def _add_receiver(self, context: PropertyContext) -> None:
        if context.property_id in self.receivers:
            return
        client = ServiceClient(
            context,
            budget_store=self.store.budget,
            token_store=self.store.tokens,
            # the guest checks' PMS reads are requests like any other: /metrics counts them
            on_request=RequestMeter(self.metrics, context.property_id),
            clock=self.clock,
            agent=f"{self.name}; receiver",
        )
        self._receiver_clients.append(client)
        self.receivers[context.property_id] = create_receiver_app(
            context,
            self.store,
            client=client,
            metrics=self.metrics,
            clock=self.clock,
            on_stored=functools.partial(self._wake, context.property_id),
        )

    def _wake(self, property_id: str) -> None:
        daemon = self.daemons.get(property_id)
        if daemon is not None:
            daemon.wake_worker()

    # --- running -------------------------------------------------------------------------------

    def start(self) -> None:
        """Start the ownership loop (inside the running event loop)."""
        assert self._inbox is not None, "Replica.open() first"
        self._inbox_task = asyncio.create_task(self._inbox.run(self._inbox_stop), name="roomsync-inbox")
        for daemon in self.daemons.values():
            daemon.start()
        self._task = asyncio.create_task(self._own(), name="roomsync-ownership")

    async def _own(self) -> None:
        interval = self.settings.ownership_check_seconds
        if not self.single:
            # replicas started together see each other before sharing out (else the first one
            # would take every property, start them all, and give most of them back a moment later)
            await asyncio.sleep(interval)
        while not self._stopping:
            try:
                await self.check_ownership()
            except Exception:
                log.exception("ownership check failed")
            self.started.set()
            await asyncio.sleep(interval * self.rng.uniform(0.8, 1.2))

    async def check_ownership(self) -> None:
        async with self._changing:
            if self._stopping:
                return
            await asyncio.to_thread(self.load_contexts)
            for context in self.contexts.values():
                self._add_receiver(context)
            active = [pid for pid, context in self.contexts.items() if not context.paused]
            assert self._ownership is not None
            busy = frozenset(pid for pid, daemon in self.daemons.items() if daemon.busy)
            change = await asyncio.to_thread(self._ownership.check, active, busy)
            if change.deferred and set(change.deferred) != self._deferred:
                log.info(
                    "replica %s gives back %s after the run in flight (beyond its share of %d)",
                    self.name,
                    ", ".join(change.deferred),
                    change.share,
                )
            self._deferred = set(change.deferred)
            for property_id in change.lost:
                daemon = self.daemons.pop(property_id, None)
                if daemon is not None:
                    log.error("lost property %s (its lock is gone): stopping it", property_id)
                    await daemon.stop()
                    await daemon.close()
            if change.give_back:
                await asyncio.gather(*(self._give_back(pid) for pid in change.give_back))
            for property_id in change.take:
                context = self.contexts[property_id]
                if not await self._start_property(context, raise_errors=False):
                    await asyncio.to_thread(self._ownership.release, property_id)
            if change.take or change.give_back or change.lost:
                log.info(
                    "replica %s owns %d properties (share %d of %d, %d live replicas)",
                    self.name,
                    len(self.daemons),
                    change.share,
                    len(active),
                    change.live_replicas,
                )

    async def _start_property(self, context: PropertyContext, *, raise_errors: bool) -> bool:
        property_id = context.property_id
        now = time.monotonic()
        failed = self.failed.get(property_id)
        retry_after = RETRY_FAILED_START_SECONDS * self.settings.time_scale
        if not raise_errors and failed is not None and now - failed.at < retry_after:
            return False
        daemon = Daemon(
            context,
            self.store,
            metrics=self.metrics,
            clock=self.clock,
            rng=self.rng,
            replica=self.name,
            inbox_loop=self._inbox,
        )
        try:
            await daemon.open()
        except StartupError as error:
            if raise_errors:
                raise
            if failed is None or failed.reason != str(error):
                log.error("property %s not started: %s", property_id, error)
            self.failed[property_id] = _Failed(str(error), now)
            return False
        self.failed.pop(property_id, None)
        self.daemons[property_id] = daemon
        if self._task is not None:  # already running: start at once (else start() does)
            daemon.start()
        log.info("replica %s took property %s", self.name, property_id)
        return True

    async def _give_back(self, property_id: str) -> None:
        daemon = self.daemons.pop(property_id, None)
        if daemon is not None:
            await daemon.stop()
            await daemon.close()
        assert self._ownership is not None
        await asyncio.to_thread(self._ownership.release, property_id)
        log.info("replica %s gave back property %s", self.name, property_id)

    async def stop(self) -> None:
        """Stop every property gracefully (each within ``shutdown_grace_seconds``), then release."""
        if self._stopping:
            return
        self._stopping = True
        if self._task is not None:
            self._task.cancel()
            with contextlib.suppress(asyncio.CancelledError, Exception):
                await self._task
        async with self._changing:
            await asyncio.gather(*(daemon.stop() for daemon in self.daemons.values()))
            self._inbox_stop.set()
            if self._inbox_task is not None:
                with contextlib.suppress(Exception):
                    await self._inbox_task
            for receiver in self.receivers.values():
                await receiver.state.receiver.flush_answers()
            if self._ownership is not None:
                await asyncio.to_thread(self._ownership.close)

    async def close(self) -> None:
        for daemon in list(self.daemons.values()):
            await daemon.close()
        self.daemons.clear()
        for client in self._receiver_clients:
            await client.aclose()
        self._receiver_clients.clear()
        if self._ownership is not None:
            self._ownership.close()
        if self._store is not None:
            self._store.close()
            self._store = None
        self._lock.release()

    # --- what the app asks (the console as its desk: roomsync.app.console.ports.ConsoleDesk) ------

    def only_property(self) -> str | None:
        """The property of a deployment that has exactly one (the old URLs address it)."""
        return next(iter(self.contexts)) if len(self.contexts) == 1 else None

    def daemon_of(self, property_id: str) -> Daemon | None:
        return self.daemons.get(property_id)

    def start_failure(self, property_id: str) -> str | None:
        """Why the property could not be started, if it could not (it is tried again later)."""
        failed = self.failed.get(property_id)
        return failed.reason if failed is not None else None

    def property_status(self, property_id: str, now: datetime) -> PropertyStatus:
        """Its daemon's status when this replica serves it, else the store's (blocking)."""
        daemon = self.daemon_of(property_id)
        if daemon is not None:
            return daemon.status()
        return collect_status(self.store, self.contexts[property_id], now)

    def refresh_gauges(self) -> None:
        """Every property's gauges, from one read of the store for all of them (a scrape)."""
        daemons = list(self.daemons.values())
        facts = self.store.gauge_reads.gauge_facts([daemon.property_id for daemon in daemons])
        for daemon in daemons:
            daemon.refresh_gauges(facts=facts[daemon.property_id])

    def credentials_failing(self) -> str | None:
        for daemon in self.daemons.values():
            failing = daemon.credentials_failing()
            if failing is not None:
                return f"{daemon.property_id}: {failing}"
        return None

    def over_budget(self) -> list[str]:
        return [pid for pid, daemon in self.daemons.items() if daemon.over_budget()]

    async def wait_idle(self) -> None:
        for daemon in list(self.daemons.values()):
            await daemon.wait_idle()
