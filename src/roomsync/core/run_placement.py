"""Which hours of a day earn runs beyond their max gap: the placement that the 95th percentile asks
for (pure).

A change waits for the next run. With runs ``g`` apart in an hour, the share of its changes that
wait longer than ``L`` is ``1 - L / g`` (none when ``g <= L``). For a given ``L``, bringing an hour
from its max gap's runs ``f`` to one run every ``L`` costs ``3600 / L - f`` runs and shows
``share * (1 - f L / 3600)`` more of the day's changes within ``L``: the gain per run is the hour's
share times ``L / 3600``, so the busiest hours are worth their runs first, each at the SAME gap
``L``, until 95 % of the changes are within ``L`` (a fractional knapsack). The least ``L`` the
day's runs reach is the best p95 they can give; the hours below the cut keep their max gap only.

This is what the bound that the benches measure the schedule against does
(``benches/front_desk.py``). The cube root of each hour's share (every hour beyond its max gap in
proportion to ``share ** (1/3)``, which still places the detections, and the polls on a day that
cannot keep their max gap) stays at 1.16x the bound for as many runs with the desk's shape known
(``benches/model_run_weights.py``); this placement, the polls' where their max gap is kept
(:func:`roomsync.core.schedule.shape_runs` with ``cut``), gets 1.03x. A learned week is a noisy
estimate of the desk's shape, and the cut is sharp: an hour the learned week under-counts drops
to its max gap. So the cut is made on the shares raised to :data:`SHARE_EXPONENT` (a flatter
shape: more hours above the cut), which keeps most of the gain and little of the fragility:
``benches/model_learned_week.py --seeds 10 --cut`` (the week bench's desk learned for 1, 3 and 7
days, the prior of 120 changes) puts 470 polls a day at 1.17x / 1.16x / 1.12x the bound (worst
seed 1.18x / 1.17x / 1.15x), against the cube root's 1.19x / 1.18x / 1.20x, and 80 detections at
1.16-1.17x against 1.23x (1.08x and 1.14x with the desk's shape known); a sketch of the unflattened
cut had a median of 1.10x but a worst seed at 1.5-2.3x. In the daemon (the week bench's three-day
traces at a day in 600 s, runs timed at their start, 2026-12-07) the polls came to 1.19-1.32x the
bound for as many, 1.24x on the mean day, at ``spend_share`` 0.6.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

SHARE_EXPONENT = 0.7
"""The power the hours' shares are raised to before the cut (see the module doc)."""

COVERED_SHARE = 0.95
"""The share of the changes the cut is made for: the 95th percentile."""


@dataclass(frozen=True)
class HourWeights:
    """How densely each hour runs beyond its max gap, relative to the busiest: 1 for the hours
    above the cut (one run every ``L``), the hour at the cut a fraction, 0 below it."""

    weights: tuple[float, ...]
    cut_share: float
    """The least share (as given, not flattened) among the hours above the cut; 0 when every hour
    is above it."""


def p95_weights(shares: Sequence[float], runs: float, *, floor: float, cap: float) -> HourWeights:
    """The weights of the hours of one day (``shares``: each hour's share of the changes, in any
    unit) for ``runs`` runs in those hours, each hour already given ``floor`` runs (its max gap's;
    0 when the day cannot afford them) and never more than ``cap`` (its minimum interval's).

    Hours with no share still get a weight when the runs outlast the hours with one (the runs are
    spent, as evenly as the shape allows)."""
    hours = len(shares)
    if hours == 0:
        raise ValueError("p95_weights needs at least one hour")
    flat = [max(share, 0.0) ** SHARE_EXPONENT for share in shares]
    total = sum(flat)
    beyond_floors = runs - hours * min(floor, cap)
    if total <= 0 or beyond_floors <= 0 or cap <= floor:
        return HourWeights(tuple(1.0 for _ in shares), 0.0)
    parts = [value / total for value in flat]
    order = sorted(range(hours), key=lambda hour: parts[hour], reverse=True)

    def placed(wait: float) -> list[float]:
        """Each hour's runs with the busiest brought to one run every ``wait`` while runs last."""
        per_hour = [min(floor, cap)] * hours
        left, target = beyond_floors, min(cap, 3600.0 / wait)
        for hour in order:
            added = min(max(target - per_hour[hour], 0.0), left)
            per_hour[hour] += added
            left -= added
            if left <= 0:
                break
        return per_hour

    def within(wait: float) -> bool:
        per_hour = placed(wait)
        shown = sum(part * min(1.0, wait * runs / 3600.0) for part, runs in zip(parts, per_hour, strict=True))
        return shown >= COVERED_SHARE

    low, high = 1.0, 3600.0 * hours
    if not within(high):  # the runs cannot show 95 % within a day at all: every hour alike
        return HourWeights(tuple(1.0 for _ in shares), 0.0)
    for _ in range(60):
        middle = (low + high) / 2
        low, high = (low, middle) if within(middle) else (middle, high)
    per_hour = _ties_alike(placed(high), parts)
    step = max(per_hour) - min(floor, cap)
    weights = tuple(max(runs - min(floor, cap), 0.0) / step if step > 0 else 1.0 for runs in per_hour)
    above = [max(share, 0.0) for share, weight in zip(shares, weights, strict=True) if weight > 0]
    cut = min(above) if above and len(above) < hours else 0.0
    return HourWeights(weights, cut)


def _ties_alike(per_hour: list[float], parts: Sequence[float]) -> list[float]:
    """``per_hour`` with the runs of hours of equal share pooled and shared evenly: the cut falls
    among hours the shape cannot tell apart (a prior's night), and which of them comes first in
    the order is no reason to run it more."""
    pooled: dict[float, list[int]] = {}
    for hour, part in enumerate(parts):
        pooled.setdefault(round(part, 12), []).append(hour)
    even = list(per_hour)
    for hours in pooled.values():
        mean = sum(per_hour[hour] for hour in hours) / len(hours)
        for hour in hours:
            even[hour] = mean
    return even


def day_placement(
    shape: Sequence[float],
    hour: int,
    seconds_to_reset: float,
    runs: float,
    min_interval: float,
    max_gap: float,
) -> HourWeights | None:
    """The hours of the next day that earn runs beyond their max gap (:func:`p95_weights`),
    for as many runs a day as ``runs`` until the reset makes: a whole day from the current hour,
    not the hours to the reset, so the cut is the same at every plan of the day (made on the hours
    left, every plan spent the day's 5 % tail again, on the evening). None when the day cannot
    keep the max gap (see :func:`roomsync.core.schedule.shape_runs`)."""
    day = [max(shape[(hour + offset) % len(shape)], 0.0) for offset in range(24)]
    day_runs = runs * 86_400.0 / seconds_to_reset
    if 86_400.0 / max_gap >= day_runs:
        return None
    return p95_weights(day, day_runs, floor=3600.0 / max_gap, cap=3600.0 / min_interval)


BURST_WEIGHT_EXPONENT = 1 / 3
"""How much more densely a burst's slot runs than the hours above the cut: the cube root of how
much busier it is than the week expected of its hour (a burst says the learned week is wrong now;
its gap, where the budget affords it, does the rest)."""


def burst_weight(share: float, reference: float) -> float:
    """A burst's slot's weight beside the hours above the cut (:data:`BURST_WEIGHT_EXPONENT`)."""
    return (share / reference) ** BURST_WEIGHT_EXPONENT if reference > 0 else 1.0
