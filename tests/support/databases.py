"""Fixtures of a migrated database, once on SQLite and once on Postgres (``store_url``).

SQLite gets a fresh file per test. Postgres gets one scratch database per test session,
``roomsync_test_<random>``, dropped at the end, so parallel runs never collide; tests on it stay
apart by using their own ``property_id`` (which is also what the store promises to keep apart).
A conftest.py imports the fixtures it uses by name.
"""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import pytest

from roomsync.adapters.store import upgrade_to_head
from support.postgres import scratch_postgres_database

__all__ = ["backend", "postgres_store_url", "store_url"]
"""The fixtures a conftest.py takes with ``from support.databases import *``."""


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
