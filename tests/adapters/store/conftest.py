"""The store's fixtures: every test runs once on SQLite and once on Postgres (the databases come
from tests/support/databases.py)."""

from __future__ import annotations

import secrets
from collections.abc import Iterator
from pathlib import Path

import pytest

from roomsync.adapters.store import Store, open_store
from support.databases import *  # noqa: F403 (the fixtures backend, store_url, postgres_store_url)
from support.databases import sqlite_url
from support.postgres import scratch_postgres_database


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
