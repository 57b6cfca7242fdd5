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


SERIAL_DIRECTORIES = ("tests/app/daemon/",)
"""Tests that run real daemons against compressed schedules: one at a time, on one worker, so
their timings are not shared with another daemon of the suite (the rest spreads over both)."""


def pytest_collection_modifyitems(config: pytest.Config, items: list[pytest.Item]) -> None:
    for item in items:
        if item.nodeid.startswith(SERIAL_DIRECTORIES):
            item.add_marker(pytest.mark.xdist_group("daemons"))
