"""Model: how each hour's run weight (a power of its share of changes) sets the 95th percentile.

Run: ``.venv/bin/python benches/model_run_weights.py``

No daemon and no emulator: the week bench's front desk's hourly shape taken as known, ``n`` runs a
day water-filled over the hours (each hour first gets what its max gap needs, the rest in
proportion to ``share ** exponent``, never above one run per minimum interval), runs evenly spaced
within an hour and changes uniform within it. Printed: the p95 wait this gives and its ratio to
the bound for as many runs (:func:`front_desk.best_p95`), per exponent. It isolates the
allocation from what the week bench adds (a learned shape, bursts, the runs' cost changing).
Then, for budgets short of the max gap: the runs evenly over the day against by the cube root.
Last, the detections' 30-minute floor as it is (every hour) against one stretched in the quiet
hours by the cube root of how much quieter than the mean hour they are (at most ``STRETCH_MOST``).
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


STRETCHED = (50, 60, 75, 100, 150)
"""Detections a day above the 30-minute floor's 48, for the stretched floor."""
STRETCH_MOST = 4.0


def allocation(
    shares: Sequence[float],
    runs: float,
    gap: float,
    minimum: float,
    exponent: float,
    floors: Sequence[float] | None = None,
) -> list[float]:
    cap = 3600 / minimum
    hourly = list(floors) if floors is not None else [3600 / gap] * len(shares)
    if sum(hourly) >= runs:  # as shape_runs: no floor when the budget cannot keep them all
        hourly = [0.0] * len(shares)
    low, high = 0.0, 1e6

    def per_hour(scale: float) -> list[float]:
        pairs = zip(shares, hourly, strict=True)
        return [min(max(scale * share**exponent, floor), cap) for share, floor in pairs]

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
    mean = 1 / len(shares)
    stretched = [
        3600 / (1800.0 * min((mean / share) ** (1 / 3) if share > 0 else STRETCH_MOST, STRETCH_MOST))
        if share < mean
        else 3600 / 1800.0
        for share in shares
    ]
    for runs in STRETCHED:
        bound = best_p95(runs)
        kept = p95_wait(shares, allocation(shares, runs, 1800.0, 120.0, 1 / 3))
        quiet = p95_wait(shares, allocation(shares, runs, 1800.0, 120.0, 1 / 3, stretched))
        print(
            f"{runs} detections a day (bound {bound:.0f} s): a 1800 s floor every hour {kept:.0f} s "
            f"({kept / bound:.2f}x); stretched in the quiet hours {quiet:.0f} s ({quiet / bound:.2f}x)"
        )


if __name__ == "__main__":
    main()
