"""Properties of the inventory compiler, checked against the pure PUT Inventory simulation.

The expected values here are computed independently of roomsync.core.sync.diff/compile: a
brute-force day-by-day comparison of the fields, and a brute-force run count.
"""

from __future__ import annotations

import math
from datetime import date, timedelta
from itertools import pairwise

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from roomsync.core.sync import (
    Availability,
    DayState,
    InventoryRequestPlan,
    ListingKind,
    OperationPlan,
    Restrictions,
    apply_operations,
    compile_operations,
)

START = date(2027, 1, 1)
BLANK = {
    "available": Availability.DEFAULT,
    "count": None,
    "price": None,
    "restrictions": (None, None, None, None),
}

availabilities = st.sampled_from(list(Availability))
restrictions = st.sampled_from(
    [(None, None, None, None), (1, 30, False, False), (2, 30, False, False), (2, 14, True, False)]
)


def day_states(kind: ListingKind, *, desired: bool) -> st.SearchStrategy[DayState]:
    # Few distinct values, so that equal neighbours (and therefore long runs) are common.
    if kind is ListingKind.SINGLE:
        counts = st.none() if desired else st.sampled_from([None, 0, 3])
    else:
        counts = st.sampled_from([None, 0, 1, 2])  # None in a desired day: count not managed
    prices = st.sampled_from([None, 100, 120])
    return st.builds(
        lambda available, count, price, rules: DayState(available, count, price, *rules),
        availabilities,
        counts,
        prices,
        restrictions,
    )


@st.composite
def calendars(draw: st.DrawFn) -> tuple[ListingKind, dict[date, DayState], dict[date, DayState]]:
    kind = draw(st.sampled_from(list(ListingKind)))
    length = draw(st.integers(1, 45))
    days = [START + timedelta(days=offset) for offset in range(length)]
    # A desired calendar may have gaps (the compiler must not join runs across them).
    kept = draw(st.lists(st.booleans(), min_size=length, max_size=length))
    if not any(kept):
        kept[0] = True
    desired_states = draw(st.lists(day_states(kind, desired=True), min_size=length, max_size=length))
    # Copy the previous desired day often, so runs of equal desired days appear.
    repeat = draw(st.lists(st.booleans(), min_size=length, max_size=length))
    for index in range(1, length):
        if repeat[index]:
            desired_states[index] = desired_states[index - 1]
    desired = {day: state for day, state, keep in zip(days, desired_states, kept, strict=True) if keep}
    current: dict[date, DayState] = {}
    how = draw(st.lists(st.sampled_from(["same", "random", "missing"]), min_size=length, max_size=length))
    others = draw(st.lists(day_states(kind, desired=False), min_size=length, max_size=length))
    for day, state, mode, other in zip(days, desired_states, how, others, strict=True):
        if mode == "same":
            current[day] = state
        elif mode == "random":
            current[day] = other
    # Days the channel holds outside the desired horizon must be left alone.
    current[START - timedelta(days=1)] = DayState(Availability.UNAVAILABLE, None, 55)
    return kind, desired, current


limits = st.sampled_from([1, 2, 3, 5, 17, 731])


def fields_of(state: DayState | None) -> dict[str, object]:
    if state is None:
        return dict(BLANK)
    return {
        "available": state.available,
        "count": state.count,
        "price": state.price,
        "restrictions": (
            state.min_nights,
            state.max_nights,
            state.closed_to_arrival,
            state.closed_to_departure,
        ),
    }


def needed_changes(desired_day: DayState, current_day: DayState | None) -> tuple[tuple[str, object], ...]:
    """Brute force: the (field, value) pairs the channel must receive for this day."""
    want, have = fields_of(desired_day), fields_of(current_day)
    pairs = []
    for name in ("available", "count", "price", "restrictions"):
        if name in ("count", "price") and want[name] is None:
            continue  # not managed on this day
        if want[name] != have[name]:
            pairs.append((name, want[name]))
    return tuple(pairs)


def brute_force_operation_count(
    desired: dict[date, DayState], current: dict[date, DayState], limit: int
) -> int:
    runs: list[int] = []
    previous_ordinal: int | None = None
    previous_key: tuple[tuple[str, object], ...] = ()
    for day in sorted(desired):
        key = needed_changes(desired[day], current.get(day))
        if key and previous_key == key and previous_ordinal == day.toordinal() - 1:
            runs[-1] += 1
        elif key:
            runs.append(1)
        previous_ordinal, previous_key = day.toordinal(), key
    return sum(math.ceil(length / limit) for length in runs)


def operation_fields(operation: OperationPlan) -> dict[str, object]:
    fields: dict[str, object] = {}
    if operation.available is not None:
        fields["available"] = operation.available
    if operation.count is not None:
        fields["count"] = operation.count
    if operation.price is not None:
        fields["price"] = operation.price
    if operation.restrictions is not None:
        fields["restrictions"] = tuple(operation.restrictions)
    return fields


def all_operations(requests: list[InventoryRequestPlan]) -> list[OperationPlan]:
    return [operation for request in requests for operation in request.operations]


