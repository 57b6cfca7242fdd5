"""The availability poll and the closure and price detection planned from today's budget, the
server's quota reset and the shape of the property's week.

Expected values are worked out here by hand from the rules in docs/operations.md: polling may
plan ``poll_budget_share`` of a whole day's quota (unset: what ``spend_share`` leaves after a day of
the slower jobs), for the part of the day's runs the learned week places before the reset (a flat
week: pro rata for the time left), after the guest reserve and the slower jobs, and never past the
day's ceiling; ``detect_budget_share`` of that goes to detection; each
kind's runs give every hour the runs its max gap needs, and the rest in proportion to the hour's
share of changes, never faster than the kind's minimum interval.
"""

from __future__ import annotations

import math
from datetime import UTC, date, datetime, timedelta

import pytest

from roomsync.app.daemon.burst_budget import RecentSpend
from roomsync.app.daemon.planning import (
    DayCosts,
    Shapes,
    _whole,
    full_sync_delay,
    plan_polling,
    reconcile_delay,
)
from roomsync.app.daemon.poll_plan import PollPlan
from roomsync.app.daemon.run_costs import RunCosts
from roomsync.core.activity import HOURS_OF_WEEK, default_shape
from roomsync.core.budget import BudgetSnapshot, Reserves
from roomsync.core.burst import BURST_SECONDS, Burst
from roomsync.core.schedule import NextDue
from roomsync.settings import Settings

NOW = datetime(2027, 3, 1, 0, 0, tzinfo=UTC)  # a Monday, midnight
DAY = timedelta(days=1)
EVEN = tuple(1 / HOURS_OF_WEEK for _ in range(HOURS_OF_WEEK))
FLAT = Shapes(EVEN, EVEN)


def snapshot(quota: int, used: int) -> BudgetSnapshot:
    return BudgetSnapshot("demo", date(2027, 3, 1), quota, used_local=used, used_server=0)


def settings(**values: object) -> Settings:
    return Settings(**({"poll_budget_share": 0.5, "detect_budget_share": 0.3} | values))  # type: ignore[arg-type]


def test_a_quiet_paid_day_splits_the_share_between_polls_and_detections() -> None:
    plan = plan_polling(
        settings(),
        snapshot(1500, 0),
        Reserves(),
        resets_at=NOW + DAY,
        now=NOW,
        costs=DayCosts(5, poll_cost=1.0),
        shapes=FLAT,
    )
    # 50 % of 1,500 = 750 for polling: 30 % (225) detects closures and prices, 525 polls availability.
    # Polls: each hour first gets 4 (a 15-minute max gap), 96 in all; the other 429 spread evenly
    # (a flat week): 21.875 an hour, one every 164.6 s.
    assert plan.polls_until_reset == 525
    assert plan.interval == pytest.approx(3600 / 21.875)
    assert plan.staleness_bound == pytest.approx(3600 / 21.875 + 30)
    # Detections: 2 an hour for the 30-minute gap, 48 in all; 177 more: 9.375 an hour, every 384 s
    assert plan.detections_until_reset == 225
    assert plan.detect_interval == pytest.approx(384.0)
    assert plan.capped_by_share and not plan.free_licence


