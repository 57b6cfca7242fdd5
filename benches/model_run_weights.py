"""Model: how each hour's run weight (a power of its share of changes) sets the 95th percentile.

Run: ``.venv/bin/python benches/model_run_weights.py``

No daemon and no emulator: the week bench's front desk's hourly shape taken as known, ``n`` runs a
day water-filled over the hours (each hour first gets what its max gap needs, the rest in
proportion to ``share ** exponent``, never above one run per minimum interval), runs evenly spaced
within an hour and changes uniform within it. Printed: the p95 wait this gives and its ratio to
the bound for as many runs (:func:`front_desk.best_p95`), per exponent. It isolates the
allocation from what the week bench adds (a learned shape, bursts, the runs' cost changing).
Last, for budgets short of the max gap: the runs evenly over the day against by the cube root.
"""

from __future__ import annotations

import math
from collections.abc import Sequence

from front_desk import best_p95, hour_weights

EXPONENTS = (1.0, 0.5, 1 / 3, 0.25, 0.1)
CASES = ((470, 900.0, 60.0), (300, 900.0, 60.0), (99, 1800.0, 120.0))
"""(runs a day, max gap, min interval): the week bench's polls and detections."""
SHORT_OF_THE_GAP = (20, 28, 40, 47)
"""Detections a day too few for a 30-minute max gap (48): the runs placed with no floor, by the
cube root of the share (``shape_runs`` since 645d876) or evenly over the day (before)."""


def allocation(
    shares: Sequence[float], runs: float, gap: float, minimum: float, exponent: float
) -> list[float]:
    floor, cap = 3600 / gap, 3600 / minimum
    low, high = 0.0, 1e6

    def per_hour(scale: float) -> list[float]:
        return [min(max(scale * share**exponent, floor), cap) for share in shares]

    for _ in range(200):
        middle = (low + high) / 2
        low, high = (low, middle) if sum(per_hour(middle)) > runs else (middle, high)
    return per_hour(low)


def p95_wait(shares: Sequence[float], per_hour: Sequence[float]) -> float:
    """The wait 95 % of the changes stay within: an hour of ``k`` runs leaves ``min(1, L k / 3600)``
    of its changes within ``L``."""
    low, high = 0.0, 1e5
    for _ in range(100):
        middle = (low + high) / 2
        within = sum(share * min(1.0, middle * k / 3600) for share, k in zip(shares, per_hour, strict=True))
        low, high = (low, middle) if within >= 0.95 else (middle, high)
    return high


def main() -> None:
    raw = hour_weights()
    shares = [weight / sum(raw) for weight in raw]
    for runs, gap, minimum in CASES:
        bound = best_p95(runs)
        cells = []
        for exponent in EXPONENTS:
            wait = p95_wait(shares, allocation(shares, runs, gap, minimum, exponent))
            cells.append(f"exponent {exponent:.2f}: {wait:.0f} s ({wait / bound:.2f}x)")
        print(f"{runs} runs a day, max gap {gap:.0f} s (bound {bound:.0f} s): " + "; ".join(cells))
    for runs in SHORT_OF_THE_GAP:
        bound = best_p95(runs)
        even = p95_wait(shares, [runs / len(shares)] * len(shares))
        shaped = p95_wait(shares, allocation(shares, runs, math.inf, 120.0, 1 / 3))
        print(
            f"{runs} runs a day, short of a 1800 s gap (bound {bound:.0f} s): evenly {even:.0f} s "
            f"({even / bound:.2f}x); cube root, no floor {shaped:.0f} s ({shaped / bound:.2f}x)"
        )


if __name__ == "__main__":
    main()
