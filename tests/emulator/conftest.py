"""Fixtures of the emulator tests: one emulator and one webhook receiver on loopback per session,
reset to the frozen demo property before each test that asks for them."""

from __future__ import annotations

from collections.abc import Iterator

import pytest
from emulator_http import FIXED_NOW, Emu, Receiver, reset

from roomsync.emulator.app import create_app
from roomsync.emulator.clock import EmulatorClock
from roomsync.emulator.scenario import build_state
from roomsync.emulator.server import serve_in_thread
from roomsync.emulator.state import EmulatorState


@pytest.fixture(scope="session")
def emulator_session() -> Iterator[tuple[str, EmulatorState]]:
    state = build_state("demo", 7, clock=EmulatorClock(FIXED_NOW, frozen=True))
    with serve_in_thread(create_app(state)) as base_url:
        yield base_url, state


@pytest.fixture
def emu(emulator_session: tuple[str, EmulatorState]) -> Iterator[Emu]:
    client = Emu(emulator_session[0])
    reset(client)
    yield client
    client.client.close()


@pytest.fixture(scope="session")
def receiver_session() -> Iterator[tuple[str, Receiver]]:
    receiver = Receiver()
    with serve_in_thread(receiver.app) as base_url:
        yield f"{base_url}/hook", receiver


@pytest.fixture
def receiver(receiver_session: tuple[str, Receiver], emu: Emu) -> Receiver:
    """The receiver, registered (unsigned) with a freshly reset emulator."""
    url, found = receiver_session
    found.clear()
    emu.ctl("POST", "/webhooks/receiver", {"url": url})
    return found
