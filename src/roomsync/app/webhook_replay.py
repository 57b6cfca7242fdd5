"""Replaying a webhook event or a dead letter, for the CLI (``roomsync webhooks replay``) and the
console: the event goes back to the queue (the worker applies it again; applying is
idempotent), a dead letter's body is parsed once more and, if it reads now, queued."""

from __future__ import annotations

from datetime import datetime

from roomsync.adapters.store import Store
from roomsync.adapters.webhooks.keys import content_key, ordering_key
from roomsync.core.api.webhooks import parse_webhook
from roomsync.core.codec import PayloadError
from roomsync.core.ports import InboxStatus, NewDelivery
from roomsync.core.webhook_signature import WEBHOOK_ID_HEADER


class ReplayRefused(Exception):
    """The event or dead letter cannot be replayed (the message says why, in one line)."""


def replay_event(store: Store, property_id: str, item_id: int, now: datetime) -> str:
    item = store.inbox.get_item(property_id, item_id)
    if item is None:
        raise ReplayRefused(
            f"no inbox event {item_id} for property {property_id} (processed events are deleted "
            "after webhook_keep_days)"
        )
    if item.status is InboxStatus.PROCESSING:
        raise ReplayRefused(f"event {item_id} is being processed by a worker right now; try again later")
    if item.status is InboxStatus.PENDING:
        return f"event {item_id} ({item.action}) is waiting in the queue already"
    store.inbox.mark_failed(
        property_id, item_id, f"replay asked for by an operator (was {item.status.value})", now, retry_at=now
    )
    return f"event {item_id} ({item.action}) is queued again; the worker applies it once more"


def replay_dead_letter(store: Store, property_id: str, letter_id: int, now: datetime) -> str:
    letter = next(
        (d for d in store.dead_letters.list_dead_letters(property_id, 100_000) if d.id == letter_id), None
    )
    if letter is None:
        raise ReplayRefused(f"no dead letter {letter_id} for property {property_id}")
    try:
        event = parse_webhook(letter.body.encode())
    except PayloadError as error:
        raise ReplayRefused(f"dead letter {letter_id} still cannot be read: {error}") from None
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
        return f"dead letter {letter_id} is inbox event {accepted.id} already"
    return f"dead letter {letter_id} ({event.action}) is inbox event {accepted.id} now"
