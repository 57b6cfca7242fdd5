"""What every ``roomsync`` command shares: settings or a one-line error with exit status 2."""

from __future__ import annotations

import dataclasses
import json
import sys
from collections.abc import Iterator
from contextlib import contextmanager
from datetime import date, datetime
from enum import Enum

import typer
from pydantic import BaseModel
from sqlalchemy.exc import OperationalError

from roomsync.adapters.client import AuthError
from roomsync.adapters.store import SchemaNotCurrent, Store, display_url, open_store
from roomsync.app.served_properties import UnknownProperty, select_context
from roomsync.app.sync.errors import NoMapping
from roomsync.core.property import PropertyRecord
from roomsync.property_context import PropertyConfigError, PropertyContext
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


PROPERTY_HELP = "The property (default: the deployment's only property)."


class _NoProperties:
    """The property store of a database that has none yet (not created or not migrated)."""

    def list_properties(self) -> list[PropertyRecord]:
        return []


def context_or_exit(property_id: str | None, **overrides: object) -> PropertyContext:
    """The property a command works on (``--property``, else the deployment's only one), or one
    line naming the problem and exit status 2."""
    settings = settings_or_exit(**overrides)
    try:
        with open_store(settings) as store:
            return select_context(settings, store.properties, property_id)
    except SchemaNotCurrent:
        # a database not migrated yet has no property rows: the settings' property, and the
        # command then says what the database needs
        return select_context(settings, _NoProperties(), property_id)  # type: ignore[arg-type]
    except (UnknownProperty, PropertyConfigError) as error:
        raise fail(str(error)) from None
    except OperationalError as error:
        reason = str(error.orig or error).strip().splitlines()[0]
        raise fail(f"cannot use the database: {reason}", EXIT_FAILURE) from None


@contextmanager
def database_errors(display_url: str) -> Iterator[None]:
    """Turn an unreachable database into one line naming it (password hidden), exit status 1."""
    try:
        yield
    except OperationalError as error:
        reason = str(error.orig or error).strip().splitlines()[0]
        raise fail(f"cannot use the database {display_url}: {reason}", EXIT_FAILURE) from None


@contextmanager
def command_store(settings: Settings) -> Iterator[Store]:
    """The settings' store for one command, closed after it: a database that cannot be reached,
    does not exist or is not at the newest schema is one line naming it, exit status 1."""
    with database_errors(display_url(settings.effective_database_url)):
        try:
            store = open_store(settings)
        except SchemaNotCurrent as error:
            raise fail(str(error), EXIT_FAILURE) from None
        try:
            yield store
        finally:
            store.close()


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


JSON_HELP = "Print JSON (for scripts) instead of tables."


def _plain(value: object) -> object:
    """``value`` as JSON-ready data: dataclasses, pydantic models, dates, enums and counters."""
    if isinstance(value, BaseModel):
        return _plain(value.model_dump(mode="json"))
    if dataclasses.is_dataclass(value) and not isinstance(value, type):
        fields = {f.name: getattr(value, f.name) for f in dataclasses.fields(value)}
        return {name: _plain(item) for name, item in fields.items()}
    if isinstance(value, dict):
        return {str(_plain(key)): _plain(item) for key, item in value.items()}
    if isinstance(value, list | tuple | set | frozenset):
        return [_plain(item) for item in value]
    if isinstance(value, Enum):
        return value.value
    if isinstance(value, datetime | date):
        return value.isoformat()
    return value


def echo_json(value: object) -> None:
    """Print ``value`` as indented JSON on stdout (one document, nothing else on stdout)."""
    typer.echo(json.dumps(_plain(value), indent=2, ensure_ascii=False, default=str))
