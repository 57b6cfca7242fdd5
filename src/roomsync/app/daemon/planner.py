"""The planner of one property's daemon: what its runs have cost, what is left of the price fill,
the learned weeks, and the plan made from them after each run.

:mod:`.planning` holds the maths (the plan, the full-sync cadence; :mod:`.price_reads` the
price-read allowance); this module keeps the state that maths is fed with between runs, and says
it (the ``schedule:`` and ``price fill:`` log lines, the plan's gauges). It sends no request: the
runs' estimates come through :mod:`.run_kinds`.
"""

from __future__ import annotations

import contextlib
import logging
import math
from collections.abc import Callable
from dataclasses import replace
from datetime import datetime, timedelta

from roomsync.adapters.client.config import reserves_of
from roomsync.adapters.client.quota import QuotaGate
from roomsync.adapters.store import Store
from roomsync.app.daemon import run_kinds
from roomsync.app.daemon.burst_budget import RecentSpend
from roomsync.app.daemon.jobs import service_failed
from roomsync.app.daemon.planning import (
    DayCosts,
    Shapes,
    full_sync_delay,
    plan_polling,
    reconcile_delay,
    seconds_until_reset,
)
from roomsync.app.daemon.poll_plan import PollPlan
from roomsync.app.daemon.price_fill import UnreadPrices, fill_status
from roomsync.app.daemon.price_reads import fill_reads_per_day, least_price_reads, price_read_allowance
from roomsync.app.daemon.recent_changes import RecentChanges
from roomsync.app.daemon.reset_wait import planned_due, waits_for_reset
from roomsync.app.daemon.run_costs import RunCosts
from roomsync.app.daemon_view import PriceFillStatus
from roomsync.app.sync import NoMapping, SyncReport
from roomsync.app.sync.report import HEALTHY_RESULTS
from roomsync.core.activity import ChangeKind
from roomsync.core.burst import BURST_SECONDS
from roomsync.core.ports import SyncRun
from roomsync.core.schedule import NextDue
from roomsync.metrics import Metrics
from roomsync.property_context import PropertyContext

PLAN_CHANGE_LOGGED = 0.25
"""A new poll interval is logged when it differs from the last one logged by more than this share."""

Log = logging.Logger | logging.LoggerAdapter[logging.Logger]


def _ended_whole(report: SyncReport) -> bool:
    """The run was not cut short (the budget refused it, or the service failed), so what it cost
    is what the next one will: a refused full sync planned the next at 6 requests, and it spent 47
    (the free week's trace, 2026-12-06). A run cut short plans the next at no less than before."""
    return report.result in HEALTHY_RESULTS


