"""The polling plan spends what is left of the quota evenly and never more."""

from __future__ import annotations

import functools
import itertools
import math

import pytest
from hypothesis import given
from hypothesis import strategies as st

from roomsync.core.activity import default_shape
from roomsync.core.burst import BURST_SECONDS, Burst
from roomsync.core.schedule import (
    DEFAULT_MIX,
    Cadence,
    JobCosts,
    NextDue,
    detection_share,
    other_jobs_cost,
    plan_schedule,
    shape_runs,
    slot_edges,
    wait_percentile,
)

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


def test_the_default_mix_keeps_the_base_share() -> None:
    polls, detections = DEFAULT_MIX
    assert detection_share(0.45, 0.0, 0.0) == pytest.approx(0.45)
    assert detection_share(0.45, 10 * polls, 10 * detections) == pytest.approx(0.45)


def test_a_desk_that_edits_no_prices_moves_the_detections_budget_to_the_polls() -> None:
    # 200 bookings seen and nothing for the detection, against a prior of 20 in the 30 : 29 mix:
    # polls 210.17 and detection 9.83 of 220 -> weights 0.45 * sqrt(0.0447 / 0.4915) = 0.1357 and
    # 0.55 * sqrt(0.9553 / 0.5085) = 0.7539 -> 15.3 %
    assert detection_share(0.45, 200.0, 0.0) == pytest.approx(0.1525, abs=5e-4)
    # and the other way round, a desk that only edits prices and closures: polls 10.17, detection
    # 209.83 -> 0.45 * sqrt(0.9538 / 0.4915) = 0.6269 and 0.55 * sqrt(0.0462 / 0.5085) = 0.1658 -> 79.1 %
    assert detection_share(0.45, 0.0, 200.0) == pytest.approx(0.7908, abs=5e-4)


@given(
    base=st.floats(0.05, 0.95),
    polls=st.floats(0, 1e4),
    detections=st.floats(0, 1e4),
    more=st.floats(0.1, 1e3),
)
def test_more_changes_of_a_kind_never_give_it_less(
    base: float, polls: float, detections: float, more: float
) -> None:
    share = detection_share(base, polls, detections)
    assert 0 < share < 1
    assert detection_share(base, polls, detections + more) >= share - 1e-12
    assert detection_share(base, polls + more, detections) <= share + 1e-12


def test_a_spiky_learned_week_still_spends_its_budget() -> None:
    # changes seen in only three hours of the week: those hours run at their fastest (one a
    # minute), the rest of the budget goes evenly to the other hours instead of staying unspent
    # (the prior of the learned week keeps every hour above zero; this shape has none)
    spiky = [0.0] * 168
    for hour in (9, 33, 58):  # Monday 09:00, Tuesday 09:00, Wednesday 10:00
        spiky[hour] = 1.0
    plan = shape_runs(
        shape=spiky, hour=0, seconds_into_hour=0, seconds_to_reset=86_400, runs=500,
        min_interval=60, max_gap=900,
    )  # fmt: skip
    assert plan.runs_until_reset == pytest.approx(500)
    assert plan.gap_kept and plan.longest_gap <= 900


def _share_waiting_longer(slots: list[tuple[float, float]], wait: float) -> float:
    """By the definition: a change in a slot whose runs are ``gap`` apart arrives at a uniformly
    random moment between two runs, so it waits longer than ``wait`` with probability
    ``max(0, 1 - wait / gap)``."""
    total = sum(weight for weight, _ in slots)
    return sum(weight / total * max(0.0, 1 - wait / gap) for weight, gap in slots)


@given(
    slots=st.lists(st.tuples(st.floats(0.01, 10), st.floats(1, 20_000)), min_size=1, max_size=30),
    share=st.floats(0.5, 0.99),
)
def test_the_promised_wait_leaves_exactly_the_tail_waiting_longer(
    slots: list[tuple[float, float]], share: float
) -> None:
    wait = wait_percentile(slots, share)
    assert 0 <= wait <= max(gap for _, gap in slots)
    assert _share_waiting_longer(slots, wait) == pytest.approx(1 - share, abs=1e-9)


