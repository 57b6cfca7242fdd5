"""Rich tables of sync reports, shared by ``roomsync plan/sync/resync/status`` and the demo."""

from __future__ import annotations

from collections.abc import Iterable, Mapping, Sequence
from datetime import date

from rich.console import Console
from rich.table import Table

from roomsync.app.sync.report import ListingStatus, PricesResult, SyncReport
from roomsync.core.ports import ListingKey, ListingState, SyncRun
from roomsync.core.sync import DayState

_STATUS_STYLE = {
    ListingStatus.WRITTEN: "green",
    ListingStatus.UNCHANGED: "dim",
    ListingStatus.PLANNED: "cyan",
    ListingStatus.PAUSED: "yellow",
    ListingStatus.NO_BUDGET: "red",
    ListingStatus.FAILED: "red",
    ListingStatus.SKIPPED: "yellow",
}


def make_console() -> Console:
    """A console; when the output is not a terminal (a pipe, a log), wide enough for the tables."""
    console = Console()
    if not console.is_terminal:
        console.width = max(console.width, 140)
    return console


def listings_table(report: SyncReport, title: str | None = None) -> Table:
    planned = report.dry_run
    table = Table(title=title or f"{report.kind}: {report.first_night} .. {report.last_night}")
    table.add_column("listing")
    table.add_column("room type", justify="right")
    table.add_column("kind")
    table.add_column("status")
    table.add_column("days changed", justify="right")
    table.add_column("operations", justify="right")
    table.add_column("PUT requests" if planned else "PUTs sent", justify="right")
    table.add_column("priority")
    table.add_column("note")
    for outcome in report.listings:
        style = _STATUS_STYLE.get(outcome.status, "")
        puts = outcome.write_requests if planned or outcome.status is ListingStatus.WRITTEN else 0
        note = outcome.reason or ("channel read" if outcome.read_channel else "")
        if outcome.drift_days:
            note = f"{note}; {outcome.drift_days} days had drifted".lstrip("; ")
        table.add_row(
            outcome.key,
            str(outcome.room_type_id),
            outcome.kind,
            f"[{style}]{outcome.status.value}[/]" if style else outcome.status.value,
            str(outcome.days_changed),
            str(outcome.operations),
            str(puts),
            outcome.priority.name.lower() if outcome.priority is not None else "",
            note,
        )
    return table


def summary_lines(report: SyncReport) -> list[str]:
    lines = []
    spent = ", ".join(f"{name} {count}" for name, count in sorted(report.requests_by_operation.items()))
    what = "reads so far" if report.dry_run else "requests"
    lines.append(f"{what}: {report.requests} ({spent or 'none'})")
    pms = report.pms
    prices = "complete" if pms.prices_complete else "incomplete (continues next sync)"
    lines.append(
        f"PMS: {pms.availability_reads} availability read, {pms.closure_reads} closure reads, "
        f"{pms.price_reads} price reads ({pms.prices_changed} nightly prices changed, {prices})"
    )
    if pms.closures_located:
        lines.append(
            f"room-type closures located by splitting: types {', '.join(map(str, pms.closures_located))}"
        )
    elements = len(report.prices.elements)
    if report.prices.result is not PricesResult.NOT_CONFIGURED:
        lines.append(f"connected channels: {elements} price elements, {report.prices.result.value}")
    for message in report.prices.messages:
        lines.append(f"  {message}")
    if report.dry_run:
        lines.append(
            f"would send: {report.planned_write_requests} write requests "
            f"({report.planned_operations} inventory operations, {elements} price elements)"
        )
    else:
        lines.append(
            f"sent: {report.writes} write requests, {report.operations} inventory operations, "
            f"{report.price_elements_sent} price elements accepted"
        )
    if report.budget_quota is not None:
        lines.append(f"budget: {report.budget_remaining} of {report.budget_quota} requests left today")
    lines.extend(f"note: {note}" for note in report.notes)
    lines.append(f"result: {report.result}" + (f" ({report.error})" if report.error else ""))
    return lines


def states_table(
    listings: Iterable[tuple[ListingKey, int, str]], states: Mapping[ListingKey, ListingState]
) -> Table:
    """One row per ``(listing, room type, kind)`` of ``listings``, with its state in ``states``."""
    table = Table(title="listings")
    for column in ("listing", "room type", "kind", "connected", "last sync (UTC)", "last result", "paused"):
        table.add_column(column)
    for listing, room_type_id, kind in listings:
        state = states.get(listing)
        paused = ""
        if state is not None and state.paused:
            paused = state.pause_reason or "paused"
        elif state is not None and state.sync_category not in (None, "Full", "Limited"):
            paused = f"not connected ({state.sync_category})"
        table.add_row(
            listing.text,
            str(room_type_id),
            kind,
            (state.sync_category or "?") if state else "?",
            state.last_synced_at.strftime("%Y-%m-%d %H:%M:%S") if state and state.last_synced_at else "never",
            (state.last_sync_result or "") if state else "",
            paused,
        )
    return table


def runs_table(runs: Sequence[SyncRun]) -> Table:
    table = Table(title="recent runs")
    for column in ("started (UTC)", "kind", "result", "requests", "operations", "price elements", "detail"):
        table.add_column(column)
    for run in runs:
        table.add_row(
            run.started_at.strftime("%Y-%m-%d %H:%M:%S"),
            run.kind,
            run.result or "running",
            str(run.requests_spent),
            str(run.operations),
            str(run.price_elements),
            (run.error or "")[:80],
        )
    return table


def _day_text(state: DayState | None) -> str:
    if state is None:
        return "-"
    parts = [state.available.value]
    if state.count is not None:
        parts.append(f"count {state.count}")
    parts.append(f"{state.price}" if state.price is not None else "price ?")
    return ", ".join(parts)


def calendar_table(
    title: str, days: Sequence[date], before: Mapping[date, DayState], after: Mapping[date, DayState]
) -> Table:
    table = Table(title=title)
    table.add_column("night")
    table.add_column("before")
    table.add_column("after")
    for day in days:
        old, new = before.get(day), after.get(day)
        changed = old != new
        table.add_row(
            day.strftime("%a %Y-%m-%d"),
            _day_text(old),
            f"[bold]{_day_text(new)}[/]" if changed else _day_text(new),
        )
    return table
