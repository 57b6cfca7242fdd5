"""The price-detection planner against a simulated PMS whose window total is the sum of its nights.

The simulated PMS answers a window like CombinedExtended (03-conventions): per room type the sum
of the window's nightly prices, or no price when a night of the window has none.
"""

from __future__ import annotations

from dataclasses import replace
from datetime import date, timedelta
from decimal import Decimal

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from roomsync.core.sync.price_detection import (
    DetectionState,
    Window,
    cold_plan,
    next_reads,
    outcome,
    plan_detection,
    read_bound,
    record,
    updated_cache,
)

START = date(2027, 3, 1)
Prices = dict[tuple[int, date], Decimal | None]


def pms_totals(actual: Prices, room_types: list[int], window: Window) -> dict[int, Decimal | None]:
    totals: dict[int, Decimal | None] = {}
    for room_type_id in room_types:
        nightly = [actual.get((room_type_id, night)) for night in window.each_night()]
        known = [price for price in nightly if price is not None]
        totals[room_type_id] = sum(known, Decimal(0)) if len(known) == len(nightly) else None
    return totals


def run_detection(
    state: DetectionState, actual: Prices, room_types: list[int], budget: int | None = None
) -> tuple[DetectionState, list[Window]]:
    """Read the first listed window until done (or the budget is spent), as a sync would."""
    read: list[Window] = []
    while next_reads(state) and (budget is None or len(read) < budget):
        window = next_reads(state)[0]
        read.append(window)
        state = record(state, window, pms_totals(actual, room_types, window))
    return state, read


@st.composite
def price_histories(
    draw: st.DrawFn, *, allow_unpriced: bool, allow_decrease: bool
) -> tuple[list[int], list[date], dict[tuple[int, date], Decimal], Prices]:
    room_types = sorted(draw(st.sets(st.sampled_from([3, 4, 9]), min_size=1, max_size=3)))
    nights = [START + timedelta(days=offset) for offset in range(draw(st.integers(1, 120)))]
    cached: dict[tuple[int, date], Decimal] = {}
    actual: Prices = {}
    for room_type_id in room_types:
        for night in nights:
            key = (room_type_id, night)
            old = Decimal(draw(st.integers(5_000, 20_000))) / 100
            if draw(st.integers(0, 19)) > 0:  # 1 in 20 nights not cached
                cached[key] = old
            change = draw(st.integers(0, 9))
            if change == 0:  # 1 in 10 nights changed
                delta = Decimal(draw(st.integers(1, 5_000))) / 100
                actual[key] = old - delta if allow_decrease and draw(st.booleans()) else old + delta
            elif change == 1 and allow_unpriced:
                actual[key] = None
            else:
                actual[key] = old
    return room_types, nights, cached, actual


def changed_cached_nights(room_types: list[int], nights: list[date], cached: dict, actual: Prices) -> int:
    """Nights cached for every room type on which some type's price is not the cached one."""
    return sum(
        1
        for night in nights
        if all((t, night) in cached for t in room_types)
        and any(cached[(t, night)] != actual[(t, night)] for t in room_types)
    )


window_sizes = st.sampled_from([1, 2, 7, 30, 365])


@settings(max_examples=120, deadline=None)
@given(price_histories(allow_unpriced=False, allow_decrease=False), window_sizes, st.booleans())
def test_finds_exactly_the_changed_nights_within_the_read_bound(
    history: tuple[list[int], list[date], dict, Prices], window_nights: int, derive: bool
) -> None:
    # Prices only rise here, so no two changes can cancel inside a window.
    room_types, nights, cached, actual = history
    state = plan_detection(
        room_types, nights[0], nights[-1], cached, window_nights=window_nights, derive_siblings=derive
    )
    done, read = run_detection(state, actual, room_types)
    result = outcome(done)

    truly_changed = {key: price for key, price in actual.items() if cached.get(key) != price}
    assert result.complete
    assert result.changed == truly_changed
    assert updated_cache(done) == actual
    changed_nights = changed_cached_nights(room_types, nights, cached, actual)
    assert result.reads == len(read) <= read_bound(state, changed_nights)
    if derive:
        assert len(read) <= len(nights)
    # Nearest dates first: a window never starts before one read earlier.
    assert [window.first_night for window in read] == sorted(window.first_night for window in read)


@settings(max_examples=120, deadline=None)
@given(price_histories(allow_unpriced=True, allow_decrease=False), window_sizes, st.booleans())
def test_nights_without_a_price_are_found_and_cost_at_most_two_reads_per_split(
    history: tuple[list[int], list[date], dict, Prices], window_nights: int, derive: bool
) -> None:
    room_types, nights, cached, actual = history
    state = plan_detection(
        room_types, nights[0], nights[-1], cached, window_nights=window_nights, derive_siblings=derive
    )
    done, read = run_detection(state, actual, room_types)

    assert outcome(done).changed == {key: price for key, price in actual.items() if cached.get(key) != price}
    assert updated_cache(done) == {key: price for key, price in actual.items() if price is not None}
    no_derivation = replace(state, derive_siblings=False)
    assert len(read) <= read_bound(no_derivation, changed_cached_nights(room_types, nights, cached, actual))


