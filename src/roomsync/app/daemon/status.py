"""The status of a property: what ``GET /admin/status`` answers and ``roomsync status`` prints
(its models are :mod:`roomsync.app.daemon_view`'s, which the console reads too).

:func:`collect_status` builds it from the store (no request to the service). A running daemon
adds what only it knows (:class:`~roomsync.app.daemon_view.ScheduleStatus`: the planned poll
interval, the next run of each job, each job's health, the drift the last reconciliation found;
:mod:`.live_status`); without a daemon, the schedule shown is the one a daemon would plan now from
the stored budget.
"""

from __future__ import annotations

import math
from collections.abc import Iterable, Mapping
from datetime import datetime

from roomsync.adapters.client.budget_view import current_period
from roomsync.adapters.client.config import reserves_of
from roomsync.adapters.store import Store
from roomsync.app.daemon.freshness import newest_reads
from roomsync.app.daemon.planning import (
    DayCosts,
    full_sync_delay,
    plan_polling,
)
from roomsync.app.daemon.poll_plan import PollPlan
from roomsync.app.daemon.price_fill import fill_status, stored_unread_prices
from roomsync.app.daemon.price_reads import fill_reads_per_day
from roomsync.app.daemon.run_costs import RunCosts
from roomsync.app.daemon_view import (
    BudgetStatus,
    FreshnessRow,
    InboxSummary,
    JobStatus,
    ListingStatusRow,
    PriceFillStatus,
    PropertyStatus,
    RunRow,
    ScheduleStatus,
)
from roomsync.app.sync.pauses import pause_label, pause_reason
from roomsync.core.activity import ChangeKind
from roomsync.core.catalog.types import Priority
from roomsync.core.mapping import ListingMapping
from roomsync.core.ports import ListingFacts, ListingKey, ListingState
from roomsync.property_context import PropertyContext

SYNCED_RESULTS = ("written", "unchanged")


def listing_state_of(state: ListingState, facts: ListingFacts | None) -> tuple[str, str | None]:
    """Where a listing stands and why it is not being synced: ``syncing``, ``paused``,
    ``not_connected``, ``missing`` (not among the channel's listings) or ``never_synced``."""
    reason = pause_reason(state, facts)
    if reason is not None:
        label = pause_label(reason)
        kind = label if label in ("not_connected", "missing") else "paused"
        return kind, reason
    if not (state.last_sync_result or "").startswith(SYNCED_RESULTS):
        why = state.last_sync_result or "no sync has reached it yet"
        return "never_synced", f"never synced successfully ({why})"
    return "syncing", None


def schedule_from_plan(
    plan: PollPlan, *, running: bool, started_at: datetime | None, time_scale: float, jobs: list[JobStatus]
) -> ScheduleStatus:
    return ScheduleStatus(
        daemon_running=running,
        started_at=started_at,
        poll_interval_seconds=_finite(plan.interval),
        staleness_bound_seconds=_finite(plan.staleness_bound),
        polls_until_reset=plan.polls_until_reset,
        detect_interval_seconds=_finite(plan.detect_interval),
        detect_staleness_bound_seconds=_finite(plan.detect_staleness_bound),
        promised_p95_seconds=_finite(plan.promised_p95),
        detect_promised_p95_seconds=_finite(plan.detect_promised_p95),
        seconds_to_reset=plan.seconds_to_reset,
        free_licence=plan.free_licence,
        explanation=plan.explanation,
        time_scale=time_scale,
        jobs=jobs,
    )


def _finite(seconds: float) -> float | None:
    return seconds if math.isfinite(seconds) else None


def promised_p95(schedule: ScheduleStatus, kind: ChangeKind) -> float | None:
    """What ``schedule`` promises ``kind``: availability is seen by the polls, the rest by the
    closure and price detection."""
    if kind is ChangeKind.AVAILABILITY:
        return schedule.promised_p95_seconds
    return schedule.detect_promised_p95_seconds


def listing_rows(
    store: Store, context: PropertyContext, drift: dict[str, int]
) -> tuple[bool, list[ListingStatusRow]]:
    pid = context.property_id
    mapping = store.mappings.load_mapping(pid)
    listed = store.listing_states.list_listing_states(pid)
    facts = store.sync_state.listing_facts(pid)
    return mapping is not None, rows_of(pid, mapping.listings if mapping else (), listed, facts, drift)


