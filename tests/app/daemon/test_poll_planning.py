"""The poll interval planned from today's budget and the server's quota reset.

Expected values are worked out here by hand from the rules in docs/operations.md: polling may
plan ``poll_budget_share`` of a whole day's quota, pro rata for the time left until the reset, at
one request per poll plus the listings expected to change; the core planner first keeps the guest
reserve and the slower jobs' cost out of what is left.
"""

from __future__ import annotations

import math
from datetime import UTC, date, datetime, timedelta

import pytest

from roomsync.app.daemon.planning import plan_polling
from roomsync.core.budget import BudgetSnapshot, Reserves
from roomsync.settings import Settings

NOW = datetime(2027, 3, 1, 0, 0, tzinfo=UTC)
DAY = timedelta(days=1)


def snapshot(quota: int, used: int) -> BudgetSnapshot:
    return BudgetSnapshot("demo", date(2027, 3, 1), quota, used_local=used, used_server=0)


def settings(**values: object) -> Settings:
    return Settings(**({"poll_budget_share": 0.5} | values))  # type: ignore[arg-type]


def test_a_quiet_paid_day_polls_within_the_share_of_the_quota() -> None:
    plan = plan_polling(
        settings(),
        snapshot(1500, 0),
        Reserves(),
        resets_at=NOW + DAY,
        now=NOW,
        listings=5,
        expected_changed_listings=0.0,
    )
    # 50 % of 1,500 = 750 polls of one request each over 86,400 s
    assert plan.polls_until_reset == 750
    assert plan.interval == pytest.approx(86_400 / 750)
    assert plan.staleness_bound == pytest.approx(86_400 / 750 + 30)
    assert plan.capped_by_share and not plan.free_licence


def test_the_server_reset_not_midnight_sets_the_time_left() -> None:
    # the usage headers say the quota resets in an hour: 750 * (3,600 / 86,400) = 31.25 -> 31 polls
    plan = plan_polling(
        settings(),
        snapshot(1500, 700),
        Reserves(),
        resets_at=NOW + timedelta(hours=1),
        now=NOW,
        listings=5,
        expected_changed_listings=0.0,
    )
    assert plan.seconds_to_reset == 3600
    assert plan.polls_until_reset == 31
    assert plan.interval == pytest.approx(3600 / 31)


def test_a_free_licence_still_polls_and_says_how_stale_it_can_get() -> None:
    plan = plan_polling(
        settings(),
        snapshot(100, 0),
        Reserves(),
        resets_at=NOW + DAY,
        now=NOW,
        listings=5,
        expected_changed_listings=0.5,
    )
    # 50 % of 100 = 50 requests for polling at 1.5 requests a poll: 33 polls, every 44 min
    assert plan.free_licence
    assert plan.polls_until_reset == 33
    assert plan.interval == pytest.approx(86_400 / 33)
    assert "free licence (100 requests a day)" in plan.explanation
    assert "0.7 h stale" in plan.explanation


def test_a_spent_day_plans_no_poll_until_the_reset() -> None:
    # 1,450 of 1,500 used: 50 left, but 75 (5 %) are kept for guests
    plan = plan_polling(
        settings(),
        snapshot(1500, 1450),
        Reserves(),
        resets_at=NOW + timedelta(hours=5),
        now=NOW,
        listings=5,
        expected_changed_listings=0.5,
    )
    assert math.isinf(plan.interval) and math.isinf(plan.staleness_bound)
    assert plan.polls_until_reset == 0
    assert "no polling until the quota resets" in plan.explanation


def test_polling_never_runs_faster_than_the_minimum() -> None:
    plan = plan_polling(
        settings(poll_budget_share=1.0, poll_min_seconds=90),
        snapshot(100_000, 0),
        Reserves(),
        resets_at=NOW + DAY,
        now=NOW,
        listings=5,
        expected_changed_listings=0.0,
    )
    assert plan.interval == 90
