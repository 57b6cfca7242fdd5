"""What the webhook receiver and its worker record besides the inbox: the answers given to guest
checks, the channel reservations as last applied to the PMS, and read-only views of the inbox
for the command line and the metrics.

Processed inbox events and guest-check answers are records for people; ``forget_processed_before``
deletes those past the setting ``webhook_keep_days``, so the tables, and the backlog queries the
metrics run every second, stay the size of a few weeks of traffic rather than growing for ever.
Failed events stay until a person deals with them.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import asdict, dataclass
from datetime import date, datetime
from decimal import Decimal
from typing import Any

import sqlalchemy as sa
from sqlalchemy.engine import Engine

from roomsync.adapters.store._sql import insert_for, read_tx, write_tx
from roomsync.adapters.store.tables import CHANNEL_RESERVATION, CHECKOUT_ANSWER, WEBHOOK_INBOX
from roomsync.core.ports import InboxStatus

A = CHECKOUT_ANSWER.c
R = CHANNEL_RESERVATION.c
I = WEBHOOK_INBOX.c  # noqa: E741
OPEN = (InboxStatus.PENDING.value, InboxStatus.PROCESSING.value)
NOT_DONE = (*OPEN, InboxStatus.FAILED.value, InboxStatus.REFUSED.value)
FORGET_BATCH_ROWS = 5000
"""Rows deleted per statement when old records are forgotten: keeps each transaction short."""


@dataclass(frozen=True)
class InboxBacklog:
    """The inbox events not processed yet, for the gauges and the status page."""

    pending: int
    processing: int
    failed: int
    oldest_open_received_at: datetime | None
    refused: int = 0
    """Events the service refused (a 4xx on a write), waiting for a person."""

    @property
    def open(self) -> int:
        return self.pending + self.processing


@dataclass(frozen=True)
class CheckoutAnswer:
    property_id: str
    action: str
    listing_id: str
    start_date: date
    nights: int
    succeed: bool
    reason: str
    answered_at: datetime
    confirmation_code: str | None = None
    inbox_id: int | None = None
    id: int | None = None


@dataclass(frozen=True)
class ChannelBooking:
    """A channel reservation as the last applied event showed it, and what the PMS was given."""

    property_id: str
    confirmation_code: str
    listing_id: str
    start_date: date
    nights: int
    status_type: str
    last_action: str
    updated_at: datetime
    room_type_id: int | None = None
    channel_updated_at: datetime | None = None
    pms_status: int | None = None
    pms_room_id: int | None = None
    pms_date_from: date | None = None
    pms_date_to: date | None = None
    pms_total: Decimal | None = None
    unpushed_nights: str | None = None


@dataclass(frozen=True)
class InboxRow:
    """One inbox item as the command line lists it (the body left out)."""

    id: int
    action: str
    status: str
    attempts: int
    received_at: datetime
    webhook_id: str | None
    reservation_key: str | None
    last_error: str | None
    processed_at: datetime | None


_INSERT_ANSWER = sa.insert(CHECKOUT_ANSWER)
"""Built once: every guest check records its answer (values are given at execution)."""


class SqlWebhookRecords:
    def __init__(self, engine: Engine) -> None:
        self._engine = engine

    # --- answers to guest checks ------------------------------------------------------------

    def record_answers(self, answers: Sequence[CheckoutAnswer]) -> None:
        """Record answers in one transaction (the receiver writes them in bulk)."""
        if not answers:
            return
        rows = [
            {
                "property_id": a.property_id,
                "action": a.action,
                "confirmation_code": a.confirmation_code,
                "listing_id": a.listing_id,
                "start_date": a.start_date,
                "nights": a.nights,
                "succeed": a.succeed,
                "reason": a.reason,
                "answered_at": a.answered_at,
                "inbox_id": a.inbox_id,
            }
            for a in answers
        ]
        with write_tx(self._engine, wait_for_disk=False) as conn:  # a record for people
            conn.execute(_INSERT_ANSWER, rows)

    def recent_answers(self, property_id: str, limit: int = 50) -> list[CheckoutAnswer]:
        query = (
            sa.select(CHECKOUT_ANSWER).where(A.property_id == property_id).order_by(A.id.desc()).limit(limit)
        )
        with read_tx(self._engine) as conn:
            return [CheckoutAnswer(**dict(row._mapping)) for row in conn.execute(query).all()]

    # --- channel reservations -------------------------------------------------------------------

    def get_booking(self, property_id: str, confirmation_code: str) -> ChannelBooking | None:
        query = sa.select(CHANNEL_RESERVATION).where(
            R.property_id == property_id, R.confirmation_code == confirmation_code
        )
        with read_tx(self._engine) as conn:
            row = conn.execute(query).one_or_none()
        return None if row is None else ChannelBooking(**dict(row._mapping))

    def save_booking(self, booking: ChannelBooking) -> None:
        values = asdict(booking)
        with write_tx(self._engine) as conn:
            stmt = insert_for(conn, CHANNEL_RESERVATION).values(values)
            conn.execute(
                stmt.on_conflict_do_update(
                    index_elements=[R.property_id, R.confirmation_code],
                    set_={
                        name: stmt.excluded[name]
                        for name in values
                        if name not in ("property_id", "confirmation_code")
                    },
                )
            )

    def list_bookings(self, property_id: str, *, leaving_after: date | None = None) -> list[ChannelBooking]:
        """The property's channel reservations; with ``leaving_after``, those whose PMS stay ends
        after that night only (what a run over nights from there can count: every run reads them,
        and the past ones only grow)."""
        query = (
            sa.select(CHANNEL_RESERVATION).where(R.property_id == property_id).order_by(R.confirmation_code)
        )
        if leaving_after is not None:
            query = query.where(R.pms_date_to > leaving_after)
        with read_tx(self._engine) as conn:
            return [ChannelBooking(**dict(row._mapping)) for row in conn.execute(query).all()]

    # --- the inbox, read-only ---------------------------------------------------------------------

    def recent_inbox(self, property_id: str, limit: int = 50, status: str | None = None) -> list[InboxRow]:
        query = sa.select(
            I.id,
            I.action,
            I.status,
            I.attempts,
            I.received_at,
            I.webhook_id,
            I.reservation_key,
            I.last_error,
            I.processed_at,
        ).where(I.property_id == property_id)
        if status is not None:
            query = query.where(I.status == status)
        query = query.order_by(I.id.desc()).limit(limit)
        with read_tx(self._engine) as conn:
            return [InboxRow(**dict(row._mapping)) for row in conn.execute(query).all()]

    def inbox_backlog(self, property_id: str) -> InboxBacklog:
        """Counts of the events not done, in one query that never touches the done ones (it walks
        the ``(property_id, status, id)`` index), so its cost does not grow with the history."""
        query = (
            sa.select(I.status, sa.func.count(), sa.func.min(I.received_at))
            .where(I.property_id == property_id, I.status.in_(NOT_DONE))
            .group_by(I.status)
        )
        with read_tx(self._engine) as conn:
            return backlog_of(
                {status: (count, oldest) for status, count, oldest in conn.execute(query).all()}
            )

    def forget_processed_before(self, property_id: str, before: datetime) -> int:
        """Delete the done inbox events received, and the guest-check answers given, before
        ``before``; returns how many rows went. At most ``FORGET_BATCH_ROWS`` of each table per
        call, oldest first (call again while it returns a full batch)."""
        done_first = (
            sa.select(I.id, I.received_at)
            .where(I.property_id == property_id, I.status == InboxStatus.DONE.value)
            .order_by(I.id)
            .limit(FORGET_BATCH_ROWS)
        )
        answers_first = (
            sa.select(A.id, A.answered_at)
            .where(A.property_id == property_id)
            .order_by(A.id)
            .limit(FORGET_BATCH_ROWS)
        )
        with write_tx(self._engine, wait_for_disk=False) as conn:  # records for people
            # ids grow with time, so the oldest rows come first and the scan stops at the batch
            old_events = [i for i, at in conn.execute(done_first).all() if at < before]
            old_answers = [i for i, at in conn.execute(answers_first).all() if at < before]
            if old_answers:
                conn.execute(sa.delete(CHECKOUT_ANSWER).where(A.id.in_(old_answers)))
            if old_events:
                conn.execute(sa.delete(WEBHOOK_INBOX).where(I.id.in_(old_events)))
        return len(old_events) + len(old_answers)

    def mark_claimed_done(self, property_id: str, item_ids: list[int], at: datetime) -> int:
        """Mark claimed items done in one statement (``WebhookInbox.mark_done`` does one at a time);
        an item no longer ``processing`` (taken over meanwhile) is left alone. Returns how many."""
        if not item_ids:
            return 0
        stmt = (
            sa.update(WEBHOOK_INBOX)
            .where(I.property_id == property_id, I.id.in_(item_ids), I.status == InboxStatus.PROCESSING.value)
            .values(status=InboxStatus.DONE.value, processed_at=at)
        )
        with write_tx(self._engine) as conn:
            return int(conn.execute(stmt).rowcount)

    def inbox_body(self, property_id: str, item_id: int) -> str | None:
        query = sa.select(I.body).where(I.property_id == property_id, I.id == item_id)
        with read_tx(self._engine) as conn:
            found: str | None = conn.execute(query).scalar_one_or_none()
        return found


def _aware(value: Any) -> datetime | None:
    """``min()`` over a UTC column comes back untyped on SQLite (text) and naive or aware elsewhere."""
    from datetime import UTC

    if value is None:
        return None
    if isinstance(value, str):
        value = datetime.fromisoformat(value)
    if isinstance(value, datetime):
        return value.replace(tzinfo=UTC) if value.tzinfo is None else value.astimezone(UTC)
    raise TypeError(f"unexpected timestamp {value!r}")


def backlog_of(found: Mapping[str, tuple[int, Any]]) -> InboxBacklog:
    """The backlog of the not-done events' count and oldest ``received_at`` per status."""
    oldest_open = [_aware(found[s][1]) for s in OPEN if s in found]
    return InboxBacklog(
        pending=found.get(InboxStatus.PENDING.value, (0, None))[0],
        processing=found.get(InboxStatus.PROCESSING.value, (0, None))[0],
        failed=found.get(InboxStatus.FAILED.value, (0, None))[0],
        refused=found.get(InboxStatus.REFUSED.value, (0, None))[0],
        oldest_open_received_at=min((o for o in oldest_open if o is not None), default=None),
    )
