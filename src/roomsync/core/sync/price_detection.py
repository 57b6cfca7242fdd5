"""Find the PMS nightly prices that changed, reading as few windows as the quota allows.

Why: the PMS has no "nightly price" read. ``POST /v1/Availability/RoomType/CombinedExtended``
answers, for a window of nights, the *total* price of the stay for one unit of every room type
(03-conventions); a one-night window gives that night's price. Reading a year night by night costs
365 requests, a quarter of a paid property's day. But prices rarely change, so one read of a long
window, compared with the sum of the cached nightly prices, tells whether anything in it changed.

How (a pure planner; the caller does the reads):

* The horizon is cut into *segments*: maximal runs of nights whose price is cached for every room
  type, at most ``window_nights`` long, read as one window each. A night not cached for some
  type is read on its own: a tree over it would cost more reads than the night itself.
* A window read is *settled* for a room type when its total equals the sum of the cached nights.
  Otherwise (different total, a night not cached, or no total at all) the window is *open* for
  that type and is split into halves (the left half takes the extra night), down to single nights,
  whose totals are the fresh nightly prices.
* Sibling derivation: after the left half of an open window is read, the right half's total is
  the parent's total minus the left's, so it costs no read. Only when a total is missing (the PMS
  gave no price for a type) is the right half read as well. Set ``derive_siblings=False`` for a
  PMS whose window total is not the sum of its nights (length-of-stay pricing): derivation would
  then compute wrong prices. For the same reason the reads must not ask for a ``currencyCode`` or
  ``promoCode``: a converted or discounted total is rounded to cents once for the whole window,
  so it is not the sum of the nights' rounded prices.
* Nearest dates first: :func:`next_reads` lists the windows to read in date order; children start
  no earlier than their parent, so a caller that always reads the first listed window reads in
  non-decreasing date order and the nights closest to today are settled first if the budget runs
  out.

The blind spot, by design: changes that cancel inside a read window (Friday +10 and Saturday -10)
leave the total unchanged and go unseen. A caller can vary ``window_nights`` or the first night of
the segments between syncs (a change must then cancel in every partition to stay hidden), and
reconcile slowly with single-night reads.

Cost (docs/cost-model.md): with every total present, a plan reads at most
``singles + S + sum(min(S * 2**level, c) for level in range(ceil(log2(window_nights))))`` windows,
never more than the horizon's nights, where ``S`` is the number of segments, ``singles`` the
uncached nights and ``c`` the cached nights whose price changed for some room type.
:func:`read_bound` computes it for a plan.
"""

from __future__ import annotations

import math
from collections.abc import Collection, Mapping
from dataclasses import dataclass, replace
from datetime import date, timedelta
from decimal import Decimal

PriceCache = Mapping[tuple[int, date], Decimal]
"""Nightly price per ``(room type id, night)``."""

Totals = Mapping[int, Decimal | None]
"""A window read: total price per room type id (``None`` or absent: the PMS gave none)."""

DEFAULT_WINDOW_NIGHTS = 365
_ONE_DAY = timedelta(days=1)


@dataclass(frozen=True, slots=True, order=True)
class Window:
    """The nights ``first_night..last_night`` (both included) of one ``CombinedExtended`` read."""

    first_night: date
    last_night: date

    def __post_init__(self) -> None:
        if self.first_night > self.last_night:
            raise ValueError(f"Window: first night {self.first_night} is after last night {self.last_night}")

    @property
    def nights(self) -> int:
        return (self.last_night - self.first_night).days + 1

    @property
    def date_from(self) -> date:
        """``dateFrom`` of the read: the first night."""
        return self.first_night

    @property
    def date_to(self) -> date:
        """``dateTo`` of the read: the departure day, the day after the last night (03)."""
        return self.last_night + _ONE_DAY

    def each_night(self) -> tuple[date, ...]:
        return tuple(self.first_night + timedelta(days=offset) for offset in range(self.nights))

    def halves(self) -> tuple[Window, Window]:
        """The left half (taking the middle night when the count is odd) and the right half."""
        left_nights = (self.nights + 1) // 2
        split = self.first_night + timedelta(days=left_nights)
        return Window(self.first_night, split - _ONE_DAY), Window(split, self.last_night)


