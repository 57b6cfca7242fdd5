"""The store's fixtures: every test runs once on SQLite and once on Postgres.

SQLite gets a fresh file per test. Postgres gets one scratch database per test session,
``roomsync_test_<random>``, dropped at the end, so parallel runs never collide; tests on it stay
apart by using their own ``property_id`` (which is also what the store promises to keep apart).
"""

from __future__ import annotations

import secrets
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

import psycopg
import pytest
from psycopg import sql

from roomsync.adapters.store import Store, open_store, upgrade_to_head

PG_ADMIN_DSN = "host=127.0.0.1 port=5432 user=postgres dbname=test connect_timeout=5"


def _admin() -> psycopg.Connection:
    try:
        return psycopg.connect(PG_ADMIN_DSN, autocommit=True)
    except psycopg.OperationalError as error:
        pytest.fail(
            f"PostgreSQL at 127.0.0.1:5432 (database test, user postgres) is unreachable: {error}; "
            "run `pytest -m 'not postgres'` to test SQLite only"
        )


@contextmanager
def scratch_postgres_database() -> Iterator[str]:
    """A new, empty Postgres database for as long as the block runs."""
    name = f"roomsync_test_{secrets.token_hex(6)}"
    with _admin() as admin:
        admin.execute(sql.SQL("CREATE DATABASE {}").format(sql.Identifier(name)))
    try:
        yield f"postgresql+psycopg://postgres@127.0.0.1:5432/{name}"
    finally:
        with _admin() as admin:
            admin.execute(sql.SQL("DROP DATABASE IF EXISTS {} WITH (FORCE)").format(sql.Identifier(name)))


def sqlite_url(directory: Path) -> str:
    return f"sqlite:///{directory / 'store.db'}"


@pytest.fixture(scope="session")
def postgres_store_url() -> Iterator[str]:
    with scratch_postgres_database() as url:
        upgrade_to_head(url)
        yield url


@pytest.fixture(params=["sqlite", pytest.param("postgres", marks=pytest.mark.postgres)])
def backend(request: pytest.FixtureRequest) -> str:
    return str(request.param)


@pytest.fixture
def store_url(backend: str, request: pytest.FixtureRequest, tmp_path: Path) -> str:
    """A database migrated to head."""
    if backend == "postgres":
        return str(request.getfixturevalue("postgres_store_url"))
    url = sqlite_url(tmp_path)
    upgrade_to_head(url)
    return url


@pytest.fixture
def empty_database_url(backend: str, tmp_path: Path) -> Iterator[str]:
    """A database never migrated."""
    if backend == "postgres":
        with scratch_postgres_database() as url:
            yield url
    else:
        yield sqlite_url(tmp_path)


@pytest.fixture
def store(store_url: str) -> Iterator[Store]:
    with open_store(store_url) as opened:
        yield opened


@pytest.fixture
def second_store(store_url: str) -> Iterator[Store]:
    """Another store on the same database: a second replica."""
    with open_store(store_url) as opened:
        yield opened


@pytest.fixture
def property_id() -> str:
    return f"prop-{secrets.token_hex(6)}"


@pytest.fixture
def other_property_id() -> str:
    return f"other-{secrets.token_hex(6)}"
