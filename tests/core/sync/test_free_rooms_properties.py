"""``free_room_ids_per_night`` against its definition, night by night: a room is free on a night
when a run says available and none says not (the function sweeps stretches instead, issue 26)."""

from __future__ import annotations

from datetime import date, timedelta

from hypothesis import given, settings
from hypothesis import strategies as st

from roomsync.core.sync.desired import NightRun, RoomNights, free_room_ids_per_night

FIRST = date(2027, 1, 1)
WINDOW = 20


def run_strategy() -> st.SearchStrategy[NightRun]:
    def build(start: int, length: int, available: bool) -> NightRun:
        first = FIRST + timedelta(days=start)
        return NightRun(first, first + timedelta(days=length), available)

    return st.builds(build, st.integers(-5, WINDOW + 5), st.integers(0, 12), st.booleans())


rooms_strategy = st.lists(
    st.builds(
        lambda room_id, runs: RoomNights(room_id, 1 + room_id % 2, tuple(runs)),
        st.integers(1, 6),
        st.lists(run_strategy(), max_size=5),
    ),
    max_size=8,
)


@settings(max_examples=300, deadline=None)
@given(rooms_strategy, st.integers(0, 6), st.integers(0, WINDOW))
def test_free_rooms_are_those_some_run_frees_and_none_takes(
    rooms: list[RoomNights], offset: int, length: int
) -> None:
    first = FIRST + timedelta(days=offset)
    last = first + timedelta(days=length)
    found = free_room_ids_per_night(rooms, first, last)

    nights = [first + timedelta(days=i) for i in range(length + 1)]
    expected: dict[int, dict[date, frozenset[int]]] = {}
    for room in rooms:
        expected.setdefault(room.room_type_id, {n: frozenset() for n in nights})
    for room_type_id, per_night in expected.items():
        for night in nights:
            per_night[night] = frozenset(
                room.room_id
                for room in rooms
                if room.room_type_id == room_type_id
                and any(r.is_available and r.first_night <= night <= r.last_night for r in room.runs)
                and not any(
                    not r.is_available and r.first_night <= night <= r.last_night
                    for same in rooms
                    if same.room_id == room.room_id
                    for r in same.runs
                )
            )
    assert found == expected
