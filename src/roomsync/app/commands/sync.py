"""``roomsync plan | sync | resync | status``: the sync engine from the command line.

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

from roomsync.adapters.client import AuthError
from roomsync.adapters.client.budget_view import budget_for_today, render_budget
from roomsync.adapters.store import SchemaNotCurrent, display_url, open_store
from roomsync.app.cli_support import EXIT_FAILURE, database_errors, fail, settings_or_exit
from roomsync.app.sync import NoMapping, SyncEngine, SyncReport
from roomsync.app.sync.engine import ProgressHook, no_progress
from roomsync.app.sync.render import listings_table, make_console, runs_table, states_table, summary_lines
from roomsync.app.sync.session import open_session
from roomsync.core.ports import ListingKey
from roomsync.settings import Settings

EngineAction = Callable[[SyncEngine], Awaitable[SyncReport]]


@contextmanager
def engine_errors(settings: Settings) -> Iterator[None]:
    """Turn what stops a run before it starts into one line and an exit status."""
    with database_errors(display_url(settings.effective_database_url)):
        try:
            yield
        except SchemaNotCurrent as error:
            raise fail(str(error), EXIT_FAILURE) from None
        except NoMapping as error:
            raise fail(str(error), EXIT_FAILURE) from None
        except AuthError as error:
            raise fail(str(error), EXIT_FAILURE) from None
        except ValueError as error:  # missing credentials, dates outside the horizon, unknown listing
            raise fail(str(error)) from None


def run_engine(settings: Settings, action: EngineAction, progress: ProgressHook = no_progress) -> SyncReport:
    async def go() -> SyncReport:
        async with open_session(settings, progress=progress) as session:
            return await action(session.engine)

    with engine_errors(settings):
        return asyncio.run(go())


def print_report(console: Console, report: SyncReport) -> None:
    console.print(listings_table(report))
    for line in summary_lines(report):
        console.print(line, highlight=False)


def _exit_for(report: SyncReport) -> None:
    if report.result in ("failed", "no_budget"):
        raise typer.Exit(EXIT_FAILURE)


@contextmanager
def progress_bar(console: Console) -> Iterator[ProgressHook]:
    """A rich progress bar fed by the engine's progress hook (PMS reads, listings, prices)."""
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


def plan() -> None:
    """Dry run: the writes a sync would send per listing, and the requests they would cost.

    Nothing is sent to the channel. The reads are real and cost requests (the PMS reads, and a
    channel read for a listing never synced); what they learn is kept for the next sync.
    """
    settings = settings_or_exit()
    console = make_console()
    report = run_engine(settings, lambda engine: engine.plan())
    print_report(console, report)
    _exit_for(report)


def sync() -> None:
    """One sync: PMS reads within the budget, one PUT per changed listing, one Prices batch."""
    settings = settings_or_exit()
    console = make_console()
    with progress_bar(console) as hook:
        report = run_engine(settings, lambda engine: engine.sync_property(), hook)
    print_report(console, report)
    _exit_for(report)


def _listing_keys(values: list[str]) -> list[tuple[str, str]]:
    keys = []
    for value in values:
        account, _, listing = value.partition("/")
        if not account or not listing:
            raise fail(f"--listing {value!r}: write it as ACCOUNT/LISTING, e.g. 2001/41000001")
        keys.append((account, listing))
    return keys


def resync(
    listing: list[str] = typer.Option(
        [], "--listing", help="ACCOUNT/LISTING to resync (repeatable); default every mapped listing."
    ),
    date_from: str | None = typer.Option(None, "--from", help="First date (YYYY-MM-DD); default today."),
    date_to: str | None = typer.Option(
        None, "--to", help="Last date (YYYY-MM-DD); default the horizon's end."
    ),
) -> None:
    """Ignore the ledger: re-read the channel calendar and push the whole difference."""
    settings = settings_or_exit()
    keys = _listing_keys(listing)
    first, last = _date_option("--from", date_from), _date_option("--to", date_to)
    console = make_console()
    with progress_bar(console) as hook:
        report = run_engine(settings, lambda engine: engine.resync(keys or None, first, last), hook)
    print_report(console, report)
    _exit_for(report)


def _date_option(name: str, value: str | None) -> date | None:
    if value is None:
        return None
    try:
        return date.fromisoformat(value)
    except ValueError:
        raise fail(f"{name} {value!r}: write the date as YYYY-MM-DD") from None


def status(
    property_id: str | None = typer.Option(
        None, "--property", help="Property to show (default: the settings' property)."
    ),
) -> None:
    """Last sync of every mapped listing, paused listings and why, recent runs, budget (no request)."""
    overrides = {"property_id": property_id} if property_id else {}
    settings = settings_or_exit(**overrides)
    pid = settings.effective_property_id
    console = make_console()
    with engine_errors(settings):
        store = open_store(settings)
        try:
            mapping = store.mappings.load_mapping(pid)
            states = {
                (s.listing.account_id, s.listing.listing_id): s
                for s in store.listing_states.list_listing_states(pid)
            }
            runs = store.sync_runs.recent_runs(pid, limit=5)
            view = budget_for_today(store.budget, settings)
            if mapping is not None:
                for entry in mapping.listings:
                    key = (entry.account_id, entry.listing_id)
                    if key not in states:
                        states[key] = store.listing_states.get_listing_state(ListingKey(pid, *key))
        finally:
            store.close()
    console.print(f"property {pid}  database {display_url(settings.effective_database_url)}", highlight=False)
    if mapping is None:
        console.print("no mapping loaded: `roomsync mappings suggest`, then `roomsync mappings load FILE`")
    else:
        rows = [(e.account_id, e.listing_id, e.room_type_id, e.kind.value) for e in mapping.listings]
        console.print(states_table(rows, states))
    console.print(runs_table(runs) if runs else "no sync has run yet")
    console.print(render_budget(view))
