"""The ports of what comes back from the channel and what must go to it: the webhook inbox, its
dead letters, the links of reservations to PMS bookings, the targeted pushes pending."""

from __future__ import annotations

from collections.abc import Collection, Mapping
from dataclasses import dataclass
from datetime import date, datetime
from decimal import Decimal
from enum import StrEnum
from typing import Protocol


@dataclass(frozen=True)
class PendingPush:
    """One change the overbooking guard must push: nights of a room type whose occupancy changed
    in the PMS through ``source_listing_id`` (None: not through one listing)."""

    id: int
    property_id: str
    room_type_id: int
    nights: tuple[date, ...]
    source_listing_id: str | None
    recorded_at: datetime


class PendingPushStore(Protocol):
    """Targeted pushes recorded before they are made, so that a replica taking a property over
    makes the ones its previous owner had not finished, and none it had."""

    def record(
        self,
        property_id: str,
        room_type_id: int,
        nights: Collection[date],
        source_listing_id: str | None,
        at: datetime,
    ) -> int:
        """Record one change; returns its id."""
        ...

    def claim(self, property_id: str, claimant: str, at: datetime) -> list[PendingPush]:
        """Mark every unclaimed change of the property as ``claimant``'s and return them (oldest
        first); a change claimed already is not returned again."""
        ...

    def done(self, property_id: str, claimant: str) -> int:
        """Delete the changes ``claimant`` claimed (pushed, or given up); returns how many."""
        ...

    def release_claims(self, property_id: str) -> int:
        """Unclaim every change of the property (its new owner does this: whoever claimed them
        stopped before finishing); returns how many."""
        ...

    def waiting(self, property_id: str) -> int:
        """Changes recorded and not done (claimed or not)."""
        ...


class InboxStatus(StrEnum):
    PENDING = "pending"
    PROCESSING = "processing"
    DONE = "done"
    FAILED = "failed"
    REFUSED = "refused"
    """The service refused a request applying it needs (a 4xx such as 400 on a create): sending
    it again would fail the same way, so it waits for a person to fix the cause and replay it."""


@dataclass(frozen=True)
class NewDelivery:
    """A webhook delivery as the receiver hands it to the inbox."""

    property_id: str
    action: str
    body: str
    """The raw body, as received."""
    content_key: str
    """Fallback dedupe key when the delivery has no ``X-Webhook-Id`` (e.g. SHA-256 of the body)."""
    received_at: datetime
    webhook_id: str | None = None
    reservation_key: str | None = None
    """Confirmation code: deliveries of one reservation are processed in the order received."""
    parsed_ok: bool = True
    """False stores the delivery as ``failed`` straight away, for the record."""
    applied_on_receipt: bool = False
    """True stores it ``done`` straight away: a guest check (answered while the guest waited) or
    an event that is only kept has nothing left for the worker to do."""
    wait_for_disk: bool = True
    """False lets the store commit without waiting for its disk (Postgres: the write-ahead log
    flush): for guest checks, whose record nothing processes later and whose effect, a hold, is
    written in a transaction of its own that does wait."""


@dataclass(frozen=True)
class AcceptedDelivery:
    id: int
    duplicate: bool
    """True when the delivery was already in the inbox (``id`` is the earlier one's)."""


@dataclass(frozen=True)
class InboxItem:
    id: int
    property_id: str
    action: str
    body: str
    content_key: str
    received_at: datetime
    status: InboxStatus
    attempts: int
    webhook_id: str | None = None
    reservation_key: str | None = None
    parsed_ok: bool = True
    last_error: str | None = None
    processed_at: datetime | None = None


class WebhookInbox(Protocol):
    def accept_delivery(self, delivery: NewDelivery) -> AcceptedDelivery:
        """Store a delivery once: a repeat (same webhook id, or same content key) is a duplicate."""
        ...

    def claim_batch(
        self, property_id: str, limit: int, claimed_at: datetime, claimed_by: str | None = None
    ) -> list[InboxItem]:
        """Claim up to ``limit`` pending items, oldest first, marking them ``processing``.

        An item is not claimed while an earlier item of the same reservation is pending or
        processing, so one reservation's deliveries are processed in order. Safe when several
        workers claim at once.
        """
        ...

    def mark_done(self, property_id: str, item_id: int, at: datetime) -> None: ...

    def mark_failed(
        self, property_id: str, item_id: int, error: str, at: datetime, retry_at: datetime | None = None
    ) -> None:
        """Record a failure: back to ``pending`` (claimable from ``retry_at``) or, without
        ``retry_at``, ``failed`` for good."""
        ...

    def mark_refused(self, property_id: str, item_id: int, error: str, at: datetime) -> None:
        """Record that the service refused what the item needs: ``refused``, never retried on its
        own (``roomsync webhooks replay`` puts it back)."""
        ...

    def release_own_earlier_claims(self, property_id: str, replica: str, incarnation: str) -> int:
        """Put back to pending the items earlier incarnations of ``replica`` claimed (it was killed)."""
        ...

    def release_stale(self, property_id: str, claimed_before: datetime) -> int:
        """Put items claimed before ``claimed_before`` (a worker died) back to pending."""
        ...

    def get_item(self, property_id: str, item_id: int) -> InboxItem | None: ...

    def count_by_status(self, property_id: str) -> dict[InboxStatus, int]: ...


@dataclass(frozen=True)
class DeadLetter:
    id: int
    property_id: str
    received_at: datetime
    reason: str
    body: str
    headers: dict[str, str]
    """As received, with every secret-bearing header's value replaced."""


class DeadLetterStore(Protocol):
    def add_dead_letter(
        self, property_id: str, received_at: datetime, reason: str, body: str, headers: Mapping[str, str]
    ) -> int:
        """Keep a delivery that cannot be processed; secret-bearing headers are stripped."""
        ...

    def list_dead_letters(self, property_id: str, limit: int = 100) -> list[DeadLetter]:
        """Newest first."""
        ...

    def count_dead_letters(self, property_id: str) -> int: ...


@dataclass(frozen=True)
class ReservationLink:
    """Which PMS reservation a channel reservation became."""

    property_id: str
    confirmation_code: str
    status: str
    """``creating`` (claimed, not yet in the PMS), ``created``, ``cancelled``, ``failed``, ..."""
    created_at: datetime
    updated_at: datetime
    listing_id: str | None = None
    pms_reservation_id: int | None = None
    pms_customer_id: int | None = None
    last_payout: Decimal | None = None


class ReservationLinkStore(Protocol):
    def claim_link(
        self, property_id: str, confirmation_code: str, listing_id: str | None, at: datetime
    ) -> bool:
        """Record that a replica is creating the PMS reservation of ``confirmation_code``.

        True for the one caller that claimed it, False when it was already claimed or created,
        so a reservation is never created twice, even by two replicas at once.
        """
        ...

    def get_link(self, property_id: str, confirmation_code: str) -> ReservationLink | None: ...

    def record_created(
        self,
        property_id: str,
        confirmation_code: str,
        pms_reservation_id: int,
        pms_customer_id: int | None,
        at: datetime,
    ) -> None: ...

    def set_link_status(
        self,
        property_id: str,
        confirmation_code: str,
        status: str,
        at: datetime,
        last_payout: Decimal | None = None,
    ) -> None:
        """Change the status (and the last payout when given)."""
        ...
