"""A burst is counted against the last day's pace, never a first hour's."""

from __future__ import annotations

import pytest

from roomsync.core.burst import BURST_SECONDS, burst_of


def test_a_burst_is_three_changes_in_half_an_hour_against_the_last_days_pace() -> None:
    assert burst_of(2, 40, 86_400) is None
    # 12 changes in the last half hour, 20 in the 11 hours watched: 24 an hour against a week of
    # 20 / 11 h x 168 h changes
    burst = burst_of(12, 20, 11 * 3600)
    assert burst is not None and burst.seconds == BURST_SECONDS
    assert burst.share_per_hour == pytest.approx(24 / (20 / 11 * 168))
    # an hour watched counts as six: three changes in it are not a week's pace of 504
    first_hour = burst_of(3, 3, 3600)
    assert first_hour is not None and first_hour.share_per_hour == pytest.approx(6 / (3 / 6 * 168))
