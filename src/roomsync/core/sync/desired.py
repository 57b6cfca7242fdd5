"""What each listing's channel calendar and the connected channels' prices should be.

Why pure functions of PMS facts: the desired state is recomputed from scratch on every sync (never
patched), so it cannot drift, and each rule below is testable with a handful of dates.

Inputs come from the PMS reads (document 02, "Availability"; 03-conventions): free rooms per room
type and night (from the ``POST /v1/Availability/Room`` runs, :func:`free_rooms_per_night`),
room-type and property closures, nightly prices per room type (from ``CombinedExtended``, see
price_detection.py), and this channel's own active reservations.

Rules, per listing and night:

* Single-unit listing: ``available`` when the mapped room type has a free room and neither the
  type nor the property is closed that night, ``unavailable`` otherwise. No count.
* Room-type listing: ``count`` = the type's free rooms + the rooms this channel's own active
  reservations occupy that night. The channel sells at most ``count`` minus its own reservations
  and does not lower ``availableCount`` when it books (03, "Channel inventory"), so pushing only
  the free rooms would shrink the channel's stock twice for its own bookings. Only reservations
  the PMS already holds may be counted: one not yet imported has not reduced the free rooms.
  ``available`` is ``unavailable`` when the type or the property is closed, else ``available``;
  a full night is expressed by the count, not by availability.
* ``dailyPrice`` = the PMS nightly price, plus ``markup_percent`` percent, plus ``fixed_amount``,
  rounded half-up to an integer (half-up because a guest-visible price of x.50 is conventionally
  rounded up, and it does not depend on the parity of the integer part as banker's rounding
  does). A night without a known PMS price gets ``price=None``: the channel keeps its price.
* Restrictions: ``min_nights``/``max_nights`` from the rule (``None`` unsets them on the
  channel), closed to arrival/departure on the rule's weekdays. Weekdays use document 01's
  numbering: 0 = Sunday ... 6 = Saturday.

Connected channels (``POST Prices``): rate type 1 is the PMS nightly price rounded half-up to 2
digits; rate type 2 (non-refundable) is rate 1 less ``discount_percent`` percent, rounded half-up
to 2 digits, and is only produced when a discount is configured.
"""

from __future__ import annotations

from collections.abc import Collection, Iterable, Mapping
from dataclasses import dataclass, field
from datetime import date, timedelta
from decimal import ROUND_HALF_UP, Decimal

from roomsync.core.sync.calendar import Availability, DayState, ListingKind, Restrictions
from roomsync.core.sync.plans import PriceKey, RoomRateType

_CENT = Decimal("0.01")
_UNIT = Decimal(1)
_HUNDRED = Decimal(100)


@dataclass(frozen=True, slots=True)
class NightRun:
    """One run of ``POST /v1/Availability/Room``: nights ``first..last`` (both nights, 03)."""

    first_night: date
    last_night: date
    is_available: bool


@dataclass(frozen=True, slots=True)
class RoomNights:
    """One room availability entry: a room, its type and its runs of nights."""

    room_id: int
    room_type_id: int
    runs: tuple[NightRun, ...]


def free_rooms_per_night(
    rooms: Iterable[RoomNights], first_night: date, last_night: date
) -> dict[int, dict[date, int]]:
    """Free rooms per room type and night (the counts of :func:`free_room_ids_per_night`)."""
    return {
        room_type_id: {night: len(ids) for night, ids in per_night.items()}
        for room_type_id, per_night in free_room_ids_per_night(rooms, first_night, last_night).items()
    }


