"""``roomsync properties add|change|list|show|remove|pause|resume``: the deployment's properties.

Secrets are given by reference (``--secret password=env:HOTEL_A_PASSWORD`` or
``--secret password=file:/run/secrets/hotel-a``); the database holds the reference only.
"""

from __future__ import annotations

import json

import typer
from rich.table import Table

from roomsync.adapters.store import display_url, open_store
from roomsync.app.cli_support import EXIT_FAILURE, engine_errors, fail, settings_or_exit
from roomsync.app.sync.render import make_console
from roomsync.core.property import PropertyExists, PropertyNotFound, PropertyRecord, check_property_id
from roomsync.property_context import (
    PROPERTY_SETTINGS,
    PropertyConfigError,
    check_overrides,
    check_reference,
    context_of_record,
)

app = typer.Typer(help="The properties this deployment serves.", no_args_is_help=True)

SET_HELP = (
    f"NAME=VALUE, a setting of this property's own (repeatable): {', '.join(sorted(PROPERTY_SETTINGS))}."
)
SECRET_HELP = "NAME=env:VARIABLE or NAME=file:PATH for password, api_key, webhook_secret, webhook_token."


def _pairs(values: list[str], what: str) -> dict[str, str]:
    pairs: dict[str, str] = {}
    for value in values:
        name, sep, given = value.partition("=")
        if not sep or not name.strip():
            raise fail(f"{what} {value!r}: write NAME=VALUE")
        pairs[name.strip()] = given.strip()
    return pairs


def _checked(
    settings_values: list[str], secret_values: list[str]
) -> tuple[dict[str, object], dict[str, str | None]]:
    settings = settings_or_exit()
    try:
        overrides = check_overrides(dict(_pairs(settings_values, "--set")), settings)
        refs: dict[str, str | None] = {
            name: check_reference(name, ref) for name, ref in _pairs(secret_values, "--secret").items()
        }
    except PropertyConfigError as error:
        raise fail(str(error)) from None
    return overrides, refs


@app.command("add")
def add(
    property_id: str = typer.Argument(..., help="The property's key (letters, digits, . _ -)."),
    set_: list[str] = typer.Option([], "--set", help=SET_HELP),
    secret: list[str] = typer.Option([], "--secret", help=SECRET_HELP),
) -> None:
    """Add a property to the deployment (its mapping next: `roomsync mappings load --property ID FILE`)."""
    try:
        check_property_id(property_id)
    except ValueError as error:
        raise fail(str(error)) from None
    overrides, refs = _checked(set_, secret)
    settings = settings_or_exit()
    with engine_errors(settings), open_store(settings) as store:
        first = not store.properties.list_properties()
        try:
            store.properties.add_property(
                PropertyRecord(property_id, overrides, {k: v for k, v in refs.items() if v})
            )
        except PropertyExists as error:
            raise fail(str(error)) from None
    typer.echo(f"added property {property_id} to {display_url(settings.effective_database_url)}")
    if first:
        typer.echo(
            "this deployment now serves the properties added with `roomsync properties add` only; "
            f"the settings' own property ({settings.effective_property_id}) too if you add it"
        )


@app.command("change")
def change(
    property_id: str = typer.Argument(..., help="The property."),
    set_: list[str] = typer.Option([], "--set", help=SET_HELP + " An empty VALUE unsets it."),
    secret: list[str] = typer.Option([], "--secret", help=SECRET_HELP + " An empty reference unsets it."),
) -> None:
    """Change settings or secret references of a property (a running daemon applies them at the
    property's next takeover or restart)."""
    unset = [p.partition("=")[0] for p in set_ if p.endswith("=")]
    unset_secret = [p.partition("=")[0] for p in secret if p.endswith("=")]
    overrides, refs = _checked(
        [p for p in set_ if not p.endswith("=")], [p for p in secret if not p.endswith("=")]
    )
    settings = settings_or_exit()
    with engine_errors(settings), open_store(settings) as store:
        try:
            store.properties.change_property(
                property_id,
                overrides={**overrides, **dict.fromkeys(unset)},
                secret_refs={**refs, **dict.fromkeys(unset_secret)},
            )
        except PropertyNotFound as error:
            raise fail(str(error)) from None
    typer.echo(f"changed property {property_id}")