def test_the_learned_week_puts_the_polls_where_the_changes_are() -> None:
    def at(hour: int) -> float:
        return plan_polling(
            settings(),
            snapshot(1500, 0),
            Reserves(),
            resets_at=NOW + DAY,
            now=NOW + timedelta(hours=hour),
            costs=DayCosts(5, poll_cost=1.0),
            shapes=Shapes(default_shape(), default_shape()),
        ).interval

    # From midnight the day holds 8 quiet hours (10 % of the week's changes over 56 of its hours)
    # and 16 busy ones (90 % over 112). The polls' p95 cut (run_placement, on the shares raised to
    # 0.7) brings the busy hours to one gap and the quiet ones, alike, to what the rest of the 95 %
    # needs: x polls an hour by day, y at night, 16 x + 8 y = 525 and, within the busy gap,
    # 16 b + 8 q y / x = 95 % of the flattened changes (b, q: an hour's flattened share).
    busy_part, quiet_part = (0.9 / 112) ** 0.7, (0.1 / 56) ** 0.7
    total = 16 * busy_part + 8 * quiet_part
    night_ratio = (0.95 - 16 * busy_part / total) / (8 * quiet_part / total)
    quiet = 525 / (16 + 8 * night_ratio) * night_ratio
    assert quiet > 4  # above the max gap's 4 an hour: the night is partly above the cut
    assert at(0) == pytest.approx(3600 / quiet)
    # at 09:00 nothing was spent (the snapshot says so): the day's ceiling leaves more than the
    # pace, the learned week's part of the day's 525 polls that its 15 hours left hold (placed from
    # midnight: 4 an hour for the gaps, the other 429 by the cube roots of the shares: 14 busy
    # hours and the quiet 23:00 of the day's 16 and 8). They go to those hours: 60 for their gaps,
    # the rest to 14 busy hours and the quiet 23:00. The cut is made for a whole day at that rate
    # (x 24 / 15), the night's ratio to the day the same: the quiet hour's weight beyond the gaps
    # is (y - 4) / (x - 4) for x = day's polls / (16 + 8 r), y = r x
    quiet_root, busy_root = (0.1 / 56) ** (1 / 3), (0.9 / 112) ** (1 / 3)
    roots = 8 * quiet_root + 16 * busy_root
    left = (14 * (4 + 429 * busy_root / roots) + 4 + 429 * quiet_root / roots) / 525
    polls = 525 * left
    by_day = polls * 24 / 15 / (16 + 8 * night_ratio)
    weight = (by_day * night_ratio - 4) / (by_day - 4)
    busy = 4 + (polls - 60) / (14 + weight)
    assert at(9) == pytest.approx(3600 / busy)
    assert at(9) < at(0) / 1.4


def at_eleven(
    chosen: Settings,
    used: int,
    bursts: tuple[Burst | None, Burst | None],
    *,
    poll_cost: float = 1.0,
    detect_cost: float = 1.0,
    recent: RecentSpend | None = None,
) -> PollPlan:
    """The plan at 11:00 on a day of 1,500 requests that resets at midnight, the week at its prior."""
    return plan_polling(
        chosen,
        snapshot(1500, used),
        Reserves(),
        resets_at=NOW + DAY,
        now=NOW + timedelta(hours=11),
        costs=DayCosts(5, poll_cost=poll_cost, detect_cost=detect_cost),
        shapes=Shapes(default_shape(), default_shape()),
        bursts=bursts,
        recent=recent,
    )


def test_a_burst_of_bookings_keeps_the_polls_within_its_gap_and_no_more_are_planned() -> None:
    def plan(used: int, bursts: tuple[Burst | None, Burst | None]) -> PollPlan:
        return at_eleven(settings(spend_share=0.6), used, bursts)

    # 11:00 after a busy morning: 700 spent, the ceiling leaves 900 - 700 - 11 (full syncs,
    # reconciliation, re-push) = 189, 132 polls for 13 hours: with the week alone one every 5 min
    bookings = Burst(BURST_SECONDS, 24 / 280, gap=90)  # 12 in half an hour, 40 in the last day
    week, burst = plan(700, (None, None)), plan(700, (bookings, None))
    assert week.interval > 250
    assert burst.interval <= 90
    assert burst.polls_until_reset == week.polls_until_reset  # moved from the evening, not added
    assert burst.detect_interval == week.detect_interval  # the detection saw no burst
    # after 800 (62 polls left), the 20 polls the burst's half hour needs no longer fit beside the
    # 50 that the other 12.5 hours' 15-minute gap needs: the burst only raises the half hour's share
    squeezed = plan(800, (bookings, None))
    assert squeezed.interval > 90 and squeezed.staleness_bound <= 900 + 30