def test_one_gap_promises_that_share_of_it() -> None:
    assert wait_percentile([(1.0, 600.0)], 0.95) == pytest.approx(570.0)
    # half the changes where runs are a minute apart, half where they are ten minutes apart:
    # 10 % of the slow half may wait longer, i.e. from 540 s on
    assert wait_percentile([(1.0, 60.0), (1.0, 600.0)], 0.95) == pytest.approx(540.0)
    # a slot with no run before the reset, carrying more than the tail: no promise
    assert wait_percentile([(1.0, 60.0), (1.0, math.inf)], 0.95) == math.inf
    assert wait_percentile([(99.0, 60.0), (1.0, math.inf)], 0.95) == pytest.approx(60 * (1 - 0.04 / 0.99))
    # slots with no run, each under the tail but more than it together: no promise either
    assert wait_percentile([(92.0, 60.0), (4.0, math.inf), (4.0, math.inf)], 0.95) == math.inf


def test_a_plan_promises_the_busy_hours_gap_not_the_quiet_ones() -> None:
    # a day whose changes come 09:00-17:00: the runs crowd there and the promise follows them,
    # while the longest gap is a quiet hour's
    shape = [1.0 if 9 <= hour < 17 else 0.01 for hour in range(24)]
    plan = shape_runs(
        shape=shape, hour=0, seconds_into_hour=0, seconds_to_reset=86_400, runs=300,
        min_interval=60, max_gap=3600,
    )  # fmt: skip
    assert plan.longest_gap <= 3600
    assert plan.p95_wait < 0.5 * plan.longest_gap
    fewer = shape_runs(
        shape=shape, hour=0, seconds_into_hour=0, seconds_to_reset=86_400, runs=150,
        min_interval=60, max_gap=3600,
    )  # fmt: skip
    assert fewer.p95_wait > plan.p95_wait


def test_a_budget_short_of_the_max_gap_still_runs_where_the_changes_come() -> None:
    # 28 runs a day cannot keep a 30-minute gap (48): spread evenly they would run every 51.4
    # min, night and day. The shape puts 90 % of the changes in the 16 hours from 07:00, 5.6 % an
    # hour against 1.25 %: the cube root gives those hours 1.65x the night's runs. Per second,
    # 16 h x 1.65 w + 8 h x w = 28 runs: w = 0.814 an hour at night (a run every 73.7 min), 1.34
    # in the day (every 44.7 min).
    plan_at = functools.partial(
        shape_runs, shape=default_shape(), seconds_into_hour=0, seconds_to_reset=86_400, runs=28,
        min_interval=120, max_gap=1800,
    )  # fmt: skip
    night, day = plan_at(hour=2), plan_at(hour=9)
    assert not night.gap_kept and not day.gap_kept
    assert night.runs_until_reset == pytest.approx(28) and day.runs_until_reset == pytest.approx(28)
    assert night.interval == pytest.approx(3600 / 0.814, rel=0.01)
    assert day.interval == pytest.approx(3600 / 1.34, rel=0.01)
    # its promise is the p95 of the changes' waits, below the even spread's 95 % of 51.4 min
    assert day.p95_wait < 0.95 * 86_400 / 28


def test_runs_spread_evenly_promise_that_share_of_their_interval() -> None:
    plan = shape_runs(
        shape=[1.0] * 24, hour=0, seconds_into_hour=0, seconds_to_reset=86_400, runs=10,
        min_interval=60, max_gap=600,
    )  # fmt: skip
    assert not plan.gap_kept
    assert plan.p95_wait == pytest.approx(0.95 * 8640)


def test_a_burst_crowds_the_next_half_hour_and_takes_the_runs_from_later() -> None:
    # 11:00 on a Monday, the learned week at its prior: the busy hour of 10:00 has gone on past it
    plan = functools.partial(
        shape_runs, shape=default_shape(), hour=11, seconds_into_hour=0, seconds_to_reset=13 * 3600,
        runs=300, min_interval=60, max_gap=900,
    )  # fmt: skip
    week = plan()
    burst = plan(burst=Burst(BURST_SECONDS, 0.08))
    assert week.interval > 120  # the week alone spreads the runs over the evening
    # the burst's half hour: its share 0.08 an hour against the prior's 0.0080 for hour 11, a run
    # weight (0.08 / 0.0080) ** (1/3) = 2.15 times the hour's: 81 s against 152 s (the square root
    # gave it 3.2 times, the minimum interval)
    assert burst.interval == pytest.approx(80.95, abs=0.1)
    assert week.interval == pytest.approx(152.07, abs=0.1)
    # a burst at a larger share runs as often as the plan may, within float error of 60 s
    assert plan(burst=Burst(BURST_SECONDS, 0.5)).interval == pytest.approx(60)
    assert burst.runs_until_reset == pytest.approx(week.runs_until_reset)
    assert burst.longest_gap > week.longest_gap  # paid for later in the day
    # a burst the week already expects changes nothing
    same = plan(burst=Burst(BURST_SECONDS, min(default_shape())))
    assert same.interval == pytest.approx(week.interval)


