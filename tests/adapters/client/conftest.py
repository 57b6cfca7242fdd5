"""Fixtures of the client tests: one emulator on loopback per session (reset before each test),
the real store on a SQLite file in the test's tmp_path, and a factory of clients on both."""

from __future__ import annotations

from collections.abc import AsyncIterator, Awaitable, Callable, Iterator
from datetime import datetime
from pathlib import Path
from typing import Any

import pytest
from client_harness import FAST_RETRIES, FIXED_NOW, ClientFactory, Control, SlowAnswers, settings_for

from roomsync.adapters.client import RequestHook, RetryPolicy, ServiceClient, Timeouts, ignore_record
from roomsync.adapters.store import Store, open_store
from roomsync.emulator.app import create_app
from roomsync.emulator.clock import EmulatorClock
from roomsync.emulator.scenario import build_state
from roomsync.emulator.server import serve_in_thread
from roomsync.property_context import PropertyContext


@pytest.fixture(scope="session")
def emulator_session() -> Iterator[tuple[str, SlowAnswers]]:
    state = build_state("demo", 7, clock=EmulatorClock(FIXED_NOW, frozen=True))
    slow = SlowAnswers(create_app(state))
    with serve_in_thread(slow) as base_url:
        yield base_url, slow


@pytest.fixture(scope="session")
def emulator_url(emulator_session: tuple[str, SlowAnswers]) -> str:
    return emulator_session[0]


@pytest.fixture
def slow_answers(emulator_session: tuple[str, SlowAnswers]) -> Iterator[SlowAnswers]:
    """Holds back chosen answers after the emulator made them (nothing is held back by default)."""
    slow = emulator_session[1]
    slow.clear()
    yield slow
    slow.clear()


@pytest.fixture
def control(emulator_url: str) -> Iterator[Control]:
    """The emulator's control surface, after resetting it to the frozen demo property."""
    ctl = Control(emulator_url)
    ctl.reset()
    yield ctl
    ctl.close()


@pytest.fixture
def store(tmp_path: Path) -> Iterator[Store]:
    """The real store on a fresh SQLite file."""
    opened = open_store(f"sqlite:///{tmp_path / 'roomsync.db'}", upgrade=True)
    yield opened
    opened.close()


@pytest.fixture
async def make_client(
    emulator_url: str, tmp_path: Path, store: Store, control: Control
) -> AsyncIterator[ClientFactory]:
    """Clients of the emulator sharing ``store``; each is closed after the test."""
    made: list[ServiceClient] = []

    def make(
        fmt: str = "json",
        *,
        retry: RetryPolicy = FAST_RETRIES,
        timeouts: Timeouts | None = None,
        on_request: RequestHook = ignore_record,
        sleep: Callable[[float], Awaitable[None]] | None = None,
        clock: Callable[[], datetime] | None = None,
        **settings: Any,
    ) -> ServiceClient:
        extra: dict[str, Any] = {}
        if sleep is not None:
            extra["sleep"] = sleep
        if clock is not None:
            extra["clock"] = clock
        client = ServiceClient(
            PropertyContext.of(settings_for(emulator_url, tmp_path, fmt, **settings)),
            budget_store=store.budget,
            token_store=store.tokens,
            retry=retry,
            timeouts=timeouts,
            on_request=on_request,
            **extra,
        )
        made.append(client)
        return client

    yield make
    for client in made:
        await client.aclose()
