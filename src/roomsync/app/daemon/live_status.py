"""What a running daemon adds to its property's status and gauges: its plan, each job's next run,
last result and health, the drift the last reconciliation found, and the budget as its quota gate
sees it (:mod:`.status` builds the rest from the store). No request is sent.
"""

from __future__ import annotations

import math
from collections.abc import Callable, Mapping
from datetime import datetime

from roomsync.adapters.store import Store
from roomsync.adapters.store.gauge_reads import GaugeFacts
from roomsync.app.daemon import run_kinds
from roomsync.app.daemon.health import HealthLog
from roomsync.app.daemon.jobs import JobRecord
from roomsync.app.daemon.observe import GaugeState, set_budget_gauges, set_store_gauges
from roomsync.app.daemon.planner import Planner
from roomsync.app.daemon.status import collect_status, schedule_from_plan
from roomsync.app.daemon_view import JobStatus, PropertyStatus
from roomsync.metrics import Metrics


def refresh_gauges(
    metrics: Metrics,
    gauges: GaugeState,
    planner: Planner,
    store: Store,
    *,
    budget: bool = True,
    facts: GaugeFacts | None = None,
    budget_only: bool = False,
) -> None:
    """The budget's gauges (unless ``budget`` is False), then the dead letters, inbox and listing
    gauges from ``facts`` (read from the store when not given); the budget's alone with
    ``budget_only``. No request is sent."""
    if budget:
        set_budget_gauges(metrics, gauges, planner.gate.snapshot(), planner.reserves)
    if budget_only:
        return
    pid = planner.property_id
    if facts is None:
        facts = store.gauge_reads.gauge_facts([pid])[pid]
    set_store_gauges(metrics, pid, facts, planner.clock())


def job_statuses(
    jobs: Mapping[str, JobRecord],
    health: HealthLog,
    planner: Planner,
    next_run: Callable[[str], datetime | None],
) -> list[JobStatus]:
    plan = planner.plan
    settings = planner.settings
    every = {
        run_kinds.POLL: plan.interval if plan and math.isfinite(plan.interval) else None,
        run_kinds.DETECT: (plan.detect_interval if plan and math.isfinite(plan.detect_interval) else None),
        run_kinds.PRICES: planner.full_sync_interval(),
        run_kinds.RECONCILE: planner.reconcile_interval(),
        run_kinds.REPUSH: settings.repush_interval_seconds,
    }
    statuses = []
    for kind, record in jobs.items():
        statuses.append(
            JobStatus(
                kind=kind,
                every_seconds=every.get(kind),
                next_run_at=next_run(kind) if kind in run_kinds.SCHEDULED else None,
                last_run_at=record.last_run_at,
                last_result=record.last_result,
                last_error=record.last_error,
                healthy=health.healthy(kind),
            )
        )
    return statuses


def live_status(
    planner: Planner,
    store: Store,
    *,
    jobs: Mapping[str, JobRecord],
    health: HealthLog,
    next_run: Callable[[str], datetime | None],
    running: bool,
    started_at: datetime | None,
    drift: dict[str, int],
) -> PropertyStatus:
    """The property's status as its running daemon knows it."""
    plan = planner.plan or planner.replan()
    schedule = schedule_from_plan(
        plan,
        running=running,
        started_at=started_at,
        time_scale=planner.settings.time_scale,
        jobs=job_statuses(jobs, health, planner, next_run),
    )
    gate = planner.gate
    return collect_status(
        store,
        planner.context,
        planner.clock(),
        schedule=schedule,
        resets_at=gate.resets_at(),
        quota=gate.quota,
        drift=drift,
        price_fill=planner.price_fill(),
    )
