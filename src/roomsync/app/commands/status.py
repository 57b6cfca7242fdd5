"""``roomsync status`` and ``roomsync resync``, whether or not a daemon is running.

With a daemon running for the property (``admin_url`` answers, or the property's lock file is
held), ``status`` shows the daemon's own status (its planned poll interval, the next run of each
job, each job's health) and ``resync`` asks the daemon to run it, through the admin API: two
writers of one listing would race, so the command never writes beside a daemon. Without a daemon
both run directly (the runs' commands of ``roomsync.app.commands.sync``), the resync
holding the property's lock so that a daemon starting meanwhile waits for it.
"""

from __future__ import annotations

import math
from datetime import UTC, date, datetime
from typing import Any

import typer
from rich.console import Console
from rich.table import Table

from roomsync.adapters.store import open_store
from roomsync.app.cli_support import (
    EXIT_FAILURE,
    JSON_HELP,
    PROPERTY_HELP,
    context_or_exit,
    echo_json,
    engine_errors,
    fail,
)
from roomsync.app.daemon.lock import DaemonAlreadyRunning, DaemonLock
from roomsync.app.daemon.remote import AdminClient, AdminUnavailable, find_daemon
from roomsync.app.daemon.status import collect_status
from roomsync.app.daemon_view import PropertyStatus, ScheduleStatus
from roomsync.core.ports import ListingKey, listing_text
from roomsync.property_context import PropertyContext


def _duration(seconds: float | None) -> str:
    if seconds is None or not math.isfinite(seconds):
        return "-"
    if seconds < 120:
        return f"{seconds:.0f} s"
    if seconds < 7200:
        return f"{seconds / 60:.1f} min"
    return f"{seconds / 3600:.1f} h"


def _when(moment: datetime | None) -> str:
    return moment.astimezone(UTC).strftime("%m-%d %H:%M:%S") if moment else "-"


def _short(reason: str | None) -> str:
    """The first clause of a pause reason (the admin API's JSON has it whole)."""
    return (reason or "paused").split(":")[0].split(" (")[0]


def schedule_table(schedule: ScheduleStatus) -> Table:
    state = "running" if schedule.daemon_running else "not running (what a daemon would plan now)"
    table = Table(title=f"Schedule: daemon {state}")
    table.add_column("job", no_wrap=True)
    table.add_column("every", justify="right")
    table.add_column("next run (UTC)")
    table.add_column("last run (UTC)")
    table.add_column("last result")
    table.add_column("health")
    if not schedule.jobs:
        table.add_row("poll", _duration(schedule.poll_interval_seconds), "-", "-", "-", "-")
    for job in schedule.jobs:
        table.add_row(
            job.kind,
            _duration(job.every_seconds),
            _when(job.next_run_at),
            _when(job.last_run_at),
            job.last_result or "-",
            "ok" if job.healthy else f"failing: {job.last_error or job.last_result or '?'}"[:80],
        )
    scale = f"; time_scale {schedule.time_scale:g}" if schedule.time_scale != 1 else ""
    table.caption = (
        f"poll every {_duration(schedule.poll_interval_seconds)}, a booking reaches the channel within "
        f"{_duration(schedule.staleness_bound_seconds)}; closures and prices checked every "
        f"{_duration(schedule.detect_interval_seconds)}, within "
        f"{_duration(schedule.detect_staleness_bound_seconds)}; quota resets in "
        f"{_duration(schedule.seconds_to_reset)}{scale}\n{schedule.explanation}"
    )
    return table


def listings_table(status: PropertyStatus) -> Table:
    table = Table(title=f"Listings of {status.property_id}")
    table.add_column("listing", no_wrap=True)
    for column in ("type", "kind", "state", "last sync", "result", "drift"):
        table.add_column(column)
    for row in status.listings:
        state = row.state if row.reason is None else f"{row.state}: {_short(row.reason)}"
        table.add_row(
            listing_text(row.account_id, row.listing_id) + ("" if row.mapped else " (not mapped)"),
            str(row.room_type_id) if row.room_type_id is not None else "-",
            row.kind or "-",
            state,
            _when(row.last_synced_at),
            (row.last_sync_result or "-").split(":")[0],
            "-" if row.drift_days is None else str(row.drift_days),
        )
    return table


def budget_and_inbox(status: PropertyStatus) -> Table:
    budget, inbox = status.budget, status.inbox
    table = Table(title="Budget and webhooks", show_header=False)
    table.add_column("what")
    table.add_column("value", justify="right")
    table.add_row("quota", str(budget.quota))
    table.add_row("used (roomsync / server)", f"{budget.used} ({budget.used_local} / {budget.used_server})")
    table.add_row("remaining", str(budget.remaining))
    table.add_row("resets at (UTC)", _when(budget.resets_at))
    for priority, reserved in budget.reserved.items():
        table.add_row(f"kept back from {priority}", str(reserved))
    table.add_row("webhook backlog", f"{inbox.backlog} (oldest {_duration(inbox.oldest_age_seconds)})")
    table.add_row("webhook events failed", str(inbox.failed))
    table.add_row(
        "refused by the service (need a person)",
        f"[bold red]{inbox.refused}[/]" if inbox.refused else "0",
    )
    table.add_row("dead letters", str(inbox.dead_letters))
    return table


def freshness_table(status: PropertyStatus) -> Table:
    table = Table(title="How fresh the PMS facts are (newest read of each kind)")
    for column in ("kind", "read at (UTC)", "age", "promised p95"):
        table.add_column(column)
    for row in status.freshness:
        age = _duration(row.age_seconds) if row.read_at else "never read"
        table.add_row(row.kind, _when(row.read_at), age, _duration(row.promised_p95_seconds))
    table.caption = "promised p95: 95 % of the changes made before the quota resets reach the channel by then"
    return table


