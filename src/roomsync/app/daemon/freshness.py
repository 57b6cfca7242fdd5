"""How fresh each kind of PMS fact is, and what the schedule learns from what a run saw.

*Freshness*: the newest PMS read that sees each kind of change (:class:`ChangeKind`), from the
runs recorded in the store, so ``status``, the admin API and a replica that just took the property
over all see the same ages. A run counts when it ended well (``ok``, ``ok_with_warnings``).

*Observations*: after each run, the changes it saw are added to the learned shape of the week
(``store.activity``), one count per room type whose availability changed and one per edit of
closures or prices (a run of nights of a room type: a detection that batched a day's price edits
counts them all, so a rare detection does not make its kind look rare), in the hour of the
property's local week the run ran in.
"""

from __future__ import annotations

from collections.abc import Iterable
from datetime import datetime, timedelta
from zoneinfo import ZoneInfo

from roomsync.adapters.store import Store
from roomsync.app.sync import ListingStatus, SyncReport
from roomsync.app.sync.report import HEALTHY_RESULTS
from roomsync.core.activity import ChangeKind, hour_of_week

READS: dict[ChangeKind, tuple[str, ...]] = {
    ChangeKind.AVAILABILITY: ("poll", "sync", "resync", "reconcile"),
    ChangeKind.CLOSURES: ("detect", "sync", "resync", "reconcile"),
    ChangeKind.PRICES: ("detect", "sync", "resync", "reconcile"),
}
"""The run kinds that read each kind of PMS fact."""


def newest_reads(store: Store, property_id: str) -> dict[ChangeKind, datetime | None]:
    """When the newest PMS read of each kind started (None: never)."""
    runs = store.sync_runs
    return {kind: runs.latest_start(property_id, kinds, HEALTHY_RESULTS) for kind, kinds in READS.items()}


def changes_seen(report: SyncReport) -> dict[ChangeKind, int]:
    """What ``report``'s run saw change in the PMS, per kind (kinds it saw nothing of are left out).

    A listing written only on nights written for the first time saw no change
    (``ListingOutcome.days_new``): the poll after the date moves writes every listing's new last
    night, the full sync that reads its price next writes that, and counted as the desk's changes
    they made 00:00 and 05:00 busy hours in the learned week: 6-7 % of the week bench's polls
    each, where the desk's share of changes gives them 3 % (2026-12-07)."""
    seen: dict[ChangeKind, int] = {}
    written = {
        o.room_type_id
        for o in report.listings
        if o.status is ListingStatus.WRITTEN and o.days_changed > o.days_new
    }
    if written and report.kind in READS[ChangeKind.AVAILABILITY]:
        seen[ChangeKind.AVAILABILITY] = len(written)
    if report.pms.closure_edits:
        seen[ChangeKind.CLOSURES] = report.pms.closure_edits
    if report.kind == "detect" and report.pms.price_edits:
        seen[ChangeKind.PRICES] = report.pms.price_edits
    return seen


def record_observations(
    store: Store,
    property_id: str,
    seen: dict[ChangeKind, int],
    at: datetime,
    timezone: str,
    half_life: timedelta,
) -> None:
    hour = hour_of_week(at.astimezone(ZoneInfo(timezone)))
    for kind, count in seen.items():
        store.activity.observe(property_id, kind.value, hour, at, half_life, float(count))


def kinds_read(run_kind: str) -> Iterable[ChangeKind]:
    return (kind for kind, runs in READS.items() if run_kind in runs)
