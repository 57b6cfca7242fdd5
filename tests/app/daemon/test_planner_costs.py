"""What the planner expects runs to cost (before it has seen one, and after one cut short), and a
scheduled detection that the plan made again at its start wants later."""

from __future__ import annotations

import asyncio
import logging
import math
import random
from datetime import UTC, datetime, timedelta
from pathlib import Path

from roomsync.adapters.client.config import reserves_of
from roomsync.adapters.client.quota import QuotaGate, UsageHeaders
from roomsync.adapters.store import open_store
from roomsync.app.daemon.planner import Planner
from roomsync.app.daemon.price_fill import UnreadPrices
from roomsync.app.daemon.reset_wait import planned_due, waits_for_reset
from roomsync.app.daemon.run_kinds import DETECT, POLL, PRICES, RECONCILE
from roomsync.app.daemon.schedule import Schedule
from roomsync.app.daemon.scheduler import wall_now
from roomsync.app.sync import SyncReport
from roomsync.core.budget import BudgetSnapshot
from roomsync.metrics import Metrics
from roomsync.property_context import PropertyContext
from roomsync.settings import Settings

NOW = datetime(2027, 3, 1, tzinfo=UTC)


def planner_of(tmp_path: Path, *, with_gate: bool = False, now: datetime = NOW, **values: object) -> Planner:
    settings = Settings(database_url=f"sqlite:///{tmp_path / 'state.db'}", **values)  # type: ignore[arg-type]
    store = open_store(settings, upgrade=True)
    context = PropertyContext.of(settings)
    headers = UsageHeaders(settings.limit_header, settings.remaining_header, settings.reset_header)
    gate = QuotaGate(
        store.budget,
        context.property_id,
        quota=settings.daily_quota,
        reserves=reserves_of(settings),
        headers=headers,
        clock=lambda: now,
    )
    return Planner(
        context,
        store,
        metrics=Metrics(),
        clock=lambda: now,
        log=logging.getLogger("test"),
        gate=lambda: gate if with_gate else None,
    )


def full_sync(requests: int, fill_reads: int) -> SyncReport:
    report = SyncReport("sync", "default", NOW, result="ok")
    report.requests_by_operation["POST /v1/Availability/RoomType/CombinedExtended"] = requests
    report.pms.price_fill_reads = fill_reads
    return report


def test_the_first_reconciliation_is_planned_as_a_full_pass_that_also_reads_each_listing(
    tmp_path: Path,
) -> None:
    planner = planner_of(tmp_path)
    # before any run: a warm full sync's prior (10) and one channel read for each of 5 listings;
    # the old prior, one read per listing (5), planned the demo's 31-35 request reconciliation at 5
    assert planner.reconcile_cost(5) == planner.costs.full_sync + 5 == 15
    planner.costs.reconcile = 33  # what the last reconciliation cost, once one ran
    assert planner.reconcile_cost(5) == 33


def test_a_free_licences_full_syncs_are_planned_at_what_they_cost_with_the_unread_nights_they_read(
    tmp_path: Path,
) -> None:
    planner = planner_of(tmp_path, with_gate=True, daily_quota=100)
    planner.set_unread(UnreadPrices(300, NOW.date() + timedelta(days=20), 365))
    planner._warm_estimate = 6  # what estimate_detection finds a quiet full sync costs (no reads here)
    # the first start's fill (85 unread nights read) says nothing of the next full syncs: they are
    # planned at a quiet full sync's cost plus the 5 unread nights every run may read
    planner.run_seen(PRICES, full_sync(92, 85))
    assert planner.costs.full_sync == 6 + 5
    # a full sync that read no more than every run may is what the next ones cost (35, not 11)
    planner.run_seen(PRICES, full_sync(35, 5))
    assert planner.costs.full_sync == 30 + 5


def cut_short(kind: str, requests: int) -> SyncReport:
    report = SyncReport(kind, "default", NOW, result="partial")
    report.requests_by_operation["POST /v1/Availability/RoomType/CombinedExtended"] = requests
    return report