def test_a_burst_keeps_its_gap_where_the_budget_affords_it() -> None:
    plan = functools.partial(
        shape_runs, shape=default_shape(), hour=11, seconds_into_hour=0, seconds_to_reset=13 * 3600,
        min_interval=60, max_gap=900,
    )  # fmt: skip
    # a burst the weights alone give a few runs: its 90 s gap gives it 20 in its half hour
    shared = plan(runs=93, burst=Burst(BURST_SECONDS, 0.04))
    kept = plan(runs=93, burst=Burst(BURST_SECONDS, 0.04, gap=90))
    assert shared.interval > 300
    assert kept.interval <= 90  # its floor, and its share of what the floors leave
    assert kept.longest_gap <= 900  # every other slot still keeps its max gap
    # when the gap does not fit beside the max gaps, the burst plans as if it had none
    tight = plan(runs=60, burst=Burst(BURST_SECONDS, 0.04, gap=90))
    assert tight.interval == pytest.approx(plan(runs=60, burst=Burst(BURST_SECONDS, 0.04)).interval)


def test_a_burst_never_gets_more_than_its_most_runs_but_keeps_its_max_gap() -> None:
    plan = functools.partial(
        shape_runs, shape=default_shape(), hour=11, seconds_into_hour=900, seconds_to_reset=13 * 3600,
        runs=300, min_interval=60, max_gap=900,
    )  # fmt: skip
    # 11:15, so the burst's half hour straddles 12:00: 10 runs in it are a run every 180 s in both
    # of its slots, however large its share
    assert plan(burst=Burst(BURST_SECONDS, 0.5)).interval == pytest.approx(60)
    held = plan(burst=Burst(BURST_SECONDS, 0.5, gap=90, most_runs=10))
    assert held.interval == pytest.approx(180)
    assert held.runs_until_reset == pytest.approx(300)  # the rest goes to the later hours
    # the burst's most runs never go under its max gap: 1 run in half an hour is still one each 900 s
    assert plan(burst=Burst(BURST_SECONDS, 0.5, gap=90, most_runs=1)).interval == pytest.approx(900)


@given(seconds_into_hour=st.floats(0, 3599.999), burst=st.floats(0, 40 * 3600))
def test_each_slot_falls_in_its_own_hour(seconds_into_hour: float, burst: float) -> None:
    slots = slot_edges(seconds_into_hour, 30 * 3600, Burst(burst, 0.1))
    hours = [hours for _, _, hours in slots]
    # each slot lies inside its hour, and the slots tile the time to the reset
    for start, end, hour in slots:
        hour_start = 3600 * hour - seconds_into_hour
        assert hour_start - 1e-6 <= start < end <= hour_start + 3600 + 1e-6
    # (a slot under a nanosecond is left out, at either end)
    assert slots[0][0] == pytest.approx(0, abs=1e-6) and slots[-1][1] == pytest.approx(30 * 3600, abs=1e-6)
    assert all(a[1] == b[0] for a, b in itertools.pairwise(slots))
    # one slot per hour, two for the hour a burst ends in: the hours count up by one, none skipped
    assert hours[0] == 0 and hours[-1] in (29, 30)
    assert all(b - a in (0, 1) for a, b in itertools.pairwise(hours))
    assert len(hours) - len(set(hours)) <= 1


def test_the_slower_jobs_count_the_runs_due_before_the_reset() -> None:
    costs = JobCosts(price_detection=10, reconciliation_per_listing=2, connected_repush=1)
    cadence = Cadence(price_detection=6 * 3600, reconciliation=DAY, connected_repush=DAY)
    # not known when they are due: each counted at once and every interval (ceil(20 h / 6 h) = 4)
    assert other_jobs_cost(20 * 3600, 3, costs, cadence) == 4 * 10 + 6 + 1
    # a full sync due in 3 h runs at 3, 9 and 15 h: 3 before a reset 20 h away; the reconciliation
    # and the re-push due after it cost nothing today
    due = NextDue(price_detection=3 * 3600, reconciliation=21 * 3600, connected_repush=5 * DAY)
    assert other_jobs_cost(20 * 3600, 3, costs, cadence, due) == 3 * 10
    # one due at the reset itself runs in the next day
    assert other_jobs_cost(20 * 3600, 3, costs, cadence, NextDue(20 * 3600, 20 * 3600, 20 * 3600)) == 0
