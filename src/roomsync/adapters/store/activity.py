"""The learned shape of the week (``ActivityStore``): one ``activity_weight`` row per property,
kind of change and hour of the local week.

An observation decays the row's weight to its own instant and adds to it, in one write
transaction holding the row (``SELECT ... FOR UPDATE`` on Postgres, the single writer on
SQLite), so two runs of one property in different processes cannot lose each other's count.
"""

from __future__ import annotations

from datetime import datetime, timedelta

import sqlalchemy as sa
from sqlalchemy.engine import Engine

from roomsync.adapters.store._sql import read_tx, write_tx
from roomsync.adapters.store.tables import ACTIVITY_WEIGHT
from roomsync.core.activity import LearnedWeight, observe

A = ACTIVITY_WEIGHT.c


class SqlActivityStore:
    def __init__(self, engine: Engine) -> None:
        self._engine = engine

    def learned(self, property_id: str, kind: str) -> dict[int, LearnedWeight]:
        with read_tx(self._engine) as conn:
            rows = conn.execute(
                sa.select(A.hour_of_week, A.weight, A.updated_at).where(
                    A.property_id == property_id, A.kind == kind
                )
            ).all()
        return {int(row.hour_of_week): LearnedWeight(float(row.weight), row.updated_at) for row in rows}

    def observe(
        self, property_id: str, kind: str, hour_of_week: int, at: datetime, half_life: timedelta, count: float
    ) -> None:
        key = (A.property_id == property_id, A.kind == kind, A.hour_of_week == hour_of_week)
        with write_tx(self._engine) as conn:
            row = conn.execute(sa.select(A.weight, A.updated_at).where(*key).with_for_update()).first()
            previous = None if row is None else LearnedWeight(float(row.weight), row.updated_at)
            now = observe(previous, max(at, previous.updated_at) if previous else at, half_life, count)
            if row is None:
                conn.execute(
                    sa.insert(ACTIVITY_WEIGHT).values(
                        property_id=property_id,
                        kind=kind,
                        hour_of_week=hour_of_week,
                        weight=now.weight,
                        updated_at=now.updated_at,
                    )
                )
            else:
                conn.execute(
                    sa.update(ACTIVITY_WEIGHT)
                    .where(*key)
                    .values(weight=now.weight, updated_at=now.updated_at)
                )
