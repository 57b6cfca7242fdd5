"""The plan: a full sync, or a resync (the console shows one before an admin confirms it), as a
dry run. The reads are real and cost requests (a resync's plan reads the channel of each
listing), and what they learned (PMS prices, closures, a first channel read) is kept so the sync
that follows does not pay for it twice; nothing is sent to the channel, and no run is recorded.
"""

from __future__ import annotations

from roomsync.app.sync.report import COMMAND_LINE, SyncReport
from roomsync.app.sync.runs.full_sync import FullScope, full_pass
from roomsync.app.sync.runs.property_sync import PropertySync, check_request
from roomsync.app.sync.runs.resync import ResyncRequest

PLAN = "plan"


async def plan(
    sync: PropertySync, resync: ResyncRequest | None = None, *, trigger: str = COMMAND_LINE
) -> SyncReport:
    """The dry run of a full sync, or of ``resync`` when given (:class:`RequestRefused` for a
    listing not in the mapping or dates outside the horizon, before anything is read)."""
    if resync is None:
        scope = FullScope(dry_run=True)
    else:
        await check_request(sync, resync.listings, (resync.date_from, resync.date_to))
        scope = resync.scope(dry_run=True)
    return await sync.recorder.run(PLAN, True, lambda report: full_pass(sync, report, scope), trigger=trigger)