def test_a_run_the_budget_cut_short_does_not_lower_the_next_ones_planned_cost(tmp_path: Path) -> None:
    planner = planner_of(tmp_path, with_gate=True, daily_quota=100)
    planner.run_seen(PRICES, full_sync(35, 0))
    planner.run_seen(PRICES, cut_short("sync", 0))  # refused before its first request
    # the refused one planned the next full sync at 1 request (6 with the fill) and it spent 47
    assert planner.costs.full_sync == 35
    planner.costs.reconcile = 33
    planner.run_seen(RECONCILE, cut_short("reconcile", 4))
    assert planner.costs.reconcile == 33
    planner.run_seen(PRICES, full_sync(12, 0))  # a whole run says what the next one costs
    assert planner.costs.full_sync == 12


async def test_a_detection_waits_when_the_plan_made_again_at_its_start_wants_it_later(
    tmp_path: Path,
) -> None:
    planner = planner_of(tmp_path, with_gate=True, daily_quota=100)
    schedule = Schedule(planner, lambda kind: asyncio.sleep(0, 0.0), rng=random.Random(1), log=planner.log)
    try:
        interval = planner.replan().detect_interval
        assert math.isfinite(interval)
        # the last detection long ago: this one runs
        schedule._last_detection = wall_now() - timedelta(seconds=2 * interval)
        assert not schedule._detection_deferred()
        # the last one a tenth of the plan's interval ago: it waits for the rest of it
        schedule._last_detection = wall_now() - timedelta(seconds=interval / 10)
        assert schedule._detection_deferred()
        waits = schedule.due_in(DETECT)
        assert waits is not None and 0.85 * interval < waits <= 0.9 * interval + 1
        # detections now cost more than the day has left: none before the reset
        planner.costs.detection_seen(requests=900, windows=1)
        assert not math.isfinite(planner.replan().detect_interval)
        schedule._last_detection = wall_now() - timedelta(seconds=2 * interval)
        assert schedule._detection_deferred()
        waits = schedule.due_in(DETECT)
        assert waits is not None and waits >= planner.replan().seconds_to_reset
    finally:
        schedule.shutdown()


async def test_a_polls_plan_brings_forward_a_detection_left_pending_past_it(tmp_path: Path) -> None:
    planner = planner_of(tmp_path, with_gate=True)
    schedule = Schedule(planner, lambda kind: asyncio.sleep(0, 0.0), rng=random.Random(1), log=planner.log)
    try:
        interval = planner.replan().detect_interval
        assert math.isfinite(interval)
        # a detection put off six hours (to a reset, say), the last one long ago: the next poll's
        # plan wants one now, and gets it
        schedule._last_detection = wall_now() - timedelta(seconds=2 * interval)
        schedule._schedule(DETECT, 6 * 3600.0)
        schedule._keep_detection_on_plan()
        due = schedule.due_in(DETECT)
        assert due is not None and due < 1.0
        # the last detection a tenth of the interval ago, the next due on time: left as it is
        schedule._last_detection = wall_now() - timedelta(seconds=interval / 10)
        schedule._schedule(DETECT, 0.9 * interval)
        schedule._keep_detection_on_plan()
        due = schedule.due_in(DETECT)
        assert due is not None and 0.85 * interval < due <= 0.9 * interval
        # never put off: one due sooner than the plan says stays
        schedule._schedule(DETECT, 60.0)
        schedule._keep_detection_on_plan()
        due = schedule.due_in(DETECT)
        assert due is not None and due <= 60.0
        # nor moved while a full sync runs (its end schedules the next detection)
        schedule._last_detection = wall_now() - timedelta(seconds=2 * interval)
        schedule._schedule(DETECT, 6 * 3600.0)
        schedule._firing.add(PRICES)
        schedule._keep_detection_on_plan()
        due = schedule.due_in(DETECT)
        assert due is not None and due > 3600.0
    finally:
        schedule.shutdown()