def free_room_ids_per_night(
    rooms: Iterable[RoomNights], first_night: date, last_night: date
) -> dict[int, dict[date, frozenset[int]]]:
    """The free rooms (their ids) per room type and night of ``first_night..last_night``: a stay
    needs ONE room free on every one of its nights, which counts alone cannot tell.

    Every room type that has a room in ``rooms`` gets every night of the window (empty when none
    is free). A room is free on a night when a run says ``isAvailable=1`` for it and none says 0: a
    night no run covers, or that two runs contradict, counts as not free, because overselling is
    worse than a night not offered until the next sync. A room listed twice has its runs merged.
    """
    if first_night > last_night:
        raise ValueError(f"free_rooms_per_night: first night {first_night} is after last night {last_night}")
    # Stretches of day ordinals, swept night by night with one frozenset per change: a poll
    # reads 365 nights of a few dozen rooms, and a set per night and room cost 10 ms of it
    # (issue 26). Nights with the same free rooms share one frozenset.
    start, end = first_night.toordinal(), last_night.toordinal()
    free_runs: dict[int, list[tuple[int, int]]] = {}
    busy_runs: dict[int, list[tuple[int, int]]] = {}
    type_of: dict[int, int] = {}
    for room in rooms:
        known_type = type_of.setdefault(room.room_id, room.room_type_id)
        if known_type != room.room_type_id:
            raise ValueError(
                f"room {room.room_id} is listed with room types {known_type} and {room.room_type_id}"
            )
        free = free_runs.setdefault(room.room_id, [])
        busy = busy_runs.setdefault(room.room_id, [])
        for run in room.runs:
            if run.first_night > run.last_night:
                raise ValueError(
                    f"room {room.room_id}: run {run.first_night}..{run.last_night} ends before it starts"
                )
            clipped = (max(run.first_night.toordinal(), start), min(run.last_night.toordinal(), end))
            if clipped[0] <= clipped[1]:
                (free if run.is_available else busy).append(clipped)
    changes: dict[int, dict[int, list[tuple[int, bool]]]] = {t: {} for t in set(type_of.values())}
    for room_id, room_type_id in type_of.items():
        at = changes[room_type_id]
        for first, last in _without(_merged(free_runs[room_id]), _merged(busy_runs[room_id])):
            at.setdefault(first, []).append((room_id, True))
            at.setdefault(last + 1, []).append((room_id, False))
    window = [(n, date.fromordinal(n)) for n in range(start, end + 1)]
    found: dict[int, dict[date, frozenset[int]]] = {}
    for room_type_id, at in changes.items():
        current: set[int] = set()
        rooms_now: frozenset[int] = frozenset()
        per_night = found[room_type_id] = {}
        for ordinal, night in window:
            moved = at.get(ordinal)
            if moved:
                for room_id, freed in moved:
                    if freed:
                        current.add(room_id)
                    else:
                        current.discard(room_id)
                rooms_now = frozenset(current)
            per_night[night] = rooms_now
    return found


def _merged(stretches: list[tuple[int, int]]) -> list[tuple[int, int]]:
    """Overlapping or touching stretches of ordinals joined, in order."""
    joined: list[tuple[int, int]] = []
    for first, last in sorted(stretches):
        if joined and first <= joined[-1][1] + 1:
            joined[-1] = (joined[-1][0], max(joined[-1][1], last))
        else:
            joined.append((first, last))
    return joined


def _without(kept: list[tuple[int, int]], taken: list[tuple[int, int]]) -> list[tuple[int, int]]:
    """The ordinals of ``kept`` outside every stretch of ``taken`` (both merged, in order)."""
    left: list[tuple[int, int]] = []
    for first, last in kept:
        for t_first, t_last in taken:
            if t_last < first or t_first > last:
                continue
            if t_first > first:
                left.append((first, t_first - 1))
            first = t_last + 1
            if first > last:
                break
        if first <= last:
            left.append((first, last))
    return left


@dataclass(frozen=True, slots=True)
class PriceRule:
    """From the PMS nightly price to the channel's integer ``dailyPrice``."""

    markup_percent: Decimal = Decimal(0)
    fixed_amount: Decimal = Decimal(0)

    def __post_init__(self) -> None:
        if self.markup_percent <= -_HUNDRED:
            raise ValueError(f"PriceRule.markup_percent={self.markup_percent}: must be more than -100")

    def daily_price(self, nightly_price: Decimal) -> int:
        """``nightly * (1 + markup/100) + fixed``, rounded half-up to an integer."""
        raw = nightly_price * (_HUNDRED + self.markup_percent) / _HUNDRED + self.fixed_amount
        price = int(raw.quantize(_UNIT, rounding=ROUND_HALF_UP))
        if price < 0:
            raise ValueError(
                f"PriceRule: nightly price {nightly_price} gives dailyPrice {price}, which is negative"
            )
        return price


@dataclass(frozen=True, slots=True)
class RestrictionRule:
    """The restrictions every night gets. Weekdays: 0 = Sunday ... 6 = Saturday (document 01)."""

    min_nights: int | None = None
    max_nights: int | None = None
    closed_to_arrival_weekdays: frozenset[int] = frozenset()
    closed_to_departure_weekdays: frozenset[int] = frozenset()

    def __post_init__(self) -> None:
        for name in ("min_nights", "max_nights"):
            nights = getattr(self, name)
            if nights is not None and nights < 1:
                raise ValueError(f"RestrictionRule.{name}={nights!r}: must be 1 or more")
        if self.min_nights is not None and self.max_nights is not None and self.min_nights > self.max_nights:
            raise ValueError(
                f"RestrictionRule: min_nights {self.min_nights} is more than max_nights {self.max_nights}"
            )
        for name in ("closed_to_arrival_weekdays", "closed_to_departure_weekdays"):
            bad = sorted(day for day in getattr(self, name) if day not in range(7))
            if bad:
                raise ValueError(f"RestrictionRule.{name}={bad}: weekdays are 0 (Sunday) to 6 (Saturday)")

    def for_night(self, night: date) -> Restrictions:
        weekday = api_weekday(night)
        return Restrictions(
            self.min_nights,
            self.max_nights,
            weekday in self.closed_to_arrival_weekdays,
            weekday in self.closed_to_departure_weekdays,
        )


