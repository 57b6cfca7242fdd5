"""The record of sync runs (``SyncRunStore``)."""

from __future__ import annotations

from collections.abc import Collection
from datetime import UTC, datetime
from typing import Any

import sqlalchemy as sa
from sqlalchemy.engine import Engine

from roomsync.adapters.store._sql import NotFound, read_tx, write_tx
from roomsync.adapters.store.tables import SYNC_RUN
from roomsync.core.ports import ABANDONED, KindSpend, SyncRun

R = SYNC_RUN.c


class SqlSyncRunStore:
    def __init__(self, engine: Engine) -> None:
        self._engine = engine

    def start_run(self, property_id: str, kind: str, started_at: datetime) -> int:
        stmt = (
            sa.insert(SYNC_RUN)
            .values(
                property_id=property_id,
                kind=kind,
                started_at=started_at,
                heartbeat_at=started_at,
                requests_spent=0,
                operations=0,
                price_elements=0,
            )
            .returning(R.id)
        )
        with write_tx(self._engine) as conn:
            return int(conn.execute(stmt).scalar_one())

    def finish_run(
        self,
        property_id: str,
        run_id: int,
        finished_at: datetime,
        result: str,
        *,
        requests_spent: int = 0,
        operations: int = 0,
        price_elements: int = 0,
        error: str | None = None,
        price_fill_reads: int = 0,
    ) -> None:
        stmt = (
            sa.update(SYNC_RUN)
            .where(R.id == run_id, R.property_id == property_id)
            .values(
                finished_at=finished_at,
                result=result,
                requests_spent=requests_spent,
                operations=operations,
                price_elements=price_elements,
                error=error,
                price_fill_reads=price_fill_reads,
            )
        )
        with write_tx(self._engine) as conn:
            if conn.execute(stmt).rowcount != 1:
                raise NotFound(f"property {property_id!r} has no sync run {run_id}")

    def beat_run(self, property_id: str, run_id: int, at: datetime) -> None:
        stmt = (
            sa.update(SYNC_RUN)
            .where(R.id == run_id, R.property_id == property_id, R.result.is_(None))
            .values(heartbeat_at=at)
        )
        with write_tx(self._engine) as conn:
            conn.execute(stmt)

    def close_silent_runs(
        self, property_id: str, silent_since: datetime, at: datetime, keep: Collection[int] = ()
    ) -> list[int]:
        last_sign = sa.func.coalesce(R.heartbeat_at, R.started_at)  # rows older than 0003 have none
        silent = sa.and_(R.property_id == property_id, R.result.is_(None), last_sign < silent_since)
        if keep:
            silent = sa.and_(silent, R.id.not_in(sorted(keep)))
        stmt = (
            sa.update(SYNC_RUN)
            .where(silent)
            .values(
                result=ABANDONED,
                finished_at=at,
                error="the process running it stopped without recording its end "
                "(killed, out of memory, or the machine went down)",
            )
            .returning(R.id)
        )
        # a read first: almost every sweep finds nothing, and a write transaction would take
        # SQLite's write lock (and a commit) every heartbeat of every property for it
        with read_tx(self._engine) as conn:
            if conn.execute(sa.select(R.id).where(silent).limit(1)).first() is None:
                return []
        with write_tx(self._engine) as conn:  # the UPDATE checks the condition again
            return sorted(int(i) for i in conn.execute(stmt).scalars())

    def recent_runs(self, property_id: str, limit: int = 20, kind: str | None = None) -> list[SyncRun]:
        query = sa.select(SYNC_RUN).where(R.property_id == property_id)
        if kind is not None:
            query = query.where(R.kind == kind)
        query = query.order_by(R.started_at.desc(), R.id.desc()).limit(limit)
        with read_tx(self._engine) as conn:
            rows = conn.execute(query).all()
        return [_run(row._mapping) for row in rows]

    def spent_since(self, property_id: str, since: datetime) -> dict[str, KindSpend]:
        query = (
            sa.select(R.kind, sa.func.count(), sa.func.coalesce(sa.func.sum(R.requests_spent), 0))
            .where(R.property_id == property_id, R.started_at >= since, R.result.is_not(None))
            .group_by(R.kind)
        )
        with read_tx(self._engine) as conn:
            rows = conn.execute(query).all()
        return {str(kind): KindSpend(int(runs), int(requests)) for kind, runs, requests in rows}

    def latest_start(
        self, property_id: str, kinds: Collection[str], results: Collection[str]
    ) -> datetime | None:
        query = sa.select(sa.func.max(R.started_at)).where(
            R.property_id == property_id, R.kind.in_(list(kinds)), R.result.in_(list(results))
        )
        with read_tx(self._engine) as conn:
            latest = conn.execute(query).scalar_one_or_none()
        if latest is not None and latest.tzinfo is None:  # an aggregate bypasses the column type
            latest = latest.replace(tzinfo=UTC)
        return latest


def _run(values: Any) -> SyncRun:
    return SyncRun(**dict(values))
