"""The ``roomsync`` command line: one Typer app, sub-commands in ``roomsync.app.commands``."""

from __future__ import annotations

import importlib
from typing import Any

import typer
from pydantic import SecretStr
from typer.core import TyperGroup

from roomsync import __version__
from roomsync.adapters.store import StoreUnreadable
from roomsync.app.cli_support import EXIT_FAILURE, JSON_HELP, echo_json, fail, settings_or_exit

COMMANDS: dict[str, str] = {
    "db": "roomsync.app.commands.db:app",
    "emulator": "roomsync.app.commands.emulator:emulator",
    "budget": "roomsync.app.commands.budget:budget",
    "mappings": "roomsync.app.commands.mappings:app",
    "properties": "roomsync.app.commands.properties:app",
    "plan": "roomsync.app.commands.sync:plan",
    "sync": "roomsync.app.commands.sync:sync",
    # resync and status go through a running daemon when there is one, else run directly
    "resync": "roomsync.app.commands.status:resync",
    "status": "roomsync.app.commands.status:status",
    "demo": "roomsync.app.commands.demo:demo",
    "serve": "roomsync.app.commands.serve:serve",
    "healthcheck": "roomsync.app.commands.serve:healthcheck",
    "webhooks": "roomsync.app.commands.webhooks:app",
    "listings": "roomsync.app.commands.listings:app",
    "history": "roomsync.app.commands.history:history",
}
"""Sub-commands by name, as ``module:attribute`` (a command function or a Typer group). A
command's module is imported only when it runs: the sync's runs, the client with every model
of the catalog, the emulator and the daemon take about a second to import, which ``roomsync
db status`` or ``roomsync properties list`` must not wait for."""


# Typer 0.29 carries its own copy of click (``typer._click``), whose classes it does not export:
# the commands and contexts below are typed ``Any`` rather than through a private module.


def load_command(name: str) -> Any:
    """The command (or group) ``name`` of :data:`COMMANDS`, its module imported now."""
    module_name, attribute = COMMANDS[name].split(":")
    target: Any = getattr(importlib.import_module(module_name), attribute)
    if isinstance(target, typer.Typer):
        command: Any = typer.main.get_group(target)
    else:
        single = typer.Typer(add_completion=False)
        single.command(name)(target)
        command = typer.main.get_command(single)
    command.name = name
    return command


class LazyCommands(TyperGroup):
    """The root group: the commands of :data:`COMMANDS` are loaded when asked for."""

    def list_commands(self, ctx: Any) -> list[str]:
        return [*COMMANDS, *super().list_commands(ctx)]

    def get_command(self, ctx: Any, cmd_name: str) -> Any:
        if cmd_name in COMMANDS:
            return load_command(cmd_name)
        return super().get_command(ctx, cmd_name)


app = typer.Typer(
    name="roomsync",
    cls=LazyCommands,
    help="Keeps a rental channel and a hotel's connected channels in step with its PMS.",
    no_args_is_help=True,
    add_completion=False,
    pretty_exceptions_enable=False,
)


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
