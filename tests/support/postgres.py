"""Scratch Postgres databases on the project's server (127.0.0.1:5432, trust auth, user postgres,
database ``test``): each test or session that needs one gets its own, with a unique name, dropped
when it is done (``WITH (FORCE)``: a daemon a test killed may still hold a connection)."""

from __future__ import annotations

import secrets
from collections.abc import Iterator
from contextlib import contextmanager

import psycopg
import pytest
from psycopg import sql

PG_ADMIN_DSN = "host=127.0.0.1 port=5432 user=postgres dbname=test connect_timeout=5"


def admin_connection() -> psycopg.Connection:
    """A connection to the ``test`` database that can create and drop databases; the test fails
    with one line when the server is not there."""
    try:
        return psycopg.connect(PG_ADMIN_DSN, autocommit=True)
    except psycopg.OperationalError as error:
        pytest.fail(
            f"PostgreSQL at 127.0.0.1:5432 (database test, user postgres) is unreachable: {error}; "
            "run `pytest -m 'not postgres'` to test SQLite only"
        )


def url_of(name: str) -> str:
    """The SQLAlchemy URL of database ``name`` on the project's server."""
    return f"postgresql+psycopg://postgres@127.0.0.1:5432/{name}"


@contextmanager
def scratch_postgres_database(prefix: str = "roomsync_test") -> Iterator[str]:
    """A new, empty database ``<prefix>_<random>`` for as long as the block runs; yields its URL."""
    name = f"{prefix}_{secrets.token_hex(6)}"
    with admin_connection() as admin:
        admin.execute(sql.SQL("CREATE DATABASE {}").format(sql.Identifier(name)))
    try:
        yield url_of(name)
    finally:
        with admin_connection() as admin:
            admin.execute(sql.SQL("DROP DATABASE IF EXISTS {} WITH (FORCE)").format(sql.Identifier(name)))
