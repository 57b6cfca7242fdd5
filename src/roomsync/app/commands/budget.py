"""``roomsync budget``: today's request budget, used/remaining/reserved per priority."""

from __future__ import annotations

from rich.console import Console

from roomsync.adapters.client.budget_view import budget_for_today, render_budget
from roomsync.adapters.store import SchemaNotCurrent, display_url, open_store
from roomsync.app.cli_support import EXIT_FAILURE, database_errors, fail, settings_or_exit


def budget() -> None:
    """Show today's request budget: used, remaining and reserved per priority (spends no request)."""
    settings = settings_or_exit()
    with database_errors(display_url(settings.effective_database_url)):
        try:
            store = open_store(settings)
        except SchemaNotCurrent as error:
            raise fail(str(error), EXIT_FAILURE) from None
        try:
            view = budget_for_today(store.budget, settings)
        finally:
            store.close()
    Console().print(render_budget(view))
