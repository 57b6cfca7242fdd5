"""Transactions and dialect-neutral upserts shared by the repositories."""

from __future__ import annotations

import functools
from collections.abc import Iterator, Sequence
from contextlib import contextmanager
from typing import Any

import sqlalchemy as sa
from sqlalchemy.dialects import postgresql, sqlite
from sqlalchemy.engine import Connection, Engine
from sqlalchemy.exc import DBAPIError, StatementError

SQLITE_BEGIN_OPTION = "roomsync_sqlite_begin"
"""Execution option naming how a SQLite transaction begins (see engine.py)."""

BATCH_ROWS = 1000
"""Rows per executemany batch of a bulk upsert."""


@contextmanager
def write_tx(engine: Engine, *, wait_for_disk: bool = True) -> Iterator[Connection]:
    """One transaction that writes: committed on success, rolled back on error.

    On SQLite it begins IMMEDIATE, taking the database's write lock up front, so a transaction
    that reads before it writes never fails half-way with "database is locked" (it waits
    ``busy_timeout`` for the lock instead).

    ``wait_for_disk=False`` is for records kept for people, whose loss changes nothing roomsync
    does: on Postgres the commit returns before its WAL is flushed (``synchronous_commit = off``
    for this transaction only; a server crash may lose the last fraction of a second of such
    records, never corrupt anything). SQLite's ``synchronous = NORMAL`` already commits so.
    """
    with _bad_values_as_value_error(), engine.connect() as conn:
        conn.execution_options(**{SQLITE_BEGIN_OPTION: "IMMEDIATE"})
        with conn.begin():
            if not wait_for_disk and conn.dialect.name == "postgresql":
                conn.exec_driver_sql("SET LOCAL synchronous_commit = off")
            yield conn


@contextmanager
def read_tx(engine: Engine) -> Iterator[Connection]:
    """One read-only transaction (a consistent snapshot; on SQLite it never blocks writers)."""
    with _bad_values_as_value_error(), engine.connect() as conn, conn.begin():
        yield conn


@contextmanager
def _bad_values_as_value_error() -> Iterator[None]:
    """A value a column type refuses (a naive datetime, a price of 3 decimals) reaches the caller
    as the column type's own ValueError, not wrapped in SQLAlchemy's StatementError."""
    try:
        yield
    except DBAPIError:
        raise
    except StatementError as error:
        if isinstance(error.orig, ValueError):
            raise error.orig from None
        raise


def insert_for(conn: Connection, table: sa.Table) -> postgresql.Insert | sqlite.Insert:
    """An INSERT that supports ``ON CONFLICT`` on the connection's dialect."""
    return insert_on(conn.dialect.name, table)


def insert_on(dialect: str, table: sa.Table) -> postgresql.Insert | sqlite.Insert:
    """An INSERT that supports ``ON CONFLICT`` on ``dialect`` (for statements built once per
    dialect and kept)."""
    if dialect == "postgresql":
        return postgresql.insert(table)
    if dialect == "sqlite":
        return sqlite.insert(table)
    raise RuntimeError(f"the store supports SQLite and PostgreSQL, not {dialect}")


def upsert_many(
    conn: Connection, table: sa.Table, rows: Sequence[dict[str, Any]], key: Sequence[str]
) -> None:
    """Insert ``rows``, overwriting every non-key column of rows whose ``key`` exists.

    Rows go in key order, so two transactions upserting overlapping rows lock them in the same
    order and cannot deadlock.
    """
    if not rows:
        return
    rows = sorted(rows, key=lambda row: tuple(row[name] for name in key))
    stmt = _upsert_statement(conn.dialect.name, table, tuple(rows[0]), tuple(key))
    for start in range(0, len(rows), BATCH_ROWS):
        conn.execute(stmt, list(rows[start : start + BATCH_ROWS]))


@functools.cache
def _upsert_statement(
    dialect: str, table: sa.Table, columns: tuple[str, ...], key: tuple[str, ...]
) -> postgresql.Insert | sqlite.Insert:
    """Built once per shape: building it (its ``excluded`` alias, its cache key) for every call
    cost more than the statement's own work on the small batches most callers write (issue 26)."""
    stmt = insert_on(dialect, table)
    updated = {name: stmt.excluded[name] for name in columns if name not in key}
    return stmt.on_conflict_do_update(index_elements=list(key), set_=updated)


class NotFound(LookupError):
    """The row to change does not exist for that property; the message names it."""
