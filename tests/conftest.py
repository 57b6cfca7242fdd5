"""Fixtures shared by the whole suite."""

from __future__ import annotations

import os

import pytest


@pytest.fixture(autouse=True)
def _isolated_environment(monkeypatch: pytest.MonkeyPatch, tmp_path_factory: pytest.TempPathFactory) -> None:
    """No test reads the developer's ROOMSYNC_* variables or writes into their data directory."""
    for name in list(os.environ):
        if name.startswith("ROOMSYNC_"):
            monkeypatch.delenv(name)
    monkeypatch.setenv("XDG_DATA_HOME", str(tmp_path_factory.mktemp("xdg-data")))


SERIAL_TESTS = (
    *(
        f"tests/app/daemon/{name}.py"
        for name in (
            "test_daemon_day",
            "test_replicas",
            "test_freshness",
            "test_run_sweeper_fast_clock",
            "test_restart_takes_back_claims",
            "test_first_start",
            "test_console_browser",
        )
    ),
    "tests/app/webhooks/test_last_room_race.py",
)
"""Tests whose assertions time real daemons on compressed schedules (a day in a minute, a
freshness target, ten beats of silence, a takeover in seconds), the browser's walk through a
daemon running at a hundredth of real time, and 200 guests racing for one room within the
channel's 3 s: one at a time, on one worker, so no other of them shares the machine with them
(on a slow afternoon, 2026-11-27, the browser walk and the race each failed once beside them);
the rest spreads over both workers."""


@pytest.hookimpl(tryfirst=True)  # before pytest-xdist's own hook, which reads the group marks
def pytest_collection_modifyitems(config: pytest.Config, items: list[pytest.Item]) -> None:
    """The serial group is marked and put first: with ``--no-loadscope-reorder`` (pyproject.toml)
    pytest-xdist hands the work out in collection order, so one worker starts the group at once
    and the other takes the rest; by default it would hand out the modules of more than the
    group's 16 tests first (21 of them, about 370 s of work measured under load on 2026-11-27), and
    the group, the longest unit of work, would start one to three minutes late."""
    serial = [item for item in items if item.nodeid.startswith(SERIAL_TESTS)]
    for item in serial:
        item.add_marker(pytest.mark.xdist_group("daemons"))
    chosen = set(serial)
    items[:] = serial + [item for item in items if item not in chosen]