def rows_of(
    property_id: str,
    listings: Iterable[ListingMapping],
    listed: Iterable[ListingState],
    facts: Mapping[ListingKey, ListingFacts],
    drift: Mapping[str, int],
) -> list[ListingStatusRow]:
    """A row per mapped listing (in the mapping's order), then per listing heard of but not mapped."""
    states: dict[ListingKey, ListingState] = {state.listing: state for state in listed}
    rows: list[ListingStatusRow] = []

    def row(state: ListingState, **extra: object) -> ListingStatusRow:
        key = state.listing.text
        where, why = listing_state_of(state, facts.get(state.listing))
        return ListingStatusRow(
            state=where,
            reason=why,
            account_id=state.listing.account_id,
            listing_id=state.listing.listing_id,
            paused=state.paused,
            pause_reason=state.pause_reason,
            approval_status=state.approval_status,
            sync_category=state.sync_category,
            last_synced_at=state.last_synced_at,
            last_sync_result=state.last_sync_result,
            drift_days=drift.get(key),
            **extra,
        )

    for entry in listings:
        listing = entry.listing_key(property_id)
        state = states.pop(listing, None) or ListingState(listing)
        rows.append(row(state, room_type_id=entry.room_type_id, kind=entry.kind.value))
    for state in states.values():  # listings roomsync heard of (webhooks) that are not mapped
        rows.append(row(state, mapped=False))
    return rows


def collect_status(
    store: Store,
    context: PropertyContext,
    now: datetime,
    *,
    schedule: ScheduleStatus | None = None,
    resets_at: datetime | None = None,
    quota: int | None = None,
    drift: dict[str, int] | None = None,
    price_fill: PriceFillStatus | None = None,
) -> PropertyStatus:
    """The property's status from the store; ``schedule`` when a daemon supplies its own."""
    settings = context.settings
    pid = context.property_id
    reserves = reserves_of(settings)
    period = current_period(store.budget, pid, settings.daily_quota, now)
    resets = resets_at or period.resets_at
    snapshot = store.budget.snapshot(pid, period.day, quota or period.quota)
    mapped, listings = listing_rows(store, context, drift or {})
    if schedule is None:
        plan = plan_polling(
            settings,
            snapshot,
            reserves,
            resets_at=resets,
            now=now,
            costs=DayCosts(sum(1 for row in listings if row.mapped)),
        )
        schedule = schedule_from_plan(
            plan, running=False, started_at=None, time_scale=settings.time_scale, jobs=[]
        )
    if price_fill is None:
        mapped_listings = sum(row.mapped for row in listings)
        price_fill = _price_fill_without_daemon(store, context, now, snapshot.quota, mapped_listings)
    backlog = store.webhook_records.inbox_backlog(pid)
    oldest = backlog.oldest_open_received_at
    runs = store.sync_runs.recent_runs(pid, limit=10)
    return PropertyStatus(
        property_id=pid,
        generated_at=now,
        mapping_loaded=mapped,
        schedule=schedule,
        freshness=[
            FreshnessRow(
                kind=kind.value,
                read_at=read_at,
                age_seconds=None if read_at is None else max((now - read_at).total_seconds(), 0.0),
                promised_p95_seconds=promised_p95(schedule, kind),
            )
            for kind, read_at in newest_reads(store, pid).items()
        ],
        budget=BudgetStatus(
            quota=snapshot.quota,
            used=snapshot.used,
            used_local=snapshot.used_local,
            used_server=snapshot.used_server,
            remaining=snapshot.remaining,
            resets_at=resets,
            reserved={p.name.lower(): reserves.count(p, snapshot.quota) for p in Priority},
            refused={p.name.lower(): snapshot.refused_by_priority.get(p, 0) for p in Priority},
        ),
        prices=price_fill,
        listings=listings,
        inbox=InboxSummary(
            backlog=backlog.open,
            oldest_age_seconds=0.0 if oldest is None else max((now - oldest).total_seconds(), 0.0),
            failed=backlog.failed,
            refused=backlog.refused,
            dead_letters=store.dead_letters.count_dead_letters(pid),
        ),
        recent_runs=[RunRow(**run.__dict__) for run in runs],
    )


def _price_fill_without_daemon(
    store: Store, context: PropertyContext, now: datetime, quota: int, listings: int
) -> PriceFillStatus:
    """The unread nights from the store, read by the date a daemon's plan would afford with the
    costs it starts from (no daemon is running to say better)."""
    settings = context.settings
    costs = RunCosts()
    every = full_sync_delay(settings, quota=quota, last_cost=costs.full_sync, failures=0)
    day = DayCosts(listings, costs.poll_cost, costs.detect_cost, costs.full_sync, every)
    per_day = fill_reads_per_day(settings, quota, day)
    unread = stored_unread_prices(store, context, now.date())
    return fill_status(unread, per_day, now.date(), settings.unread_price_nights.value)