def test_a_burst_of_bookings_takes_its_polls_from_the_detections_before_it_loses_its_gap() -> None:
    def plan(used: int, bursts: tuple[Burst | None, Burst | None]) -> PollPlan:
        return at_eleven(settings(spend_share=0.6, detect_budget_share=0.5), used, bursts, detect_cost=2.0)

    bookings = Burst(BURST_SECONDS, 24 / 280, gap=90)
    # 11:00 after a busy morning (750 spent), half of polling's budget for detections: the ceiling
    # leaves 900 - 750 - 18 (the slower jobs) - 2 (a detection's margin) = 130, and the polls' half
    # is 65 runs, under the 20 + 50 that the burst's 90 s gap and the other 12.5 hours' 15-minute
    # gap need. The detections give up the difference (one more run, as a margin), and keep their
    # own 30-minute gap for the 13 hours (26 runs)
    week, burst = plan(750, (None, None)), plan(750, (bookings, None))
    assert week.polls_until_reset == 65
    assert burst.interval <= 90
    assert burst.polls_until_reset in (70, 71)
    assert 26 <= burst.detections_until_reset < week.detections_until_reset
    # after 780, the ceiling leaves 100 (50 and 50): the detections' 25 runs cannot keep their
    # 30-minute gap anyway, and give the polls up to half of theirs, the 21 their burst needs
    late = plan(780, (bookings, None))
    assert late.interval <= 90
    assert late.polls_until_reset in (70, 71) and late.detections_until_reset == 14


def test_a_burst_spends_at_most_the_busy_hours_share_of_the_quota_an_hour() -> None:
    both = (Burst(BURST_SECONDS, 24 / 280, gap=90), Burst(BURST_SECONDS, 12 / 280, gap=600))

    def plan(busy_hour_share: float, recent: RecentSpend | None) -> PollPlan:
        chosen = settings(spend_share=0.9, poll_budget_share=None, busy_hour_share=busy_hour_share)
        return at_eleven(chosen, 100, both, poll_cost=1.5, detect_cost=3.0, recent=recent)

    # a quiet morning (100 spent) of a hotel that lets roomsync spend 90 % leaves the day's budget
    # room for polls every minute and a detection under every 5 minutes in the burst's half hour;
    # with no cap on an hour, that is what it plans
    uncapped = plan(1.0, RecentSpend(20, poll_cost=1.5, detect_cost=30.0))
    assert uncapped.interval == 60 and uncapped.detect_interval < 300
    # 14 % of 1,500 is 210 an hour: the next half hour may spend 105, less the slower jobs' share
    # of it (3 full syncs of 4, a reconciliation of 5 and a re-push of 1 in the 13 hours left: 18 x
    # 1,800 / 46,800). The polls keep their burst gap (20 polls x 1.5, its last half hour's cost),
    # and the detections, at 30 requests each lately, get what is left: 2.48 in the half hour
    room = 105 - 18 * 1800 / 46_800
    capped = plan(0.14, RecentSpend(20, poll_cost=1.5, detect_cost=30.0))
    assert capped.interval == 90
    assert capped.detect_interval == pytest.approx(1800 / ((room - 20 * 1.5) / 30))
    # a last half hour that spent 150 leaves 210 - 150 = 60 of a whole hour's cap: under one
    # detection's worth beside the polls, and the detections keep only their 30-minute max gap
    overspent = plan(0.14, RecentSpend(150, poll_cost=1.5, detect_cost=30.0))
    assert overspent.interval == 90 and overspent.detect_interval == 1800
    # the day's runs are moved, not dropped: what the cap takes from the half hour goes to later hours
    runs = {capped.detections_until_reset, overspent.detections_until_reset, uncapped.detections_until_reset}
    assert len(runs) == 1


