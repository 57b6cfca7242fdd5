"""``roomsync webhooks``: what the channel delivered, what roomsync answered, what failed.

``roomsync webhooks`` lists the latest inbox events, guest-check answers and dead letters;
``show`` prints one event's (or dead letter's) body; ``replay`` puts an event back in the queue
so the running daemon's worker applies it again (safe: applying is idempotent), or feeds a dead
letter's body through the parser once more; ``resume`` lifts the pause of a listing.
"""

from __future__ import annotations

import json
from collections.abc import Iterator
from contextlib import contextmanager
from datetime import UTC, datetime

import typer
from rich.console import Console
from rich.table import Table

from roomsync.adapters.store import Store, StoreUrlError
from roomsync.app.cli_support import (
    EXIT_FAILURE,
    JSON_HELP,
    PROPERTY_HELP,
    command_store,
    context_or_exit,
    echo_json,
    fail,
)
from roomsync.app.listing_pause import set_listing_paused
from roomsync.core.ports import InboxStatus

app = typer.Typer(
    help="Webhook deliveries: recent events, guest-check answers, dead letters; show, replay, resume.",
    invoke_without_command=True,
)
console = Console(width=160)


@contextmanager
def _store(property_id: str | None) -> Iterator[tuple[Store, str]]:
    context = context_or_exit(property_id)
    try:
        with command_store(context.settings) as store:
            yield store, context.property_id
    except StoreUrlError as error:  # a settings mistake: 2
        raise fail(str(error)) from None


def _when(moment: datetime | None) -> str:
    return "" if moment is None else moment.astimezone(UTC).strftime("%Y-%m-%d %H:%M:%S")


def _short(text: str | None, width: int = 70) -> str:
    text = (text or "").replace("\n", " ")
    return text if len(text) <= width else text[: width - 1] + "…"


@app.callback()
def overview(
    ctx: typer.Context,
    limit: int = typer.Option(20, min=1, help="Rows per table."),
    status: InboxStatus | None = typer.Option(None, help="Only inbox events in this status."),
    property_option: str | None = typer.Option(None, "--property", help=PROPERTY_HELP),
    as_json: bool = typer.Option(False, "--json", help=JSON_HELP),
) -> None:
    """List the latest inbox events, guest-check answers and dead letters."""
    if ctx.invoked_subcommand is not None:
        return
    with _store(property_option) as (store, property_id):
        records = store.webhook_records
        rows = records.recent_inbox(property_id, limit, status.value if status else None)
        answers = records.recent_answers(property_id, limit)
        letters = store.dead_letters.list_dead_letters(property_id, limit)
        counts = store.inbox.count_by_status(property_id)
    if as_json:
        echo_json(
            {
                "property": property_id,
                "counts": {status.value: counts[status] for status in InboxStatus},
                "events": rows,
                "guest_checks": answers,
                "dead_letters": letters,
            }
        )
        return

    summary = ", ".join(f"{s.value} {counts[s]}" for s in InboxStatus)
    events = Table(title=f"Webhook events of {property_id} ({summary})")
    for column in ("id", "received (UTC)", "action", "status", "tries", "reservation", "last error"):
        events.add_column(column)
    for row in rows:
        events.add_row(
            str(row.id),
            _when(row.received_at),
            row.action,
            row.status,
            str(row.attempts),
            row.reservation_key or "",
            _short(row.last_error, 60),
        )
    console.print(events)

    checks = Table(title="Guest checks answered")
    for column in ("answered (UTC)", "action", "listing", "stay", "code", "answer", "reason"):
        checks.add_column(column)
    for answer in answers:
        checks.add_row(
            _when(answer.answered_at),
            answer.action,
            answer.listing_id,
            f"{answer.start_date} +{answer.nights}",
            answer.confirmation_code or "",
            "yes" if answer.succeed else "no",
            _short(answer.reason, 60),
        )
    console.print(checks)

    dead = Table(title=f"Dead letters (latest {len(letters)})" if letters else "Dead letters (none)")
    for column in ("id", "received (UTC)", "reason", "body"):
        dead.add_column(column)
    for letter in letters:
        dead.add_row(
            str(letter.id), _when(letter.received_at), _short(letter.reason, 60), _short(letter.body, 40)
        )
    console.print(dead)


@app.command("show")
def show(
    item_id: int = typer.Argument(..., help="Inbox event id (or dead letter id with --dead-letter)."),
    dead_letter: bool = typer.Option(False, "--dead-letter", help="ITEM_ID names a dead letter."),
    property_option: str | None = typer.Option(None, "--property", help=PROPERTY_HELP),
) -> None:
    """Print the body of one event or dead letter."""
    with _store(property_option) as (store, property_id):
        if dead_letter:
            found = next(
                (d for d in store.dead_letters.list_dead_letters(property_id, 100_000) if d.id == item_id),
                None,
            )
            if found is None:
                raise fail(f"no dead letter {item_id} for property {property_id}", EXIT_FAILURE)
            typer.echo(f"reason: {found.reason}")
            typer.echo(f"headers: {json.dumps(found.headers, sort_keys=True)}")
            body = found.body
        else:
            item = store.inbox.get_item(property_id, item_id)
            if item is None:
                raise fail(
                f"no inbox event {item_id} for property {property_id} (processed events are deleted "
                "after webhook_keep_days)",
                EXIT_FAILURE,
            )
            typer.echo(f"{item.action}  status {item.status.value}  tries {item.attempts}")
            if item.last_error:
                typer.echo(f"last error: {item.last_error}")
            body = item.body
    try:
        typer.echo(json.dumps(json.loads(body), indent=2, ensure_ascii=False))
    except ValueError:
        typer.echo(body)


@app.command("replay")
def replay(
    item_id: int = typer.Argument(..., help="Inbox event id (or dead letter id with --dead-letter)."),
    dead_letter: bool = typer.Option(False, "--dead-letter", help="Parse a dead letter's body again."),
    property_option: str | None = typer.Option(None, "--property", help=PROPERTY_HELP),
) -> None:
    """Process one event again (the running daemon's worker picks it up at once)."""
    # the webhook models (parsing a body again): loaded for a replay, not for every listing
    from roomsync.app.webhook_replay import ReplayRefused, replay_dead_letter, replay_event

    now = datetime.now(UTC)
    with _store(property_option) as (store, property_id):
        try:
            if dead_letter:
                said = replay_dead_letter(store, property_id, item_id, now)
            else:
                said = replay_event(store, property_id, item_id, now)
        except ReplayRefused as refused:
            raise fail(str(refused), EXIT_FAILURE) from None
    typer.echo(said)


@app.command("resume")
def resume(
    listing_id: str = typer.Argument(..., help="The channel listing to push to again."),
    property_option: str | None = typer.Option(None, "--property", help=PROPERTY_HELP),
) -> None:
    """Lift the pause of a listing (one no event of the channel lifts: suspension, revocation)."""
    from roomsync.app.webhooks.listing_events import reason_code  # the webhook models, loaded here

    with _store(property_option) as (store, property_id):
        states = [
            s
            for s in store.listing_states.list_listing_states(property_id)
            if s.listing.listing_id == listing_id
        ]
        paused = [s for s in states if s.paused]
        if not paused:
            raise fail(f"listing {listing_id} is not paused", EXIT_FAILURE)
        for state in paused:
            set_listing_paused(store, state.listing, False)
            typer.echo(
                f"listing {listing_id} resumed (it was paused for {reason_code(state.pause_reason)}: "
                f"{state.pause_reason})"
            )