@settings(max_examples=120, deadline=None)
@given(price_histories(allow_unpriced=True, allow_decrease=True), window_sizes, st.integers(0, 30))
def test_whatever_it_reports_is_true_even_when_cut_short(
    history: tuple[list[int], list[date], dict, Prices], window_nights: int, budget: int
) -> None:
    # Changes may cancel inside a window here (a blind spot by design), and the budget may stop
    # the reads early; every price reported must still be the actual one.
    room_types, nights, cached, actual = history
    state = plan_detection(room_types, nights[0], nights[-1], cached, window_nights=window_nights)
    done, read = run_detection(state, actual, room_types, budget)
    result = outcome(done)

    assert len(read) <= budget
    for key, price in result.learned.items():
        assert actual[key] == price
    for key, price in result.changed.items():
        assert cached.get(key) != price
    assert result.complete == (not result.unresolved)


def test_nothing_changed_costs_one_read_per_segment() -> None:
    nights = [START + timedelta(days=offset) for offset in range(365)]
    cached = {(1, night): Decimal("100.00") for night in nights} | {(2, n): Decimal("80.00") for n in nights}

    state = plan_detection([1, 2], nights[0], nights[-1], cached)
    done, read = run_detection(state, dict(cached), [1, 2])

    assert read == [Window(nights[0], nights[-1])]
    assert outcome(done).changed == {}


def test_one_changed_night_in_a_year_costs_ten_reads() -> None:
    nights = [START + timedelta(days=offset) for offset in range(365)]
    cached = {(1, night): Decimal("100.00") for night in nights}
    actual: Prices = dict(cached)
    actual[(1, nights[0])] = Decimal("130.00")

    done, read = run_detection(plan_detection([1], nights[0], nights[-1], cached), actual, [1])

    # The year, then its left half at every level (365 -> 183 -> 92 -> ... -> 2 nights); the
    # right halves' totals are derived, not read, and the last right half is the night itself.
    assert [window.nights for window in read] == [365, 183, 92, 46, 23, 12, 6, 3, 2, 1]
    assert outcome(done).changed == {(1, nights[0]): Decimal("130.00")}


def test_without_derivation_every_half_is_read() -> None:
    nights = [START + timedelta(days=offset) for offset in range(8)]
    cached = {(1, night): Decimal("100.00") for night in nights}
    actual: Prices = dict(cached)
    actual[(1, nights[5])] = Decimal("90.00")

    state = plan_detection([1], nights[0], nights[-1], cached, derive_siblings=False)
    done, read = run_detection(state, actual, [1])

    # 8 nights -> both halves of 4 -> the right one into 2 + 2 -> the pair with the change into
    # single nights, read before the later pair (nearest first).
    assert [(w.first_night.day, w.nights) for w in read] == [
        (1, 8),
        (1, 4),
        (5, 4),
        (5, 2),
        (5, 1),
        (6, 1),
        (7, 2),
    ]
    assert outcome(done).changed == {(1, nights[5]): Decimal("90.00")}


def test_the_horizon_moving_on_by_one_night_costs_two_reads() -> None:
    nights = [START + timedelta(days=offset) for offset in range(365)]
    cached = {(1, night): Decimal("100.00") for night in nights[:-1]}
    actual: Prices = {(1, night): Decimal("100.00") for night in nights}

    done, read = run_detection(plan_detection([1], nights[0], nights[-1], cached), actual, [1])

    assert read == [Window(nights[0], nights[-2]), Window(nights[-1], nights[-1])]
    assert outcome(done).changed == {(1, nights[-1]): Decimal("100.00")}


def test_a_cold_cache_reads_every_night_once() -> None:
    nights = [START + timedelta(days=offset) for offset in range(31)]
    actual: Prices = {(t, night): Decimal(100 + t) for t in (1, 2) for night in nights}

    done, read = run_detection(cold_plan([1, 2], nights[0], nights[-1]), actual, [1, 2])

    assert read == [Window(night, night) for night in nights]
    assert updated_cache(done) == actual


def test_changes_that_cancel_inside_a_window_are_not_seen() -> None:
    friday, saturday = date(2027, 3, 5), date(2027, 3, 6)
    cached = {(1, friday): Decimal("120.00"), (1, saturday): Decimal("100.00")}
    swapped: Prices = {(1, friday): Decimal("100.00"), (1, saturday): Decimal("120.00")}

    done, read = run_detection(plan_detection([1], friday, saturday, cached), swapped, [1])
    assert read == [Window(friday, saturday)] and outcome(done).changed == {}

    # Another partition (here: one-night windows) sees the swap.
    done, _ = run_detection(plan_detection([1], friday, saturday, cached, window_nights=1), swapped, [1])
    assert outcome(done).changed == swapped


def test_recording_a_window_that_was_not_planned_is_refused() -> None:
    state = cold_plan([1], START, START + timedelta(days=3))
    with pytest.raises(ValueError, match=r"2027-03-01\.\.2027-03-04 is not planned"):
        record(state, Window(START, START + timedelta(days=3)), {1: Decimal(400)})


def test_window_reads_use_the_departure_day_as_date_to() -> None:
    window = Window(date(2027, 3, 10), date(2027, 3, 12))
    assert (window.date_from, window.date_to, window.nights) == (date(2027, 3, 10), date(2027, 3, 13), 3)