def test_the_server_reset_not_midnight_sets_the_time_left() -> None:
    # the usage headers say the quota resets in an hour: the pace is the part of a day's 750 that
    # a flat week places in it, 750 / 24 = 31.25 for polling, 21.875 polls and 9.375 detections
    plan = plan_polling(
        settings(),
        snapshot(1500, 700),
        Reserves(),
        resets_at=NOW + timedelta(hours=1),
        now=NOW,
        costs=DayCosts(5, poll_cost=1.0),
        shapes=FLAT,
    )
    assert plan.seconds_to_reset == 3600
    assert plan.polls_until_reset == 21
    assert plan.interval == pytest.approx(3600 / 21.875)
    assert plan.detect_interval == pytest.approx(3600 / 9.375)


def test_a_free_licence_spreads_what_it_has_and_says_how_stale_it_can_get() -> None:
    plan = plan_polling(
        settings(),
        snapshot(100, 0),
        Reserves(),
        resets_at=NOW + DAY,
        now=NOW,
        costs=DayCosts(5, poll_cost=1.5),
        shapes=FLAT,
    )
    # The pace (50 % of 100 = 50) would give 35 for polls at 1.5 requests each and 15 for
    # detections; the max gaps want 96 polls (144 requests) and 48 detections, which do not fit in
    # what the quota leaves (100 - 5 for guests - 22 for the other jobs = 73): all of the 73 in the
    # split, 51.1 for polls (34.07 of them, one every 42.3 min) and 21.9 detections. The gaps
    # cannot be kept: the runs are spread evenly.
    assert plan.free_licence
    assert plan.polls_until_reset == 34
    assert plan.interval == pytest.approx(86_400 / (73 * 0.7 / 1.5))
    assert plan.detect_interval == pytest.approx(86_400 / (73 * 0.3))
    assert "free licence (100 requests a day)" in plan.explanation
    assert "0.7 h stale" in plan.explanation
    assert "the budget cannot keep the max gap" in plan.explanation


def test_a_costly_detection_runs_less_often() -> None:
    cheap, costly = (
        plan_polling(
            settings(),
            snapshot(1500, 0),
            Reserves(),
            resets_at=NOW + DAY,
            now=NOW,
            costs=DayCosts(5, poll_cost=1.0, detect_cost=cost),
            shapes=FLAT,
        )
        for cost in (1.0, 3.0)
    )
    assert cheap.detections_until_reset == 225 and costly.detections_until_reset == 75
    assert costly.detect_interval > cheap.detect_interval
    assert costly.polls_until_reset == cheap.polls_until_reset  # the polls keep their share


def test_a_spent_day_plans_no_poll_until_the_reset() -> None:
    # 1,450 of 1,500 used: 50 left, but 75 (5 %) are kept for guests
    plan = plan_polling(
        settings(),
        snapshot(1500, 1450),
        Reserves(),
        resets_at=NOW + timedelta(hours=5),
        now=NOW,
        costs=DayCosts(5, poll_cost=1.5),
    )
    assert math.isinf(plan.interval) and math.isinf(plan.staleness_bound)
    assert math.isinf(plan.detect_interval)
    assert plan.polls_until_reset == 0
    assert "no polling until the quota resets" in plan.explanation


def test_polling_never_runs_faster_than_the_minimum() -> None:
    plan = plan_polling(
        settings(poll_budget_share=1.0, poll_min_seconds=90, detect_min_seconds=300),
        snapshot(100_000, 0),
        Reserves(),
        resets_at=NOW + DAY,
        now=NOW,
        costs=DayCosts(5, poll_cost=1.0),
    )
    assert plan.interval == 90
    assert plan.detect_interval == 300


def test_the_local_time_zone_decides_which_hours_are_busy() -> None:
    # 06:00 UTC is 08:00 in Athens (busy) and 06:00 in UTC (quiet)
    at_six = NOW + timedelta(hours=6)

    def interval(zone: str) -> float:
        return plan_polling(
            settings(timezone=zone),
            snapshot(1500, 0),
            Reserves(),
            resets_at=NOW + DAY,
            now=at_six,
            costs=DayCosts(5, poll_cost=1.0),
            shapes=Shapes(default_shape(), default_shape()),
        ).interval

    # a busy hour runs at about 1.5 times the density of a quiet one (the test above: 24.6 polls
    # an hour against 16.5)
    assert interval("Europe/Athens") < interval("UTC") / 1.4


