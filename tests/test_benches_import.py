"""Every bench under benches/ imports: a helper that a bench takes from a sibling module and that
an edit removed is an import error ruff does not see (be0536e cut seven of front_desk's helpers and
both freshness benches failed to start; nothing ran them until the next bench run)."""

from __future__ import annotations

import importlib
from collections.abc import Iterator
from pathlib import Path

import pytest

from support.benches import BENCHES
from support.benches import benches_on_path as on_path


@pytest.fixture
def benches_on_path() -> Iterator[None]:
    with on_path():
        yield


@pytest.mark.parametrize("module", sorted(p.stem for p in BENCHES.glob("*.py")))
def test_the_bench_imports(module: str, benches_on_path: None) -> None:
    imported = importlib.import_module(module)
    assert imported.__file__ is not None and Path(imported.__file__).parent == BENCHES
