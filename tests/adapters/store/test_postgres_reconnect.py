"""Postgres connections that the server drops: an idle one is replaced before use, a busy one fails
the one statement that finds out and the pool starts over (engine.py's docstring says why the
pool does not ping at every checkout). The server side is real: ``pg_terminate_backend`` ends
the pooled connection's backend, as a restart or an administrator would."""

from __future__ import annotations

import pytest
import sqlalchemy as sa
from sqlalchemy.engine import Engine

from roomsync.adapters.store.engine import create_engine, parse_url

pytestmark = pytest.mark.postgres


def _backend_pid(engine: Engine) -> int:
    with engine.connect() as conn:
        return int(conn.execute(sa.text("SELECT pg_backend_pid()")).scalar_one())


def _terminate(url: str, pid: int) -> None:
    admin = sa.create_engine(parse_url(url), poolclass=sa.pool.NullPool)
    try:
        with admin.connect() as conn:
            ended = conn.execute(sa.text("SELECT pg_terminate_backend(:pid)"), {"pid": pid}).scalar_one()
        assert ended is True, f"backend {pid} was not there to end"
    finally:
        admin.dispose()


def test_a_connection_dropped_while_idle_is_replaced_before_use(postgres_store_url: str) -> None:
    engine = create_engine(postgres_store_url, ping_if_idle_seconds=0.0)
    try:
        first = _backend_pid(engine)
        _terminate(postgres_store_url, first)
        second = _backend_pid(engine)  # no error: the ping found the dead connection
        assert second != first
        assert engine.pool.checkedout() == 0
    finally:
        engine.dispose()


def test_a_connection_dropped_while_busy_fails_once_then_the_pool_starts_over(
    postgres_store_url: str,
) -> None:
    engine = create_engine(postgres_store_url, ping_if_idle_seconds=3600.0)
    try:
        with engine.connect() as a, engine.connect() as b:  # two pooled connections in use
            pids = [int(c.execute(sa.text("SELECT pg_backend_pid()")).scalar_one()) for c in (a, b)]
        for pid in pids:
            _terminate(postgres_store_url, pid)
        with pytest.raises(sa.exc.OperationalError) as failed:
            _backend_pid(engine)  # a connection checked in a moment ago is not pinged
        assert failed.value.connection_invalidated
        # the other pooled connection is just as dead, but the failure discarded it too
        after = [_backend_pid(engine) for _ in range(3)]
        assert not set(after) & set(pids)
    finally:
        engine.dispose()


def test_connections_in_steady_use_are_not_pinged(postgres_store_url: str) -> None:
    """The point of the change: a busy pool sends no ping ahead of each statement."""
    engine = create_engine(postgres_store_url, ping_if_idle_seconds=3600.0)
    pings = 0
    original = engine.dialect.do_ping

    def counting_ping(dbapi_connection: object) -> bool:
        nonlocal pings
        pings += 1
        return bool(original(dbapi_connection))

    engine.dialect.do_ping = counting_ping  # type: ignore[method-assign]
    try:
        for _ in range(20):
            _backend_pid(engine)
        assert pings == 0
        idle_engine = create_engine(postgres_store_url, ping_if_idle_seconds=0.0)
        idle_engine.dialect.do_ping = counting_ping  # type: ignore[method-assign]
        try:
            for _ in range(5):
                _backend_pid(idle_engine)
        finally:
            idle_engine.dispose()
        assert pings == 4  # every checkout but the one that opened the connection
    finally:
        engine.dispose()
