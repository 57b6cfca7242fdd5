"""``roomsync budget``: today's request budget, used/remaining/reserved per priority."""

from __future__ import annotations

import typer
from rich.console import Console

from roomsync.adapters.client.budget_view import budget_for_today, render_budget
from roomsync.adapters.store import SchemaNotCurrent, display_url, open_store
from roomsync.app.cli_support import (
    EXIT_FAILURE,
    JSON_HELP,
    PROPERTY_HELP,
    context_or_exit,
    database_errors,
    echo_json,
    fail,
)


def budget(
    property_id: str | None = typer.Option(None, "--property", help=PROPERTY_HELP),
    as_json: bool = typer.Option(False, "--json", help=JSON_HELP),
) -> None:
    """Show today's request budget: used, remaining and reserved per priority (spends no request)."""
    context = context_or_exit(property_id)
    settings = context.settings
    with database_errors(display_url(settings.effective_database_url)):
        try:
            store = open_store(settings)
        except SchemaNotCurrent as error:
            raise fail(str(error), EXIT_FAILURE) from None
        try:
            view = budget_for_today(store.budget, context)
        finally:
            store.close()
    if as_json:
        echo_json(view)
    else:
        Console().print(render_budget(view))
