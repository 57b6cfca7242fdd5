"""How a delivery is recognised again, ordered, and stored: dedupe keys, ordering keys, dates.

A retried delivery carries the same ``X-Webhook-Id`` (03-conventions), so the id is the dedupe
key. Without an id, the content key stands in: a hash of the action and the event's fields,
read through the model, so a re-serialised body (other key order, other spacing, a number sent as
a string) is still the same event. With an id the content key is derived from the id, so two
distinct notifications that happen to carry equal fields (a host suspended twice) both count.
"""

from __future__ import annotations

import hashlib
import json
from datetime import UTC, date, datetime

from roomsync.core.api import webhooks as events


def content_key(event: events.WebhookPayload, webhook_id: str | None) -> str:
    if webhook_id is not None:
        return "id:" + hashlib.sha256(webhook_id.encode()).hexdigest()
    fields = event.model_dump(mode="json", by_alias=True)
    canonical = json.dumps(fields, sort_keys=True, separators=(",", ":"), ensure_ascii=True)
    return "content:" + hashlib.sha256(canonical.encode()).hexdigest()


def ordering_key(event: events.WebhookPayload) -> str | None:
    """Events with the same key are processed in the order received (None: in any order).

    Reservation events are keyed by confirmation code; host and listing events by host or
    listing, so a suspension and the reactivation after it are not swapped by the worker.
    """
    match event:
        case events.MakeReservation() | events.UpdateReservation():
            return event.confirmation_code
        case (
            events.ReservationRequestEvent()
            | events.ReservationConfirmationEvent()
            | events.PayoutNotification()
        ):
            return event.reservation.confirmation_code
        case (
            events.ListingsUnlinked()
            | events.AuthorizationRevoked()
            | events.HostSuspension()
            | events.SafetyCommitmentSuspension()
            | events.SafetyCommitmentReactivation()
            | events.ListingSynchronizationSettingsUpdated()
        ):
            return f"host:{event.host_id}"
        case events.ListingSuspension() | events.ListingApprovalStatusChanged():
            return f"listing:{event.listing_id}"
    return None


def stored_text(body: bytes) -> str:
    """The raw body as text a database column takes: undecodable bytes and NULs escaped."""
    return body.decode("utf-8", errors="backslashreplace").replace("\x00", "\\x00")


# --- dates -----------------------------------------------------------------------------------


def channel_date(text: str) -> date:
    """A reservation's ``startDate``/``endDate``: ``YYYY-MM-DD``, optionally with a time (webhooks),
    or ``M/D/YYYY h:mm:ss AM`` (the retrieval example)."""
    text = text.strip()
    if len(text) >= 10 and text[4] == "-":
        return date.fromisoformat(text[:10])
    return datetime.strptime(text.split(" ")[0], "%m/%d/%Y").date()


def channel_instant(text: str | None) -> datetime | None:
    """An ``updatedAt``-like timestamp as aware UTC; None when absent or in no known form."""
    if not text:
        return None
    text = text.strip()
    try:
        moment = datetime.fromisoformat(text.replace("Z", "+00:00"))
    except ValueError:
        try:
            moment = datetime.strptime(text, "%m/%d/%Y %I:%M:%S %p")
        except ValueError:
            return None
    return moment.replace(tzinfo=UTC) if moment.tzinfo is None else moment.astimezone(UTC)
