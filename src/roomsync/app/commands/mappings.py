"""``roomsync mappings load FILE | suggest``: the room-type-to-listing mapping of the property."""

from __future__ import annotations

import asyncio
import tomllib
from datetime import UTC, datetime
from pathlib import Path

import typer

from roomsync.adapters.client import ServiceClient, ServiceError
from roomsync.adapters.store import display_url, open_store
from roomsync.app.cli_support import EXIT_FAILURE, PROPERTY_HELP, context_or_exit, engine_errors, fail
from roomsync.app.sync.mapping_checks import check_against_service, read_service_facts
from roomsync.app.sync.mapping_io import (
    read_for_suggestion,
    read_mapping_text,
    read_pms_currency,
    render_toml,
    suggest,
)
from roomsync.core.mapping import MappingError, parse_mapping

app = typer.Typer(help="The mapping of PMS room types to channel listings.", no_args_is_help=True)


@app.command("load")
def load(
    file: Path = typer.Argument(..., help="The TOML mapping (config/mapping.example.toml)."),
    property_id: str | None = typer.Option(None, "--property", help=PROPERTY_HELP),
) -> None:
    """Validate FILE, check every room type, account, listing and the currency against the
    service (two requests) and make it the mapping; a wrong entry refuses the whole file."""
    context = context_or_exit(property_id)
    settings = context.settings
    try:  # not a TOML text file at all (empty, binary, not UTF-8, not TOML): a failure, exit 1
        data = tomllib.loads(read_mapping_text(file))
    except MappingError as error:
        raise fail(str(error), EXIT_FAILURE) from None
    except tomllib.TOMLDecodeError as error:
        raise fail(f"{file}: not valid TOML ({error})", EXIT_FAILURE) from None
    try:  # TOML, but not a valid mapping: a usage error naming the entry, exit 2
        mapping = parse_mapping(data, str(file))
    except MappingError as error:
        raise fail(str(error)) from None

    async def go() -> str:
        store = open_store(settings)
        try:
            client = ServiceClient(context, budget_store=store.budget, token_store=store.tokens)
            try:
                facts = await read_service_facts(client, datetime.now(UTC).date())
            finally:
                await client.aclose()
            check_against_service(mapping, facts, str(file))
            store.mappings.replace_mapping(context.property_id, mapping)
            return facts.currency
        finally:
            store.close()

    with engine_errors(settings):
        try:
            currency = asyncio.run(go())
        except MappingError as error:
            raise fail(str(error)) from None
        except ServiceError as error:
            raise fail(f"cannot check the mapping against the service: {error}", EXIT_FAILURE) from None
    typer.echo(
        f"loaded {len(mapping.listings)} listings and {len(mapping.connected)} connected room types "
        f"(currency {currency}) into {display_url(settings.effective_database_url)} "
        f"for property {context.property_id}"
    )


@app.command("suggest")
def suggest_command(
    currency: str | None = typer.Option(
        None, help="The currency to write (default: the one the PMS prices in, read with one request)."
    ),
    output: Path | None = typer.Option(None, "--output", "-o", help="Write the TOML here instead of stdout."),
    property_id: str | None = typer.Option(None, "--property", help=PROPERTY_HELP),
) -> None:
    """Print a starting mapping: listings matched to room types by name, in the PMS's currency
    (three requests; two with --currency)."""
    context = context_or_exit(property_id)
    settings = context.settings
    if currency is not None and (len(currency) != 3 or not currency.isalpha()):
        raise fail(f"--currency {currency!r}: a three-letter code such as EUR")

    async def go() -> str:
        store = open_store(settings)
        try:
            client = ServiceClient(context, budget_store=store.budget, token_store=store.tokens)
            try:
                listings, room_types = await read_for_suggestion(client)
                chosen = currency.upper() if currency else None
                if chosen is None:
                    chosen = await read_pms_currency(client, datetime.now(UTC).date())
            finally:
                await client.aclose()
        finally:
            store.close()
        return render_toml(suggest(listings, room_types), room_types, chosen)

    with engine_errors(settings):
        try:
            text = asyncio.run(go())
        except MappingError as error:
            raise fail(str(error), EXIT_FAILURE) from None
        except ServiceError as error:
            raise fail(f"cannot read the listings and rooms: {error}", EXIT_FAILURE) from None
    if output is None:
        typer.echo(text, nl=False)
    else:
        output.write_text(text)
        typer.echo(f"wrote {output}")