@dataclass(frozen=True, slots=True)
class _Task:
    window: Window
    open_types: frozenset[int]
    """Room types whose prices in the window are still in question."""


@dataclass(frozen=True)
class DetectionState:
    """Where a detection stands. Never mutated: :func:`record` returns a new state."""

    room_type_ids: frozenset[int]
    cached: PriceCache
    derive_siblings: bool
    to_read: tuple[_Task, ...]
    """Windows to read, in date order."""
    siblings: Mapping[Window, tuple[_Task, Totals]]
    """Right halves waiting for their left sibling's read: left window -> (task, parent totals)."""
    learned: Mapping[tuple[int, date], Decimal | None]
    """Fresh single-night prices found so far (``None``: the PMS gave no price)."""
    reads: int
    segment_nights: tuple[int, ...]
    """Nights of each segment of the initial plan (for :func:`read_bound`)."""
    single_nights: int
    """Uncached nights the initial plan reads one by one."""
    window_nights: int

    @property
    def done(self) -> bool:
        return not self.to_read


@dataclass(frozen=True)
class Detection:
    """The result of a detection (complete or cut short by the budget)."""

    learned: dict[tuple[int, date], Decimal | None]
    changed: dict[tuple[int, date], Decimal | None]
    """Learned nights whose price differs from the cache (newly priced or unpriced included)."""
    complete: bool
    reads: int
    unresolved: tuple[Window, ...]
    """Windows still to read; their nights keep the cached prices."""


def plan_detection(
    room_type_ids: Collection[int],
    first_night: date,
    last_night: date,
    cached: PriceCache,
    *,
    window_nights: int = DEFAULT_WINDOW_NIGHTS,
    derive_siblings: bool = True,
    breaks: Collection[date] = (),
) -> DetectionState:
    """The initial plan for the nights ``first_night..last_night`` (see the module docstring).

    No segment spans a night of ``breaks`` and the night before it: the closure check's windows
    (:mod:`.closure_windows`) start there, and a segment that is one of them is settled by the
    closure check's read of it, at no extra cost."""
    if window_nights < 1:
        raise ValueError(f"window_nights={window_nights!r}: must be 1 or more")
    horizon = Window(first_night, last_night)
    types = frozenset(room_type_ids)
    tasks: list[_Task] = []
    segments: list[int] = []
    singles = 0
    run_start: date | None = None

    def close_segment(end: date) -> None:
        assert run_start is not None
        for start in _chunk_starts(run_start, end, window_nights):
            window = Window(start, min(end, start + timedelta(days=window_nights - 1)))
            tasks.append(_Task(window, types))
            segments.append(window.nights)

    starts = frozenset(breaks)
    for night in horizon.each_night() if types else ():
        if run_start is not None and night in starts:
            close_segment(night - _ONE_DAY)
            run_start = None
        if all((room_type_id, night) in cached for room_type_id in types):
            run_start = run_start or night
            continue
        if run_start is not None:
            close_segment(night - _ONE_DAY)
            run_start = None
        tasks.append(_Task(Window(night, night), types))
        singles += 1
    if run_start is not None:
        close_segment(last_night)
    return DetectionState(
        room_type_ids=types,
        cached=dict(cached),  # a copy: the caller may update its cache while the plan runs
        derive_siblings=derive_siblings,
        to_read=tuple(sorted(tasks, key=lambda task: task.window)),
        siblings={},
        learned={},
        reads=0,
        segment_nights=tuple(segments),
        single_nights=singles,
        window_nights=window_nights,
    )


def cold_plan(room_type_ids: Collection[int], first_night: date, last_night: date) -> DetectionState:
    """The plan with nothing cached: every night read on its own, one read per night.

    Reading longer windows first would cost the same number of reads (each split needs one) and
    rely on window totals being sums, so the cold plan does not.
    """
    return plan_detection(room_type_ids, first_night, last_night, {})


def next_reads(state: DetectionState) -> list[Window]:
    """The windows that can be read now, nearest first. Empty when the detection is complete."""
    return [task.window for task in state.to_read]


