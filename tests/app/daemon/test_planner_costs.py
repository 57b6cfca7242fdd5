"""What the planner expects the slower jobs to cost before it has seen one run."""

from __future__ import annotations

import logging
from datetime import UTC, datetime
from pathlib import Path

from roomsync.adapters.store import open_store
from roomsync.app.daemon.planner import Planner
from roomsync.metrics import Metrics
from roomsync.property_context import PropertyContext
from roomsync.settings import Settings


def test_the_first_reconciliation_is_planned_as_a_full_pass_that_also_reads_each_listing(
    tmp_path: Path,
) -> None:
    settings = Settings(database_url=f"sqlite:///{tmp_path / 'state.db'}")
    store = open_store(settings, upgrade=True)
    planner = Planner(
        PropertyContext.of(settings),
        store,
        metrics=Metrics(),
        clock=lambda: datetime(2027, 3, 1, tzinfo=UTC),
        log=logging.getLogger("test"),
        gate=lambda: None,
    )
    # before any run: a warm full sync's prior (10) and one channel read for each of 5 listings;
    # the old prior, one read per listing (5), planned the demo's 31-35 request reconciliation at 5
    assert planner.reconcile_cost(5) == planner.costs.full_sync + 5 == 15
    planner.costs.reconcile = 33  # what the last reconciliation cost, once one ran
    assert planner.reconcile_cost(5) == 33
