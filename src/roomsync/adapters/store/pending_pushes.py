"""Targeted pushes waiting to be made (``PendingPushStore``): one ``pending_push`` row per change
the webhook bridge reported, its nights in ``pending_push_night``.

A flush claims the unclaimed changes of its property with one conditional ``UPDATE ... WHERE
claimed_by IS NULL`` (on Postgres the row locks, on SQLite the single write transaction make two
claims disjoint), pushes them, then deletes what it claimed. A change recorded during the push is
unclaimed and waits for the next flush. A replica that takes a property over releases the claims
of whoever owned it before (it stopped, or died, before it could delete them) and pushes those
changes again: a push is idempotent, a lost one may oversell.
"""

from __future__ import annotations

from collections.abc import Collection
from datetime import date, datetime
from typing import Any

import sqlalchemy as sa
from sqlalchemy.engine import Engine

from roomsync.adapters.store._sql import insert_for, read_tx, write_tx
from roomsync.adapters.store.tables import PENDING_PUSH, PENDING_PUSH_NIGHT
from roomsync.core.ports import PendingPush

P = PENDING_PUSH.c
N = PENDING_PUSH_NIGHT.c


class SqlPendingPushes:
    def __init__(self, engine: Engine) -> None:
        self._engine = engine

    def record(
        self,
        property_id: str,
        room_type_id: int,
        nights: Collection[date],
        source_listing_id: str | None,
        at: datetime,
    ) -> int:
        if not nights:
            raise ValueError("a pending push needs at least one night")
        with write_tx(self._engine) as conn:
            push_id = conn.execute(
                insert_for(conn, PENDING_PUSH)
                .values(
                    property_id=property_id,
                    room_type_id=room_type_id,
                    source_listing_id=source_listing_id,
                    recorded_at=at,
                )
                .returning(P.id)
            ).scalar_one()
            conn.execute(
                sa.insert(PENDING_PUSH_NIGHT), [{"push_id": push_id, "night": n} for n in sorted(set(nights))]
            )
        return int(push_id)

    def claim(self, property_id: str, claimant: str, at: datetime) -> list[PendingPush]:
        with write_tx(self._engine) as conn:
            conn.execute(
                sa.update(PENDING_PUSH)
                .where(P.property_id == property_id, P.claimed_by.is_(None))
                .values(claimed_by=claimant, claimed_at=at)
            )
            rows = conn.execute(
                sa.select(P.id, P.room_type_id, P.source_listing_id, P.recorded_at, N.night)
                .join(PENDING_PUSH_NIGHT, N.push_id == P.id)
                .where(P.property_id == property_id, P.claimed_by == claimant)
                .order_by(P.id, N.night)
            ).all()
        nights: dict[int, list[date]] = {}
        first_rows: dict[int, Any] = {}
        for row in rows:
            nights.setdefault(row.id, []).append(row.night)
            first_rows.setdefault(row.id, row)
        return [
            PendingPush(i, property_id, r.room_type_id, tuple(nights[i]), r.source_listing_id, r.recorded_at)
            for i, r in first_rows.items()
        ]

    def done(self, property_id: str, claimant: str) -> int:
        mine = (P.property_id == property_id) & (P.claimed_by == claimant)
        with write_tx(self._engine) as conn:
            ids = sa.select(P.id).where(mine).scalar_subquery()
            conn.execute(sa.delete(PENDING_PUSH_NIGHT).where(N.push_id.in_(ids)))
            return int(conn.execute(sa.delete(PENDING_PUSH).where(mine)).rowcount)

    def release_claims(self, property_id: str) -> int:
        with write_tx(self._engine) as conn:
            return int(
                conn.execute(
                    sa.update(PENDING_PUSH)
                    .where(P.property_id == property_id, P.claimed_by.is_not(None))
                    .values(claimed_by=None, claimed_at=None)
                ).rowcount
            )

    def waiting(self, property_id: str) -> int:
        with read_tx(self._engine) as conn:
            return int(
                conn.execute(
                    sa.select(sa.func.count()).select_from(PENDING_PUSH).where(P.property_id == property_id)
                ).scalar_one()
            )
