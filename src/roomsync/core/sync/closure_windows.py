"""The windows that check every known room-type closure at once (pure; the caller reads them).

``CombinedExtended`` (and ``Combined``) say of a room type only whether it is closed on *some*
night of the window (03-conventions). One read of the whole horizon therefore sees a type close
for the first time, but not a second closure of a type already closed somewhere, nor the end of
one of two closures. Cutting the horizon at the edges of every closure already known (of every
room type: one read answers all types) gives windows in which each type is either known closed
throughout or known open throughout; then, per window and type:

========================  ==================  =============================================
known in the window       the read says       so
========================  ==================  =============================================
open                      open                open (nothing to do)
open                      closed              a NEW closure in the window: locate it
closed throughout         open                the closure was LIFTED on these nights
closed throughout         closed              closed (see the blind spot)
========================  ==================  =============================================

Cost: one read per window, ``1 + 2k`` for ``k`` known closed runs (fewer where runs touch each
other or the horizon's ends), and the same reads give the window totals the price detection
compares (:mod:`.price_detection`), so an unchanged property pays them once for both.

The blind spot, by design: a closure lifted on only SOME nights of a known closed run leaves the
run's window reporting "closed"; it is seen when a run re-locates closures (reconciliation, a
resync) or when the rest of the run is lifted. A closure added is never missed. The caller keeps
the runs as they were located (``Closures.runs_of``): two closures found apart stay two runs,
and two windows, even where they touch, so the reopening of one of them is seen (merged, it fell
in the blind spot until the next reconciliation); and a known run that a new closure of its type
touches is located again (the desk may have reopened it and closed across its edge).
"""

from __future__ import annotations

from collections.abc import Collection, Iterable, Mapping
from dataclasses import dataclass
from datetime import date, timedelta

from roomsync.core.sync.price_detection import Window

ONE_DAY = timedelta(days=1)

NightSpan = tuple[date, date]
"""Consecutive nights ``first..last``, both included."""


def closure_breaks(first: date, last: date, known: Mapping[int, Iterable[NightSpan]]) -> frozenset[date]:
    """The nights of ``first..last`` at which a window must start: every known run's first night
    and the night after its last (``first`` itself always)."""
    breaks = {first}
    for spans in known.values():
        for run_first, run_last in spans:
            if first < run_first <= last:
                breaks.add(run_first)
            if first <= run_last < last:
                breaks.add(run_last + ONE_DAY)
    return frozenset(breaks)


def check_windows(
    first: date, last: date, known: Mapping[int, Iterable[NightSpan]], window_nights: int
) -> list[Window]:
    """The windows to read: the horizon cut at :func:`closure_breaks`, each piece cut again into
    windows of at most ``window_nights`` nights from its start (as the price detection cuts)."""
    if window_nights < 1:
        raise ValueError(f"window_nights={window_nights!r}: must be 1 or more")
    starts = sorted(closure_breaks(first, last, known))
    windows: list[Window] = []
    for index, start in enumerate(starts):
        end = starts[index + 1] - ONE_DAY if index + 1 < len(starts) else last
        chunk = start
        while chunk <= end:
            chunk_end = min(end, chunk + timedelta(days=window_nights - 1))
            windows.append(Window(chunk, chunk_end))
            chunk = chunk_end + ONE_DAY
    return windows


@dataclass(frozen=True)
class WindowVerdict:
    closed: frozenset[int]
    """Types closed on every night of the window (known closed, still reported closed)."""
    to_locate: frozenset[int]
    """Types reported closed where none was known: their closed nights must be located."""
    lifted: frozenset[int]
    """Types known closed on the window, now reported open."""


def judge_window(
    window: Window,
    reported_closed: Collection[int],
    known_closed: Mapping[int, frozenset[date]],
    room_type_ids: Collection[int],
) -> WindowVerdict:
    """What one read of ``window`` says of each type (see the module's table). ``known_closed``:
    each type's known closed nights; by construction a window is all in or all out of them."""
    closed: set[int] = set()
    to_locate: set[int] = set()
    lifted: set[int] = set()
    for room_type_id in room_type_ids:
        known = window.first_night in known_closed.get(room_type_id, frozenset())
        reported = room_type_id in reported_closed
        if known and reported:
            closed.add(room_type_id)
        elif known:
            lifted.add(room_type_id)
        elif reported:
            to_locate.add(room_type_id)
    return WindowVerdict(frozenset(closed), frozenset(to_locate), frozenset(lifted))
