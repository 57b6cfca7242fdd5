"""What the daemon's schedule learns from its runs: the learned weeks of changes, read back from
the store, and what a run saw added to them (:mod:`.freshness` records the observations).

After a run that saw a change, a full sync or a reconciliation (or a detection that saw nothing,
at most once an hour) the planner's weeks are reloaded and the next detection's cost estimated
again, so the plan made after the run spends the budget where the changes happen.
"""

from __future__ import annotations

import asyncio
from datetime import datetime, timedelta

from roomsync.adapters.store import Store
from roomsync.app.daemon import run_kinds
from roomsync.app.daemon.freshness import changes_seen, newest_reads, record_observations
from roomsync.app.daemon.planner import Planner
from roomsync.app.daemon.planning import Shapes
from roomsync.app.daemon.price_fill import stored_unread_prices
from roomsync.app.sync import SyncReport
from roomsync.core.activity import ChangeKind, combined_shape, learned_mass, week_shape
from roomsync.metrics import Metrics
from roomsync.property_context import PropertyContext


def load_learning(store: Store, context: PropertyContext, metrics: Metrics, now: datetime) -> Shapes:
    """The learned weeks from the store (no request); the PMS read times' gauges set on the way."""
    property_id = context.property_id
    half_life = timedelta(days=context.settings.activity_half_life_days)

    learned = {k: store.activity.learned(property_id, k.value) for k in ChangeKind}

    def shape(*kinds: ChangeKind) -> tuple[float, ...]:
        return combined_shape(*(week_shape(learned[k], now, half_life=half_life) for k in kinds))

    def seen(*kinds: ChangeKind) -> float:
        return sum(learned_mass(learned[k], now, half_life=half_life) for k in kinds)

    shapes = Shapes(
        shape(ChangeKind.AVAILABILITY),
        shape(ChangeKind.CLOSURES, ChangeKind.PRICES),
        seen=(seen(ChangeKind.AVAILABILITY), seen(ChangeKind.CLOSURES, ChangeKind.PRICES)),
    )
    for kind, read_at in newest_reads(store, property_id).items():
        if read_at is not None:
            metrics.pms_read_time.labels(property_id, kind.value).set(read_at.timestamp())
    return shapes


RELEARN_QUIET_EVERY = timedelta(hours=1)
"""How often a detection that saw nothing reloads the learned weeks all the same (they fade with
time, and the near nights move with the date); one that saw a change reloads them at once."""


async def relearn(planner: Planner, runs: run_kinds.Runs) -> None:
    """Reload the planner's learned weeks and estimate the next detection again."""
    planner.learned_at = planner.clock()
    planner.shapes = await asyncio.to_thread(
        load_learning, planner.store, planner.context, planner.metrics, planner.clock()
    )
    await planner.estimate_detection(runs)


async def learn(report: SyncReport, planner: Planner, runs: run_kinds.Runs) -> None:
    """What ``report``'s run teaches the schedule: the unread nights a detection read, the changes
    it saw (kept in the store), and the weeks and estimates reloaded when they may have moved."""
    settings = planner.settings
    if report.kind == run_kinds.DETECT and report.pms.price_fill_reads:  # it read unread nights near today
        unread = await asyncio.to_thread(
            stored_unread_prices, planner.store, planner.context, planner.clock().date()
        )
        planner.set_unread(unread)
    seen = changes_seen(report)
    planner.recent.heard(report.started_at, seen)
    if seen:
        await asyncio.to_thread(
            record_observations,
            planner.store,
            planner.property_id,
            seen,
            report.started_at,
            settings.timezone,
            timedelta(days=settings.activity_half_life_days),
        )
    if seen or report.kind in (run_kinds.PRICES, run_kinds.RECONCILE):
        await relearn(planner, runs)
    elif report.kind == run_kinds.DETECT:
        # a quiet detection changed neither the weeks nor the closures its windows are cut
        # around: reloading both after each one was a sixteenth of a replica's CPU (issue 26)
        last = planner.learned_at
        if last is None or planner.clock() - last >= RELEARN_QUIET_EVERY:
            await relearn(planner, runs)
