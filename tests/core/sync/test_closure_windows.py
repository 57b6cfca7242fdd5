"""The closure check's windows and what one read of a window says (pure)."""

from __future__ import annotations

from datetime import date, timedelta

from hypothesis import given
from hypothesis import strategies as st

from roomsync.core.sync.closure_windows import check_windows, closure_breaks, judge_window
from roomsync.core.sync.price_detection import Window, plan_detection

FIRST = date(2027, 3, 1)
DAY = timedelta(days=1)


def night(offset: int) -> date:
    return FIRST + timedelta(days=offset)


def test_no_known_closure_is_one_window() -> None:
    assert check_windows(FIRST, night(89), {}, 365) == [Window(FIRST, night(89))]


def test_the_horizon_is_cut_at_every_known_edge_of_every_type() -> None:
    known = {3: [(night(20), night(22))], 4: [(night(100), night(104))], 5: [(night(0), night(1))]}
    windows = check_windows(FIRST, night(119), known, 365)
    assert [(w.first_night, w.last_night) for w in windows] == [
        (night(0), night(1)),
        (night(2), night(19)),
        (night(20), night(22)),
        (night(23), night(99)),
        (night(100), night(104)),
        (night(105), night(119)),
    ]
    # a run beyond the horizon's end cuts nothing
    assert closure_breaks(FIRST, night(9), {1: [(night(5), night(40))]}) == {FIRST, night(5)}


@given(
    runs=st.lists(st.tuples(st.integers(0, 200), st.integers(0, 10)), max_size=6),
    size=st.integers(1, 400),
)
def test_windows_cover_the_horizon_once_and_never_straddle_a_known_edge(
    runs: list[tuple[int, int]], size: int
) -> None:
    last = night(179)
    known = {1: [(night(start), night(start + length)) for start, length in runs]}
    closed = {n for a, b in known[1] for n in (a + timedelta(days=i) for i in range((b - a).days + 1))}
    windows = check_windows(FIRST, last, known, size)
    covered = [n for w in windows for n in w.each_night()]
    assert covered == [night(i) for i in range(180)]
    for window in windows:
        assert window.nights <= size
        inside = {n in closed for n in window.each_night()}
        assert len(inside) == 1  # all closed or all open


def test_judging_a_window() -> None:
    window = Window(night(20), night(22))
    known = {3: frozenset({night(20), night(21), night(22)})}
    verdict = judge_window(window, reported_closed={1, 3}, known_closed=known, room_type_ids={1, 2, 3})
    assert (verdict.closed, verdict.to_locate, verdict.lifted) == ({3}, {1}, set())
    lifted = judge_window(window, reported_closed=set(), known_closed=known, room_type_ids={1, 3})
    assert lifted.lifted == {3} and not lifted.closed and not lifted.to_locate


def test_the_price_plan_starts_a_segment_at_every_break() -> None:
    cached = {(1, night(i)): 100 for i in range(60)}
    plan = plan_detection([1], FIRST, night(59), cached, breaks={night(20), night(23)})  # type: ignore[arg-type]
    assert [(w.first_night, w.last_night) for w in (t.window for t in plan.to_read)] == [
        (night(0), night(19)),
        (night(20), night(22)),
        (night(23), night(59)),
    ]
