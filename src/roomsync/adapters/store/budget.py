"""The daily request budget of each property (``BudgetStore``), race-free across replicas.

``try_spend`` never reads and then writes: it makes sure the day's row exists
(``INSERT ... ON CONFLICT DO NOTHING``), then spends with one conditional
``UPDATE ... WHERE max(used_local, used_server) + cost <= quota - reserve RETURNING ...``.
The database applies concurrent UPDATEs of a row one after the other and re-checks the WHERE
of each against the row as the previous one left it (Postgres row locks; SQLite's single writer),
so however many processes spend at once, no more than the quota is ever granted.
"""

from __future__ import annotations

import functools
from datetime import UTC, date, datetime
from typing import Any

import sqlalchemy as sa
from sqlalchemy.engine import Connection, Engine

from roomsync.adapters.store._sql import insert_for, insert_on, read_tx, write_tx
from roomsync.adapters.store.tables import BUDGET_DAY
from roomsync.core.budget import BudgetSnapshot, Reserves, ServerLimits
from roomsync.core.catalog.types import Priority

B = BUDGET_DAY.c


def _spent(priority: Priority) -> str:
    return f"spent_{priority.name.lower()}"


def _refused(priority: Priority) -> str:
    return f"refused_{priority.name.lower()}"


_USED = sa.case((B.used_local >= B.used_server, B.used_local), else_=B.used_server)
"""``max(used_local, used_server)`` in SQL both databases speak."""


def _key(property_id: str, day: date) -> sa.ColumnElement[bool]:
    return sa.and_(B.property_id == property_id, B.day == day)


# Every request spends and then observes the server's count: these statements are built once,
# their values bound at each call (building them per request was a third of the CPU of a replica's
# first full sync, issue 26).
_DAY_KEY = sa.and_(B.property_id == sa.bindparam("b_pid"), B.day == sa.bindparam("b_day"))
_SNAPSHOT = sa.select(BUDGET_DAY).where(_DAY_KEY)


@functools.cache
def _spend_statement(priority: Priority) -> sa.Update:
    """Spend ``cost`` at ``priority`` if ``max(used_local, used_server) + cost <= limit``."""
    spent, cost = B[_spent(priority)], sa.bindparam("b_cost", type_=sa.Integer())
    return (
        sa.update(BUDGET_DAY)
        .where(_DAY_KEY, _USED + cost <= sa.bindparam("b_limit"))
        .values({B.used_local: B.used_local + cost, spent: spent + cost, B.quota: sa.bindparam("b_quota")})
        .returning(*BUDGET_DAY.c)
    )


@functools.cache
def _observe_statement(dialect: str) -> Any:
    """The server's count of the day's requests, kept (see ``observe_server``), on ``dialect``."""
    stmt = insert_on(dialect, BUDGET_DAY).values(
        {column.name: sa.bindparam(f"b_{column.name}") for column in BUDGET_DAY.c}
    )
    return stmt.on_conflict_do_update(
        index_elements=[B.property_id, B.day],
        set_={
            "quota": stmt.excluded.quota,
            # never lowers: a late or stale report must not hand back spent requests
            "used_server": sa.case(
                (stmt.excluded.used_server > B.used_server, stmt.excluded.used_server),
                else_=B.used_server,
            ),
            # what the server said last stands until it says something else
            "server_quota": sa.func.coalesce(stmt.excluded.server_quota, B.server_quota),
            "server_resets_at": sa.func.coalesce(stmt.excluded.server_resets_at, B.server_resets_at),
        },
    )


