"""Where the PMS is closed: the property from ``closedDates``, room types by window flags.

``CombinedExtended`` (and ``Combined``) list the property's closed runs of nights
(``closedDates``) but say of a room type only that it is closed on *some* night of the window
(``isRoomTypeClosed``, 03-conventions). So:

* the CHECK reads the windows of :func:`roomsync.core.sync.closure_windows.check_windows`: the
  horizon cut at the edges of every closure known before (one window when none is), with
  ``CombinedExtended`` so the same answers settle the price detection's window totals. Per window
  and type the answer says open, still closed, lifted, or closed anew
  (:func:`~roomsync.core.sync.closure_windows.judge_window`);
* a type closed anew in a window has its closed nights LOCATED with ``Combined`` reads shared
  by all the types whose answers agree (:func:`_locate`): the first closed night by halving the
  nights still in question (left half closed: it is there; open: on the right, no read needed),
  then the run walked one night per read (a read says "closed on some night", never "on every
  night": only a one-night read shows a night closed), then one read of the nights after the run
  (open: done; closed: the next run's first night by halving again).

Cost: one read per check window (``1 + 2k`` for ``k`` known closed runs), plus about
``log2(W) + n + 2`` reads per new closed run of ``n`` nights in a window of ``W`` nights (60
nights, a run of 3: 10 reads, where halving both halves down to single nights cost 13, and 15-18
in the week bench). Located closures are kept in the store (``store.sync_state``: a run of nights
per row, replaced per room type); :func:`read_closures` with ``relocate=True``
(reconciliation) also locates again, within its own window, every known run still reported
closed, which finds the one blind spot of the check: a closure lifted on only some nights of a
known closed run (about ``log2(n) + n`` reads for a run of ``n`` nights, where forgetting every
closure and locating them across the horizon cost ``log2(W) + n + 2`` per run). The
cheap runs that read no closures (the poll, the targeted push) take them from the store (:func:`remembered`).
The store is a cache, never the truth: losing it costs requests, not correctness.

When the budget runs out while locating, every night still in question counts as closed for the
types still open there: a night not offered until the next sync is better than an oversold one.
"""

from __future__ import annotations

import asyncio
from collections.abc import Awaitable, Callable, Collection, Iterable
from dataclasses import dataclass, field, replace
from datetime import date, timedelta
from typing import Literal

from roomsync.adapters.client import QuotaExhausted
from roomsync.core.activity import edits_in
from roomsync.core.api.pms.availability import RoomTypeAvailability, RoomTypeAvailabilityExtended
from roomsync.core.ports import LocatedClosures, NightSpan
from roomsync.core.sync.closure_windows import check_windows, judge_window
from roomsync.core.sync.desired import spans_of
from roomsync.core.sync.price_detection import Window

ONE_DAY = timedelta(days=1)

CombinedReader = Callable[[date, date], Awaitable[RoomTypeAvailability]]
"""Reads ``Combined`` for the nights ``first..last`` (both included)."""

CheckReader = Callable[[Window], Awaitable[RoomTypeAvailabilityExtended]]
"""Reads ``CombinedExtended`` for one window of nights."""

WindowAnswers = dict[Window, RoomTypeAvailabilityExtended]
"""The check's answers, handed to the price detection (its window totals cost nothing more)."""


@dataclass
class Closures:
    property_closed: frozenset[date]
    room_types: dict[int, frozenset[date]]
    reads: int = 0
    """``Combined`` requests spent (the horizon read included)."""
    located: tuple[int, ...] = ()
    """Room types whose closed nights were located by splitting in this run."""
    lifted: tuple[int, ...] = ()
    """Room types a known closure of which the check found lifted."""
    remembered: tuple[int, ...] = ()
    """Room types whose closed nights came from the store (located by an earlier sync)."""
    notes: list[str] = field(default_factory=list)
    runs: dict[int, tuple[NightSpan, ...]] = field(default_factory=dict)
    """Each room type's closed nights as the runs they were found in (:meth:`runs_of`)."""

    def closed_for(self, room_type_id: int) -> frozenset[date]:
        return self.room_types.get(room_type_id, frozenset())

    def runs_of(self, room_type_id: int) -> tuple[NightSpan, ...]:
        """The type's closed nights as runs to keep and check apart: two closures located apart
        stay two runs even where they touch, so the check reads each in its own window and sees
        one of them lifted (merged into one run, a reopening of either looked like nothing
        until a relocation: the check's blind spot). A type without recorded runs: the runs of
        its consecutive nights."""
        return self.runs.get(room_type_id) or spans_of(self.closed_for(room_type_id))