def api_weekday(day: date) -> int:
    """Document 01's day of week: 0 = Sunday ... 6 = Saturday (Python's Monday=0 shifted)."""
    return (day.weekday() + 1) % 7


@dataclass(frozen=True)
class RoomTypeNights:
    """The PMS facts about one room type, per night."""

    free_rooms: Mapping[date, int]
    """Free rooms per night (absent night: 0)."""
    closed: Collection[date] = frozenset()
    """Nights the room type is closed."""
    nightly_prices: Mapping[date, Decimal] = field(default_factory=dict)
    """The PMS price of one unit for the night (absent: not known)."""


def desired_calendar(
    kind: ListingKind,
    nights: Iterable[date],
    room_type: RoomTypeNights,
    *,
    property_closed: Collection[date] = frozenset(),
    own_reserved_rooms: Mapping[date, int] | None = None,
    price_rule: PriceRule | None = None,
    restrictions: RestrictionRule | None = None,
) -> dict[date, DayState]:
    """The desired channel calendar of one listing over ``nights`` (see the module docstring)."""
    own = own_reserved_rooms or {}
    price_rule = price_rule or PriceRule()
    restrictions = restrictions or RestrictionRule()
    calendar: dict[date, DayState] = {}
    for night in nights:
        free = room_type.free_rooms.get(night, 0)
        closed = night in room_type.closed or night in property_closed
        nightly = room_type.nightly_prices.get(night)
        price = price_rule.daily_price(nightly) if nightly is not None else None
        rule = restrictions.for_night(night)
        if kind is ListingKind.SINGLE:
            available = Availability.AVAILABLE if free > 0 and not closed else Availability.UNAVAILABLE
            count = None
        else:
            available = Availability.UNAVAILABLE if closed else Availability.AVAILABLE
            count = free + own.get(night, 0)
        calendar[night] = DayState(available, count, price, *rule)
    return calendar


def desired_connected_prices(
    nightly_prices: Mapping[int, Mapping[date, Decimal]],
    nights: Iterable[date],
    *,
    discount_percent: Decimal | None = None,
) -> dict[PriceKey, Decimal]:
    """Desired ``POST Prices`` prices per (room type, rate type, night) of ``nights``.

    Nights without a known PMS price are left out (nothing is pushed for them). Rate type 2 is
    produced only when ``discount_percent`` is given (0 <= discount < 100).
    """
    if discount_percent is not None and not Decimal(0) <= discount_percent < _HUNDRED:
        raise ValueError(f"discount_percent={discount_percent}: must be from 0 up to (not including) 100")
    wanted = list(nights)
    prices: dict[PriceKey, Decimal] = {}
    for room_type_id, per_night in nightly_prices.items():
        for night in wanted:
            nightly = per_night.get(night)
            if nightly is None:
                continue
            standard = nightly.quantize(_CENT, rounding=ROUND_HALF_UP)
            prices[PriceKey(room_type_id, RoomRateType.STANDARD, night)] = standard
            if discount_percent is not None:
                reduced = standard * (_HUNDRED - discount_percent) / _HUNDRED
                prices[PriceKey(room_type_id, RoomRateType.NON_REFUNDABLE, night)] = reduced.quantize(
                    _CENT, rounding=ROUND_HALF_UP
                )
    return prices


def horizon(first_night: date, days: int) -> tuple[date, ...]:
    """The ``days`` nights starting at ``first_night`` (the sync horizon)."""
    if days < 1:
        raise ValueError(f"horizon days={days!r}: must be 1 or more")
    return tuple(stay_nights(first_night, days))


def stay_nights(first_night: date, nights: int) -> list[date]:
    """The nights of a stay: ``first_night`` and the ``nights - 1`` after it (none for ``nights < 1``)."""
    return [first_night + timedelta(days=offset) for offset in range(nights)]


def nights_through(first_night: date, last_night: date) -> list[date]:
    """The nights ``first_night..last_night``, both included (none when the last is before the first)."""
    return stay_nights(first_night, (last_night - first_night).days + 1)


def spans_of(nights: Collection[date]) -> tuple[tuple[date, date], ...]:
    """``nights`` as runs of consecutive nights, (first, last) each, both ends included."""
    runs: list[list[date]] = []
    for night in sorted(nights):
        if runs and runs[-1][1] + timedelta(days=1) == night:
            runs[-1][1] = night
        else:
            runs.append([night, night])
    return tuple((a, b) for a, b in runs)
