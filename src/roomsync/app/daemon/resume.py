"""Where a property's schedule stands when a replica starts serving it.

A replica that takes a property (at its start, after a rolling restart, from a replica that died,
or when the properties are shared out again) finds the property's runs in the store. When the
last full sync ended healthy and covered every listing the mapping now has, the ledger, the
located closures and the price cache it left are in the store too: the new owner continues the
schedule (the next full sync when it is due, polls and detections counted from the last ones)
instead of spending a full sync that would find nothing new. Otherwise (no full sync yet, the last
one failed, a listing mapped since) the first full sync runs at once, as on a first start.
"""

from __future__ import annotations

import asyncio
from dataclasses import dataclass
from datetime import UTC, datetime

from roomsync.adapters.store import Store
from roomsync.app.daemon import run_kinds
from roomsync.app.sync.report import HEALTHY_RESULTS
from roomsync.core.ports import SyncRun

FULL_SYNC_RUN = "sync"


@dataclass(frozen=True)
class ScheduleResume:
    full_sync: SyncRun
    """The last full sync: healthy, finished."""
    last_started: dict[str, datetime]
    """Run kind (``poll``, ``detect``) -> when its last run started (absent: never)."""


def last_runs(
    store: Store, property_id: str, kinds: tuple[str, ...]
) -> tuple[SyncRun | None, dict[str, datetime]]:
    """The property's last full sync (whatever its result), and when the last run of each of
    ``kinds`` started."""
    runs = store.sync_runs.recent_runs(property_id, limit=1, kind=FULL_SYNC_RUN)
    started: dict[str, datetime] = {}
    for kind in kinds:
        found = store.sync_runs.recent_runs(property_id, limit=1, kind=kind)
        if found:
            started[kind] = aware(found[0].started_at)
    return (runs[0] if runs else None), started


def resumable(full_sync: SyncRun | None, covered: bool) -> bool:
    """Whether a schedule may continue after ``full_sync`` (``covered``: every listing mapped now
    was synced since it started)."""
    return (
        full_sync is not None
        and full_sync.finished_at is not None
        and full_sync.result in HEALTHY_RESULTS
        and covered
    )


def aware(moment: datetime) -> datetime:
    return moment if moment.tzinfo else moment.replace(tzinfo=UTC)


async def resume_point(store: Store, property_id: str, runs: run_kinds.Runs) -> ScheduleResume | None:
    """Where the schedule stands in the store, when it may be continued (None: start afresh)."""
    full_sync, started = await asyncio.to_thread(
        last_runs, store, property_id, (run_kinds.POLL, run_kinds.DETECT)
    )
    covered = full_sync is not None and await run_kinds.synced_every_listing_since(
        runs, aware(full_sync.started_at)
    )
    if full_sync is None or not resumable(full_sync, covered):
        return None
    return ScheduleResume(full_sync, started)
