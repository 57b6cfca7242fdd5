"""The daemon of one property: its clients, runs, webhook worker and schedule, started and stopped.

Jobs (each run recorded in ``sync_runs``, each kind's health logged only when it changes):

========== ===================================== =============================================
kind       what                                  when next
========== ===================================== =============================================
prices     full sync (``sync_property``): free    every ``price_check_interval_seconds``; the
           rooms, closures, PMS price detection,  first run right after the start, unless the
           listing pushes, connected prices       store shows a healthy recent one (:mod:`.resume`)
poll       ``poll``: one PMS read,                planned from the budget and the learned
           pushes of the listings that changed    week after each run (:mod:`.planning`)
detect     ``detect_changes``: the closure check  the same, with its own share of the budget
           of the next ``detect_nights`` (its     and its own learned week
           windows also settle prices), pushes
           only when something changed
reconcile  ``reconcile``: every channel calendar  every ``reconcile_interval_seconds``
           re-read, drift counted and repaired
repush     every connected-channel price again    every ``repush_interval_seconds``
push       the webhook bridge's changes, debounced after ``webhook_push_debounce_seconds``
resync     the admin API's (or CLI's) request     on demand
========== ===================================== =============================================

Every wait is multiplied by ``time_scale``. One lock per property serialises every run, so jobs
never overlap. ``stop`` lets what is in flight finish and be recorded (within
``shutdown_grace_seconds``) and starts nothing new.

The :class:`Daemon` coordinates: it runs each kind through :mod:`.run_kinds` (the one module that
calls the sync) under its lock, records the end (:mod:`.jobs`), lets the schedule learn from it
(:mod:`.learning`) and chains the next run from its :class:`~.planner.Planner`. The sweep of
abandoned runs is :mod:`.run_sweep`; what it shows of itself, :mod:`.live_status`.
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
import random
import time
from collections.abc import Awaitable, Callable, Collection, MutableMapping
from datetime import UTC, date, datetime
from typing import Any

from roomsync.adapters.client import ServiceClient
from roomsync.adapters.store import Store
from roomsync.adapters.store.gauge_reads import GaugeFacts
from roomsync.app.daemon import run_kinds
from roomsync.app.daemon.debounce import PushDebouncer
from roomsync.app.daemon.freshness import kinds_read
from roomsync.app.daemon.health import HealthLog
from roomsync.app.daemon.inbox_loop import InboxClaimLoop
from roomsync.app.daemon.jobs import JobRecord, record_crash, record_report
from roomsync.app.daemon.learning import learn, relearn
from roomsync.app.daemon.live_status import job_statuses, live_status, refresh_gauges
from roomsync.app.daemon.observe import GaugeState, RequestMeter, set_budget_gauges, set_listing_gauges
from roomsync.app.daemon.planner import Planner
from roomsync.app.daemon.poll_plan import PollPlan
from roomsync.app.daemon.price_fill import stored_unread_prices
from roomsync.app.daemon.resume import ScheduleResume, resume_point
from roomsync.app.daemon.run_kinds import PRICES, PUSH, RECONCILE, RESYNC, SCHEDULED
from roomsync.app.daemon.run_sweep import sweep_abandoned_runs
from roomsync.app.daemon.schedule import Schedule
from roomsync.app.daemon.startup import check_credentials, check_mapping, check_settings
from roomsync.app.daemon_view import JobStatus, PriceFillStatus, PropertyStatus, ShuttingDown
from roomsync.app.logs import REDACTOR
from roomsync.app.sync import SyncReport
from roomsync.app.sync.history_writer import daemon_trigger
from roomsync.app.webhooks import InboxWorker, create_worker
from roomsync.core.budget import BudgetSnapshot
from roomsync.core.catalog.types import Priority
from roomsync.core.ports import ListingKey
from roomsync.metrics import Metrics
from roomsync.property_context import PropertyContext

log = logging.getLogger("roomsync.daemon")


class PropertyLog(logging.LoggerAdapter[logging.Logger]):
    """Prefixes every line with the property, so one process's many properties can be told apart."""

    def process(
        self, msg: object, kwargs: MutableMapping[str, Any]
    ) -> tuple[object, MutableMapping[str, Any]]:
        return f"[{self.extra['property'] if self.extra else '?'}] {msg}", kwargs

    def __init__(self, logger: logging.Logger, property_id: str) -> None:
        super().__init__(logger, {"property": property_id})


def utc_now() -> datetime:
    return datetime.now(UTC)


