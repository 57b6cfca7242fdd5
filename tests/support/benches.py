"""The benches under ``benches/`` as the tests import them: by name, their folder on the path, as
when they run (they import their siblings by name)."""

from __future__ import annotations

import sys
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

BENCHES = Path(__file__).resolve().parents[2] / "benches"


@contextmanager
def benches_on_path() -> Iterator[None]:
    sys.path.insert(0, str(BENCHES))
    try:
        yield
    finally:
        sys.path.remove(str(BENCHES))
