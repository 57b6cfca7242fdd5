"""The polling plan spends what is left of the quota evenly and never more."""

from __future__ import annotations

import math

from hypothesis import given
from hypothesis import strategies as st

from roomsync.core.schedule import Cadence, plan_schedule

DAY = 86400.0


@given(
    quota=st.integers(1, 5000),
    used_share=st.floats(0, 1.2),
    seconds_to_reset=st.floats(60, DAY),
    listings=st.integers(0, 50),
    reserve_share=st.floats(0, 0.3),
)
def test_plan_never_exceeds_what_is_left(
    quota: int, used_share: float, seconds_to_reset: float, listings: int, reserve_share: float
) -> None:
    used = int(quota * used_share)
    reserve = math.ceil(quota * reserve_share)
    plan = plan_schedule(
        quota=quota, used=used, seconds_to_reset=seconds_to_reset, guest_reserve=reserve, listings=listings
    )
    remaining = max(quota - used, 0)
    planned = plan.requests_for_polling + plan.requests_for_other_jobs
    if plan.polls_until_reset:
        assert planned + reserve <= remaining
        assert Cadence().min_poll <= plan.poll_interval <= Cadence().max_poll
        assert plan.polls_until_reset * plan.poll_interval <= seconds_to_reset + plan.poll_interval
    else:
        assert math.isinf(plan.poll_interval)


def test_paid_licence_demo_property_polls_every_few_minutes() -> None:
    plan = plan_schedule(quota=1500, used=0, seconds_to_reset=DAY, guest_reserve=75, listings=6)
    # 1500 - 75 - (8*2 + 2*6 + 1) = 1396 for polling at 3.5 requests each -> 398 polls a day.
    assert plan.requests_for_other_jobs == 29
    assert plan.polls_until_reset == 398
    assert 200 < plan.poll_interval < 240
    assert "polling every" in plan.explanation


def test_free_licence_still_polls_and_says_how_stale() -> None:
    plan = plan_schedule(quota=100, used=0, seconds_to_reset=DAY, guest_reserve=5, listings=6)
    # 100 - 5 - 29 = 66 for polling -> 18 polls -> one every 80 min.
    assert plan.polls_until_reset == 18
    assert math.isclose(plan.poll_interval, DAY / 18)
    assert plan.staleness_bound > plan.poll_interval
    assert "reaches the channel within" in plan.explanation


def test_spent_day_stops_polling_but_keeps_guest_reserve() -> None:
    plan = plan_schedule(quota=100, used=96, seconds_to_reset=3600, guest_reserve=5, listings=6)
    assert plan.polls_until_reset == 0 and math.isinf(plan.poll_interval)
    assert "kept for guests" in plan.explanation


def test_less_budget_means_slower_polling() -> None:
    quiet = plan_schedule(quota=1500, used=100, seconds_to_reset=DAY / 2, guest_reserve=75, listings=6)
    busy = plan_schedule(quota=1500, used=1000, seconds_to_reset=DAY / 2, guest_reserve=75, listings=6)
    assert busy.poll_interval > quiet.poll_interval