def print_status(console: Console, status: PropertyStatus) -> None:
    shown_at = status.generated_at.astimezone(UTC).strftime("%Y-%m-%d %H:%M:%S")
    console.print(f"property {status.property_id} at {shown_at} UTC", highlight=False)
    if not status.mapping_loaded:
        console.print("no mapping loaded: `roomsync mappings suggest`, then `roomsync mappings load FILE`")
    console.print(listings_table(status))
    console.print(schedule_table(status.schedule))
    console.print(freshness_table(status))
    if status.prices is not None:
        console.print(f"prices: {status.prices.explanation}", highlight=False)
    console.print(budget_and_inbox(status))


def _local_schedule(context: PropertyContext) -> PropertyStatus | None:
    try:
        store = open_store(context.settings)
    except Exception:  # the sync commands' status has already said what is wrong with the database
        return None
    try:
        return collect_status(store, context, datetime.now(UTC))
    finally:
        store.close()


def _local_status(context: PropertyContext) -> PropertyStatus:
    with engine_errors(context.settings), open_store(context.settings) as store:
        return collect_status(store, context, datetime.now(UTC))


def status(
    property_id: str | None = typer.Option(None, "--property", help=PROPERTY_HELP),
    as_json: bool = typer.Option(False, "--json", help=JSON_HELP),
) -> None:
    """Status of every listing, the schedule, the budget and the webhooks (spends no request).

    Asks the running daemon when there is one (its admin API), else reads the database."""
    context = context_or_exit(property_id)
    settings = context.settings
    console = Console()
    daemon = find_daemon(settings)
    if daemon is not None:
        try:
            with AdminClient(settings, daemon, context.property_id, timeout=30.0) as admin:
                answer = PropertyStatus.model_validate(admin.status())
            if as_json:
                echo_json({"source": "daemon", "status": answer})
            else:
                print_status(console, answer)
            return
        except AdminUnavailable as why:
            Console(stderr=True).print(f"{why}; showing what the database holds", highlight=False)
    if as_json:
        echo_json({"source": "database", "status": _local_status(context)})
        return
    from roomsync.app.commands import sync as sync_commands  # the runs: only without a daemon

    sync_commands.status(context.property_id)
    local = _local_schedule(context)
    if local is not None:
        console.print(schedule_table(local.schedule))
        console.print(freshness_table(local))
        if local.prices is not None:
            console.print(f"prices: {local.prices.explanation}", highlight=False)


def _check_date(name: str, value: str | None) -> None:
    if value is not None:
        try:
            date.fromisoformat(value)
        except ValueError:
            raise fail(f"{name} {value!r}: write the date as YYYY-MM-DD") from None


def _print_remote_resync(console: Console, result: dict[str, Any]) -> None:
    table = Table(title=f"Resync through the daemon: run {result.get('run_id')}, {result['result']}")
    for column in ("listing", "status", "operations", "drift days", "reason"):
        table.add_column(column)
    for row in result["listings"]:
        table.add_row(
            row["listing"], row["status"], str(row["operations"]), str(row["drift_days"]), row["reason"] or ""
        )
    table.caption = (
        f"{result['requests']} request(s), {result['operations']} operation(s), "
        f"{result['price_elements']} connected price element(s)"
    )
    console.print(table)
    if result.get("error"):
        console.print(f"error: {result['error']}", highlight=False)


def resync(
    property_id: str | None = typer.Option(None, "--property", help=PROPERTY_HELP),
    listing: list[str] = typer.Option(
        [], "--listing", help="ACCOUNT/LISTING to resync (repeatable); default every mapped listing."
    ),
    date_from: str | None = typer.Option(None, "--from", help="First date (YYYY-MM-DD); default today."),
    date_to: str | None = typer.Option(
        None, "--to", help="Last date (YYYY-MM-DD); default the horizon's end."
    ),
    as_json: bool = typer.Option(False, "--json", help=JSON_HELP),
) -> None:
    """Ignore the ledger: re-read the channel calendar and push the whole difference.

    Through the running daemon's admin API when a daemon runs for the property, else directly."""
    context = context_or_exit(property_id)
    settings = context.settings
    for value in listing:
        try:
            ListingKey.parse(context.property_id, value)
        except ValueError as error:
            raise fail(f"--{error}") from None
    _check_date("--from", date_from)
    _check_date("--to", date_to)
    console = Console()
    daemon = find_daemon(settings)
    if daemon is None:
        lock = DaemonLock(settings)
        try:
            lock.acquire(None, role="resync")
        except DaemonAlreadyRunning:
            daemon = find_daemon(settings)  # one started meanwhile: ask it instead
        else:
            from roomsync.app.commands import sync as sync_commands  # the runs: only without a daemon

            try:
                sync_commands.resync_directly(context.property_id, listing, date_from, date_to, as_json)
            finally:
                lock.release()
            return
    assert daemon is not None
    try:
        with AdminClient(settings, daemon, context.property_id) as admin:
            if not as_json:
                console.print(f"a daemon runs for this property: asking it at {admin.url}", highlight=False)
            result = admin.resync(listing, date_from, date_to)
    except AdminUnavailable as why:
        raise fail(str(why), EXIT_FAILURE) from None
    if as_json:
        echo_json(result)
    else:
        _print_remote_resync(console, result)
    if result["result"] in ("failed", "no_budget"):
        raise typer.Exit(EXIT_FAILURE)
