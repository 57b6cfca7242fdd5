"""A listing whose channel state is unknown is written whole: every managed group of every night,
as maximal runs, so that whatever the channel held, it holds the desired calendar afterwards."""

from __future__ import annotations

from datetime import date, timedelta

from hypothesis import given, settings
from hypothesis import strategies as st

from roomsync.core.sync import (
    BLANK_DAY,
    Availability,
    DayState,
    Field,
    apply_operations,
    operations_from_diff,
    whole_calendar,
)

FIRST = date(2027, 3, 1)


@st.composite
def calendars(draw: st.DrawFn) -> dict[date, DayState]:
    nights = draw(st.integers(1, 40))
    days: dict[date, DayState] = {}
    for n in range(nights):
        available = draw(st.sampled_from([Availability.AVAILABLE, Availability.UNAVAILABLE]))
        count = draw(st.one_of(st.none(), st.integers(0, 3)))
        price = draw(st.one_of(st.none(), st.integers(80, 82)))
        days[FIRST + timedelta(days=n)] = DayState(available, count, price)
    return days


@settings(max_examples=200, deadline=None)
@given(desired=calendars(), held=calendars())
def test_writing_whole_brings_any_channel_to_the_desired_calendar(
    desired: dict[date, DayState], held: dict[date, DayState]
) -> None:
    groups = [Field.AVAILABILITY, Field.COUNT, Field.PRICE]
    requests = operations_from_diff(whole_calendar(desired, groups), max_dates_per_request=731)
    after = apply_operations(held, [op for request in requests for op in request.operations])
    for day, want in desired.items():
        for group in groups:
            if want.manages(group):
                assert after[day].value_of(group) == want.value_of(group), (day, group)
    assert len(requests) == 1  # 40 nights fit one request


def test_runs_are_maximal_and_unmanaged_groups_are_not_sent() -> None:
    desired = {FIRST + timedelta(days=n): DayState(Availability.AVAILABLE, None, 90) for n in range(10)}
    desired[FIRST + timedelta(days=4)] = DayState(Availability.UNAVAILABLE, None, 90)
    requests = operations_from_diff(
        whole_calendar(desired, [Field.AVAILABILITY, Field.PRICE]), max_dates_per_request=731
    )
    operations = [op for request in requests for op in request.operations]
    # availability+price for 0-3, 4, 5-9: three runs, no restrictions and no count anywhere
    assert [(op.date_from, op.date_to) for op in operations] == [
        (FIRST, FIRST + timedelta(days=3)),
        (FIRST + timedelta(days=4), FIRST + timedelta(days=4)),
        (FIRST + timedelta(days=5), FIRST + timedelta(days=9)),
    ]
    assert all(op.restrictions is None and op.count is None for op in operations)
    assert BLANK_DAY.available is Availability.DEFAULT
