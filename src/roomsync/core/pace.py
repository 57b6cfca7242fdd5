"""How much of a quota day's runs the learned week places between now and the reset: the pace of
a day's polling, pro rata by where its changes come rather than by the clock.

A pace pro rata in time gave the morning as much as the evening's busy hours and the last twelve
hours less than their share; where the day's ceiling did not bind (``spend_share`` 0.9 on the week
bench, 2026-12-07) the polls ran under the plan's aim until about 10:00 and over it in the evening,
and the days ended below their ceiling.
"""

from __future__ import annotations

from collections.abc import Sequence

from roomsync.core.schedule import run_weights

DAY_SECONDS = 86_400.0


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
    slots = _day_slots(seconds_into_hour, DAY_SECONDS - left, left)
    weights = [run_weights([shape[(hour + offset) % len(shape)]])[0] for _, _, offset in slots]
    hours = [(end - start) / 3600.0 for start, end, _ in slots]
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
    ahead = sum(r for r, (start, _, _) in zip(runs, slots, strict=True) if start >= 0)
    return min(max(ahead / sum(runs), 0.0), 1.0)


def _day_slots(seconds_into_hour: float, elapsed: float, left: float) -> list[tuple[float, float, int]]:
    """The quota day cut at the local hours and at now, as (start, end, hours from the current
    hour), in seconds from now: from ``-elapsed`` (the day's start) to ``left`` (the reset)."""
    slots: list[tuple[float, float, int]] = []
    offset = -int((elapsed + 3600.0 - seconds_into_hour) // 3600.0) - 1
    while (start := 3600.0 * offset - seconds_into_hour) < left - 1e-9:
        end = start + 3600.0
        for lo, hi in ((max(start, -elapsed), min(end, 0.0)), (max(start, 0.0), min(end, left))):
            if hi - lo > 1e-9:
                slots.append((lo, hi, offset))
        offset += 1
    return slots