class Planner:
    """The running plan of one property's daemon; see the module docstring."""

    def __init__(
        self,
        context: PropertyContext,
        store: Store,
        *,
        metrics: Metrics,
        clock: Callable[[], datetime],
        log: Log,
        gate: Callable[[], QuotaGate | None],
        due_in: Callable[[str], float | None] = lambda kind: None,
    ) -> None:
        self.context = context
        self.settings = context.settings
        self.property_id = context.property_id
        self.store = store
        self.metrics = metrics
        self.clock = clock
        self.log = log
        self._gate = gate
        """The quota gate the property's clients share (None before the daemon opens them)."""
        self._due_in = due_in
        """Seconds of server time until a scheduled kind's next run (None when none is pending)."""
        self.reserves = reserves_of(self.settings)
        self.plan: PollPlan | None = None
        self.full_sync_failures = 0
        """Full syncs in a row that ended failed or partial (the next one is tried sooner)."""
        self.costs = RunCosts()
        """What polls and detections have cost so far (the plan spends the budget by it)."""
        self._full_sync_warm = self.costs.full_sync
        """What the last full sync cost without its price fill (the next ones' cost, once filled)."""
        self.unread = UnreadPrices(0, None, self.settings.horizon_days)
        """The horizon's nights with no PMS price read yet, as the last full sync (or the store) left them."""
        self._fill_logged = False
        self._warm_estimate: int | None = None
        """What a full sync costs once every price is cached and nothing changed (:mod:`.run_kinds`)."""
        self._last_full_sync_cold = False
        """The last full sync filled the price cache (and located closures, wrote listings whole):
        the next ones are planned at ``_warm_estimate`` instead of its cost."""
        self._logged_interval: float | None = None
        self.shapes: Shapes | None = None
        """The learned weeks, reloaded from the store after a run that saw a change."""
        self.recent = RecentChanges(clock())
        """The changes seen in the last day: a burst of them raises the next half hour's runs."""
        self.learned_at: datetime | None = None
        """When the learned weeks were last reloaded (:func:`.learning.relearn`)."""

    @property
    def gate(self) -> QuotaGate:
        gate = self._gate()
        assert gate is not None, "Daemon.open() first"
        return gate

    # --- what the runs showed ----------------------------------------------------------------------

    def set_unread(self, unread: UnreadPrices) -> None:
        """The nights left unread, as the store or a run says (and their gauge)."""
        self.unread = unread
        self.metrics.prices_unread_nights.labels(self.property_id).set(unread.nights)

    def resumed_from(self, last: SyncRun) -> None:
        """A replica that continues the schedule plans the next full syncs from the last one's cost."""
        self._full_sync_warm = max(last.requests_spent - last.price_fill_reads, 1)
        self._last_full_sync_cold = self._was_cold(last.price_fill_reads)
        self.cost_full_syncs()

    def run_crashed(self, kind: str) -> None:
        if kind == run_kinds.PRICES:
            self.full_sync_failures += 1

    def run_seen(self, kind: str, report: SyncReport) -> None:
        """What ``report``'s run cost, for planning the next runs of its kind."""
        if kind == run_kinds.POLL:
            self.costs.poll_seen(report.requests)
        if kind == run_kinds.PRICES:
            cost = max(report.requests - report.pms.price_fill_reads, 1)
            self._full_sync_warm = cost if _ended_whole(report) else max(cost, self._full_sync_warm)
            self._last_full_sync_cold = self._was_cold(report.pms.price_fill_reads)
            if report.pms.availability_reads:  # it got as far as reading the PMS
                pms = report.pms
                self.set_unread(
                    UnreadPrices(pms.prices_unread_nights, pms.first_unread_night, self.unread.horizon_nights)
                )
            self.cost_full_syncs()
            self.full_sync_failures = self.full_sync_failures + 1 if service_failed(report) else 0
            if report.pms.price_fill_reads:
                self._log_fill(report)
        if kind == run_kinds.DETECT:
            self.costs.detection_seen(
                report.requests - report.pms.price_fill_reads, self.costs.check_windows, at=self.clock()
            )
        if kind == run_kinds.RECONCILE:
            cost = max(report.requests, 1)
            if not _ended_whole(report):
                cost = max(cost, self.reconcile_cost(self._listing_count()))
            self.costs.reconcile = cost

    async def estimate_detection(self, runs: run_kinds.Runs) -> None:
        """What the next detection will cost (its check windows), and a warm full sync, for the plan."""
        with contextlib.suppress(NoMapping):
            self.costs.check_windows = await run_kinds.detection_window_count(runs)
            self._warm_estimate = await run_kinds.warm_full_sync_cost(runs)
        self.cost_full_syncs()

    def seconds_to_reset(self) -> float | None:
        """Seconds until the quota's reset, as the gate knows it, at least one (None before the daemon
        opens it)."""
        gate = self._gate()
        return None if gate is None else seconds_until_reset(gate.resets_at(), self.clock())

    def _quota(self) -> int:
        gate = self._gate()
        return gate.quota if gate is not None else self.settings.daily_quota

    def _was_cold(self, fill_reads: int) -> bool:
        """A full sync that read more unread nights than every run may (a cold cache's fill, the
        first start's): what it cost says nothing of the next ones. One that read no more is a
        full sync as the next will be: on a free licence every full sync reads 5 and, planned at
        a quiet full sync's estimate instead, cost 3x the plan (35 requests against 11, the week
        bench, 2026-12-06)."""
        return fill_reads > least_price_reads(self._quota())

    def cost_full_syncs(self) -> None:
        """What the next full syncs will cost, for the plan: the last one's cost without its price
        fill, plus the fill the next one will still do (none once every night is read)."""
        self.costs.full_sync = self._warm_cost + min(self.unread.nights, least_price_reads(self._quota()))

    @property
    def _warm_cost(self) -> int:
        """What the next full sync costs without a price fill: after a cold one, a quiet full
        sync's reads plus what a detection's changes cost (a full sync finds at least what a
        detection finds: its narrowing reads, the closures it locates, its writes). The quiet
        estimate alone planned a free licence's first warm full sync at 9 requests; it cost 31-38
        (the week bench's trace, 2026-12-06)."""
        if self._last_full_sync_cold and self._warm_estimate is not None:
            return self._warm_estimate + round(self.costs.extra_per_detection)
        return self._full_sync_warm

    def reconcile_cost(self, listings: int) -> int:
        """What the next reconciliation costs: the last one's requests; before the first, a warm
        full sync's plus one channel calendar read per listing (a reconciliation is a full pass
        that also reads the channel and locates the closures again). The prior of one read per
        listing planned 5 for the demo's 31-35 and passed the day's ceiling by 7-18 requests on
        the week bench's first day."""
        return self.costs.reconcile if self.costs.reconcile is not None else self._warm_cost + listings

    # --- the plan ----------------------------------------------------------------------------------

    def _listing_count(self) -> int:
        return self.store.mappings.count_listings(self.property_id)

    def _day_costs(self) -> DayCosts:
        """What each kind of run costs, a full sync at its warm cost (no price fill)."""
        listings = self._listing_count()
        reconcile = self.reconcile_cost(listings)
        quota, to_reset = self._quota(), self.seconds_to_reset()

        def due(kind: str) -> float | None:
            at, cost = self._due_in(kind), self._slower_job_cost(kind, listings)
            return (
                at if to_reset is None else planned_due(at, cost=cost, quota=quota, seconds_to_reset=to_reset)
            )

        return DayCosts(
            listings=listings,
            poll_cost=self.costs.poll_cost,
            detect_cost=self.costs.planned_detect_cost(quota),
            full_sync_cost=self._warm_cost,
            full_sync_every=self.full_sync_interval(),
            reconcile_cost=reconcile,
            reconcile_every=reconcile_delay(self.settings, quota=quota, last_cost=reconcile),
            next_due=NextDue(
                price_detection=due(run_kinds.PRICES),
                reconciliation=due(run_kinds.RECONCILE),
                connected_repush=self._due_in(run_kinds.REPUSH),
            ),
        )

    def _detect_cost_with_fill(self) -> float:
        """What the next detection costs with the unread nights it reads: as many as every run
        may (a free licence's 5, on top of the 13-30 requests its detections cost). Only the
        plan of the polls counts them: the price-read allowance priced with them found nothing
        affordable for a paid licence's cold first full sync (31751f0)."""
        quota = self._quota()
        return self.costs.planned_detect_cost(quota) + min(self.unread.nights, least_price_reads(quota))

    def price_read_cap(self) -> int:
        """The price reads the run starting now may spend (:func:`.price_reads.price_read_allowance`)."""
        gate = self.gate
        return price_read_allowance(
            self.settings, gate.snapshot(), self._day_costs(), resets_at=gate.resets_at(), now=self.clock()
        )

    def fill_reads_per_day(self) -> int:
        """Price reads of unread nights a whole day of the plan affords (for the read-by date)."""
        return fill_reads_per_day(self.settings, self.gate.quota, self._day_costs())

    def price_fill(self) -> PriceFillStatus:
        return fill_status(
            self.unread,
            self.fill_reads_per_day(),
            self.clock().date(),
            self.settings.unread_price_nights.value,
        )

    def full_sync_interval(self) -> float:
        """Seconds until the next full sync (:func:`.planning.full_sync_delay`)."""
        return full_sync_delay(
            self.settings,
            quota=self._quota(),  # one gate for all the property's clients
            last_cost=self.costs.full_sync,
            failures=self.full_sync_failures,
        )

    def _slower_job_cost(self, kind: str, listings: int) -> int:
        """What the next full sync (with its price fill) or reconciliation is planned to cost."""
        return self.costs.full_sync if kind == run_kinds.PRICES else self.reconcile_cost(listings)

    def slower_job_waits(self, kind: str, *, another_runs: bool = False) -> str | None:
        """Why the full sync or reconciliation due now waits for the quota's reset, or None
        (:func:`.reset_wait.waits_for_reset`, at its planned cost)."""
        return waits_for_reset(
            self.settings,
            self.gate.snapshot(),
            self.reserves,
            cost=self._slower_job_cost(kind, self._listing_count()),
            seconds_to_reset=self.seconds_to_reset() or 0.0,
            another_runs=another_runs,
        )

    def reconcile_interval(self) -> float:
        """Seconds until the next reconciliation (:func:`.planning.reconcile_delay`)."""
        cost = self.reconcile_cost(self._listing_count())
        return reconcile_delay(self.settings, quota=self._quota(), last_cost=cost)

    def _recent_spend(self, now: datetime) -> RecentSpend:
        """What the runs of the last ``BURST_SECONDS`` spent (for a burst's cap on an hour's spend)."""
        since = now - timedelta(seconds=BURST_SECONDS)
        spent = self.store.sync_runs.spent_since(self.property_id, since)

        def average(kind: str) -> float | None:
            runs = spent.get(kind)
            return runs.requests / runs.runs if runs is not None and runs.runs else None

        return RecentSpend(
            sum(runs.requests for runs in spent.values()),
            poll_cost=average(run_kinds.POLL),
            detect_cost=average(run_kinds.DETECT),
        )

    def replan(self) -> PollPlan:
        gate = self.gate
        now = self.clock()
        bursts = self.recent.bursts(now)
        plan = plan_polling(
            self.settings,
            gate.snapshot(),
            self.reserves,
            resets_at=gate.resets_at(),
            now=now,
            # the next full sync and detections at what they cost with their price fill
            costs=replace(
                self._day_costs(),
                full_sync_cost=self.costs.full_sync,
                detect_cost=self._detect_cost_with_fill(),
            ),
            shapes=self.shapes,
            bursts=bursts,
            recent=self._recent_spend(now) if bursts != (None, None) else None,
        )
        self.plan = plan
        finite = math.isfinite(plan.interval)
        pid = self.property_id
        self.metrics.poll_interval.labels(pid).set(plan.interval if finite else math.inf)
        self.metrics.staleness_bound.labels(pid).set(plan.staleness_bound)
        self.metrics.detect_interval.labels(pid).set(plan.detect_interval)
        self.metrics.detect_staleness_bound.labels(pid).set(plan.detect_staleness_bound)
        for kind in ChangeKind:
            promised = plan.promised_p95 if kind is ChangeKind.AVAILABILITY else plan.detect_promised_p95
            self.metrics.promised_p95.labels(pid, kind.value).set(promised)
        last = self._logged_interval
        if (
            last is None
            or math.isfinite(last) != finite
            or (finite and abs(plan.interval - last) > PLAN_CHANGE_LOGGED * last)
        ):
            self._logged_interval = plan.interval
            self.log.info("schedule: %s", plan.explanation)
        return plan

    def _log_fill(self, report: SyncReport) -> None:
        """Say what the price fill did and what the day's plan gets after it (once it is done, and
        at each step while it is not)."""
        if self._fill_logged and self.unread.nights == 0:
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
        self._fill_logged = self.unread.nights == 0
