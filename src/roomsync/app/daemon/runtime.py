"""The daemon of one property: its clients, engine, webhook worker and schedule, started and stopped.

Jobs (each run recorded in ``sync_runs``, each kind's health logged only when it changes):

========== ===================================== =============================================
kind       what                                  when next
========== ===================================== =============================================
prices     full sync (``sync_property``): free    every ``price_check_interval_seconds``; the
           rooms, closures, PMS price detection,  first run right after the start, unless the
           listing pushes, connected prices       store shows a healthy recent one (:mod:`.resume`)
poll       ``poll_availability``: one PMS read,   planned from the budget and the learned
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
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
import math
import random
from collections.abc import Awaitable, Callable, Collection, MutableMapping
from dataclasses import dataclass
from datetime import UTC, date, datetime, timedelta
from typing import Any

from roomsync.adapters.client import ServiceClient
from roomsync.adapters.client.config import reserves_of
from roomsync.adapters.store import Store
from roomsync.app.daemon.debounce import PushDebouncer
from roomsync.app.daemon.freshness import changes_seen, kinds_read, newest_reads, record_observations
from roomsync.app.daemon.health import HealthLog
from roomsync.app.daemon.inbox_loop import InboxClaimLoop
from roomsync.app.daemon.observe import (
    GaugeState,
    RequestMeter,
    set_budget_gauges,
    set_listing_gauges,
    set_store_gauges,
)
from roomsync.app.daemon.planning import (
    DayCosts,
    PollPlan,
    RunCosts,
    Shapes,
    fill_reads_per_day,
    full_sync_delay,
    least_price_reads,
    plan_polling,
    price_read_allowance,
)
from roomsync.app.daemon.price_fill import PriceFillStatus, UnreadPrices, fill_status, stored_unread_prices
from roomsync.app.daemon.resume import HEALTHY_RESULTS, ScheduleResume, aware, last_runs, resumable
from roomsync.app.daemon.scheduler import ChainScheduler, wall_now
from roomsync.app.daemon.startup import check_credentials, check_mapping, check_settings
from roomsync.app.daemon.status import JobStatus, PropertyStatus, collect_status, schedule_from_plan
from roomsync.app.logs import REDACTOR
from roomsync.app.sync import ListingStatus, NoMapping, SyncEngine, SyncOptions, SyncReport
from roomsync.app.sync.engine import DETECT, POLL, REPUSH
from roomsync.app.sync.history import daemon_job
from roomsync.app.webhooks import InboxWorker, create_worker
from roomsync.core.activity import ChangeKind, combined_shape, learned_mass, week_shape
from roomsync.core.catalog.types import Priority
from roomsync.core.ports import ListingKey
from roomsync.metrics import Metrics
from roomsync.property import PropertyContext

log = logging.getLogger("roomsync.daemon")

PRICES = "prices"
RECONCILE = "reconcile"
PUSH = "push"
RESYNC = "resync"
SCHEDULED = (PRICES, POLL, DETECT, RECONCILE, REPUSH)
PLAN_CHANGE_LOGGED = 0.25
"""A new poll interval is logged when it differs from the last one logged by more than this share."""


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


class ShuttingDown(Exception):
    """The daemon is stopping and starts no new run."""


@dataclass
class JobRecord:
    last_run_at: datetime | None = None
    last_result: str | None = None
    last_error: str | None = None


def describe_failure(report: SyncReport) -> str:
    """A short, stable reason (health is logged again only when the reason changes)."""
    if report.result == "no_budget":
        return "the day's budget refuses its requests until the quota resets"
    if report.result == "failed":
        return (report.error or "failed").splitlines()[0][:300]
    troubled = [
        f"{o.key} {o.status.value}"
        for o in report.listings
        if o.status in (ListingStatus.FAILED, ListingStatus.NO_BUDGET)
    ]
    if report.prices.result.value in ("error", "failed", "no_budget"):
        troubled.append(f"connected prices {report.prices.result.value}")
    return ("partly failed: " + ", ".join(troubled))[:300]


def service_failed(report: SyncReport) -> bool:
    """The run failed or stopped short because of the service (an error, a read that gave up), not
    because the budget refused it: only the former is worth trying again soon."""
    if report.result == "failed":
        return True
    if report.result != "partial":
        return False
    return (
        report.pms.prices_failed is not None
        or any(o.status is ListingStatus.FAILED for o in report.listings)
        or report.prices.result.value in ("error", "failed")
    )


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
        self.reserves = reserves_of(settings)
        self.meter = RequestMeter(self.metrics, self.property_id)
        self.log = PropertyLog(log, self.property_id)
        self.health = HealthLog(self.log)
        self.lock = asyncio.Lock()
        self.jobs: dict[str, JobRecord] = {kind: JobRecord() for kind in (*SCHEDULED, PUSH, RESYNC)}
        self.drift: dict[str, int] = {}
        self.started_at: datetime | None = None
        self.plan: PollPlan | None = None
        self._gauges = GaugeState()
        self._full_sync_failures = 0
        """Full syncs in a row that ended failed or partial (the next one is tried sooner)."""
        self.costs = RunCosts()
        """What polls and detections have cost so far (the plan spends the budget by it)."""
        self._full_sync_warm = self.costs.full_sync
        """What the last full sync cost without its price fill (the next ones' cost, once filled)."""
        self._unread = UnreadPrices(0, None, settings.horizon_days)
        """The horizon's nights with no PMS price read yet, as the last full sync (or the store) left them."""
        self._fill_logged = False
        self._warm_estimate: int | None = None
        """What a full sync costs once every price is cached and nothing changed (the engine's count)."""
        self._last_full_sync_cold = False
        """The last full sync filled the price cache (and located closures, wrote listings whole):
        the next ones are planned at ``_warm_estimate`` instead of its cost."""
        self._logged_interval: float | None = None
        self._shapes: Shapes | None = None
        """The learned weeks, reloaded from the store after a run that saw a change."""
        self._scheduler = ChainScheduler()
        self._running: set[asyncio.Task[object]] = set()
        self._firing: set[str] = set()
        """Scheduled kinds whose run has started (waiting for the lock or running)."""
        self._stopping = False
        self._worker_stop = asyncio.Event()
        self._worker_task: asyncio.Task[None] | None = None
        self._sweeper: asyncio.Task[None] | None = None
        self._clients: list[ServiceClient] = []
        self._store: Store = store
        self._engine: SyncEngine | None = None
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
    def engine(self) -> SyncEngine:
        assert self._engine is not None, "Daemon.open() first"
        return self._engine

    @property
    def client(self) -> ServiceClient:
        return self.engine.client

    @property
    def stopping(self) -> bool:
        return self._stopping

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
            engine_client = self._client("sync")
            await check_credentials(self.settings, engine_client)
            await check_mapping(self.context, self.store, engine_client)
            self._remember_token()
            self._engine = SyncEngine(
                self.context,
                self.store,
                engine_client,
                metrics=self.metrics,
                clock=self.clock,
                options=SyncOptions(price_read_cap=self._price_read_cap),
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
            self._unread = await asyncio.to_thread(
                stored_unread_prices, self.store, self.context, self.clock().date()
            )
            self.metrics.prices_unread_nights.labels(self.property_id).set(self._unread.nights)
            await asyncio.to_thread(self._load_learning)
            await self._estimate_detection()
            self._resume = await self._resume_point()
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
        """Let the log redactor know the bearer token in use (logs never show it)."""
        token = self.store.tokens.load_token(self.property_id)
        if token is not None:
            REDACTOR.add(token.access_token)

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
        self._sweeper = asyncio.create_task(self._sweep_abandoned_runs(), name="roomsync-run-sweep")
        self._scheduler.start()
        self.debouncer.take_over()  # the targeted pushes a previous owner left, made now
        scale = self.settings.time_scale
        if self._resume is None:
            self._schedule(PRICES, self._jitter())
        else:
            self._continue_schedule(self._resume)
        self._schedule(RECONCILE, self.settings.reconcile_interval_seconds * scale + self._jitter())
        self._schedule(REPUSH, self.settings.repush_interval_seconds * scale + self._jitter())
        if self._resume is None:
            self.log.info(
                "serving property %s: first full sync now, then %s",
                self.property_id,
                self.plan.explanation if self.plan else "polling as the budget allows",
            )

    async def _resume_point(self) -> ScheduleResume | None:
        full_sync, started = await asyncio.to_thread(last_runs, self.store, self.property_id, (POLL, DETECT))
        covered = full_sync is not None and await self.engine.synced_every_listing_since(
            aware(full_sync.started_at)
        )
        if full_sync is None or not resumable(full_sync, covered):
            return None
        return ScheduleResume(full_sync, started)

    def _continue_schedule(self, resume: ScheduleResume) -> None:
        """Continue the schedule the store shows (:mod:`.resume`): each job when it is due,
        counted from its last run, at once when that is past."""
        last = resume.full_sync
        assert last.finished_at is not None
        self._full_sync_warm = max(last.requests_spent - last.price_fill_reads, 1)
        self._last_full_sync_cold = last.price_fill_reads > 0
        self._cost_full_syncs()
        record = self.jobs[PRICES]
        record.last_run_at, record.last_result = aware(last.finished_at), last.result
        now = self.clock()
        scale = self.settings.time_scale
        plan = self.replan()
        started = aware(last.started_at)

        def wait(since: datetime, interval: float) -> float:
            return max(0.0, interval * scale - (now - since).total_seconds())

        self._schedule(PRICES, wait(started, self.full_sync_interval()) + self._jitter())
        for kind, interval in ((POLL, plan.interval), (DETECT, plan.detect_interval)):
            if math.isfinite(interval):
                self._schedule(kind, wait(resume.last_started.get(kind, started), interval))
            else:
                self._schedule(kind, plan.seconds_to_reset * scale + self._jitter())
        self.log.info(
            "serving property %s: its last full sync (run %d) ended %s at %s; the schedule goes on "
            "from the store, the next full sync in %.0f s, then %s",
            self.property_id,
            last.id,
            last.result,
            record.last_run_at.isoformat(timespec="seconds"),
            wait(started, self.full_sync_interval()) / scale,
            plan.explanation,
        )

    async def stop(self) -> None:
        """Start nothing new; let in-flight work finish and be recorded (bounded by the grace)."""
        if self._stopping:
            return
        self._stopping = True
        self._scheduler.pause()  # not shutdown: APScheduler's executor would cancel runs in flight
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
        self._scheduler.shutdown()
        await asyncio.to_thread(self.refresh_gauges)
        self.log.info("stopped")

    async def _sweep_abandoned_runs(self) -> None:
        """Close as abandoned the runs whose process died (no heartbeat for three intervals),
        every interval from the first one after the start. Their end was never recorded, so they
        showed as running.

        A run beats every ``run_heartbeat_seconds * time_scale`` real seconds, and this loop
        sweeps at the same pace; "three intervals" is three times what the daemon's clock advanced
        during the last one, which holds whether the clock is real or runs faster than real time
        (a compressed emulator's clock, where one real interval is a whole heartbeat of the clock)."""
        beat = self.settings.run_heartbeat_seconds
        interval = beat * self.settings.time_scale
        least = timedelta(seconds=interval)
        failing = False
        before = self.clock()
        while True:
            await asyncio.sleep(interval)
            now = self.clock()
            silence = 3 * max(now - before, least)
            before = now
            if self.engine.runs_starting:  # a run's row exists but its id is not known here yet
                continue
            try:
                closed = await asyncio.to_thread(
                    self.store.sync_runs.close_silent_runs,
                    self.property_id,
                    now - silence,
                    now,
                    set(self.engine.runs_in_flight),
                )
            except Exception as error:
                if not failing:
                    self.log.warning("closing abandoned runs failed (%s); trying every %g s", error, beat)
                failing = True
            else:
                if failing:
                    self.log.info("closing abandoned sync runs works again")
                failing = False
                if closed:
                    self.log.warning(
                        "closed sync run(s) %s as abandoned: no heartbeat for %g s, their process stopped",
                        ", ".join(map(str, closed)),
                        silence.total_seconds(),
                    )

    def _jitter(self) -> float:
        return self.rng.uniform(0.0, self.settings.schedule_jitter_seconds) * self.settings.time_scale

    def _schedule(self, kind: str, delay: float) -> None:
        if self._stopping:
            return
        self._scheduler.schedule(kind, delay, self._run_scheduled, kind)

    # --- runs -------------------------------------------------------------------------------------

    async def exclusive(self, kind: str, run: Callable[[], Awaitable[SyncReport]]) -> SyncReport:
        """Run ``run`` under the property's lock, recorded as ``kind`` (jobs never overlap)."""
        task = asyncio.current_task()
        if task is not None:
            self._running.add(task)
        try:
            async with self.lock:
                if self._stopping and kind in SCHEDULED:
                    raise ShuttingDown(f"{kind} not started: the daemon is stopping")
                try:
                    with daemon_job(kind):  # the history of nights records what started the run
                        report = await run()
                except Exception as error:
                    self._record(kind, None, f"{type(error).__name__}: {error}")
                    raise
                self._record(kind, report, None)
                await self._learn(report)
                return report
        finally:
            if task is not None:
                self._running.discard(task)
            await asyncio.to_thread(self.refresh_gauges)

    def _record(self, kind: str, report: SyncReport | None, crash: str | None) -> None:
        now = self.clock()
        record = self.jobs.setdefault(kind, JobRecord())
        record.last_run_at = now
        if report is None:
            if kind == PRICES:
                self._full_sync_failures += 1
            record.last_result, record.last_error = "failed", crash
            self.health.failure(kind, crash or "failed", now)
            return
        record.last_result, record.last_error = report.result, report.error
        if report.result in HEALTHY_RESULTS:
            self.health.success(kind, now)
            for change_kind in kinds_read(report.kind):
                self.metrics.pms_read_time.labels(self.property_id, change_kind.value).set(
                    report.started_at.timestamp()
                )
        else:
            self.health.failure(kind, describe_failure(report), now)
        if kind == POLL:
            self.costs.poll_seen(report.requests)
        if kind == PRICES:
            self._full_sync_warm = max(report.requests - report.pms.price_fill_reads, 1)
            self._last_full_sync_cold = report.pms.price_fill_reads > 0
            if report.pms.availability_reads:  # it got as far as reading the PMS
                pms = report.pms
                self._unread = UnreadPrices(
                    pms.prices_unread_nights, pms.first_unread_night, self._unread.horizon_nights
                )
                self.metrics.prices_unread_nights.labels(self.property_id).set(self._unread.nights)
            self._cost_full_syncs()
            self._full_sync_failures = self._full_sync_failures + 1 if service_failed(report) else 0
            if report.pms.price_fill_reads:
                self._log_fill(report)
        if kind == DETECT:
            self.costs.detection_seen(report.requests - report.pms.price_fill_reads, self.costs.check_windows)
        if kind == RECONCILE:
            self.costs.reconcile = max(report.requests, 1)
            for outcome in report.listings:
                if outcome.read_channel:
                    self.drift[outcome.key] = outcome.drift_days
        self._remember_token()

    def _cost_full_syncs(self) -> None:
        """What the next full syncs will cost, for the plan: the last one's cost without its price
        fill, plus the fill the next one will still do (none once every night is read)."""
        quota = self._clients[0].gate.quota if self._clients else self.settings.daily_quota
        self.costs.full_sync = self._warm_cost + min(self._unread.nights, least_price_reads(quota))

    @property
    def _warm_cost(self) -> int:
        """What the next full sync costs without a price fill."""
        if self._last_full_sync_cold and self._warm_estimate is not None:
            return self._warm_estimate
        return self._full_sync_warm

    def _day_costs(self) -> DayCosts:
        """What each kind of run costs, a full sync at its warm cost (no price fill)."""
        return DayCosts(
            listings=self._listing_count(),
            poll_cost=self.costs.poll_cost,
            detect_cost=self.costs.detect_cost,
            full_sync_cost=self._warm_cost,
            full_sync_every=self.full_sync_interval(),
            reconcile_cost=self.costs.reconcile,
        )

    def _price_read_cap(self) -> int:
        """The price reads the run starting now may spend (:func:`.planning.price_read_allowance`)."""
        gate = self._clients[0].gate
        return price_read_allowance(
            self.settings, gate.snapshot(), self._day_costs(), resets_at=gate.resets_at(), now=self.clock()
        )

    def fill_reads_per_day(self) -> int:
        """Price reads of unread nights a whole day of the plan affords (for the read-by date)."""
        return fill_reads_per_day(self.settings, self._clients[0].gate.quota, self._day_costs())

    def price_fill(self) -> PriceFillStatus:
        return fill_status(
            self._unread,
            self.fill_reads_per_day(),
            self.clock().date(),
            self.settings.unread_price_nights.value,
        )

    def _log_fill(self, report: SyncReport) -> None:
        """Say what the price fill did and what the day's plan gets after it (once it is done, and
        at each step while it is not)."""
        if self._fill_logged and self._unread.nights == 0:
            return
        plan = self.replan()
        fill = self.price_fill()
        self.log.info(
            "price fill: this full sync read %d nights' PMS prices (%d of its %d requests); %s; "
            "the rest of today's plan: %s",
            report.pms.price_fill_reads,
            report.pms.price_fill_reads,
            report.requests,
            fill.explanation,
            plan.explanation,
        )
        self._fill_logged = self._unread.nights == 0

    async def _run_scheduled(self, kind: str) -> None:
        runs: dict[str, Callable[[], Awaitable[SyncReport]]] = {
            PRICES: self.engine.sync_property,
            POLL: self.engine.poll_availability,
            DETECT: self.engine.detect_changes,
            RECONCILE: self.engine.reconcile,
            REPUSH: self.engine.repush_connected_prices,
        }
        due = self._scheduler.due(kind) or wall_now()
        self._firing.add(kind)
        try:
            await self.exclusive(kind, runs[kind])
        except ShuttingDown:
            return
        except Exception:  # recorded and logged as a health change; the chain must go on
            self.log.debug("%s crashed", kind, exc_info=True)
        finally:
            self._firing.discard(kind)
        # fixed rate: the next run is due an interval after this one was due, not after it ended,
        # so the time a run takes (or waits for another) does not stretch the schedule
        behind = (wall_now() - due).total_seconds()
        scale = self.settings.time_scale
        if kind == PRICES:
            self._schedule(PRICES, self.full_sync_interval() * scale - behind)
        elif kind == RECONCILE:
            self._schedule(RECONCILE, self.settings.reconcile_interval_seconds * scale - behind)
        elif kind == REPUSH:
            self._schedule(REPUSH, self.settings.repush_interval_seconds * scale - behind)
        if kind == POLL or (kind == PRICES and POLL not in self._firing):
            # both read availability: the next poll counts from this one (a poll already under way
            # schedules its own successor: one chain of polls, never two)
            self._schedule_poll(behind)
        if kind == DETECT or (kind == PRICES and DETECT not in self._firing):
            self._schedule_detect(behind)

    def _schedule_poll(self, took: float = 0.0) -> None:
        plan = self.replan()
        if math.isfinite(plan.interval):
            delay = plan.interval * self.settings.time_scale - took
        else:  # nothing left for polling today: wait for the reset, then spread out
            delay = plan.seconds_to_reset * self.settings.time_scale + self._jitter()
        self._schedule(POLL, delay)

    def full_sync_interval(self) -> float:
        """Seconds until the next full sync (:func:`.planning.full_sync_delay`)."""
        return full_sync_delay(
            self.settings,
            quota=self._clients[0].gate.quota,  # one gate for all the property's clients
            last_cost=self.costs.full_sync,
            failures=self._full_sync_failures,
        )

    def _schedule_detect(self, took: float = 0.0) -> None:
        plan = self.replan()
        if math.isfinite(plan.detect_interval):
            delay = plan.detect_interval * self.settings.time_scale - took
        else:
            delay = plan.seconds_to_reset * self.settings.time_scale + self._jitter()
        self._schedule(DETECT, delay)

    # --- what the schedule learns ---------------------------------------------------------------------

    def _load_learning(self) -> None:
        """The learned weeks and the cost of the next detection, from the store (no request)."""
        half_life = timedelta(days=self.settings.activity_half_life_days)
        now = self.clock()

        learned = {k: self.store.activity.learned(self.property_id, k.value) for k in ChangeKind}

        def shape(*kinds: ChangeKind) -> tuple[float, ...]:
            return combined_shape(*(week_shape(learned[k], now, half_life=half_life) for k in kinds))

        def seen(*kinds: ChangeKind) -> float:
            return sum(learned_mass(learned[k], now, half_life=half_life) for k in kinds)

        self._shapes = Shapes(
            shape(ChangeKind.AVAILABILITY),
            shape(ChangeKind.CLOSURES, ChangeKind.PRICES),
            seen=(seen(ChangeKind.AVAILABILITY), seen(ChangeKind.CLOSURES, ChangeKind.PRICES)),
        )
        for kind, read_at in newest_reads(self.store, self.property_id).items():
            if read_at is not None:
                self.metrics.pms_read_time.labels(self.property_id, kind.value).set(read_at.timestamp())

    async def _learn(self, report: SyncReport) -> None:
        if report.kind == DETECT and report.pms.price_fill_reads:  # it read unread nights near today
            self._unread = await asyncio.to_thread(
                stored_unread_prices, self.store, self.context, self.clock().date()
            )
            self.metrics.prices_unread_nights.labels(self.property_id).set(self._unread.nights)
        seen = changes_seen(report)
        if seen:
            await asyncio.to_thread(
                record_observations,
                self.store,
                self.property_id,
                seen,
                report.started_at,
                self.settings.timezone,
                timedelta(days=self.settings.activity_half_life_days),
            )
        if seen or report.kind in (DETECT, PRICES, RECONCILE):
            await asyncio.to_thread(self._load_learning)
            await self._estimate_detection()

    async def _estimate_detection(self) -> None:
        """What the next detection will cost (its check windows), and a warm full sync, for the plan."""
        with contextlib.suppress(NoMapping):
            self.costs.check_windows = len(await self.engine.detection_windows())
            self._warm_estimate = await self.engine.warm_full_sync_cost()
        self._cost_full_syncs()

    async def _push(self, room_type_id: int, nights: list[date], exclude: str | None, changes: int) -> None:
        self.metrics.targeted_push_changes.labels(self.property_id).inc(changes)
        report = await self.exclusive(
            PUSH,
            lambda: self.engine.push_nights(room_type_id, nights, exclude_listing_id=exclude),
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
        self, listings: Collection[ListingKey] | None, date_from: date | None, date_to: date | None
    ) -> SyncReport:
        if self._stopping:
            raise ShuttingDown("the daemon is stopping")
        return await self.exclusive(RESYNC, lambda: self.engine.resync(listings, date_from, date_to))

    # --- the plan, gauges and status ----------------------------------------------------------------

    def _listing_count(self) -> int:
        mapping = self.store.mappings.load_mapping(self.property_id)
        return len(mapping.listings) if mapping else 0

    def replan(self) -> PollPlan:
        gate = self.client.gate if self._engine is not None else self._clients[0].gate
        now = self.clock()
        plan = plan_polling(
            self.settings,
            gate.snapshot(),
            self.reserves,
            resets_at=gate.resets_at(),
            now=now,
            listings=self._listing_count(),
            poll_cost=self.costs.poll_cost,
            detect_cost=self.costs.detect_cost,
            full_sync_cost=self.costs.full_sync,
            full_sync_every=self.full_sync_interval(),
            reconcile_cost=self.costs.reconcile,
            shapes=self._shapes,
        )
        self.plan = plan
        finite = math.isfinite(plan.interval)
        pid = self.property_id
        self.metrics.poll_interval.labels(pid).set(plan.interval if finite else math.inf)
        self.metrics.staleness_bound.labels(pid).set(plan.staleness_bound)
        self.metrics.detect_interval.labels(pid).set(plan.detect_interval)
        self.metrics.detect_staleness_bound.labels(pid).set(plan.detect_staleness_bound)
        last = self._logged_interval
        if (
            last is None
            or math.isfinite(last) != finite
            or (finite and abs(plan.interval - last) > PLAN_CHANGE_LOGGED * last)
        ):
            self._logged_interval = plan.interval
            self.log.info("schedule: %s", plan.explanation)
        return plan

    def refresh_gauges(self) -> None:
        """Budget, dead letters and inbox gauges from the store (no request)."""
        if self._store is None or not self._clients:
            return
        gate = self._clients[0].gate
        set_budget_gauges(self.metrics, self._gauges, gate.snapshot(), self.reserves)
        set_store_gauges(self.metrics, self.store, self.property_id, self.clock())
        set_listing_gauges(self.metrics, self.store, self.context)

    def job_statuses(self) -> list[JobStatus]:
        every = {
            POLL: self.plan.interval if self.plan and math.isfinite(self.plan.interval) else None,
            DETECT: (
                self.plan.detect_interval if self.plan and math.isfinite(self.plan.detect_interval) else None
            ),
            PRICES: self.full_sync_interval(),
            RECONCILE: self.settings.reconcile_interval_seconds,
            REPUSH: self.settings.repush_interval_seconds,
        }
        statuses = []
        for kind, record in self.jobs.items():
            statuses.append(
                JobStatus(
                    kind=kind,
                    every_seconds=every.get(kind),
                    next_run_at=self._scheduler.next_run(kind) if kind in SCHEDULED else None,
                    last_run_at=record.last_run_at,
                    last_result=record.last_result,
                    last_error=record.last_error,
                    healthy=self.health.healthy(kind),
                )
            )
        return statuses

    def status(self) -> PropertyStatus:
        plan = self.plan or self.replan()
        schedule = schedule_from_plan(
            plan,
            running=not self._stopping,
            started_at=self.started_at,
            time_scale=self.settings.time_scale,
            jobs=self.job_statuses(),
        )
        gate = self.client.gate
        return collect_status(
            self.store,
            self.context,
            self.clock(),
            schedule=schedule,
            resets_at=gate.resets_at(),
            quota=gate.quota,
            drift=self.drift,
            price_fill=self.price_fill(),
        )

    def credentials_failing(self) -> str | None:
        return self.meter.auth.last_failure if self.meter.auth.failing else None

    def over_budget(self) -> bool:
        snapshot = self.client.gate.snapshot()
        return not snapshot.allows(Priority.AVAILABILITY, self.reserves, 1)

    @property
    def busy(self) -> bool:
        """A run (sync, poll, detection, resync...) is in flight."""
        return any(not task.done() for task in self._running) or bool(self.engine.runs_starting)

    async def wait_idle(self) -> None:
        """Wait for the runs in progress (tests)."""
        running = [task for task in self._running if not task.done()]
        if running:
            with contextlib.suppress(Exception):
                await asyncio.gather(*running, return_exceptions=True)