class Daemon:
    """Everything ``roomsync serve`` runs for one property; see the module docstring."""

    def __init__(
        self,
        context: PropertyContext,
        store: Store,
        *,
        metrics: Metrics | None = None,
        clock: Callable[[], datetime] = utc_now,
        rng: random.Random | None = None,
        replica: str = "roomsync",
        inbox_loop: InboxClaimLoop | None = None,
    ) -> None:
        settings = context.settings
        self._inbox_loop = inbox_loop
        """The replica's one claim loop for every property's inbox; None: a worker loop of its own."""
        self.replica = replica
        self.context = context
        self.settings = settings
        self.property_id = context.property_id
        self.metrics = metrics or Metrics()
        self.clock = clock
        self.rng = rng or random.Random()
        self.meter = RequestMeter(self.metrics, self.property_id)
        self.log = PropertyLog(log, self.property_id)
        self.health = HealthLog(self.log)
        self.lock = asyncio.Lock()
        self.jobs: dict[str, JobRecord] = {kind: JobRecord() for kind in (*SCHEDULED, PUSH, RESYNC)}
        self.drift: dict[str, int] = {}
        self.started_at: datetime | None = None
        self._clients: list[ServiceClient] = []
        self.planner = Planner(
            context,
            store,
            metrics=self.metrics,
            clock=clock,
            log=self.log,
            gate=lambda: self._clients[0].gate if self._clients else None,  # one for all the clients
            due_in=lambda kind: self.schedule.due_in(kind),
        )
        self.reserves = self.planner.reserves
        self._gauges = GaugeState()
        self._budget_read_at = -1
        """The meter's count of requests sent when the budget's gauges were last read."""
        self.schedule = Schedule(self.planner, self._run_scheduled, rng=self.rng, log=self.log)
        self._running: set[asyncio.Task[object]] = set()
        self._stopping = False
        self._worker_stop = asyncio.Event()
        self._worker_task: asyncio.Task[None] | None = None
        self._sweeper: asyncio.Task[None] | None = None
        self._store: Store = store
        self._runs: run_kinds.Runs | None = None
        self._worker: InboxWorker | None = None
        self._resume: ScheduleResume | None = None
        """Where the property's schedule stood in the store when this replica took it (:mod:`.resume`)."""
        self.debouncer = PushDebouncer(
            self._push,
            settings.webhook_push_debounce_seconds * settings.time_scale,
            store.pending_pushes,
            self.property_id,
            claimant=replica,
            clock=clock,
        )

    # --- parts ----------------------------------------------------------------------------------

    @property
    def store(self) -> Store:
        return self._store

    @property
    def runs(self) -> run_kinds.Runs:
        """What the property's runs are made with (:mod:`.run_kinds`)."""
        assert self._runs is not None, "Daemon.open() first"
        return self._runs

    @property
    def client(self) -> ServiceClient:
        return run_kinds.client_of(self.runs)

    @property
    def stopping(self) -> bool:
        return self._stopping

    @property
    def plan(self) -> PollPlan | None:
        return self.planner.plan

    def _client(self, purpose: str) -> ServiceClient:
        client = ServiceClient(
            self.context,
            budget_store=self.store.budget,
            token_store=self.store.tokens,
            on_request=self.meter,
            clock=self.clock,
            gate=self._clients[0].gate if self._clients else None,  # one view of the server's quota
            agent=f"{self.replica}; {purpose}",
        )
        self._clients.append(client)
        return client

    async def open(self) -> None:
        """Run the property's startup checks and build its parts; raises ``StartupError`` (one line)."""
        check_settings(self.settings)
        try:
            runs_client = self._client("sync")
            await check_credentials(self.settings, runs_client)
            await check_mapping(self.context, self.store, runs_client)
            self._remember_token()
            self._runs = run_kinds.open_runs(
                self.context,
                self.store,
                runs_client,
                metrics=self.metrics,
                clock=self.clock,
                price_read_cap=self.planner.price_read_cap,
            )
            self._worker = create_worker(
                self.context,
                self.store,
                self._client("worker"),
                self.debouncer,
                metrics=self.metrics,
                clock=self.clock,
            )
            self.metrics.start_property(self.property_id)
            await asyncio.to_thread(set_listing_gauges, self.metrics, self.store, self.context)
            unread = await asyncio.to_thread(
                stored_unread_prices, self.store, self.context, self.clock().date()
            )
            self.planner.set_unread(unread)
            await relearn(self.planner, self._runs)
            self._resume = await resume_point(self.store, self.property_id, self._runs)
            self.replan()
        except BaseException:
            await self.close()
            raise

    def wake_worker(self) -> None:
        """A webhook event of this property was stored (by this process's receiver)."""
        if self._inbox_loop is not None:
            self._inbox_loop.wake(self.property_id)
        elif self._worker is not None:
            self._worker.wake()

    async def close(self) -> None:
        for client in self._clients:
            await client.aclose()
        self._clients.clear()

    def _remember_token(self) -> None:
        """Let the log redactor know the bearer tokens the clients hold (logs never show them):
        a client that renews or loads a token holds it, so no store read is needed after a run."""
        for client in self._clients:
            for secret in client.secrets():
                REDACTOR.add(secret)

    # --- starting and stopping --------------------------------------------------------------------

    def start(self) -> None:
        """Start the schedule and the webhook worker (inside the running event loop)."""
        self.started_at = self.clock()
        assert self._worker is not None
        if self._inbox_loop is not None:
            self._inbox_loop.add(self.property_id, self._worker, self.settings.webhook_claim_timeout_seconds)
        else:
            worker_loop = self._worker.run(self._worker_stop)
            self._worker_task = asyncio.create_task(worker_loop, name="roomsync-inbox")
        sweep = sweep_abandoned_runs(
            self.runs, self.store, self.property_id, self.settings, self.clock, self.log
        )
        self._sweeper = asyncio.create_task(sweep, name="roomsync-run-sweep")
        self.schedule.start()
        self.debouncer.take_over()  # the targeted pushes a previous owner left, made now
        self.schedule.first_runs(self._resume, self.jobs[PRICES])

    async def stop(self) -> None:
        """Start nothing new; let in-flight work finish and be recorded (bounded by the grace)."""
        if self._stopping:
            return
        self._stopping = True
        self.schedule.pause()
        loop = asyncio.get_running_loop()
        deadline = loop.time() + self.settings.shutdown_grace_seconds
        self.log.info(
            "stopping: no new runs; waiting up to %.0f s for work in flight",
            self.settings.shutdown_grace_seconds,
        )

        async def bounded(step: Awaitable[object], what: str) -> None:
            try:
                await asyncio.wait_for(step, timeout=max(deadline - loop.time(), 0.01))
            except TimeoutError:
                self.log.warning("stopping: %s did not finish within the grace period, cancelled", what)

        if self._sweeper is not None:
            self._sweeper.cancel()
        self._worker_stop.set()
        if self._worker_task is not None:
            await bounded(self._worker_task, "the webhook event in progress")
        if self._inbox_loop is not None:
            await bounded(self._inbox_loop.remove(self.property_id), "the webhook event in progress")
        await bounded(self.debouncer.close(), "the targeted push in progress")
        running = [task for task in self._running if not task.done()]
        if running:
            await bounded(asyncio.gather(*running, return_exceptions=True), "the sync run in progress")
        self.schedule.shutdown()
        await asyncio.to_thread(self.refresh_gauges)
        self.log.info("stopped")

    # --- runs -------------------------------------------------------------------------------------

    async def exclusive(self, kind: str, run: Callable[[], Awaitable[SyncReport]]) -> SyncReport:
        """Run ``run`` under the property's lock, recorded as ``kind`` (jobs never overlap)."""
        task = asyncio.current_task()
        if task is not None:
            self._running.add(task)
        report: SyncReport | None = None
        try:
            async with self.lock:
                if self._stopping and kind in SCHEDULED:
                    raise ShuttingDown(f"{kind} not started: the daemon is stopping")
                try:
                    report = await run()
                except Exception as error:
                    self._record(kind, None, f"{type(error).__name__}: {error}")
                    raise
                self._record(kind, report, None)
                await learn(report, self.planner, self.runs)
                return report
        finally:
            if task is not None:
                self._running.discard(task)
            # the budget's gauges move with every run (the run's end read the budget: taken as
            # it is); the store's and the listings' are read when /metrics is scraped
            if report is not None and report.budget is not None:
                self.budget_gauges(report.budget)
            else:
                await asyncio.to_thread(self.refresh_gauges, budget_only=True)

    def _record(self, kind: str, report: SyncReport | None, crash: str | None) -> None:
        now = self.clock()
        if report is None:
            self.planner.run_crashed(kind)
            record_crash(self.jobs, self.health, kind, crash, now)
            return
        if record_report(self.jobs, self.health, kind, report, now):
            for change_kind in kinds_read(report.kind):
                self.metrics.pms_read_time.labels(self.property_id, change_kind.value).set(
                    report.started_at.timestamp()
                )
        self.planner.run_seen(kind, report)
        if kind == RECONCILE:
            for outcome in report.listings:
                if outcome.read_channel:
                    self.drift[outcome.key] = outcome.drift_days
        self._remember_token()

    async def _run_scheduled(self, kind: str) -> float | None:
        """One run of a scheduled ``kind``: the real seconds it held the property's lock, None when
        the daemon is stopping (no successor then)."""
        run = run_kinds.SCHEDULED_RUNS[kind]
        held = 0.0

        async def timed() -> SyncReport:
            nonlocal held
            began = time.monotonic()
            try:
                return await run(self.runs)
            finally:
                held = time.monotonic() - began

        try:
            await self.exclusive(kind, timed)
        except ShuttingDown:
            return None
        except Exception:  # recorded and logged as a health change; the chain must go on
            self.log.debug("%s crashed", kind, exc_info=True)
        return held

    async def _push(self, room_type_id: int, nights: list[date], exclude: str | None, changes: int) -> None:
        self.metrics.targeted_push_changes.labels(self.property_id).inc(changes)
        report = await self.exclusive(
            PUSH, lambda: run_kinds.push_nights(self.runs, room_type_id, nights, exclude)
        )
        self.metrics.targeted_pushes.labels(self.property_id, report.result).inc()
        self.log.info(
            "pushed %d night(s) of room type %d after %d webhook change(s): %s, %d request(s)",
            len(nights),
            room_type_id,
            changes,
            report.result,
            report.requests,
        )

    async def resync(
        self,
        listings: Collection[ListingKey] | None,
        date_from: date | None,
        date_to: date | None,
        *,
        trigger: str = daemon_trigger(RESYNC),
    ) -> SyncReport:
        """The resync, recorded as started by ``trigger`` (the history of nights says who asked)."""
        if self._stopping:
            raise ShuttingDown("the daemon is stopping")
        return await self.exclusive(
            RESYNC, lambda: run_kinds.resync(self.runs, listings, date_from, date_to, trigger)
        )

    async def plan_resync(
        self,
        listings: Collection[ListingKey] | None,
        date_from: date | None,
        date_to: date | None,
        *,
        trigger: str,
    ) -> SyncReport:
        """A resync's dry run (its reads are real, nothing is written), under the property's lock;
        drift its channel reads find goes into the history as found by ``trigger``."""
        async with self.lock:
            return await run_kinds.plan_resync(self.runs, listings, date_from, date_to, trigger)

    # --- the plan, gauges and status (:mod:`.planner`, :mod:`.live_status`) -------------------------

    def replan(self) -> PollPlan:
        return self.planner.replan()

    def price_fill(self) -> PriceFillStatus:
        return self.planner.price_fill()

    def budget_gauges(self, budget: BudgetSnapshot) -> None:
        """The budget's gauges from ``budget``, just read (as :meth:`refresh_gauges` would)."""
        self._budget_read_at = self.meter.sent
        set_budget_gauges(self.metrics, self._gauges, budget, self.planner.reserves)

    def refresh_gauges(self, *, budget_only: bool = False, facts: GaugeFacts | None = None) -> None:
        """Budget, dead letters, inbox and listing gauges from the store (no request); the
        budget's alone with ``budget_only``; the rest from ``facts`` when the replica read them
        for all its properties at once (a scrape). The budget is read again only when a request
        was sent since it was last read, or its day turned: after each run it was."""
        if not self._clients:
            return
        sent = self.meter.sent
        budget = budget_only or sent != self._budget_read_at or self._gauges.day != self.planner.gate.today()
        self._budget_read_at = sent
        refresh_gauges(
            self.metrics,
            self._gauges,
            self.planner,
            self.store,
            budget=budget,
            facts=facts,
            budget_only=budget_only,
        )

    def job_statuses(self) -> list[JobStatus]:
        return job_statuses(self.jobs, self.health, self.planner, self.schedule.next_run)

    def status(self) -> PropertyStatus:
        return live_status(
            self.planner,
            self.store,
            jobs=self.jobs,
            health=self.health,
            next_run=self.schedule.next_run,
            running=not self._stopping,
            started_at=self.started_at,
            drift=self.drift,
        )

    def credentials_failing(self) -> str | None:
        return self.meter.auth.last_failure if self.meter.auth.failing else None

    def over_budget(self) -> bool:
        snapshot = self.client.gate.snapshot()
        return not snapshot.allows(Priority.AVAILABILITY, self.reserves, 1)

    @property
    def busy(self) -> bool:
        """A run (sync, poll, detection, resync...) is in flight."""
        running = any(not task.done() for task in self._running)
        return running or bool(run_kinds.runs_starting(self.runs))

    async def wait_idle(self) -> None:
        """Wait for the runs in progress (tests)."""
        running = [task for task in self._running if not task.done()]
        if running:
            with contextlib.suppress(Exception):
                await asyncio.gather(*running, return_exceptions=True)