def test_run_costs_start_from_a_prior_and_follow_what_runs_cost() -> None:
    costs = RunCosts()
    assert costs.poll_cost == 1.5 and costs.detect_cost == 1.5  # one window + the prior's 0.5
    for _ in range(10):
        costs.poll_seen(1)
    assert costs.poll_cost == pytest.approx((15 + 10) / 20)
    costs.check_windows = 5  # two closures known: the check reads around them
    costs.detection_seen(requests=25, windows=5)  # a price changed: 20 more to narrow and push
    assert costs.detect_cost == pytest.approx(5 + (1 + 20) / 3)  # a prior of two detections


PAID = 1500


def test_detections_are_planned_at_what_they_cost_lately_when_that_is_more() -> None:
    costs = RunCosts()
    costs.detection_seen(requests=1, windows=1, at=NOW)
    assert costs.recent_detect_cost is None  # no time behind the first one yet
    # the busy afternoon: four closed runs known, nine check windows an hour apart
    costs.check_windows = 9
    for hour in range(1, 7):
        costs.detection_seen(requests=9, windows=9, at=NOW + timedelta(hours=hour))
    assert costs.recent_detect_cost == pytest.approx(9)
    # the night: the closures passed out of the horizon, one window again
    costs.check_windows = 1
    quiet = 1 + costs.extra_per_detection
    costs.detection_seen(requests=1, windows=1, at=NOW + timedelta(hours=7))
    first_night_hour = costs.planned_detect_cost(PAID)
    assert quiet < first_night_hour < 9  # planned at the day's cost, not the quiet hour's
    assert first_night_hour == costs.recent_detect_cost
    # a free licence: its own cost
    assert costs.planned_detect_cost(100) == costs.detect_cost == 1 + costs.extra_per_detection
    for hour in range(8, 7 + 48):  # two days at one window: the afternoon forgotten
        costs.detection_seen(requests=1, windows=1, at=NOW + timedelta(hours=hour))
    assert costs.planned_detect_cost(PAID) < first_night_hour / 2
    assert costs.recent_detect_cost == pytest.approx(1, abs=0.2)  # a sixteenth of it left
    # a costlier next detection than lately is planned at its own windows
    costs.check_windows = 13
    assert costs.planned_detect_cost(PAID) == pytest.approx(13 + costs.extra_per_detection)


def polls_of_a_free_day(costs: DayCosts) -> int:
    """The polls a day of 100 requests, nothing spent, plans until its reset a day away."""
    return plan_polling(
        settings(poll_budget_share=1.0),
        snapshot(100, 0),
        Reserves(),
        resets_at=NOW + DAY,
        now=NOW,
        costs=costs,
        shapes=FLAT,
    ).polls_until_reset


def test_a_costly_full_sync_leaves_less_for_polling() -> None:
    def polls(cost: int, every: float) -> int:
        return polls_of_a_free_day(DayCosts(5, poll_cost=1.0, full_sync_cost=cost, full_sync_every=every))

    # 100 - 5 for guests - (4 full syncs a day x 4, 1 reconciliation x 5, 1 re-push) = 73 for polling
    assert polls(4, 21_600) == int(73 * 0.7)
    # a full sync that costs 25 every 6 h would take everything: planned every 25 h instead, it
    # leaves 100 - 5 - (25 + 5 + 1) = 64
    assert polls(25, 90_000) == int(64 * 0.7)


def test_a_failed_full_sync_is_tried_again_soon_and_a_costly_one_runs_less_often() -> None:
    every = settings()  # price_check_interval_seconds 6 h, retry 5 min, share 10 %
    assert full_sync_delay(every, quota=1500, last_cost=10, failures=0) == 21_600
    retries = [full_sync_delay(every, quota=1500, last_cost=10, failures=n) for n in (1, 2, 3)]
    assert retries == [300, 600, 1200]
    assert full_sync_delay(every, quota=1500, last_cost=10, failures=9) == 21_600  # never later than usual
    # a free licence: 10 % of 100 a day affords a full sync of 25 requests every 2.5 days
    assert full_sync_delay(every, quota=100, last_cost=25, failures=0) == pytest.approx(86_400 * 2.5)