@settings(max_examples=100, deadline=None)
@given(calendars(), limits)
def test_applying_the_compiled_operations_gives_the_desired_calendar(
    case: tuple[ListingKind, dict[date, DayState], dict[date, DayState]], limit: int
) -> None:
    kind, desired, current = case
    requests = compile_operations(kind, desired, current, max_dates_per_request=limit)
    result = apply_operations(current, all_operations(requests))

    for day, want in desired.items():
        got, had = fields_of(result.get(day)), fields_of(current.get(day))
        for name in ("available", "count", "price", "restrictions"):
            unmanaged = name in ("count", "price") and fields_of(want)[name] is None
            expected = had[name] if unmanaged else fields_of(want)[name]
            assert got[name] == expected, (day, name)
    for day, state in current.items():
        if day not in desired:
            assert result[day] == state


@settings(max_examples=100, deadline=None)
@given(calendars(), limits)
def test_one_operation_per_maximal_run_and_only_changed_groups(
    case: tuple[ListingKind, dict[date, DayState], dict[date, DayState]], limit: int
) -> None:
    kind, desired, current = case
    operations = all_operations(compile_operations(kind, desired, current, max_dates_per_request=limit))

    assert len(operations) == brute_force_operation_count(desired, current, limit)
    for operation in operations:
        assert operation.days <= limit
        if kind is ListingKind.SINGLE:
            assert operation.count is None
        day = operation.date_from
        while day <= operation.date_to:
            assert day in desired
            assert operation_fields(operation) == dict(needed_changes(desired[day], current.get(day)))
            day += timedelta(days=1)
    # In date order and never overlapping.
    for earlier, later in pairwise(operations):
        assert earlier.date_to < later.date_from


@settings(max_examples=100, deadline=None)
@given(calendars(), limits)
def test_requests_respect_the_date_limit_and_split_only_when_needed(
    case: tuple[ListingKind, dict[date, DayState], dict[date, DayState]], limit: int
) -> None:
    kind, desired, current = case
    requests = compile_operations(kind, desired, current, max_dates_per_request=limit)

    for request in requests:
        assert request.operations
        assert sum(op.days for op in request.operations) <= limit
    for earlier, later in pairwise(requests):
        # A new request starts only because the next operation did not fit.
        assert sum(op.days for op in earlier.operations) + later.operations[0].days > limit
    total_dates = sum(op.days for op in all_operations(requests))
    if total_dates <= limit:
        assert len(requests) == (1 if total_dates else 0)


@settings(max_examples=100, deadline=None)
@given(calendars(), limits)
def test_syncing_twice_sends_nothing_the_second_time(
    case: tuple[ListingKind, dict[date, DayState], dict[date, DayState]], limit: int
) -> None:
    kind, desired, current = case
    first = compile_operations(kind, desired, current, max_dates_per_request=limit)
    after = apply_operations(current, all_operations(first))

    assert compile_operations(kind, desired, after, max_dates_per_request=limit) == []


def test_worked_example_single_unit_listing() -> None:
    d = [START + timedelta(days=offset) for offset in range(6)]
    rules = (2, 30, False, False)
    open_100 = DayState(Availability.AVAILABLE, None, 100, *rules)
    closed_100 = DayState(Availability.UNAVAILABLE, None, 100, *rules)
    open_120 = DayState(Availability.AVAILABLE, None, 120, *rules)
    desired = dict(zip(d, [open_100, closed_100, closed_100, open_120, open_120, open_100], strict=True))
    current = {d[0]: open_100, d[1]: open_100, d[2]: open_100, d[3]: closed_100, d[4]: open_100}

    requests = compile_operations(ListingKind.SINGLE, desired, current)

    # d1-d2 close (availability only); d3 opens and changes price; d4 changes price only (a
    # different change set, so a different operation); d5 is missing on the channel: everything
    # it manages is sent.
    assert requests == [
        InventoryRequestPlan(
            (
                OperationPlan(d[1], d[2], available=Availability.UNAVAILABLE),
                OperationPlan(d[3], d[3], available=Availability.AVAILABLE, price=120),
                OperationPlan(d[4], d[4], price=120),
                OperationPlan(
                    d[5], d[5], available=Availability.AVAILABLE, price=100, restrictions=Restrictions(*rules)
                ),
            )
        )
    ]


def test_a_long_run_is_cut_at_the_limit_and_packed_next_fit() -> None:
    days = [START + timedelta(days=offset) for offset in range(10)]
    desired = {day: DayState(Availability.AVAILABLE, 2) for day in days}
    current = {day: DayState(Availability.AVAILABLE, 1) for day in days}

    requests = compile_operations(ListingKind.ROOM_TYPE, desired, current, max_dates_per_request=4)

    assert [[(op.date_from, op.date_to) for op in request.operations] for request in requests] == [
        [(days[0], days[3])],
        [(days[4], days[7])],
        [(days[8], days[9])],
    ]
    assert all(op.count == 2 and op.available is None for op in all_operations(requests))


def test_a_single_unit_listing_refuses_a_desired_count() -> None:
    desired = {START: DayState(Availability.AVAILABLE, count=1)}
    with pytest.raises(ValueError, match=r"2027-01-01: a single-unit listing has no count"):
        compile_operations(ListingKind.SINGLE, desired, {})
