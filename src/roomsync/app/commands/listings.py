"""``roomsync listings pause|resume LISTING --reason``: stop or restart pushes to one listing.

The store keeps the pause and its reason (``status`` and the console show it); the runs and a
running daemon skip a paused listing at their next run, so no daemon needs to be asked.
"""

from __future__ import annotations

import typer

from roomsync.adapters.store import Store
from roomsync.app.cli_support import (
    JSON_HELP,
    PROPERTY_HELP,
    command_store,
    context_or_exit,
    echo_json,
    fail,
)
from roomsync.app.listing_pause import operator_reason, set_listing_paused
from roomsync.core.ports import ListingKey

app = typer.Typer(help="Pause or resume pushes to one listing, with a reason.", no_args_is_help=True)

LISTING_HELP = "ACCOUNT/LISTING, or the LISTING id alone when one account has it."


def mapped_listing(store: Store, property_id: str, listing: str) -> ListingKey:
    """The mapped listing ``listing`` names (``ACCOUNT/LISTING`` or ``LISTING``), or exit 2."""
    mapping = store.mappings.load_mapping(property_id)
    keys = [entry.listing_key(property_id) for entry in mapping.listings] if mapping is not None else []
    account, _, listing_id = listing.rpartition("/")
    matches = [k for k in keys if k.listing_id == listing_id and (not account or k.account_id == account)]
    if not matches:
        raise fail(f"listing {listing} is not in the mapping of property {property_id}")
    if len(matches) > 1:
        named = ", ".join(key.text for key in matches)
        raise fail(f"listing {listing} is in several accounts ({named}): write ACCOUNT/LISTING")
    return matches[0]


def _set_paused(
    property_id: str | None, listing: str, paused: bool, reason: str | None, as_json: bool
) -> None:
    context = context_or_exit(property_id)
    settings = context.settings
    pid = context.property_id
    with command_store(settings) as store:
        key = mapped_listing(store, pid, listing)
        before = store.listing_states.get_listing_state(key)
        stored_reason = operator_reason(reason) if paused else None
        set_listing_paused(store, key, paused, stored_reason)
    shown = key.text
    if as_json:
        echo_json(
            {
                "listing": shown,
                "paused": paused,
                "pause_reason": stored_reason,
                "was_paused": before.paused,
                "was_reason": before.pause_reason,
            }
        )
    elif paused:
        typer.echo(f"listing {shown} paused ({stored_reason}); no push reaches it until it is resumed")
    elif before.paused:
        typer.echo(f"listing {shown} resumed (it was paused: {before.pause_reason})")
    else:
        typer.echo(f"listing {shown} was not paused")


@app.command("pause")
def pause(
    listing: str = typer.Argument(..., help=LISTING_HELP),
    reason: str = typer.Option(..., "--reason", help="Why (shown in status and the console)."),
    property_id: str | None = typer.Option(None, "--property", help=PROPERTY_HELP),
    as_json: bool = typer.Option(False, "--json", help=JSON_HELP),
) -> None:
    """Stop pushing to a listing; the reason is kept and shown."""
    if not reason.strip():
        raise fail("--reason: say why the listing is paused")
    _set_paused(property_id, listing, True, reason.strip(), as_json)


@app.command("resume")
def resume(
    listing: str = typer.Argument(..., help=LISTING_HELP),
    property_id: str | None = typer.Option(None, "--property", help=PROPERTY_HELP),
    as_json: bool = typer.Option(False, "--json", help=JSON_HELP),
) -> None:
    """Push to a paused listing again (whatever paused it)."""
    _set_paused(property_id, listing, False, None, as_json)


