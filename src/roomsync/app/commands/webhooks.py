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

from roomsync.adapters.store import SchemaNotCurrent, Store, StoreUrlError, display_url, open_store
from roomsync.adapters.store.webhook_records import SqlWebhookRecords
from roomsync.adapters.webhooks.keys import content_key, ordering_key
from roomsync.adapters.webhooks.listing_events import reason_code
from roomsync.app.cli_support import EXIT_FAILURE, database_errors, fail, settings_or_exit
from roomsync.core.api.webhooks import parse_webhook
from roomsync.core.codec import PayloadError
from roomsync.core.ports import InboxStatus, NewDelivery
from roomsync.core.webhook_signature import WEBHOOK_ID_HEADER

app = typer.Typer(
    help="Webhook deliveries: recent events, guest-check answers, dead letters; show, replay, resume.",
    invoke_without_command=True,
)
console = Console(width=160)


@contextmanager
def _store() -> Iterator[tuple[Store, str]]:
    settings = settings_or_exit()
    url = settings.effective_database_url
    try:
        with database_errors(display_url(url)), open_store(settings) as store:
            yield store, settings.effective_property_id
    except (StoreUrlError, SchemaNotCurrent) as error:
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
) -> None:
    """List the latest inbox events, guest-check answers and dead letters."""
    if ctx.invoked_subcommand is not None:
        return
    with _store() as (store, property_id):
        records = SqlWebhookRecords(store.engine)
        rows = records.recent_inbox(property_id, limit, status.value if status else None)
        answers = records.recent_answers(property_id, limit)
        letters = store.dead_letters.list_dead_letters(property_id, limit)
        counts = store.inbox.count_by_status(property_id)

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
) -> None:
    """Print the body of one event or dead letter."""
    with _store() as (store, property_id):
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
) -> None:
    """Process one event again (the running daemon's worker picks it up at once)."""
    now = datetime.now(UTC)
    with _store() as (store, property_id):
        if dead_letter:
            _replay_dead_letter(store, property_id, item_id, now)
            return
        item = store.inbox.get_item(property_id, item_id)
        if item is None:
            raise fail(
                f"no inbox event {item_id} for property {property_id} (processed events are deleted "
                "after webhook_keep_days)",
                EXIT_FAILURE,
            )
        if item.status is InboxStatus.PROCESSING:
            raise fail(
                f"event {item_id} is being processed by a worker right now; try again later", EXIT_FAILURE
            )
        if item.status is InboxStatus.PENDING:
            typer.echo(f"event {item_id} ({item.action}) is waiting in the queue already")
            return
        store.inbox.mark_failed(
            property_id,
            item_id,
            f"replay asked for by an operator (was {item.status.value})",
            now,
            retry_at=now,
        )
    typer.echo(f"event {item_id} ({item.action}) is queued again; the worker applies it once more")


def _replay_dead_letter(store: Store, property_id: str, letter_id: int, now: datetime) -> None:
    letter = next(
        (d for d in store.dead_letters.list_dead_letters(property_id, 100_000) if d.id == letter_id), None
    )
    if letter is None:
        raise fail(f"no dead letter {letter_id} for property {property_id}", EXIT_FAILURE)
    try:
        event = parse_webhook(letter.body.encode())
    except PayloadError as error:
        raise fail(f"dead letter {letter_id} still cannot be read: {error}", EXIT_FAILURE) from None
    headers = {name.lower(): value for name, value in letter.headers.items()}
    webhook_id = headers.get(WEBHOOK_ID_HEADER.lower())
    accepted = store.inbox.accept_delivery(
        NewDelivery(
            property_id=property_id,
            action=event.action,
            body=letter.body,
            content_key=content_key(event, webhook_id),
            received_at=now,
            webhook_id=webhook_id,
            reservation_key=ordering_key(event),
        )
    )
    if accepted.duplicate:
        typer.echo(f"dead letter {letter_id} is inbox event {accepted.id} already")
    else:
        typer.echo(f"dead letter {letter_id} ({event.action}) is inbox event {accepted.id} now")


@app.command("resume")
def resume(listing_id: str = typer.Argument(..., help="The channel listing to push to again.")) -> None:
    """Lift the pause of a listing (one no event of the channel lifts: suspension, revocation)."""
    with _store() as (store, property_id):
        states = [
            s
            for s in store.listing_states.list_listing_states(property_id)
            if s.listing.listing_id == listing_id
        ]
        paused = [s for s in states if s.paused]
        if not paused:
            raise fail(f"listing {listing_id} is not paused", EXIT_FAILURE)
        for state in paused:
            store.listing_states.set_paused(state.listing, False)
            typer.echo(
                f"listing {listing_id} resumed (it was paused for {reason_code(state.pause_reason)}: "
                f"{state.pause_reason})"
            )