def test_a_costly_reconciliation_runs_less_often_on_a_small_quota() -> None:
    every = settings()  # reconcile_interval_seconds a day, reconcile_budget_share 5 %
    assert reconcile_delay(every, quota=1500, last_cost=35) == 86_400  # 35 < 75 a day
    # a free licence: 5 % of 100 a day affords the demo's reconciliation of 24 every 4.8 days
    assert reconcile_delay(every, quota=100, last_cost=24) == pytest.approx(86_400 * 4.8)


def test_a_reconciliation_due_after_the_reset_is_not_kept_out_of_todays_polling() -> None:
    def polls(reconcile_in: float | None) -> int:
        day = DAY.total_seconds()
        due = NextDue(price_detection=day, reconciliation=reconcile_in, connected_repush=day)
        return polls_of_a_free_day(
            DayCosts(4, poll_cost=1.0, reconcile_cost=24, reconcile_every=4.8 * day, next_due=due)
        )

    # 100 - 5 for guests; no full sync or re-push before the reset (both due at it). A
    # reconciliation of 24 due in 3 days leaves all 95 to polling, 70 % of it polls; one due in an
    # hour leaves 71; an unknown one (no schedule yet) is counted as due today
    assert polls(3 * 86_400.0) == int(95 * 0.7)
    assert polls(3600.0) == int(71 * 0.7)
    assert polls(None) == polls(3600.0)


def test_a_day_that_spent_much_polls_only_what_the_spend_share_leaves() -> None:
    def polling(used: int, **values: object) -> tuple[int, int]:
        plan = plan_polling(
            settings(**({"spend_share": 0.6} | values)),
            snapshot(1500, used),
            Reserves(),
            resets_at=NOW + DAY,
            now=NOW + timedelta(hours=12),
            costs=DayCosts(5, poll_cost=1.0),
            shapes=FLAT,
        )
        return plan.polls_until_reset, plan.detections_until_reset

    # 12 hours left: the other jobs need 2 full syncs x 4 + 1 reconciliation x 5 listings + 1 re-push
    # = 14. The pace allows half of a day's 50 % x 1,500 = 750 (a flat week): 375; after 800
    # requests of its own, 60 % of the day leaves 900 - 800 - 14 = 86, aimed one detection (1
    # request) under: 85, 30 % (25.5) detections, 59.5 polls.
    assert polling(800) == (59, 25)
    # after 400, the ceiling (485) is above the pace: 262.5 polls and 112.5 detections
    assert polling(400) == (262, 112)
    # past the ceiling, the polls keep their max gap (15 minutes: 48 in 12 hours) while the quota
    # affords it; the detections keep theirs only under the ceiling, and none is left
    assert polling(890) == (48, 0)
    # and when not even that fits, the quota wins: 1,500 - 75 (guest reserve) - 14 - 1,380 = 31
    # requests, all of them in the split (21.7 polls, 9.3 detections)
    assert polling(1380) == (21, 9)
    # a larger spend share lifts the ceiling: after 850, 1,200 - 850 - 14 - 1 = 335 where 0.6 leaves
    # 35, under the polls' max gap alone
    assert polling(850, spend_share=0.8) == (234, 100)
    assert polling(850) == (48, 0)


def test_a_measured_reconciliation_cost_is_kept_out_of_polling() -> None:
    def polls(reconcile_cost: int | None) -> int:
        return plan_polling(
            settings(spend_share=1.0, poll_budget_share=1.0),
            snapshot(1500, 0),
            Reserves(),
            resets_at=NOW + DAY,
            now=NOW,
            costs=DayCosts(4, poll_cost=1.0, reconcile_cost=reconcile_cost),
            shapes=FLAT,
        ).polls_until_reset

    # one reconciliation left today: 4 reads (one per listing) before the first, 52 once one cost 52;
    # the 48 more requests come out of polling's 70 % (the rest detects): 33.6 polls fewer
    assert polls(None) - polls(52) in (33, 34)


