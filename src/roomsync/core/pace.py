"""How much of a quota day's runs the learned week places between now and the reset: the pace of
a day's polling, pro rata by where its changes come rather than by the clock.

A pace pro rata in time gave the morning as much as the evening's busy hours and the last twelve
hours less than their share; where the day's ceiling did not bind (``spend_share`` 0.9 on the week
bench, 2026-12-07) the polls ran under the plan's aim until about 10:00 and over it in the evening,
and the days ended below their ceiling.
"""

from __future__ import annotations

import math
from collections.abc import Sequence

from roomsync.core.schedule import run_weights, slot_edges

DAY_SECONDS = 86_400.0
"""A quota day."""


def share_of_day_left(
    shape: Sequence[float],
    *,
    hour: int,
    seconds_into_hour: float,
    seconds_to_reset: float,
    runs_a_day: float,
    max_gap: float,
) -> float:
    """The share of a whole quota day's ``runs_a_day`` that falls between now and the reset, the
    day being the 24 hours before the reset and its runs placed as :func:`roomsync.core.schedule.
    shape_runs` places them from the day's start: each hour first the runs its ``max_gap`` needs,
    the rest by :func:`~roomsync.core.schedule.run_weights` of its share of ``shape`` (``hour``:
    the current hour of the week, ``seconds_into_hour`` into it). An approximation of the polls'
    placement by the p95's cut (:mod:`roomsync.core.run_placement`), which flattens the hours above
    the cut further; a shape with no change in the day is spread by time."""
    if len(shape) == 0:
        raise ValueError("share_of_day_left needs a shape with at least one hour")
    left = min(max(seconds_to_reset, 0.0), DAY_SECONDS)
    elapsed = DAY_SECONDS - left
    # the day's hours behind now (cut at the day's start) and ahead of it (cut at the reset), each
    # by the slots shape_runs uses, as (hours of the slot, its hour of the day from the current one)
    day_start_offset = math.floor((seconds_into_hour - elapsed) / 3600.0)
    behind = slot_edges((seconds_into_hour - elapsed) % 3600.0, elapsed, None)
    ahead = slot_edges(seconds_into_hour, left, None)
    slots = [((end - start) / 3600.0, day_start_offset + h) for start, end, h in behind]
    slots += [((end - start) / 3600.0, h) for start, end, h in ahead]
    hours = [length for length, _ in slots]
    weights = run_weights([shape[(hour + offset) % len(shape)] for _, offset in slots])
    weighted = sum(h * w for h, w in zip(hours, weights, strict=True))
    if weighted <= 0 or runs_a_day <= 0:
        return left / DAY_SECONDS
    floor = 3600.0 / max_gap
    extra = runs_a_day - 24 * floor
    if extra > 0:
        per_hour = [floor + extra * w / weighted for w in weights]
    else:  # the max gap does not fit the day: the weights alone place the runs
        per_hour = [runs_a_day * w / weighted for w in weights]
    runs = [h * rate for h, rate in zip(hours, per_hour, strict=True)]
    return min(max(sum(runs[len(behind) :]) / sum(runs), 0.0), 1.0)
