"""Today's request budget for people: used, remaining and reserved per priority (``roomsync budget``)."""

from __future__ import annotations

from dataclasses import dataclass
from datetime import UTC, date, datetime

from rich.table import Table

from roomsync.adapters.client.config import reserves_of
from roomsync.core.budget import BudgetSnapshot, Reserves, budget_period, effective_quota
from roomsync.core.catalog.types import Priority
from roomsync.core.ports import BudgetStore
from roomsync.property_context import PropertyContext

__all__ = [
    "BudgetPeriod",
    "BudgetView",
    "PriorityLine",
    "budget_for_today",
    "budget_view",
    "current_period",
    "load_budget_view",
    "render_budget",
]


@dataclass(frozen=True)
class PriorityLine:
    priority: Priority
    used: int
    """Requests roomsync sent today at this priority."""
    refused: int
    """Requests refused locally today at this priority (nothing was sent)."""
    reserved: int
    """Requests this priority must leave for the priorities above it."""
    available: int
    """Requests this priority may still send today."""


@dataclass(frozen=True)
class BudgetView:
    property_id: str
    day: date
    quota: int
    used: int
    """The larger of roomsync's own count and the server's (other applications share the quota)."""
    used_local: int
    used_server: int
    remaining: int
    lines: tuple[PriorityLine, ...]
    resets_at: datetime | None = None


def budget_view(
    snapshot: BudgetSnapshot, reserves: Reserves, *, resets_at: datetime | None = None
) -> BudgetView:
    """The per-priority view of one day's budget."""
    lines = []
    for priority in Priority:
        reserved = reserves.count(priority, snapshot.quota)
        lines.append(
            PriorityLine(
                priority=priority,
                used=snapshot.by_priority.get(priority, 0),
                refused=snapshot.refused_by_priority.get(priority, 0),
                reserved=reserved,
                available=max(snapshot.remaining - reserved, 0),
            )
        )
    return BudgetView(
        property_id=snapshot.property_id,
        day=snapshot.day,
        quota=snapshot.quota,
        used=snapshot.used,
        used_local=snapshot.used_local,
        used_server=snapshot.used_server,
        remaining=snapshot.remaining,
        lines=tuple(lines),
        resets_at=resets_at,
    )


def load_budget_view(
    store: BudgetStore,
    property_id: str,
    day: date,
    quota: int,
    reserves: Reserves,
    *,
    resets_at: datetime | None = None,
) -> BudgetView:
    """:func:`budget_view` of what ``store`` holds for ``property_id`` on ``day`` (no request)."""
    return budget_view(store.snapshot(property_id, day, quota), reserves, resets_at=resets_at)


@dataclass(frozen=True)
class BudgetPeriod:
    day: date
    """The period's key in the budget store."""
    quota: int
    resets_at: datetime


def current_period(
    store: BudgetStore, property_id: str, configured_quota: int, now: datetime
) -> BudgetPeriod:
    """The budget period ``now`` is in, as the server last described it (limit and reset, kept in
    the store by whichever process heard it), else as the settings say; sends no request."""
    limits = store.server_limits(property_id)
    day, resets_at = budget_period(now, limits.resets_at if limits else None)
    return BudgetPeriod(day=day, quota=effective_quota(configured_quota, limits), resets_at=resets_at)


def budget_for_today(
    store: BudgetStore, context: PropertyContext, *, now: datetime | None = None
) -> BudgetView:
    """The current budget of the property as the store holds it; sends no request."""
    now = now or datetime.now(UTC)
    settings = context.settings
    pid = context.property_id
    period = current_period(store, pid, settings.daily_quota, now)
    return load_budget_view(
        store, pid, period.day, period.quota, reserves_of(settings), resets_at=period.resets_at
    )


def render_budget(view: BudgetView) -> Table:
    """A rich table of ``view``: one row per priority, the totals in the caption."""
    table = Table(title=f"Request budget of {view.property_id} on {view.day.isoformat()} (UTC)")
    table.add_column("priority")
    table.add_column("used", justify="right")
    table.add_column("refused", justify="right")
    table.add_column("reserved for higher", justify="right")
    table.add_column("still allowed", justify="right")
    for line in view.lines:
        table.add_row(
            line.priority.name.lower(),
            str(line.used),
            str(line.refused),
            str(line.reserved),
            str(line.available),
        )
    resets = f"; resets at {view.resets_at.isoformat(timespec='minutes')}" if view.resets_at else ""
    table.caption = (
        f"{view.used} of {view.quota} used (roomsync {view.used_local}, server {view.used_server}), "
        f"{view.remaining} remaining{resets}"
    )
    return table
