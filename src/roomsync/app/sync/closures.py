"""Where the PMS is closed: the property from ``closedDates``, room types by splitting windows.

``POST /v1/Availability/RoomType/Combined`` over the horizon (one request) lists the property's
closed runs of nights (``closedDates``) but says of a room type only that it is closed on *some*
night of the window (``isRoomTypeClosed``, 03-conventions). So a type that reports a closure has
its closed nights located by splitting the window in halves, with one ``Combined`` read per half
that is in question, shared by all the types still open (one read answers every type):

* parent closed, left half open  =>  the right half is closed (no read needed);
* parent closed, left half closed  =>  the right half must be read.

Cost: about ``2 * ceil(log2(H))`` reads per closed run of a type (``H`` the horizon's nights),
fewer when runs of several types share windows: 365 nights, one run of 3 nights: 16 to 18 reads.
Located closures are kept in the store (``store.sync_state``: a run of nights per row, replaced
per room type) and reused as long as the horizon read still reports the type closed;
:func:`read_closures` with ``relocate=True`` (reconciliation) locates them again. The cheap runs
that read no closures (the poll, the targeted push) take them from there (:func:`remembered`).
The store is a cache, never the truth: losing it costs requests, not correctness, except that a
room-type closure added or lifted while another closure of the same type stays in the horizon is
only seen at the next ``reconcile`` (which re-locates every closure) or ``resync``.

When the budget runs out while locating, every night still in question counts as closed for the
types still open there: a night not offered until the next sync is better than an oversold one.
"""

from __future__ import annotations

from collections.abc import Awaitable, Callable, Collection, Iterable
from dataclasses import dataclass, field
from datetime import date, timedelta

from roomsync.adapters.client import QuotaExhausted
from roomsync.core.api.pms.availability import RoomTypeAvailability
from roomsync.core.ports import LocatedClosures, NightSpan

ONE_DAY = timedelta(days=1)

CombinedReader = Callable[[date, date], Awaitable[RoomTypeAvailability]]
"""Reads ``Combined`` for the nights ``first..last`` (both included)."""


@dataclass
class Closures:
    property_closed: frozenset[date]
    room_types: dict[int, frozenset[date]]
    reads: int = 0
    """``Combined`` requests spent (the horizon read included)."""
    located: tuple[int, ...] = ()
    """Room types whose closed nights were located by splitting in this run."""
    remembered: tuple[int, ...] = ()
    """Room types whose closed nights came from the store (located by an earlier sync)."""
    notes: list[str] = field(default_factory=list)

    def closed_for(self, room_type_id: int) -> frozenset[date]:
        return self.room_types.get(room_type_id, frozenset())


def nights(first: date, last: date) -> Iterable[date]:
    night = first
    while night <= last:
        yield night
        night += ONE_DAY


def _flags(answer: RoomTypeAvailability) -> dict[int, bool]:
    return {room.room_type_id: bool(room.is_room_type_closed) for room in answer.available_rooms}


def _property_closed(answer: RoomTypeAvailability, first: date, last: date) -> frozenset[date]:
    closed: set[date] = set()
    for run in answer.closed_dates:
        closed.update(nights(max(run.date_from, first), min(run.date_to, last)))
    return frozenset(closed)


def _closed_in(spans: Iterable[NightSpan], first: date, last: date) -> frozenset[date]:
    closed: set[date] = set()
    for run_first, run_last in spans:
        closed.update(nights(max(run_first, first), min(run_last, last)))
    return frozenset(closed)


def remembered_closures(located: LocatedClosures, first: date, last: date) -> dict[int, frozenset[date]]:
    """The located room-type closures, cut to ``first..last``."""
    return {t: _closed_in(spans, first, last) for t, spans in located.room_types.items()}


def remembered(located: LocatedClosures, first: date, last: date) -> Closures:
    """The closures the store holds, as a run that reads none uses them (poll, targeted push)."""
    return Closures(
        property_closed=_closed_in(located.property_wide, first, last),
        room_types=remembered_closures(located, first, last),
    )


def spans_of(closed: Collection[date]) -> tuple[NightSpan, ...]:
    """``closed`` as runs of consecutive nights."""
    runs: list[list[date]] = []
    for night in sorted(closed):
        if runs and runs[-1][1] + ONE_DAY == night:
            runs[-1][1] = night
        else:
            runs.append([night, night])
    return tuple((a, b) for a, b in runs)


async def read_closures(
    read: CombinedReader,
    first: date,
    last: date,
    room_type_ids: Collection[int],
    stored: LocatedClosures,
    *,
    relocate: bool = False,
) -> Closures:
    """Closures of the property and of ``room_type_ids`` over ``first..last`` (see the module doc).

    Raises ``QuotaExhausted`` only when the horizon read itself is refused.
    """
    horizon = await read(first, last)
    reads = 1
    property_closed = _property_closed(horizon, first, last)
    flagged = {t for t, closed in _flags(horizon).items() if closed and t in room_type_ids}
    known = remembered_closures(stored, first, last)
    result: dict[int, frozenset[date]] = {}
    from_store: list[int] = []
    to_locate: set[int] = set()
    for room_type_id in flagged:
        if not relocate and known.get(room_type_id):
            result[room_type_id] = known[room_type_id]
            from_store.append(room_type_id)
        else:
            to_locate.add(room_type_id)
    closures = Closures(property_closed, result, reads, remembered=tuple(sorted(from_store)))
    if to_locate:
        located, spent, cut_short = await _locate(read, first, last, to_locate)
        closures.reads += spent
        closures.room_types.update(located)
        closures.located = tuple(sorted(to_locate))
        if cut_short:
            closures.notes.append(
                "the budget ran out while locating room-type closures: the nights still in question "
                "count as closed until the next sync"
            )
    return closures


async def _locate(
    read: CombinedReader, first: date, last: date, types: set[int]
) -> tuple[dict[int, frozenset[date]], int, bool]:
    """Closed nights of ``types`` (each known closed somewhere in ``first..last``)."""
    closed: dict[int, set[date]] = {t: set() for t in types}
    pending: list[tuple[date, date, frozenset[int]]] = [(first, last, frozenset(types))]
    reads = 0
    cut_short = False
    while pending:
        a, b, open_types = pending.pop()
        if a == b:
            for t in open_types:
                closed[t].add(a)
            continue
        if cut_short:
            for t in open_types:
                closed[t].update(nights(a, b))
            continue
        middle = a + timedelta(days=((b - a).days + 1 + 1) // 2 - 1)
        try:
            left_answer = await read(a, middle)
            reads += 1
            left_flags = _flags(left_answer)
            left_open = frozenset(t for t in open_types if left_flags.get(t, False))
            right_open = open_types - left_open  # closed in the parent, open on the left
            if left_open:
                right_answer = await read(middle + ONE_DAY, b)
                reads += 1
                right_flags = _flags(right_answer)
                right_open = right_open | frozenset(t for t in left_open if right_flags.get(t, False))
        except QuotaExhausted:
            cut_short = True
            pending.append((a, b, open_types))
            continue
        # the right half is pushed first so the nearer left half is settled first
        if right_open:
            pending.append((middle + ONE_DAY, b, right_open))
        if left_open:
            pending.append((a, middle, left_open))
    return {t: frozenset(n) for t, n in closed.items()}, reads, cut_short
