"""The benches' own-schedule p95 (``front_desk.schedule_p95``) is exact: evenly spaced runs give
0.95 of their gap, and irregular runs what a fine sampling of the day gives. It sampled every 30 s
before, and runs spaced at a multiple of 30 s read up to 12 % low (below the bound itself)."""

from __future__ import annotations

import bisect
import random
from collections.abc import Iterator
from datetime import UTC, datetime, timedelta
from types import ModuleType

import pytest

from support.benches import benches_on_path

DAY = datetime(2026, 12, 9, tzinfo=UTC)


@pytest.fixture
def front_desk() -> Iterator[ModuleType]:
    with benches_on_path():
        import front_desk

        yield front_desk


def test_evenly_spaced_runs_give_095_of_their_gap(front_desk: ModuleType) -> None:
    runs = [DAY + timedelta(seconds=180 * k) for k in range(1, 481)]  # every 180 s: on the old samples
    assert front_desk.schedule_p95(runs, DAY, [1]) == pytest.approx(171.0, abs=0.05)


def test_irregular_runs_match_a_fine_sampling(front_desk: ModuleType) -> None:
    rng = random.Random(7)
    runs, at = [], DAY
    while at < DAY + timedelta(days=1, hours=1):
        at += timedelta(seconds=rng.uniform(30, 900))
        runs.append(at)
    weights = front_desk.hour_weights()
    waits = []  # (wait, weight) a second of the day, each change waiting for the next run
    for second in range(86_400):
        t = DAY + timedelta(seconds=second + 0.5)
        index = bisect.bisect_left(runs, t)
        waits.append(((runs[index] - t).total_seconds(), weights[second // 3600]))
    total, reached, p95 = sum(w for _, w in waits), 0.0, 0.0
    for wait, weight in sorted(waits):
        reached += weight
        if reached >= 0.95 * total:
            p95 = wait
            break
    assert front_desk.schedule_p95(runs, DAY, [1]) == pytest.approx(p95, abs=1.0)
