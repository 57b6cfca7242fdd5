"""``roomsync history LISTING NIGHT``: why is this night what it is (spends no request)."""

from __future__ import annotations

import re
from datetime import date

import typer

from roomsync.app.cli_support import (
    JSON_HELP,
    PROPERTY_HELP,
    command_store,
    context_or_exit,
    echo_json,
    fail,
)
from roomsync.app.commands.listings import LISTING_HELP, mapped_listing
from roomsync.app.night_story import night_story, story_as_dict, story_lines
from roomsync.app.sync.history_writer import CONNECTED_ACCOUNT
from roomsync.core.ports import ListingKey

CONNECTED_RATE = re.compile(r"^\d+/(standard|non_refundable)$")


def history(
    listing: str = typer.Argument(..., help=LISTING_HELP + " A connected rate: connected/ROOMTYPE/standard."),
    night: str = typer.Argument(..., help="The night (YYYY-MM-DD)."),
    property_id: str | None = typer.Option(None, "--property", help=PROPERTY_HELP),
    as_json: bool = typer.Option(False, "--json", help=JSON_HELP),
) -> None:
    """Why a listing's night is what it is: the last push of each field, the PMS facts it came
    from, the request that carried it, what started the run; then every push, guest check and
    booking of the night."""
    try:
        day = date.fromisoformat(night)
    except ValueError:
        raise fail(f"night {night!r}: write it as YYYY-MM-DD") from None
    context = context_or_exit(property_id)
    settings = context.settings
    with command_store(settings) as store:
        if listing.startswith(f"{CONNECTED_ACCOUNT}/"):  # a connected channels' rate
            rate = listing.removeprefix(f"{CONNECTED_ACCOUNT}/")
            if not CONNECTED_RATE.match(rate):
                raise fail(f"{listing!r}: write a connected rate as connected/ROOMTYPE/standard "
                           "or connected/ROOMTYPE/non_refundable")
            key = ListingKey(context.property_id, CONNECTED_ACCOUNT, rate)
        else:
            key = mapped_listing(store, context.property_id, listing)
        story = night_story(store, context.property_id, key.account_id, key.listing_id, day)
    if as_json:
        echo_json(story_as_dict(story))
        return
    for line in story_lines(story):
        typer.echo(line)