def test_the_changes_seen_lately_move_the_split_between_polls_and_detections() -> None:
    def plan(seen: tuple[float, float] | None) -> tuple[int, int, float]:
        made = plan_polling(
            settings(detect_budget_share=0.45),
            snapshot(1500, 0),
            Reserves(),
            resets_at=NOW + DAY,
            now=NOW,
            costs=DayCosts(5, poll_cost=1.0),
            shapes=Shapes(EVEN, EVEN, seen=seen),
        )
        return made.polls_until_reset, made.detections_until_reset, made.detect_share

    # 750 for polling: 45 % detects by default, and for the default mix however much was seen
    assert plan(None) == (412, 337, 0.45)
    assert plan((300.0, 290.0))[2] == pytest.approx(0.45)
    # a desk that only books: 15.25 % (tests/core/test_schedule.py) -> 635.6 polls, 114.4 detections
    polls, detections, share = plan((200.0, 0.0))
    assert share == pytest.approx(0.1525, abs=5e-4)
    assert (polls, detections) == (635, 114)


def test_a_costly_detection_keeps_its_max_gap_only_under_the_ceiling() -> None:
    def plan_for(detect_cost: float, used: int = 0, hours: float = 0) -> PollPlan:
        return plan_polling(
            settings(spend_share=0.6, poll_budget_share=0.47, detect_budget_share=0.45),
            snapshot(1500, used),
            Reserves(),
            resets_at=NOW + DAY,
            now=NOW + timedelta(hours=hours),
            costs=DayCosts(5, poll_cost=1.0, detect_cost=detect_cost, full_sync_cost=20),
            shapes=FLAT,
        )

    # A whole day: the other jobs need 4 full syncs x 20 + 5 (reconciliation) + 1 (re-push) = 86,
    # so the ceiling leaves 900 - 86 = 814, aimed one detection under (809 at 5 requests); the pace
    # 705: 387.75 polls, 317.25 for detections.
    cheap = plan_for(5.0)
    assert (cheap.polls_until_reset, cheap.detections_until_reset) == (387, 63)
    # At 13 requests a detection the 30-minute gap needs 48 x 13 = 624: the detections get what
    # the ceiling (814 - 13 = 801) leaves above the pace (96) and no more, 413.25 / 13 = 31.8; the
    # polls keep their share. (Before, the detections got all 624 and the polls their share:
    # 1,012 + 86 planned, 73 % of the quota against the 60 % ceiling.)
    costly = plan_for(13.0)
    assert (costly.polls_until_reset, costly.detections_until_reset) == (387, 31)
    assert costly.polls_until_reset * 1.0 + 31.8 * 13 + 86 <= 900 - 13
    # After a morning that spent 500 by 06:00, 18 hours left: the other jobs need 3 x 20 + 5 + 1 =
    # 66, the ceiling leaves 900 - 500 - 66 - 13 = 321 (under the pace): 176.6 polls (above their
    # 15-minute gap's 72) and 144.5 for detections, 11.1 of them, under their gap's 36: no more.
    late = plan_for(13.0, used=500, hours=6)
    assert (late.polls_until_reset, late.detections_until_reset) == (176, 11)
    # After 850 by 06:00 the ceiling is spent: the polls keep their gap past it, the detections wait
    # for the full syncs.
    spent = plan_for(13.0, used=850, hours=6)
    assert (spent.polls_until_reset, spent.detections_until_reset) == (72, 0)


def test_the_planned_runs_are_counted_whole_through_the_slots_float_sums() -> None:
    # the plan's runs are a sum of each slot's part: 75 runs came out as 74.99999999999999, which
    # int() says is 74 (seen when a burst's hourly cap moved runs to later slots)
    assert _whole(74.99999999999999) == 75
    assert _whole(74.6) == 74 and _whole(0.0) == 0