def record(state: DetectionState, window: Window, totals: Totals) -> DetectionState:
    """The state after reading ``window`` and getting ``totals`` (per room type id)."""
    position = next((i for i, task in enumerate(state.to_read) if task.window == window), None)
    if position is None:
        raise ValueError(f"window {window.first_night}..{window.last_night} is not planned for reading")
    task = state.to_read[position]
    to_read = [*state.to_read[:position], *state.to_read[position + 1 :]]
    siblings = dict(state.siblings)
    learned = dict(state.learned)
    _resolve(state, task, totals, to_read, siblings, learned)
    waiting = siblings.pop(window, None)
    if waiting is not None:
        right, parent_totals = waiting
        derived = _derive(right.open_types, parent_totals, totals)
        if derived is None:
            to_read.append(right)
        else:
            _resolve(state, right, derived, to_read, siblings, learned)
    return replace(
        state,
        to_read=tuple(sorted(to_read, key=lambda pending: pending.window)),
        siblings=siblings,
        learned=learned,
        reads=state.reads + 1,
    )


def outcome(state: DetectionState) -> Detection:
    learned = dict(state.learned)
    return Detection(
        learned=learned,
        changed={key: price for key, price in learned.items() if state.cached.get(key) != price},
        complete=state.done,
        reads=state.reads,
        unresolved=tuple(next_reads(state)),
    )


def updated_cache(state: DetectionState) -> dict[tuple[int, date], Decimal]:
    """The cache with the learned prices applied (a night the PMS gave no price for is dropped)."""
    cache = dict(state.cached)
    for key, price in state.learned.items():
        if price is None:
            cache.pop(key, None)
        else:
            cache[key] = price
    return cache


def read_bound(state: DetectionState, changed_nights: int) -> int:
    """Most reads the plan ``state`` started from can take when ``changed_nights`` cached nights
    changed for some room type and the PMS gives every total (otherwise use a plan with
    ``derive_siblings=False``, whose bound is the same formula with each split costing two reads).
    """
    segments = len(state.segment_nights)
    if segments == 0:
        return state.single_nights
    depth = math.ceil(math.log2(max(state.segment_nights)))
    open_splits = sum(min(segments * 2**level, changed_nights) for level in range(depth))
    per_split = 1 if state.derive_siblings else 2
    most_splits = sum(nights - 1 for nights in state.segment_nights)
    return state.single_nights + segments + per_split * min(open_splits, most_splits)


def _resolve(
    state: DetectionState,
    task: _Task,
    totals: Totals,
    to_read: list[_Task],
    siblings: dict[Window, tuple[_Task, Totals]],
    learned: dict[tuple[int, date], Decimal | None],
) -> None:
    """Settle ``task``'s window with ``totals``; queue its halves for the types still open."""
    window = task.window
    if window.nights == 1:
        for room_type_id in task.open_types:
            learned[(room_type_id, window.first_night)] = totals.get(room_type_id)
        return
    still_open = frozenset(
        room_type_id
        for room_type_id in task.open_types
        if (total := totals.get(room_type_id)) is None
        or _cached_sum(state.cached, room_type_id, window) != total
    )
    if not still_open:
        return
    left, right = window.halves()
    to_read.append(_Task(left, still_open))
    if state.derive_siblings:
        siblings[left] = (_Task(right, still_open), totals)
    else:
        to_read.append(_Task(right, still_open))


def _derive(open_types: frozenset[int], parent: Totals, left: Totals) -> dict[int, Decimal | None] | None:
    """The right half's totals (parent minus left), or None when a total needed is missing."""
    derived: dict[int, Decimal | None] = {}
    for room_type_id in open_types:
        parent_total, left_total = parent.get(room_type_id), left.get(room_type_id)
        if parent_total is None or left_total is None:
            return None
        derived[room_type_id] = parent_total - left_total
    return derived


def _cached_sum(cached: PriceCache, room_type_id: int, window: Window) -> Decimal | None:
    total = Decimal(0)
    for night in window.each_night():
        price = cached.get((room_type_id, night))
        if price is None:
            return None
        total += price
    return total


def _chunk_starts(first: date, last: date, size: int) -> list[date]:
    starts = []
    start = first
    while start <= last:
        starts.append(start)
        start += timedelta(days=size)
    return starts
