"""What every ``roomsync`` command shares: settings or a one-line error with exit status 2."""

from __future__ import annotations

import sys
from collections.abc import Iterator
from contextlib import contextmanager

import typer
from sqlalchemy.exc import OperationalError

from roomsync.settings import Settings, SettingsError, load_settings

EXIT_USAGE = 2
EXIT_FAILURE = 1


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


@contextmanager
def database_errors(display_url: str) -> Iterator[None]:
    """Turn an unreachable database into one line naming it (password hidden), exit status 1."""
    try:
        yield
    except OperationalError as error:
        reason = str(error.orig or error).strip().splitlines()[0]
        raise fail(f"cannot use the database {display_url}: {reason}", EXIT_FAILURE) from None
