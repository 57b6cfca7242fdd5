"""The webhook inbox seen for many properties at once: what one claim loop per replica asks.

A replica that owns a thousand properties cannot ask the inbox a thousand times a second whether
each has work. These statements answer for all its properties in one round trip each; every one
filters on ``property_id IN (...)`` first, so it walks the ``(property_id, status, id)`` index
and never the history of done events.
"""

from __future__ import annotations

from collections.abc import Collection
from datetime import datetime

import sqlalchemy as sa
from sqlalchemy.dialects import postgresql
from sqlalchemy.engine import Engine

from roomsync.adapters.store._sql import read_tx, write_tx
from roomsync.adapters.store.tables import WEBHOOK_INBOX
from roomsync.adapters.store.webhook_records import NOT_DONE, OPEN, InboxBacklog, _aware
from roomsync.core.ports import InboxStatus

I = WEBHOOK_INBOX.c  # noqa: E741


def _among(conn: sa.Connection, property_ids: Collection[str]) -> sa.ColumnElement[bool]:
    """``property_id`` is one of ``property_ids``: on Postgres ``= ANY(array)``, one parameter (a
    thousand-entry ``IN`` list cost more to render each second than the statement to run)."""
    if conn.dialect.name == "postgresql":
        ids = sa.literal(list(property_ids), type_=postgresql.ARRAY(sa.String))
        return I.property_id == sa.any_(ids)
    return I.property_id.in_(list(property_ids))


class SqlInboxSweep:
    def __init__(self, engine: Engine) -> None:
        self._engine = engine

    def properties_with_due_events(self, property_ids: Collection[str], now: datetime) -> set[str]:
        """The properties among ``property_ids`` with a pending event due by ``now`` (one whose
        earlier event of the same reservation is still open may still not be claimable)."""
        if not property_ids:
            return set()
        with read_tx(self._engine) as conn:
            query = (
                sa.select(I.property_id)
                .where(
                    _among(conn, property_ids),
                    I.status == InboxStatus.PENDING.value,
                    sa.or_(I.not_before.is_(None), I.not_before <= now),
                )
                .distinct()
            )
            return set(conn.execute(query).scalars())

    def release_stale(self, property_ids: Collection[str], claimed_before: datetime) -> dict[str, int]:
        """Put back to pending the events of these properties claimed before ``claimed_before``
        and never finished (their worker died); how many per property."""
        if not property_ids:
            return {}
        released: dict[str, int] = {}
        with write_tx(self._engine) as conn:
            stale = sa.and_(
                _among(conn, property_ids),
                I.status == InboxStatus.PROCESSING.value,
                I.claimed_at < claimed_before,
            )
            # the common answer is "none": a read first keeps the write out of the way
            found = conn.execute(
                sa.select(I.property_id, sa.func.count()).where(stale).group_by(I.property_id)
            )
            counted: dict[str, int] = {pid: n for pid, n in found.all()}
            if counted:
                conn.execute(sa.update(WEBHOOK_INBOX).where(stale).values(status=InboxStatus.PENDING.value))
                released = {pid: int(n) for pid, n in counted.items()}
        return released

    def backlogs(self, property_ids: Collection[str]) -> dict[str, InboxBacklog]:
        """``WebhookRecords.inbox_backlog`` for every one of ``property_ids`` in one query."""
        if not property_ids:
            return {}
        with read_tx(self._engine) as conn:
            query = (
                sa.select(I.property_id, I.status, sa.func.count(), sa.func.min(I.received_at))
                .where(_among(conn, property_ids), I.status.in_(NOT_DONE))
                .group_by(I.property_id, I.status)
            )
            rows = conn.execute(query).all()
        found: dict[str, dict[str, tuple[int, datetime | None]]] = {pid: {} for pid in property_ids}
        for property_id, status, count, oldest in rows:
            found.setdefault(property_id, {})[status] = (count, oldest)
        answer = {}
        for property_id, by_status in found.items():
            oldest_open = [_aware(by_status[s][1]) for s in OPEN if s in by_status]
            answer[property_id] = InboxBacklog(
                pending=by_status.get(InboxStatus.PENDING.value, (0, None))[0],
                processing=by_status.get(InboxStatus.PROCESSING.value, (0, None))[0],
                failed=by_status.get(InboxStatus.FAILED.value, (0, None))[0],
                refused=by_status.get(InboxStatus.REFUSED.value, (0, None))[0],
                oldest_open_received_at=min((o for o in oldest_open if o is not None), default=None),
            )
        return answer
