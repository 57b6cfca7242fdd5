"""The ``roomsync`` command line."""

from __future__ import annotations

import sys

import typer
from pydantic import SecretStr
from rich.console import Console

from roomsync import __version__
from roomsync.settings import Settings, SettingsError, load_settings

app = typer.Typer(
    name="roomsync",
    help="Keeps a rental channel and a hotel's connected channels in step with its PMS.",
    no_args_is_help=True,
    add_completion=False,
    pretty_exceptions_enable=False,
)
err_console = Console(stderr=True)

EXIT_USAGE = 2


def fail(message: str, status: int = EXIT_USAGE) -> typer.Exit:
    """Print ``roomsync: message`` as one unwrapped line on stderr; return the Exit to raise."""
    sys.stderr.write(f"roomsync: {message}\n")
    return typer.Exit(status)


def settings_or_exit(**overrides: object) -> Settings:
    """The settings, or the one-line error and exit status 2."""
    try:
        return load_settings(**overrides)
    except SettingsError as error:
        raise fail(str(error)) from None


@app.command()
def version() -> None:
    """Print the version."""
    typer.echo(__version__)


@app.command("config")
def show_config() -> None:
    """Print the effective settings, secrets masked."""
    settings = settings_or_exit()
    for name, value in settings.model_dump().items():
        shown = "**********" if isinstance(value, SecretStr) else value
        typer.echo(f"{name} = {shown}")


def main() -> None:
    app(prog_name="roomsync")


if __name__ == "__main__":  # pragma: no cover
    main()