def nights(first: date, last: date) -> Iterable[date]:
    night = first
    while night <= last:
        yield night
        night += ONE_DAY


def _flags(answer: RoomTypeAvailability | RoomTypeAvailabilityExtended) -> dict[int, bool]:
    return {room.room_type_id: bool(room.is_room_type_closed) for room in answer.available_rooms}


def _property_closed(
    answer: RoomTypeAvailability | RoomTypeAvailabilityExtended, first: date, last: date
) -> frozenset[date]:
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


def runs_within(spans: Iterable[NightSpan], first: date, last: date) -> tuple[NightSpan, ...]:
    """The parts of ``spans`` within ``first..last``, each run kept apart."""
    return tuple((max(a, first), min(b, last)) for a, b in spans if a <= last and b >= first)


def remembered_runs(located: LocatedClosures, first: date, last: date) -> dict[int, tuple[NightSpan, ...]]:
    """The located room-type runs, cut to ``first..last`` (types with none there left out)."""
    runs = {t: runs_within(spans, first, last) for t, spans in located.room_types.items()}
    return {t: spans for t, spans in runs.items() if spans}


def remembered(located: LocatedClosures, first: date, last: date) -> Closures:
    """The closures the store holds, as a run that reads none uses them (poll, targeted push)."""
    return Closures(
        property_closed=_closed_in(located.property_wide, first, last),
        room_types=remembered_closures(located, first, last),
        runs=remembered_runs(located, first, last),
    )


def with_nights_replaced(
    known: Closures, checked: Closures, first: date, last: date, checked_types: Collection[int]
) -> Closures:
    """``known`` with the nights ``first..last`` of the property and of ``checked_types`` taken
    from ``checked`` (a check of those nights); other types keep what was known."""

    def merge(before: frozenset[date], fresh: frozenset[date]) -> frozenset[date]:
        return frozenset(n for n in before if not first <= n <= last) | frozenset(
            n for n in fresh if first <= n <= last
        )

    def merge_runs(before: Iterable[NightSpan], fresh: Iterable[NightSpan]) -> tuple[NightSpan, ...]:
        outside = [(a, min(b, first - ONE_DAY)) for a, b in before if a < first]
        outside += [(max(a, last + ONE_DAY), b) for a, b in before if b > last]
        return tuple(sorted([*outside, *runs_within(fresh, first, last)]))

    types = set(known.room_types) | set(checked.room_types)
    merged = {
        t: merge(known.closed_for(t), checked.closed_for(t)) if t in checked_types else known.closed_for(t)
        for t in types
    }
    runs = {
        t: merge_runs(known.runs_of(t), checked.runs_of(t)) if t in checked_types else known.runs_of(t)
        for t in types
    }
    return replace(
        checked,
        property_closed=merge(known.property_closed, checked.property_closed),
        room_types={t: nights_closed for t, nights_closed in merged.items() if nights_closed},
        runs={t: spans for t, spans in runs.items() if spans},
    )


def changed_room_types(before: Closures, after: Closures, room_type_ids: Iterable[int]) -> tuple[int, ...]:
    """The room types whose closed nights differ between ``before`` and ``after``."""
    return tuple(sorted(t for t in room_type_ids if before.closed_for(t) != after.closed_for(t)))


def closure_edits(before: Closures, after: Closures, room_type_ids: Iterable[int]) -> int:
    """The front-desk edits between ``before`` and ``after``: runs of consecutive nights of a room
    type (or of the whole property) that were closed and are open, or the other way round."""
    flipped = [(t, n) for t in room_type_ids for n in before.closed_for(t) ^ after.closed_for(t)]
    return edits_in(flipped) + len(spans_of(before.property_closed ^ after.property_closed))