class SqlBudgetStore:
    def __init__(self, engine: Engine) -> None:
        self._engine = engine

    def try_spend(
        self,
        property_id: str,
        day: date,
        priority: Priority,
        quota: int,
        reserves: Reserves,
        cost: int = 1,
    ) -> BudgetSnapshot | None:
        if cost < 1:
            raise ValueError(f"cost must be at least 1, got {cost}")
        reserve = reserves.count(priority, quota)
        spend = _spend_statement(priority)
        params = {
            "b_pid": property_id,
            "b_day": day,
            "b_cost": cost,
            "b_limit": quota - reserve,
            "b_quota": quota,
        }
        with write_tx(self._engine) as conn:
            # the day's row exists for every request but its first: try the spend before making
            # sure of the row (one statement per request, not two; every request passes here)
            row = conn.execute(spend, params).one_or_none()
            if row is None:  # no row yet, or no room in the budget: the row made sure of, once more
                _ensure_row(conn, property_id, day, quota)
                row = conn.execute(spend, params).one_or_none()
            if row is not None:
                return _snapshot(row._mapping, quota)
            refused = B[_refused(priority)]
            conn.execute(sa.update(BUDGET_DAY).where(_key(property_id, day)).values({refused: refused + 1}))
            return None

    def release(self, property_id: str, day: date, priority: Priority, cost: int = 1) -> None:
        """Give back ``cost`` requests counted by :meth:`try_spend` that were never sent (the
        client's ``BudgetLedger``): one relative ``UPDATE``, never below zero, safe beside
        concurrent spenders."""
        if cost < 1:
            raise ValueError(f"cost must be at least 1, got {cost}")
        spent = B[_spent(priority)]
        with write_tx(self._engine) as conn:
            conn.execute(
                sa.update(BUDGET_DAY)
                .where(_key(property_id, day), B.used_local >= cost, spent >= cost)
                .values({B.used_local: B.used_local - cost, spent: spent - cost})
            )

    def observe_server(
        self,
        property_id: str,
        day: date,
        quota: int,
        used: int,
        *,
        server_quota: int | None = None,
        resets_at: datetime | None = None,
    ) -> None:
        row = _new_row(property_id, day, quota) | {
            "used_server": used,
            "server_quota": server_quota,
            "server_resets_at": resets_at,
        }
        with write_tx(self._engine) as conn:
            conn.execute(
                _observe_statement(conn.dialect.name), {f"b_{name}": value for name, value in row.items()}
            )

    def server_limits(self, property_id: str) -> ServerLimits | None:
        query = (
            sa.select(B.server_quota, B.server_resets_at)
            .where(
                B.property_id == property_id,
                sa.or_(B.server_quota.is_not(None), B.server_resets_at.is_not(None)),
            )
            .order_by(B.day.desc())
            .limit(1)
        )
        with read_tx(self._engine) as conn:
            row = conn.execute(query).one_or_none()
        if row is None:
            return None
        resets_at = row.server_resets_at
        if resets_at is not None and resets_at.tzinfo is None:
            resets_at = resets_at.replace(tzinfo=UTC)
        return ServerLimits(quota=row.server_quota, resets_at=resets_at)

    def carry_over(self, property_id: str, from_day: date, to_day: date, quota: int) -> None:
        if from_day == to_day:
            return
        counters = ["used_local", *(_spent(p) for p in Priority), *(_refused(p) for p in Priority)]
        with write_tx(self._engine) as conn:
            moved = conn.execute(
                sa.delete(BUDGET_DAY).where(_key(property_id, from_day)).returning(*(B[c] for c in counters))
            ).one_or_none()
            if moved is None:
                return
            _ensure_row(conn, property_id, to_day, quota)
            conn.execute(
                sa.update(BUDGET_DAY)
                .where(_key(property_id, to_day))
                .values({B[c]: B[c] + moved._mapping[c] for c in counters})
            )

    def snapshot(self, property_id: str, day: date, quota: int) -> BudgetSnapshot:
        with read_tx(self._engine) as conn:
            row = conn.execute(_SNAPSHOT, {"b_pid": property_id, "b_day": day}).one_or_none()
        values = _new_row(property_id, day, quota) if row is None else row._mapping
        return _snapshot(values, quota)


def _new_row(property_id: str, day: date, quota: int) -> dict[str, Any]:
    counters = {_spent(p): 0 for p in Priority} | {_refused(p): 0 for p in Priority}
    key = {"property_id": property_id, "day": day}
    server = {"server_quota": None, "server_resets_at": None}
    return key | {"quota": quota, "used_local": 0, "used_server": 0} | server | counters


def _ensure_row(conn: Connection, property_id: str, day: date, quota: int) -> None:
    stmt = insert_for(conn, BUDGET_DAY).values(_new_row(property_id, day, quota))
    conn.execute(stmt.on_conflict_do_nothing(index_elements=[B.property_id, B.day]))


def _snapshot(values: Any, quota: int) -> BudgetSnapshot:
    """The snapshot of a row (mapping of column values), against the caller's ``quota``."""
    return BudgetSnapshot(
        property_id=values["property_id"],
        day=values["day"],
        quota=quota,
        used_local=values["used_local"],
        used_server=values["used_server"],
        by_priority={p: values[_spent(p)] for p in Priority},
        refused_by_priority={p: values[_refused(p)] for p in Priority},
    )
