"""The learned shape of the week and the runs spent in proportion to it (pure)."""

from __future__ import annotations

import math
from datetime import UTC, date, datetime, timedelta

import pytest
from hypothesis import given
from hypothesis import strategies as st

from roomsync.core.activity import (
    HOURS_OF_WEEK,
    LearnedWeight,
    combined_shape,
    decayed,
    default_shape,
    edits_in,
    hour_of_week,
    observe,
    pooled_by_hour_of_day,
    week_shape,
)
from roomsync.core.schedule import shape_runs

MONDAY = datetime(2027, 3, 1, tzinfo=UTC)
TWO_WEEKS = timedelta(days=14)


def test_the_default_week_puts_nine_tenths_of_the_changes_between_seven_and_eleven() -> None:
    shape = default_shape()
    busy = sum(share for hour, share in enumerate(shape) if 7 <= hour % 24 < 23)
    assert len(shape) == HOURS_OF_WEEK
    assert busy == pytest.approx(0.9) and sum(shape) == pytest.approx(1.0)
    with pytest.raises(ValueError, match="busy hours"):
        default_shape(23, 7)


def test_an_edit_is_a_run_of_consecutive_nights_of_one_room_type() -> None:
    def nights(room_type_id: int, *days: int) -> list[tuple[int, date]]:
        return [(room_type_id, date(2027, 3, day)) for day in days]

    assert edits_in([]) == 0
    assert edits_in(nights(1, 10, 11, 12, 13, 14, 15, 16)) == 1  # a week's price set at once
    assert edits_in(nights(1, 10, 11, 20) + nights(2, 10, 11)) == 3  # a gap, another room type
    assert edits_in(nights(1, 28, 1) + nights(1, 3)) == 3  # 28 February and 1 March are not neighbours
    assert edits_in(nights(1, 13, 11, 12, 11)) == 1  # order and repeats do not matter


def test_hours_of_the_week_start_on_monday() -> None:
    assert hour_of_week(MONDAY) == 0
    assert hour_of_week(MONDAY + timedelta(days=6, hours=23, minutes=59)) == 167


def test_a_weight_halves_every_half_life_and_an_observation_adds_to_it() -> None:
    assert decayed(8.0, TWO_WEEKS, TWO_WEEKS) == pytest.approx(4.0)
    assert decayed(8.0, -TWO_WEEKS, TWO_WEEKS) == 8.0  # a clock going back never grows a weight
    first = observe(None, MONDAY, TWO_WEEKS)
    later = observe(first, MONDAY + TWO_WEEKS, TWO_WEEKS, count=2)
    assert (first.weight, later.weight, later.updated_at) == (1.0, 2.5, MONDAY + TWO_WEEKS)


def test_what_was_learned_outweighs_the_prior_and_fades() -> None:
    learned = {3: LearnedWeight(1000.0, MONDAY)}  # 03:00 on Mondays: a night auditor at work
    fresh = week_shape(learned, MONDAY, half_life=TWO_WEEKS)
    assert sum(fresh) == pytest.approx(1.0)
    nights = [fresh[day * 24 + 3] for day in range(7)]
    assert sum(nights) > 0.8  # most of the week's changes, at 03:00
    assert fresh[3] > 2 * max(nights[1:]) and min(nights) > 50 * fresh[4]  # Mondays most
    faded = week_shape(learned, MONDAY + 10 * TWO_WEEKS, half_life=TWO_WEEKS)
    assert faded[3] < 0.05  # after 20 weeks the prior is back


def test_one_change_seen_does_not_make_its_hour_the_busiest() -> None:
    # a change the 05:09 poll saw: the rest of 05:00 must not outrank the desk's busy hours (with
    # a prior of 20 changes it weighed 2.4 busy hours, and the plan moved its polls there)
    night = week_shape({5: LearnedWeight(1.0, MONDAY)}, MONDAY, half_life=TWO_WEEKS)
    assert night[5] < night[10]
    # nor does one change in a busy hour make it much busier than the next (3.2x with 20)
    busy = week_shape({10: LearnedWeight(1.0, MONDAY)}, MONDAY, half_life=TWO_WEEKS)
    assert busy[10] < 1.5 * busy[11]


def test_an_hour_learns_from_the_same_hour_of_every_day() -> None:
    # changes seen at 10:00 on Monday and Tuesday only: every day's 10:00 rises (the hours of the
    # day repeat, and a week of changes is too few to trust each hour of the week alone), those
    # two most; the total is what was seen
    seen = [0.0] * HOURS_OF_WEEK
    seen[10], seen[34] = 3.0, 4.0
    pooled = pooled_by_hour_of_day(seen)
    assert sum(pooled) == pytest.approx(7.0)
    assert pooled[10] == pytest.approx(0.25 * 3 + 0.75 * 1.0)
    assert pooled[34] == pytest.approx(0.25 * 4 + 0.75 * 1.0)
    assert all(pooled[day * 24 + 10] == pytest.approx(0.75) for day in range(2, 7))
    assert pooled[11] == 0.0


def test_combined_shapes_weigh_each_kind_alike() -> None:
    morning = tuple(1.0 if hour == 9 else 0.0 for hour in range(HOURS_OF_WEEK))
    evening = tuple(1.0 if hour == 20 else 0.0 for hour in range(HOURS_OF_WEEK))
    both = combined_shape(morning, evening)
    assert both[9] == both[20] == 0.5


@given(
    hour=st.integers(0, HOURS_OF_WEEK - 1),
    into=st.floats(0, 3599),
    seconds_to_reset=st.floats(60, 86_400),
    runs=st.floats(0, 2_000),
    min_interval=st.floats(30, 300),
    max_gap=st.floats(300, 7200),
)
def test_runs_never_exceed_the_budget_and_keep_the_gap_when_they_can(
    hour: int, into: float, seconds_to_reset: float, runs: float, min_interval: float, max_gap: float
) -> None:
    plan = shape_runs(
        shape=default_shape(),
        hour=hour,
        seconds_into_hour=into,
        seconds_to_reset=seconds_to_reset,
        runs=runs,
        min_interval=min_interval,
        max_gap=max_gap,
    )
    if runs < 1:
        assert math.isinf(plan.interval) and plan.runs_until_reset == 0
        return
    assert plan.runs_until_reset <= runs + 1e-6
    assert plan.interval >= min_interval - 1e-9
    if plan.gap_kept:
        assert plan.interval <= max_gap + 1e-9 and plan.longest_gap <= max_gap + 1e-6
    else:  # the budget could not keep the gap: the shape places the runs, within the day
        assert plan.interval <= seconds_to_reset + 1e-6


def test_a_quiet_hour_gets_its_gap_and_no_more() -> None:
    nights_off = tuple(0.0 if hour % 24 < 7 else 1.0 for hour in range(HOURS_OF_WEEK))
    plan = shape_runs(
        shape=nights_off,
        hour=2,
        seconds_into_hour=0,
        seconds_to_reset=86_400,
        runs=500,
        min_interval=60,
        max_gap=900,
    )
    assert plan.interval == pytest.approx(900)  # 02:00: nothing expected, the max gap
    busy = shape_runs(
        shape=nights_off,
        hour=9,
        seconds_into_hour=0,
        seconds_to_reset=15 * 3600,
        runs=500,
        min_interval=60,
        max_gap=900,
    )
    assert busy.interval < 120