async def read_closures(
    check: CheckReader,
    locate: CombinedReader,
    first: date,
    last: date,
    room_type_ids: Collection[int],
    stored: LocatedClosures,
    *,
    relocate: bool = False,
    window_nights: int,
    concurrency: int = 4,
) -> tuple[Closures, WindowAnswers]:
    """Closures of the property and of ``room_type_ids`` over ``first..last`` (see the module
    doc), and the check's answers per window.

    A check window the budget refused keeps what the store knew of it; ``QuotaExhausted`` is
    raised only when no check window could be read."""
    types = set(room_type_ids)
    remembered_nights = remembered_closures(stored, first, last)
    known_nights = {t: nights_closed for t, nights_closed in remembered_nights.items() if t in types}
    known_spans = {t: spans for t, spans in remembered_runs(stored, first, last).items() if t in types}
    windows = check_windows(first, last, known_spans, window_nights)
    answers, refusal = await _read_all(check, windows, concurrency)
    if refusal is not None and not answers:
        raise refusal
    before = remembered(stored, first, last)
    property_closed: set[date] = set()
    closed: dict[int, set[date]] = {t: set() for t in types}
    runs: dict[int, list[NightSpan]] = {t: [] for t in types}
    lifted: set[int] = set()
    to_locate: list[tuple[Window, frozenset[int]]] = []
    notes: list[str] = []
    verdicts = {
        window: judge_window(window, {t for t, flag in _flags(answer).items() if flag}, known_nights, types)
        for window, answer in answers.items()
    }
    new_by_first_night = {w.first_night: v.to_locate for w, v in verdicts.items()}
    new_by_last_night = {w.last_night: v.to_locate for w, v in verdicts.items()}
    for window in windows:
        answer = answers.get(window)
        if answer is None:  # refused: what the store knew of these nights stands
            property_closed.update(n for n in window.each_night() if n in before.property_closed)
            for t in types:
                closed[t].update(n for n in window.each_night() if n in known_nights.get(t, frozenset()))
                runs[t].extend(runs_within(known_spans.get(t, ()), window.first_night, window.last_night))
            continue
        property_closed.update(_property_closed(answer, window.first_night, window.last_night))
        verdict = verdicts[window]
        # relocating: a known run still reported closed may be closed on only some of its nights;
        # so may one touched by a new closure of its type (the desk may have reopened the run
        # and closed across its edge again: the run still reads closed)
        touching = new_by_last_night.get(window.first_night - ONE_DAY, frozenset()) | new_by_first_night.get(
            window.last_night + ONE_DAY, frozenset()
        )
        again = verdict.closed if relocate else verdict.closed & touching
        for t in verdict.closed - again:
            closed[t].update(window.each_night())
            runs[t].append((window.first_night, window.last_night))
        lifted.update(verdict.lifted)
        locate_here = verdict.to_locate | again
        if locate_here:
            to_locate.append((window, locate_here))
    if len(answers) < len(windows):
        notes.append(
            f"{len(windows) - len(answers)} of {len(windows)} closure checks were refused (budget): "
            "their nights keep the closures known before"
        )
    reads = len(answers)
    cut_short = False
    for window, window_types in to_locate:
        found, spent, short = await _locate(locate, window.first_night, window.last_night, set(window_types))
        reads += spent
        cut_short = cut_short or short
        for t, nights_closed in found.items():
            closed[t].update(nights_closed)
            runs[t].extend(spans_of(nights_closed))  # found within one window: apart from its neighbours
    if cut_short:
        notes.append(
            "the budget ran out while locating room-type closures: the nights still in question "
            "count as closed until the next sync"
        )
    located = sorted({t for _, window_types in to_locate for t in window_types})
    closures = Closures(
        property_closed=frozenset(property_closed),
        room_types={t: frozenset(n) for t, n in closed.items() if n},
        reads=reads,
        located=tuple(located),
        lifted=tuple(sorted(lifted)),
        remembered=tuple(sorted(t for t in known_spans if t not in lifted and t not in located)),
        notes=notes,
        runs={t: tuple(sorted(spans)) for t, spans in runs.items() if spans},
    )
    return closures, answers


async def _read_all(
    check: CheckReader, windows: list[Window], concurrency: int
) -> tuple[WindowAnswers, QuotaExhausted | None]:
    """Every window the budget allows, nearest first, a few at a time, and the budget's refusal
    if one stopped it (a read that fails for good fails the run: closures must not be guessed)."""
    answers: WindowAnswers = {}
    refusal: QuotaExhausted | None = None
    step = max(1, concurrency)
    for start in range(0, len(windows), step):
        batch = windows[start : start + step]
        results = await asyncio.gather(*(check(window) for window in batch), return_exceptions=True)
        for window, result in zip(batch, results, strict=True):
            if isinstance(result, QuotaExhausted):
                refusal = refusal or result
            elif isinstance(result, BaseException):
                raise result
            else:
                answers[window] = result
        if refusal is not None:
            break
    return answers, refusal


