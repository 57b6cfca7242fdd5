"""Fixtures shared by the command-line tests of ``tests/app``."""

from __future__ import annotations

from collections.abc import Iterator

import pytest

from support.warm_cli import WarmCli


@pytest.fixture(scope="module")
def warm_cli() -> Iterator[WarmCli]:
    """One warm process per test module that forks its ``roomsync`` commands (``support.warm_cli``)."""
    with WarmCli() as cli:
        yield cli
