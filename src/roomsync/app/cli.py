"""The ``roomsync`` command line: one Typer app, sub-commands in ``roomsync.app.commands``."""

from __future__ import annotations

import typer
from pydantic import SecretStr

from roomsync import __version__
from roomsync.adapters.store import StoreUnreadable
from roomsync.app.cli_support import EXIT_FAILURE, JSON_HELP, echo_json, fail, settings_or_exit
from roomsync.app.commands import db, listings, mappings, properties, webhooks
from roomsync.app.commands import status as daemon_aware
from roomsync.app.commands import sync as sync_commands
from roomsync.app.commands.budget import budget
from roomsync.app.commands.demo import demo
from roomsync.app.commands.emulator import emulator
from roomsync.app.commands.history import history
from roomsync.app.commands.serve import healthcheck, serve

app = typer.Typer(
    name="roomsync",
    help="Keeps a rental channel and a hotel's connected channels in step with its PMS.",
    no_args_is_help=True,
    add_completion=False,
    pretty_exceptions_enable=False,
)
app.add_typer(db.app, name="db")
app.command("emulator")(emulator)
app.command("budget")(budget)
app.add_typer(mappings.app, name="mappings")
app.add_typer(properties.app, name="properties")
app.command("plan")(sync_commands.plan)
app.command("sync")(sync_commands.sync)
app.command("resync")(daemon_aware.resync)  # wraps sync_commands.resync: via a running daemon, else directly
app.command("status")(daemon_aware.status)  # extends sync_commands.status with the daemon's schedule
app.command("demo")(demo)
app.command("serve")(serve)
app.command("healthcheck")(healthcheck)
app.add_typer(webhooks.app, name="webhooks")


app.add_typer(listings.app, name="listings")
app.command("history")(history)


def _print_version(asked: bool) -> None:
    if asked:
        typer.echo(f"roomsync {__version__}")
        raise typer.Exit()


@app.callback()
def root(
    version: bool = typer.Option(
        False, "--version", callback=_print_version, is_eager=True, help="Print the version and exit."
    ),
) -> None:
    """Keeps a rental channel and a hotel's connected channels in step with its PMS."""


@app.command()
def version() -> None:
    """Print the version."""
    typer.echo(__version__)


@app.command("config")
def show_config(as_json: bool = typer.Option(False, "--json", help=JSON_HELP)) -> None:
    """Print the effective settings, secrets masked."""
    settings = settings_or_exit()
    shown = {
        name: "**********" if isinstance(value, SecretStr) else value
        for name, value in settings.model_dump().items()
    }
    if as_json:
        echo_json(shown)
        return
    for name, value in shown.items():
        typer.echo(f"{name} = {value}")


def main() -> None:
    try:
        app(prog_name="roomsync")
    except StoreUnreadable as error:  # whichever command opened the database: one line, exit 1
        raise SystemExit(fail(str(error), EXIT_FAILURE).exit_code) from None


if __name__ == "__main__":  # pragma: no cover
    main()