@dataclass(frozen=True)
class _Question:
    """What locating still asks of ``types`` in a window ending on its ``last`` night:

    * ``first``: each type's first closed night not yet found is in ``a..b`` (and ``a..b`` holds
      one), found by halving the prefix: the left half closed, it is there, else on the right;
    * ``walk``: night ``a - 1`` is closed; is ``a``? (one single-night read: a closed run is walked
      night by night, since "closed on some night" cannot say "closed on every night");
    * ``rest``: is any night of ``a..b`` (``b`` the window's last) closed (night ``a - 1`` is open)?
    """

    kind: Literal["first", "walk", "rest"]
    a: date
    b: date
    types: frozenset[int]

    def read_span(self) -> tuple[date, date]:
        if self.kind == "first":
            left, _ = Window(self.a, self.b).halves()
            return left.first_night, left.last_night
        if self.kind == "walk":
            return self.a, self.a
        return self.a, self.b

    def in_question(self, last: date) -> Iterable[date]:
        """The nights counted closed when the budget stops the locating here: all from ``a`` to
        the window's ``last`` (a ``first`` question's types have the nights after ``b`` still to
        walk or read)."""
        return nights(self.a, last)

    def answered(self, closed_types: frozenset[int]) -> tuple[list[_Question], frozenset[int]]:
        """The questions the answer to :meth:`read_span` leaves (the nearer last), and the types
        now known closed on night ``a`` (a walk's). A walk's and a rest's ``b`` is the window's last
        night."""
        yes, no = closed_types & self.types, self.types - closed_types
        after: list[_Question] = []
        if self.kind == "first":
            _, middle = self.read_span()
            if no:
                after.append(_Question("first", middle + ONE_DAY, self.b, no))
            if yes:
                after.append(_Question("first", self.a, middle, yes))
            return after, frozenset()
        if self.kind == "walk":
            if no and self.a < self.b:
                after.append(_Question("rest", self.a + ONE_DAY, self.b, no))
            if yes and self.a < self.b:
                after.append(_Question("walk", self.a + ONE_DAY, self.b, yes))
            return after, yes
        if yes:
            after.append(_Question("first", self.a, self.b, yes))
        return after, frozenset()


async def _locate(
    read: CombinedReader, first: date, last: date, types: set[int]
) -> tuple[dict[int, frozenset[date]], int, bool]:
    """Closed nights of ``types`` (each known closed somewhere in ``first..last``): per closed run,
    its first night by halving (about ``log2`` of the nights before it, from ``first``), then the
    run walked a night at a time, then one read of the nights after it (open: done). A run of
    ``n`` nights in a window of ``W`` costs about ``log2(W) + n + 2`` reads; the halving of both
    halves that this replaced cost ``2 log2(W)`` plus about ``2 n`` (the week bench's first day
    paid 15-18 reads per closure of 1-3 nights). Reads are shared by the types whose answers
    agree."""
    closed: dict[int, set[date]] = {t: set() for t in types}
    pending = [_Question("first", first, last, frozenset(types))]
    reads = 0
    cut_short = False
    while pending:
        question = pending.pop()
        if question.kind == "first" and question.a == question.b:  # the only night left: closed
            for t in question.types:
                closed[t].add(question.a)
            if question.a < last:
                pending.append(_Question("walk", question.a + ONE_DAY, last, question.types))
            continue
        if cut_short:
            for t in question.types:
                closed[t].update(question.in_question(last))
            continue
        try:
            answer = await read(*question.read_span())
        except QuotaExhausted:
            cut_short = True
            pending.append(question)
            continue
        reads += 1
        flags = _flags(answer)
        after, closed_here = question.answered(frozenset(t for t, flag in flags.items() if flag))
        for t in closed_here:
            closed[t].add(question.a)
        pending.extend(after)
    return {t: frozenset(n) for t, n in closed.items()}, reads, cut_short
