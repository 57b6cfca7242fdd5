"""The share of a quota day's runs that the learned week places between now and the reset.

Expected values are worked out by hand: every hour first gets the runs its max gap needs, the rest
goes by the cube root of its share of changes.
"""

from __future__ import annotations

import pytest

from roomsync.core.activity import HOURS_OF_WEEK
from roomsync.core.pace import share_of_day_left

EVEN = tuple(1 / HOURS_OF_WEEK for _ in range(HOURS_OF_WEEK))
QUIET_NIGHTS = tuple(1 / 8 if hour % 24 < 8 else 1.0 for hour in range(HOURS_OF_WEEK))


def left(shape: tuple[float, ...], at: float, hours_left: float, runs_a_day: float) -> float:
    """The share left at ``at`` hours into a Monday (its first hour of the week), at a 15-minute gap."""
    hour = int(at)
    return share_of_day_left(
        shape,
        hour=hour,
        seconds_into_hour=(at - hour) * 3600,
        seconds_to_reset=hours_left * 3600,
        runs_a_day=runs_a_day,
        max_gap=900,
    )


def test_a_flat_week_is_paced_by_the_clock() -> None:
    for hours_left in (24, 18, 7.5, 0.25):
        assert left(EVEN, 3 + 1 / 3, hours_left, 500) == pytest.approx(hours_left / 24)


def test_the_busy_hours_left_weigh_more_than_the_quiet_ones_behind() -> None:
    # a day whose reset is at midnight: eight quiet hours (a share 1/8 of a busy one's) then 16
    # busy ones. 240 runs a day: 4 an hour for the 15-minute gap (96), 144 more by the cube root
    # of the shares (0.5 and 1 for a quiet and a busy hour): 144 / (8 x 0.5 + 16) = 7.2 for each
    # unit of weight, so a quiet hour runs 4 + 3.6, a busy one 4 + 7.2.
    assert left(QUIET_NIGHTS, 8, 16, 240) == pytest.approx(16 * 11.2 / 240)
    # at 04:30 (a Monday's fifth hour) three and a half quiet hours are still ahead
    assert left(QUIET_NIGHTS, 4.5, 19.5, 240) == pytest.approx((3.5 * 7.6 + 16 * 11.2) / 240)


def test_a_day_short_of_its_max_gap_is_placed_by_the_weights_alone() -> None:
    # 12 runs a day cannot keep a 15-minute gap (96): the cube roots alone, 0.5 and 1
    assert left(QUIET_NIGHTS, 8, 16, 12) == pytest.approx(16 / (8 * 0.5 + 16))


def test_a_day_without_changes_is_spread_by_time_and_an_empty_shape_is_refused() -> None:
    quiet = tuple(0.0 for _ in range(HOURS_OF_WEEK))
    assert left(quiet, 18, 6, 50) == pytest.approx(0.25)
    with pytest.raises(ValueError, match="at least one hour"):
        share_of_day_left((), hour=0, seconds_into_hour=0, seconds_to_reset=3600, runs_a_day=10, max_gap=900)