async def test_a_detection_lets_a_poll_due_before_it_would_end_go_first(tmp_path: Path) -> None:
    planner = planner_of(tmp_path, with_gate=True)
    schedule = Schedule(planner, lambda kind: asyncio.sleep(0, 0.0), rng=random.Random(1), log=planner.log)
    try:
        schedule._schedule(POLL, 10.0)
        assert not schedule._detection_yields_to_poll()  # no detection seen yet: its length unknown
        schedule._detection_took = 5.0  # the poll comes due after this detection would end
        assert not schedule._detection_yields_to_poll()
        schedule._detection_took = 30.0  # it would hold the poll up: the poll first
        assert schedule._detection_yields_to_poll()
        due = schedule.due_in(DETECT)
        assert due is not None and 10.0 < due <= 11.0
        # once a detection: when it comes due again it runs, whatever became of the poll
        assert not schedule._detection_yields_to_poll()
        assert schedule._detection_yields_to_poll()  # the next detection may yield again
        schedule._detection_yielded = False
        schedule._firing.add(POLL)  # the poll already under way: the detection waits its turn anyway
        assert not schedule._detection_yields_to_poll()
    finally:
        schedule.shutdown()


def budget(quota: int, used: int) -> BudgetSnapshot:
    return BudgetSnapshot("default", NOW.date(), quota=quota, used_local=used, used_server=used)


def test_a_large_slower_job_waits_for_the_reset_once_the_day_is_under_way() -> None:
    settings = Settings()
    reserves = reserves_of(settings)
    hour = 3_600.0
    # a free licence's full sync (38 of 100) at 15:00: after the reset, where the day plans for it
    assert waits_for_reset(settings, budget(100, 40), reserves, cost=38, seconds_to_reset=9 * hour)
    # the same just after the reset (the deferred one comes due then): it runs
    assert waits_for_reset(settings, budget(100, 3), reserves, cost=38, seconds_to_reset=23.5 * hour) is None
    # one large job a day: a reconciliation due with it waits for the next reset
    assert waits_for_reset(settings, budget(100, 45), reserves, cost=38, seconds_to_reset=23.5 * hour)
    # nor while the other slower job runs (both fired at the reset; it has spent nothing yet)
    assert waits_for_reset(
        settings, budget(100, 2), reserves, cost=38, seconds_to_reset=23.9 * hour, another_runs=True
    )
    # today's plan keeps nothing for a large job that will wait: it counts it due at the reset
    assert planned_due(6 * hour, cost=38, quota=100, seconds_to_reset=9 * hour) == math.inf
    # nor for one put off until the reset, read a moment before it (any cost)
    assert planned_due(51_507, cost=9, quota=100, seconds_to_reset=51_516) == math.inf
    assert planned_due(0.2 * hour, cost=38, quota=100, seconds_to_reset=23.5 * hour) == 0.2 * hour
    assert planned_due(6 * hour, cost=30, quota=1_500, seconds_to_reset=9 * hour) == 6 * hour
    # a paid licence's full sync (30 of 1,500) keeps its cadence
    assert waits_for_reset(settings, budget(1_500, 600), reserves, cost=30, seconds_to_reset=9 * hour) is None
    # but not past the day's ceiling (spend_share 0.6: 900), whatever the hour
    why = waits_for_reset(settings, budget(1_500, 880), reserves, cost=30, seconds_to_reset=23.5 * hour)
    assert why is not None and "20 left" in why


async def test_a_full_sync_due_late_in_a_free_day_runs_after_the_reset_but_never_the_first(
    tmp_path: Path,
) -> None:
    planner = planner_of(tmp_path, with_gate=True, now=NOW + timedelta(hours=15), daily_quota=100)
    ran: list[str] = []

    async def run(kind: str) -> float | None:
        ran.append(kind)
        return 0.0

    schedule = Schedule(planner, run, rng=random.Random(1), log=planner.log)
    try:
        planner.costs.full_sync = 38
        assert planner.replan().seconds_to_reset == 9 * 3_600  # 15:00 UTC, the gate's day
        schedule._first_full_sync = True
        await schedule._fire(PRICES)  # the first full sync runs whatever it costs
        assert ran == [PRICES]
        await schedule._fire(PRICES)  # a later one waits for the reset
        assert ran == [PRICES]
        waits = schedule.due_in(PRICES)
        assert waits is not None and waits >= planner.replan().seconds_to_reset
        # a detection that comes due just before it is put off until after it
        schedule._scheduler.schedule(PRICES, 30 * planner.settings.time_scale, lambda: None)
        await schedule._fire(DETECT)
        assert ran == [PRICES]
        waits = schedule.due_in(DETECT)
        assert waits is not None and waits >= 30 + planner.settings.detect_min_seconds - 1
    finally:
        schedule.shutdown()
