"""``roomsync db``: the database schema (Alembic migrations bundled with the package)."""

from __future__ import annotations

import typer

from roomsync.adapters.store import (
    StoreUrlError,
    current_revision,
    display_url,
    head_revision,
    missing_sqlite_file,
    pending_migrations,
    upgrade_to_head,
)
from roomsync.app.cli_support import JSON_HELP, database_errors, echo_json, fail, settings_or_exit

app = typer.Typer(help="The database schema: status and upgrade.", no_args_is_help=True)


@app.command("status")
def status(as_json: bool = typer.Option(False, "--json", help=JSON_HELP)) -> None:
    """Show the database, its schema revision and whether migrations are pending."""
    settings = settings_or_exit()
    url = settings.effective_database_url
    try:
        exists = missing_sqlite_file(url) is None  # asking must not create it
        with database_errors(display_url(url)):
            current = current_revision(url) if exists else None
            pending = pending_migrations(url) if exists else True
    except StoreUrlError as error:
        raise fail(str(error)) from None
    if as_json:
        echo_json(
            {
                "database": display_url(url),
                "exists": exists,
                "revision": current,
                "newest": head_revision(),
                "pending": pending,
            }
        )
        return
    typer.echo(f"database  {display_url(url)}")
    if not exists:
        typer.echo("the database does not exist: create it with `roomsync db upgrade`")
        return
    typer.echo(f"revision  {current or '(empty)'}  (newest: {head_revision()})")
    typer.echo("pending migrations: run `roomsync db upgrade`" if pending else "schema is current")


@app.command("upgrade")
def upgrade() -> None:
    """Migrate the database to the newest schema."""
    settings = settings_or_exit()
    url = settings.effective_database_url
    if settings.database_url is None:
        settings.data_dir.mkdir(parents=True, exist_ok=True)
    try:
        with database_errors(display_url(url)):
            reached = upgrade_to_head(url)
    except StoreUrlError as error:
        raise fail(str(error)) from None
    typer.echo(f"{display_url(url)} is at revision {reached}")
