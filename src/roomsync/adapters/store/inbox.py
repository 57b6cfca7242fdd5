"""Webhook deliveries waiting to be processed (``WebhookInbox``).

Deduplicated on the way in: the unique keys ``(property_id, webhook_id)`` and
``(property_id, content_key)`` make a repeat delivery an ``INSERT ... ON CONFLICT DO NOTHING``
that inserts nothing, even when two replicas receive it at once.

Claimed in order per reservation: an item is claimable only when no earlier item of the same
reservation is still pending or processing. On Postgres the claim is
``SELECT ... FOR UPDATE SKIP LOCKED``, so several workers claim disjoint batches at once without
waiting for each other. SQLite has no row locks; its claim transaction begins IMMEDIATE, taking the
database's single write lock, so concurrent claims simply run one after the other.
"""

from __future__ import annotations

from datetime import datetime
from typing import Any

import sqlalchemy as sa
from sqlalchemy.engine import Engine

from roomsync.adapters.store._sql import NotFound, insert_for, read_tx, write_tx
from roomsync.adapters.store.tables import WEBHOOK_INBOX
from roomsync.core.ports import AcceptedDelivery, InboxItem, InboxStatus, NewDelivery

I = WEBHOOK_INBOX.c  # noqa: E741
OPEN = (InboxStatus.PENDING.value, InboxStatus.PROCESSING.value)
NOT_PARSED = "the body could not be parsed"


