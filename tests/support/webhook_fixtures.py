"""Fixtures of the webhook tests: one emulator for the session (real-time clock, reset to the demo
property before each test), and per test a fresh roomsync: SQLite store in tmp_path, the demo
mapping, the receiver served by uvicorn on loopback and registered (signed) with the emulator,
and a worker in the test's event loop.

The conftest.py of tests/adapters/webhooks and of tests/app/webhooks take them with a star import."""

from __future__ import annotations

from collections.abc import AsyncIterator, Callable, Iterator
from pathlib import Path
from typing import Any

import httpx
import pytest

from roomsync.adapters.client import RequestRecord, ServiceClient
from roomsync.adapters.store import open_store
from roomsync.app.webhooks import create_receiver_app, create_worker, service_client_factory
from roomsync.core.mapping import parse_mapping
from roomsync.emulator.app import create_app
from roomsync.emulator.scenario import build_state
from roomsync.emulator.server import serve_in_thread
from roomsync.emulator.state import EmulatorState
from roomsync.metrics import Metrics
from roomsync.property_context import PropertyContext
from roomsync.settings import Settings
from support.webhooks import MAPPING, PROPERTY, SECRET, Harness, NightsRecorder

__all__ = ["database_url", "emulator", "fresh_emulator", "harness", "http", "settings_overrides"]
"""The fixtures a conftest.py takes with ``from support.webhook_fixtures import *``."""


@pytest.fixture(scope="session")
def emulator() -> Iterator[tuple[str, EmulatorState]]:
    state = build_state("demo", 7)  # the clock runs with the wall clock: signatures use real time
    with serve_in_thread(create_app(state)) as base_url:
        yield base_url, state


@pytest.fixture
def http() -> Iterator[httpx.Client]:
    with httpx.Client(timeout=30.0) as client:
        yield client


@pytest.fixture
def fresh_emulator(emulator: tuple[str, EmulatorState], http: httpx.Client) -> tuple[str, EmulatorState]:
    base_url = emulator[0]

    def ctl(path: str, body: dict[str, Any]) -> None:
        response = http.post(f"{base_url}/_emulator{path}", json=body)
        assert response.status_code == 200, response.text

    ctl("/reset", {"scenario": "demo", "seed": 7})
    ctl("/webhooks/receiver", {"url": None})
    ctl("/webhooks/settings", {"duplicate": False, "reorder": False, "retryScale": 0.0001})
    return emulator


def make_settings(emulator_url: str, database_url: str, data_dir: Path, **overrides: Any) -> Settings:
    values: dict[str, Any] = {
        "base_url": emulator_url,
        "username": "demo",
        "password": "demo",
        "domain": "demo-hotel",
        "property_id": PROPERTY,
        "data_dir": data_dir,
        "database_url": database_url,
        "webhook_secret": SECRET,
        "webhook_require_signature": True,
        "availability_view_max_age_seconds": 600.0,
        "webhook_retry_base_seconds": 0.001,
        "webhook_retry_max_seconds": 0.001,
        **overrides,
    }
    return Settings(**values)


@pytest.fixture
def settings_overrides() -> dict[str, Any]:
    """Tests override settings of the harness by overriding this fixture."""
    return {}


@pytest.fixture
def database_url(tmp_path: Path) -> str:
    return f"sqlite:///{tmp_path / 'roomsync.db'}"


@pytest.fixture
async def harness(
    fresh_emulator: tuple[str, EmulatorState],
    http: httpx.Client,
    tmp_path: Path,
    database_url: str,
    settings_overrides: dict[str, Any],
) -> AsyncIterator[Harness]:
    base_url, state = fresh_emulator
    settings = make_settings(base_url, database_url, tmp_path, **settings_overrides)
    store = open_store(settings, upgrade=True)
    store.mappings.replace_mapping(PROPERTY, parse_mapping(MAPPING))
    metrics = Metrics()
    nights = NightsRecorder()
    context = PropertyContext.of(settings)
    heard: list[Callable[[RequestRecord], None]] = []

    def tell(record: RequestRecord) -> None:
        for listen in heard:
            listen(record)

    client = ServiceClient(context, budget_store=store.budget, token_store=store.tokens, on_request=tell)
    worker = create_worker(context, store, client, nights, metrics=metrics)
    app = create_receiver_app(
        context,
        store,
        client_factory=service_client_factory(context, store),
        metrics=metrics,
        on_stored=worker.wake,
    )
    try:
        with serve_in_thread(app) as receiver_base:
            receiver_url = f"{receiver_base}/webhooks/RentalChannel"
            response = http.post(
                f"{base_url}/_emulator/webhooks/receiver", json={"url": receiver_url, "secret": SECRET}
            )
            assert response.status_code == 200, response.text
            yield Harness(
                base_url,
                state,
                receiver_url,
                settings,
                store,
                client,
                worker,
                nights,
                metrics,
                http,
                app.state.receiver,
                heard,
            )
            http.post(f"{base_url}/_emulator/webhooks/receiver", json={"url": None})
    finally:
        await client.aclose()
        store.close()
