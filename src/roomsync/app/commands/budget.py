"""``roomsync budget``: today's request budget, used/remaining/reserved per priority."""

from __future__ import annotations

import typer
from rich.console import Console

from roomsync.adapters.client.budget_view import budget_for_today, render_budget
from roomsync.app.cli_support import (
    JSON_HELP,
    PROPERTY_HELP,
    command_store,
    context_or_exit,
    echo_json,
)


def budget(
    property_id: str | None = typer.Option(None, "--property", help=PROPERTY_HELP),
    as_json: bool = typer.Option(False, "--json", help=JSON_HELP),
) -> None:
    """Show today's request budget: used, remaining and reserved per priority (spends no request)."""
    context = context_or_exit(property_id)
    settings = context.settings
    with command_store(settings) as store:
        view = budget_for_today(store.budget, context)
    if as_json:
        echo_json(view)
    else:
        Console().print(render_budget(view))