class SqlWebhookInbox:
    def __init__(self, engine: Engine) -> None:
        self._engine = engine
        self._insert: sa.Executable | None = None

    def _insert_once(self, conn: sa.Connection) -> sa.Executable:
        """The delivery INSERT, built once: building and cache-keying a statement per delivery
        cost as much as running it, on the guest checks' hot path."""
        if self._insert is None:
            self._insert = insert_for(conn, WEBHOOK_INBOX).on_conflict_do_nothing().returning(I.id)
        return self._insert

    def accept_delivery(self, delivery: NewDelivery) -> AcceptedDelivery:
        status = InboxStatus.PENDING
        if not delivery.parsed_ok:
            status = InboxStatus.FAILED
        elif delivery.applied_on_receipt:
            status = InboxStatus.DONE
        values = {
            "property_id": delivery.property_id,
            "webhook_id": delivery.webhook_id,
            "content_key": delivery.content_key,
            "action": delivery.action,
            "reservation_key": delivery.reservation_key,
            "received_at": delivery.received_at,
            "body": delivery.body,
            "parsed_ok": delivery.parsed_ok,
            "status": status.value,
            "attempts": 0,
            "last_error": None if delivery.parsed_ok else NOT_PARSED,
            "processed_at": delivery.received_at if status is InboxStatus.DONE else None,
        }
        with write_tx(self._engine, wait_for_disk=delivery.wait_for_disk) as conn:
            new_id = conn.execute(self._insert_once(conn), values).scalar_one_or_none()
            if new_id is not None:
                return AcceptedDelivery(id=new_id, duplicate=False)
            same = I.content_key == delivery.content_key
            if delivery.webhook_id is not None:
                same = sa.or_(same, I.webhook_id == delivery.webhook_id)
            earlier = conn.execute(
                sa.select(I.id).where(I.property_id == delivery.property_id, same).order_by(I.id).limit(1)
            ).scalar_one()
            return AcceptedDelivery(id=earlier, duplicate=True)

    def claim_batch(
        self, property_id: str, limit: int, claimed_at: datetime, claimed_by: str | None = None
    ) -> list[InboxItem]:
        if limit < 1:
            raise ValueError(f"limit must be at least 1, got {limit}")
        earlier = WEBHOOK_INBOX.alias("earlier")
        open_earlier = sa.exists().where(
            earlier.c.property_id == I.property_id,
            earlier.c.reservation_key == I.reservation_key,  # NULL never equals: no ordering
            earlier.c.id < I.id,
            earlier.c.status.in_(OPEN),
        )
        candidates = (
            sa.select(I.id)
            .where(
                I.property_id == property_id,
                I.status == InboxStatus.PENDING.value,
                sa.or_(I.not_before.is_(None), I.not_before <= claimed_at),
                ~open_earlier,
            )
            .order_by(I.id)
            .limit(limit)
        )
        with write_tx(self._engine) as conn:
            if conn.dialect.name == "postgresql":
                candidates = candidates.with_for_update(skip_locked=True, of=WEBHOOK_INBOX)
            ids = list(conn.execute(candidates).scalars())
            if not ids:
                return []
            rows = conn.execute(
                sa.update(WEBHOOK_INBOX)
                .where(I.id.in_(ids))
                .values(
                    status=InboxStatus.PROCESSING.value,
                    attempts=I.attempts + 1,
                    claimed_at=claimed_at,
                    claimed_by=claimed_by,
                )
                .returning(*WEBHOOK_INBOX.c)
            ).all()
        return sorted((_item(row._mapping) for row in rows), key=lambda item: item.id)

    def mark_done(self, property_id: str, item_id: int, at: datetime) -> None:
        self._update(property_id, item_id, status=InboxStatus.DONE.value, processed_at=at)

    def mark_failed(
        self, property_id: str, item_id: int, error: str, at: datetime, retry_at: datetime | None = None
    ) -> None:
        if retry_at is None:
            self._update(
                property_id, item_id, status=InboxStatus.FAILED.value, last_error=error, processed_at=at
            )
        else:
            self._update(
                property_id, item_id, status=InboxStatus.PENDING.value, last_error=error, not_before=retry_at
            )

    def mark_refused(self, property_id: str, item_id: int, error: str, at: datetime) -> None:
        self._update(
            property_id, item_id, status=InboxStatus.REFUSED.value, last_error=error, processed_at=at
        )

    def release_own_earlier_claims(self, property_id: str, replica: str, incarnation: str) -> int:
        """Put back to pending what this replica's earlier incarnations claimed and never finished
        (the process was killed): at once, no timeout to wait out."""
        stmt = (
            sa.update(WEBHOOK_INBOX)
            .where(
                I.property_id == property_id,
                I.status == InboxStatus.PROCESSING.value,
                I.claimed_by.like(f"{_like_escaped(replica)}/%", escape="\\"),
                I.claimed_by != f"{replica}/{incarnation}",
            )
            .values(status=InboxStatus.PENDING.value)
        )
        with write_tx(self._engine) as conn:
            return conn.execute(stmt).rowcount

    def release_stale(self, property_id: str, claimed_before: datetime) -> int:
        stmt = (
            sa.update(WEBHOOK_INBOX)
            .where(
                I.property_id == property_id,
                I.status == InboxStatus.PROCESSING.value,
                I.claimed_at < claimed_before,
            )
            .values(status=InboxStatus.PENDING.value)
        )
        with write_tx(self._engine) as conn:
            return conn.execute(stmt).rowcount

    def get_item(self, property_id: str, item_id: int) -> InboxItem | None:
        query = sa.select(WEBHOOK_INBOX).where(I.property_id == property_id, I.id == item_id)
        with read_tx(self._engine) as conn:
            row = conn.execute(query).one_or_none()
        return None if row is None else _item(row._mapping)

    def count_by_status(self, property_id: str) -> dict[InboxStatus, int]:
        query = sa.select(I.status, sa.func.count()).where(I.property_id == property_id).group_by(I.status)
        with read_tx(self._engine) as conn:
            counted = {status: count for status, count in conn.execute(query).all()}
        return {status: counted.get(status.value, 0) for status in InboxStatus}

    def _update(self, property_id: str, item_id: int, **values: Any) -> None:
        stmt = sa.update(WEBHOOK_INBOX).where(I.property_id == property_id, I.id == item_id).values(values)
        with write_tx(self._engine) as conn:
            if conn.execute(stmt).rowcount != 1:
                raise NotFound(f"property {property_id!r} has no inbox item {item_id}")


def _item(values: Any) -> InboxItem:
    return InboxItem(
        id=values["id"],
        property_id=values["property_id"],
        action=values["action"],
        body=values["body"],
        content_key=values["content_key"],
        received_at=values["received_at"],
        status=InboxStatus(values["status"]),
        attempts=values["attempts"],
        webhook_id=values["webhook_id"],
        reservation_key=values["reservation_key"],
        parsed_ok=values["parsed_ok"],
        last_error=values["last_error"],
        processed_at=values["processed_at"],
    )


def _like_escaped(text: str) -> str:
    return text.replace("\\", "\\\\").replace("%", "\\%").replace("_", "\\_")
