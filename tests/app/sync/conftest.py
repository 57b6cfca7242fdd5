"""Fixtures of the sync-engine tests: one emulator of the demo hotel on loopback per session
(reset before each test, its clock frozen at the session's start), the real store on SQLite in
the test's tmp_path or, for the persistence-sensitive tests, on a scratch Postgres database."""

from __future__ import annotations

import secrets
from collections.abc import AsyncIterator, Iterator
from pathlib import Path
from typing import Any

import pytest
from sync_harness import FAST_RETRIES, NOW, Control, Emulator, SyncFactory, settings_for

from roomsync.adapters.client import ServiceClient
from roomsync.adapters.store import Store, open_store, upgrade_to_head
from roomsync.app.sync.runs.property_sync import PropertySync, SyncOptions
from roomsync.emulator.app import create_app
from roomsync.emulator.clock import EmulatorClock
from roomsync.emulator.scenario import build_state
from roomsync.emulator.server import serve_in_thread
from roomsync.metrics import Metrics
from roomsync.property_context import PropertyContext
from support.postgres import scratch_postgres_database


@pytest.fixture(scope="session")
def emulator() -> Iterator[Emulator]:
    state = build_state("demo", 7, clock=EmulatorClock(NOW, frozen=True))
    with serve_in_thread(create_app(state)) as url:
        yield Emulator(url, state)


@pytest.fixture
def control(emulator: Emulator) -> Iterator[Control]:
    ctl = Control(emulator.url)
    ctl.reset(NOW)
    yield ctl
    ctl.close()


@pytest.fixture(scope="session")
def postgres_url() -> Iterator[str]:
    with scratch_postgres_database("roomsync_sync") as url:
        upgrade_to_head(url)
        yield url


@pytest.fixture(params=["sqlite", pytest.param("postgres", marks=pytest.mark.postgres)])
def database_url(request: pytest.FixtureRequest, tmp_path: Path) -> str:
    """SQLite in tmp_path, or the session's scratch Postgres (tests keep apart by property id)."""
    if request.param == "postgres":
        return str(request.getfixturevalue("postgres_url"))
    url = f"sqlite:///{tmp_path / 'roomsync.db'}"
    upgrade_to_head(url)
    return url


@pytest.fixture
def sqlite_url(tmp_path: Path) -> str:
    url = f"sqlite:///{tmp_path / 'roomsync.db'}"
    upgrade_to_head(url)
    return url


@pytest.fixture
def property_id() -> str:
    return f"prop-{secrets.token_hex(5)}"


@pytest.fixture
async def make_sync(
    emulator: Emulator, control: Control, tmp_path: Path, property_id: str
) -> AsyncIterator[SyncFactory]:
    """A property's runs on the emulator with the real client; each gets a fresh client (a new
    process)."""
    clients: list[ServiceClient] = []

    def make(store: Store, metrics: Metrics | None = None, **settings: Any) -> PropertySync:
        chosen = PropertyContext.of(settings_for(emulator.url, tmp_path, property_id=property_id, **settings))
        client = ServiceClient(
            chosen, budget_store=store.budget, token_store=store.tokens, retry=FAST_RETRIES, clock=lambda: NOW
        )
        clients.append(client)
        return PropertySync.of(
            chosen,
            store,
            client,
            metrics=metrics,
            clock=lambda: NOW,
            options=SyncOptions(concurrency=4),
        )

    yield make
    for client in clients:
        await client.aclose()


@pytest.fixture
def store_on(database_url: str) -> Iterator[Store]:
    with open_store(database_url) as opened:
        yield opened


@pytest.fixture
def sqlite_store(sqlite_url: str) -> Iterator[Store]:
    with open_store(sqlite_url) as opened:
        yield opened