def _records() -> list[PropertyRecord]:
    settings = settings_or_exit()
    with engine_errors(settings), open_store(settings) as store:
        return store.properties.list_properties()


@app.command("list")
def list_command(
    as_json: bool = typer.Option(False, "--json", help="Print JSON instead of a table."),
) -> None:
    """The deployment's properties (no request)."""
    settings = settings_or_exit()
    records = _records()
    if as_json:
        typer.echo(json.dumps([_as_dict(r) for r in records], indent=2, default=str))
        return
    if not records:
        typer.echo(
            f"no property added: this deployment serves one property, {settings.effective_property_id}, "
            "from the settings"
        )
        return
    table = Table("property", "state", "settings", "secrets")
    for record in records:
        state = f"paused: {record.paused_reason}" if record.paused else "active"
        table.add_row(
            record.property_id,
            state,
            ", ".join(f"{k}={v}" for k, v in sorted(record.overrides.items())) or "-",
            ", ".join(f"{k}={v}" for k, v in sorted(record.secret_refs.items())) or "-",
        )
    make_console().print(table)


@app.command("show")
def show(
    property_id: str = typer.Argument(..., help="The property."),
    as_json: bool = typer.Option(False, "--json", help="Print JSON."),
) -> None:
    """One property: its settings, secret references (and whether each resolves), mapping size."""
    settings = settings_or_exit()
    with engine_errors(settings), open_store(settings) as store:
        record = store.properties.get_property(property_id)
        if record is None:
            raise fail(f"no property {property_id} in the deployment")
        mapping = store.mappings.load_mapping(property_id)
    try:
        context_of_record(settings, record)
        usable = "yes"
    except PropertyConfigError as error:
        usable = f"no: {error}"
    shown = {**_as_dict(record), "listings": len(mapping.listings) if mapping else 0, "usable": usable}
    if as_json:
        typer.echo(json.dumps(shown, indent=2, default=str))
        return
    for name, value in shown.items():
        typer.echo(f"{name}: {value}")


@app.command("remove")
def remove(
    property_id: str = typer.Argument(..., help="The property."),
    yes: bool = typer.Option(False, "--yes", help="Do not ask for confirmation."),
) -> None:
    """Remove a property with its mapping (its runs, webhooks and budget history stay)."""
    if not yes and not typer.confirm(f"remove property {property_id} and its mapping?"):
        raise typer.Exit(EXIT_FAILURE)
    settings = settings_or_exit()
    with engine_errors(settings), open_store(settings) as store:
        try:
            store.properties.remove_property(property_id)
        except PropertyNotFound as error:
            raise fail(str(error)) from None
    typer.echo(f"removed property {property_id}")


@app.command("pause")
def pause(
    property_id: str = typer.Argument(..., help="The property."),
    reason: str = typer.Option("paused by an admin", "--reason", help="Why (shown in status)."),
) -> None:
    """Stop syncing a property (webhooks are still received and kept) until it is resumed."""
    _set_paused(property_id, True, reason)
    typer.echo(f"paused property {property_id}: {reason}")


@app.command("resume")
def resume(property_id: str = typer.Argument(..., help="The property.")) -> None:
    """Sync a paused property again."""
    _set_paused(property_id, False, None)
    typer.echo(f"resumed property {property_id}")


def _set_paused(property_id: str, paused: bool, reason: str | None) -> None:
    settings = settings_or_exit()
    with engine_errors(settings), open_store(settings) as store:
        try:
            store.properties.set_paused(property_id, paused, reason)
        except PropertyNotFound as error:
            raise fail(str(error)) from None


def _as_dict(record: PropertyRecord) -> dict[str, object]:
    return {
        "property": record.property_id,
        "paused": record.paused,
        "paused_reason": record.paused_reason,
        "settings": record.overrides,
        "secrets": record.secret_refs,
        "created_at": record.created_at.isoformat() if record.created_at else None,
    }
