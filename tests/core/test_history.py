"""The history's runs of nights (pure): every change is in exactly one run, and runs are maximal."""

from __future__ import annotations

from datetime import date, timedelta

from hypothesis import given
from hypothesis import strategies as st

from roomsync.core.night_history import NightChange, runs_of_nights

FIRST = date(2027, 1, 1)

changes_strategy = st.dictionaries(
    st.tuples(st.integers(0, 40), st.sampled_from(["available", "price"])),
    st.tuples(st.sampled_from(["available", "unavailable", 70, 80]), st.integers(0, 2)),
    max_size=60,
).map(
    lambda by_night: [
        NightChange(FIRST + timedelta(days=n), name, None, new, {"free_rooms": free})
        for (n, name), (new, free) in by_night.items()
    ]
)


@given(changes_strategy)
def test_runs_cover_every_change_once_and_are_maximal(changes: list[NightChange]) -> None:
    runs = runs_of_nights(changes)
    covered: dict[tuple[str, date], NightChange] = {}
    for first, last, change in runs:
        night = first
        while night <= last:
            assert (change.field, night) not in covered
            covered[(change.field, night)] = change
            night += timedelta(days=1)
    assert covered.keys() == {(c.field, c.night) for c in changes}
    for c in changes:  # each night keeps its own values and facts
        run_change = covered[(c.field, c.night)]
        assert (run_change.new, run_change.facts) == (c.new, c.facts)
    by_start = {(change.field, first): (last, change) for first, last, change in runs}
    for _first, last, change in runs:  # a run followed at once by one changed alike would be one
        following = by_start.get((change.field, last + timedelta(days=1)))
        if following is not None:
            assert (following[1].new, following[1].facts) != (change.new, change.facts)


def test_three_closed_nights_are_one_run() -> None:
    closed = [
        NightChange(FIRST + timedelta(days=n), "available", "available", "unavailable", {"closed": True})
        for n in (3, 4, 5)
    ]
    assert runs_of_nights(closed) == [(FIRST + timedelta(days=3), FIRST + timedelta(days=5), closed[0])]
