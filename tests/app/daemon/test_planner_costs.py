"""What the planner expects the slower jobs to cost before it has seen one run."""

from __future__ import annotations

import logging
from datetime import UTC, datetime, timedelta
from pathlib import Path

from roomsync.adapters.client.config import reserves_of
from roomsync.adapters.client.quota import QuotaGate, UsageHeaders
from roomsync.adapters.store import open_store
from roomsync.app.daemon.planner import Planner
from roomsync.app.daemon.price_fill import UnreadPrices
from roomsync.app.daemon.run_kinds import PRICES
from roomsync.app.sync import SyncReport
from roomsync.metrics import Metrics
from roomsync.property_context import PropertyContext
from roomsync.settings import Settings

NOW = datetime(2027, 3, 1, tzinfo=UTC)


def planner_of(tmp_path: Path, *, with_gate: bool = False, **values: object) -> Planner:
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
        clock=lambda: NOW,
    )
    return Planner(
        context,
        store,
        metrics=Metrics(),
        clock=lambda: NOW,
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
