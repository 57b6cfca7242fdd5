"""``roomsync plan | sync``, and ``resync`` when no daemon runs: the runs from the command line.

Plain command functions; ``roomsync.app.cli`` registers them as top-level commands.
"""

from __future__ import annotations

import asyncio
from collections.abc import Awaitable, Callable, Iterator
from contextlib import contextmanager
from datetime import date

import typer
from rich.console import Console
from rich.progress import BarColumn, MofNCompleteColumn, Progress, TaskID, TextColumn, TimeElapsedColumn

from roomsync.adapters.client.budget_view import budget_for_today, render_budget
from roomsync.adapters.store import display_url, open_store
from roomsync.app.cli_support import (
    EXIT_FAILURE,
    JSON_HELP,
    PROPERTY_HELP,
    context_or_exit,
    echo_json,
    engine_errors,
    fail,
)
from roomsync.app.sync import SyncReport
from roomsync.app.sync.render import listings_table, make_console, runs_table, states_table, summary_lines
from roomsync.app.sync.report import report_as_dict
from roomsync.app.sync.runs.full_sync import sync_property
from roomsync.app.sync.runs.plan import plan as plan_run
from roomsync.app.sync.runs.property_sync import ProgressHook, PropertySync, no_progress
from roomsync.app.sync.runs.resync import resync as resync_run
from roomsync.app.sync.session import open_session
from roomsync.core.ports import ListingKey
from roomsync.property_context import PropertyContext

RunAction = Callable[[PropertySync], Awaitable[SyncReport]]


def run_once(context: PropertyContext, action: RunAction, progress: ProgressHook = no_progress) -> SyncReport:
    """``action`` on the property, in a session of its own (store, client) closed after."""
    async def go() -> SyncReport:
        async with open_session(context, progress=progress) as session:
            return await action(session.sync)

    with engine_errors(context.settings):
        return asyncio.run(go())


def print_report(console: Console, report: SyncReport, as_json: bool = False) -> None:
    if as_json:
        echo_json(report_as_dict(report))
        return
    console.print(listings_table(report))
    for line in summary_lines(report):
        console.print(line, highlight=False)


def _exit_for(report: SyncReport) -> None:
    if report.result in ("failed", "no_budget"):
        raise typer.Exit(EXIT_FAILURE)


@contextmanager
def progress_bar(console: Console) -> Iterator[ProgressHook]:
    """A rich progress bar fed by the run's progress hook (PMS reads, listings, prices)."""
    with Progress(
        TextColumn("{task.description}"),
        BarColumn(),
        MofNCompleteColumn(),
        TimeElapsedColumn(),
        console=console,
        transient=True,
    ) as bar:
        tasks: dict[str, TaskID] = {}
        labels = {"pms": "reading the PMS", "listings": "listings", "prices": "connected prices"}

        def hook(stage: str, done: int, total: int) -> None:
            if stage not in tasks:
                tasks[stage] = bar.add_task(labels.get(stage, stage), total=max(total, 1))
            bar.update(tasks[stage], completed=done, total=max(total, 1))

        yield hook


def plan(
    property_id: str | None = typer.Option(None, "--property", help=PROPERTY_HELP),
    as_json: bool = typer.Option(False, "--json", help=JSON_HELP),
) -> None:
    """Dry run: the writes a sync would send per listing, and the requests they would cost.

    Nothing is sent to the channel. The reads are real and cost requests (the PMS reads, and a
    channel read for a listing never synced); what they learn is kept for the next sync.
    """
    context = context_or_exit(property_id)
    console = make_console()
    report = run_once(context, plan_run)
    print_report(console, report, as_json)
    _exit_for(report)


def sync(
    property_id: str | None = typer.Option(None, "--property", help=PROPERTY_HELP),
    as_json: bool = typer.Option(False, "--json", help=JSON_HELP),
) -> None:
    """One sync: PMS reads within the budget, one PUT per changed listing, one Prices batch."""
    context = context_or_exit(property_id)
    console = make_console()
    if as_json:  # no progress bar: stdout carries one JSON document
        report = run_once(context, sync_property)
    else:
        with progress_bar(console) as hook:
            report = run_once(context, sync_property, hook)
    print_report(console, report, as_json)
    _exit_for(report)


def _listing_keys(property_id: str, values: list[str]) -> list[ListingKey]:
    """The ``--listing`` keys of the property (``ACCOUNT/LISTING`` each), or exit 2."""
    try:
        return [ListingKey.parse(property_id, value) for value in values]
    except ValueError as error:
        raise fail(f"--{error}") from None


def resync_directly(
    property_id: str | None, listing: list[str], date_from: str | None, date_to: str | None, as_json: bool
) -> None:
    """``roomsync resync`` in this process (no daemon runs for the property): ignore the ledger,
    re-read the channel calendar and push the whole difference."""
    context = context_or_exit(property_id)
    keys = _listing_keys(context.property_id, listing)
    first, last = _date_option("--from", date_from), _date_option("--to", date_to)
    console = make_console()
    if as_json:
        report = run_once(context, lambda sync: resync_run(sync, keys or None, first, last))
    else:
        with progress_bar(console) as hook:
            report = run_once(context, lambda sync: resync_run(sync, keys or None, first, last), hook)
    print_report(console, report, as_json)
    _exit_for(report)


def _date_option(name: str, value: str | None) -> date | None:
    if value is None:
        return None
    try:
        return date.fromisoformat(value)
    except ValueError:
        raise fail(f"{name} {value!r}: write the date as YYYY-MM-DD") from None


def status(
    property_id: str | None = typer.Option(None, "--property", help=PROPERTY_HELP),
    as_json: bool = False,
) -> None:
    """Last sync of every mapped listing, paused listings and why, recent runs, budget (no request)."""
    context = context_or_exit(property_id)
    settings = context.settings
    pid = context.property_id
    console = make_console()
    with engine_errors(settings):
        store = open_store(settings)
        try:
            mapping = store.mappings.load_mapping(pid)
            states = {s.listing: s for s in store.listing_states.list_listing_states(pid)}
            runs = store.sync_runs.recent_runs(pid, limit=5)
            view = budget_for_today(store.budget, context)
            if mapping is not None:
                for entry in mapping.listings:
                    key = entry.listing_key(pid)
                    if key not in states:
                        states[key] = store.listing_states.get_listing_state(key)
        finally:
            store.close()
    if as_json:
        echo_json(
            {
                "property": pid,
                "mapping_loaded": mapping is not None,
                "listings": [{"listing": key.text, "state": state} for key, state in sorted(states.items())],
                "recent_runs": runs,
                "budget": view,
            }
        )
        return
    console.print(f"property {pid}  database {display_url(settings.effective_database_url)}", highlight=False)
    if mapping is None:
        console.print("no mapping loaded: `roomsync mappings suggest`, then `roomsync mappings load FILE`")
    else:
        rows = [(e.listing_key(pid), e.room_type_id, e.kind.value) for e in mapping.listings]
        console.print(states_table(rows, states))
    console.print(runs_table(runs) if runs else "no sync has run yet")
    console.print(render_budget(view))
