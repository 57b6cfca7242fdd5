"""The reconciliation: a resync of everything at the ``RECONCILE`` priority that also locates the
room-type closures again and counts the nights that had drifted from the ledger (the daemon runs
it every ``reconcile_interval_seconds``)."""

from __future__ import annotations

from roomsync.app.sync.report import COMMAND_LINE, SyncReport
from roomsync.app.sync.runs.full_sync import FullScope, full_pass
from roomsync.app.sync.runs.property_sync import PropertySync
from roomsync.core.catalog.types import Priority

RECONCILE = "reconcile"

SCOPE = FullScope(read_channel=True, relocate_closures=True, read_priority=Priority.RECONCILE)


async def reconcile(sync: PropertySync, *, trigger: str = COMMAND_LINE) -> SyncReport:
    return await sync.recorder.run(
        RECONCILE, False, lambda report: full_pass(sync, report, SCOPE), trigger=trigger
    )
