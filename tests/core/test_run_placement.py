"""The p95's cut: which hours of a day earn runs beyond their max gap (core.run_placement), and
the polls' plan that uses it (core.schedule.shape_runs with ``cut``)."""

from __future__ import annotations

import functools

import pytest
from hypothesis import given
from hypothesis import strategies as st

from roomsync.core.activity import default_shape
from roomsync.core.run_placement import COVERED_SHARE, SHARE_EXPONENT, p95_weights
from roomsync.core.schedule import shape_runs, wait_percentile

NINE_TO_FIVE = [1.0 if 9 <= hour < 17 else 0.002 for hour in range(24)]
"""A desk working 09:00-17:00, a five-hundredth of that rate the rest of the day (flattened, 4 % of
the changes: below the cut)."""


def placed(shares: list[float], runs: float, floor: float) -> list[float]:
    """Each hour's runs: its floor, the rest in proportion to the weights (as shape_runs spends)."""
    weights = p95_weights(shares, runs, floor=floor, cap=60.0).weights
    extra = runs - floor * len(shares)
    return [floor + extra * weight / sum(weights) for weight in weights]


def test_the_hours_above_the_cut_share_one_gap_and_show_95_percent_within_it() -> None:
    # a desk a fiftieth as busy at night, which holds 11 % of the flattened changes: the cut falls
    # in the night, whose hours all get part of the day's gap
    shares = [1.0 if 9 <= hour < 17 else 0.02 for hour in range(24)]
    per_hour = placed(shares, 300, floor=4.0)
    busiest = max(per_hour)
    gap = 3600 / busiest
    assert all(runs == pytest.approx(busiest) for runs in per_hour[9:17])
    assert 4.0 < min(per_hour) < busiest
    # the cut is made for 95 % of the flattened shares: exactly those wait no longer than the gap
    flat = [share**SHARE_EXPONENT for share in shares]
    slots = [(part, 3600 / runs) for part, runs in zip(flat, per_hour, strict=True)]
    assert wait_percentile(slots, COVERED_SHARE) == pytest.approx(gap, rel=1e-6)
    # the desk's own shares, quieter at night than the flattened ones: within less than the gap
    true_slots = [(share, 3600 / runs) for share, runs in zip(shares, per_hour, strict=True)]
    assert wait_percentile(true_slots, COVERED_SHARE) < gap


def test_hours_below_the_cut_keep_their_max_gap_only() -> None:
    per_hour = placed(NINE_TO_FIVE, 300, floor=4.0)
    assert per_hour[:9] == pytest.approx([4.0] * 9) and per_hour[17:] == pytest.approx([4.0] * 7)
    assert per_hour[9:17] == pytest.approx([(300 - 96) / 8 + 4.0] * 8)


def test_the_cut_beats_the_same_runs_spread_evenly() -> None:
    per_hour = placed(NINE_TO_FIVE, 300, floor=4.0)
    ours = wait_percentile([(s, 3600 / r) for s, r in zip(NINE_TO_FIVE, per_hour, strict=True)], 0.95)
    even = wait_percentile([(s, 3600 / 12.5) for s in NINE_TO_FIVE], 0.95)
    assert ours < 0.6 * even


def test_hours_the_shape_cannot_tell_apart_weigh_alike() -> None:
    # a prior's night: eight equal hours, the cut falling among them
    shares = [1.0] * 16 + [0.2] * 8
    weights = p95_weights(shares, 200, floor=0.0, cap=60.0).weights
    night = weights[16:]
    assert 0 < night[0] < 1
    assert all(weight == pytest.approx(night[0]) for weight in night)


def test_a_day_with_no_runs_beyond_its_floors_weighs_every_hour_alike() -> None:
    placement = p95_weights(NINE_TO_FIVE, 96, floor=4.0, cap=60.0)
    assert placement.weights == tuple(1.0 for _ in NINE_TO_FIVE)
    assert placement.cut_share == 0.0


def test_the_cut_share_is_the_quietest_hour_above_the_cut() -> None:
    placement = p95_weights(NINE_TO_FIVE, 300, floor=4.0, cap=60.0)
    above = [share for share, weight in zip(NINE_TO_FIVE, placement.weights, strict=True) if weight > 0]
    assert placement.cut_share == min(above)
    assert len(above) < 24


@given(
    shares=st.lists(st.floats(0, 1), min_size=1, max_size=24),
    runs=st.floats(0, 2_000),
    floor=st.sampled_from([0.0, 2.0, 4.0]),
)
def test_a_busier_hour_never_weighs_less(shares: list[float], runs: float, floor: float) -> None:
    weights = p95_weights(shares, runs, floor=floor, cap=60.0).weights
    assert all(0.0 <= weight <= 1.0 + 1e-9 for weight in weights)
    assert max(weights) == pytest.approx(1.0)
    for busier, weight_busier in zip(shares, weights, strict=True):
        for quieter, weight_quieter in zip(shares, weights, strict=True):
            if busier > quieter:
                assert weight_busier >= weight_quieter - 1e-9


def test_no_hour_is_no_day() -> None:
    with pytest.raises(ValueError, match="at least one hour"):
        p95_weights([], 10, floor=0.0, cap=60.0)


def test_a_plan_with_the_cut_keeps_every_hour_at_its_max_gap_or_falls_back() -> None:
    # the sharp desk: with the gap kept, its nights run at the max gap only, its days faster
    shape = [share for _ in range(7) for share in NINE_TO_FIVE]
    plan = functools.partial(
        shape_runs, shape=shape, seconds_into_hour=0, seconds_to_reset=86_400, min_interval=60, max_gap=900
    )
    night, day = plan(hour=2, runs=300, cut=True), plan(hour=10, runs=300, cut=True)
    assert night.gap_kept and night.interval == pytest.approx(900)
    assert day.interval == pytest.approx(3600 / ((300 - 96) / 8 + 4.0))
    # a day short of the max gap (96 runs needed, 50 given) would leave the night without a run
    # under the cut: it falls back to the cube root, which keeps a run in every hour
    short = plan(hour=2, runs=50, cut=True)
    assert not short.gap_kept
    assert short.interval == pytest.approx(plan(hour=2, runs=50).interval)
    assert short.interval < 86_400 / 24 * 3


def test_the_default_shape_keeps_the_cube_root_without_the_cut() -> None:
    plain = shape_runs(
        shape=default_shape(), hour=0, seconds_into_hour=0, seconds_to_reset=86_400, runs=525,
        min_interval=60, max_gap=900,
    )  # fmt: skip
    with_cut = shape_runs(
        shape=default_shape(), hour=0, seconds_into_hour=0, seconds_to_reset=86_400, runs=525,
        min_interval=60, max_gap=900, cut=True,
    )  # fmt: skip
    assert plain.interval != pytest.approx(with_cut.interval)
