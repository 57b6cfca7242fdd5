"""Availability derived from rooms, reservations and closures (03-conventions).

Pure functions over records: nothing here is stored, so availability can never disagree with
the reservations it comes from.

* A room is free on a night when it is enabled and no reservation holds it that night
  (``Reservation.held_nights``: cancelled and no-show reservations hold nothing).
* ``/v1/Availability/Room`` is a calendar of nights: both window ends are nights, and so are the
  ``from``/``to`` of each run. ``groupDates=1`` gives runs of nights with the same
  ``isAvailable``; ``groupDates=0`` one run per night.
* ``Combined``/``CombinedExtended`` take a stay window: ``dateFrom`` the first night, ``dateTo`` the
  departure day. ``available`` is, per room type, the smallest number of free rooms over the
  window's nights; closures do not change it, they raise ``isRoomTypeClosed``/``isPropertyClosed``
  when the type/property is closed on any night of the window.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping, Sequence, Set
from dataclasses import dataclass
from datetime import date, timedelta

from roomsync.emulator.pms.records import Reservation, Room

_DAY = timedelta(days=1)


@dataclass(frozen=True)
class NightRun:
    """Consecutive nights ``first``..``last`` (both nights) sharing one ``is_available``."""

    first: date
    last: date
    is_available: int


@dataclass
class RoomCalendar:
    room_id: int
    room_type_id: int
    runs: list[NightRun]


@dataclass
class RoomTypeAvailability:
    room_type_id: int
    available: int
    is_room_type_closed: int
    is_property_closed: int


@dataclass
class CombinedAvailability:
    available_rooms: list[RoomTypeAvailability]
    closed_dates: list[tuple[date, date]]
    """The property's closed runs of nights within the window, ``(first, last)``, both nights."""
    sold_out_dates: list[tuple[date, date]]
    """Runs of nights of the window on which no room of any type is free, both ends nights."""


def runs_of_nights(nights: Iterable[date]) -> list[tuple[date, date]]:
    """Sorted runs of consecutive nights, each ``(first, last)``."""
    runs: list[tuple[date, date]] = []
    for night in sorted(set(nights)):
        if runs and runs[-1][1] + _DAY == night:
            runs[-1] = (runs[-1][0], night)
        else:
            runs.append((night, night))
    return runs


def held_ranges(
    reservations: Iterable[Reservation], first_night: date, end: date
) -> dict[int, list[tuple[date, date]]]:
    """Per room, the ``[first, end)`` nights reservations hold within ``[first_night, end)``."""
    held: dict[int, list[tuple[date, date]]] = {}
    for reservation in reservations:
        # The cheap date test first: a benchmark property has ~10^5 reservations per query.
        if reservation.date_to <= first_night or reservation.date_from >= end:
            continue
        span = reservation.held_nights()
        if span is None or span[1] <= first_night or span[0] >= end:
            continue
        held.setdefault(reservation.room_id, []).append((max(span[0], first_night), min(span[1], end)))
    return held


def room_calendars(
    rooms: Sequence[Room],
    reservations: Iterable[Reservation],
    first_night: date,
    last_night: date,
    *,
    group_dates: bool,
) -> list[RoomCalendar]:
    """``/v1/Availability/Room`` for the nights ``first_night``..``last_night`` (both included)."""
    end = last_night + _DAY
    count = (end - first_night).days
    held = held_ranges(reservations, first_night, end)
    calendars: list[RoomCalendar] = []
    for room in rooms:
        free = [bool(room.is_enabled)] * count
        if room.is_enabled:
            for start, stop in held.get(room.id, ()):
                for offset in range((start - first_night).days, (stop - first_night).days):
                    free[offset] = False
        calendars.append(RoomCalendar(room.id, room.room_type_id, _runs(free, first_night, group_dates)))
    return calendars


def _runs(free: list[bool], first_night: date, group_dates: bool) -> list[NightRun]:
    runs: list[NightRun] = []
    run_start = 0
    for offset in range(1, len(free) + 1):
        if offset == len(free) or not group_dates or free[offset] != free[run_start]:
            runs.append(
                NightRun(
                    first_night + timedelta(days=run_start),
                    first_night + timedelta(days=offset - 1),
                    int(free[run_start]),
                )
            )
            run_start = offset
    return runs


def free_rooms_by_night(
    room_type_ids: Iterable[int],
    rooms: Sequence[Room],
    reservations: Iterable[Reservation],
    first_night: date,
    end: date,
) -> dict[int, list[int]]:
    """Per room type, the number of free rooms on each night of ``[first_night, end)``."""
    count = (end - first_night).days
    room_type_of = {room.id: room.room_type_id for room in rooms if room.is_enabled}
    enabled: dict[int, int] = dict.fromkeys(room_type_ids, 0)
    for room_type_id in room_type_of.values():
        enabled[room_type_id] = enabled.get(room_type_id, 0) + 1
    free = {room_type_id: [total] * count for room_type_id, total in enabled.items()}
    for room_id, spans in held_ranges(reservations, first_night, end).items():
        type_of_room = room_type_of.get(room_id)
        if type_of_room is None:
            continue  # a disabled room is never counted as free, held or not
        row = free[type_of_room]
        taken: set[int] = set()  # a room counts once per night even if two spans overlap
        for start, stop in spans:
            taken.update(range((start - first_night).days, (stop - first_night).days))
        for offset in taken:
            row[offset] -= 1
    return free


def combined(
    room_type_ids: Sequence[int],
    rooms: Sequence[Room],
    reservations: Iterable[Reservation],
    room_type_closures: Mapping[int, Set[date]],
    property_closures: Set[date],
    date_from: date,
    date_to: date,
) -> CombinedAvailability:
    """``/v1/Availability/RoomType/Combined`` for the stay window ``[date_from, date_to)``."""
    window = [date_from + timedelta(days=i) for i in range((date_to - date_from).days)]
    free = free_rooms_by_night(room_type_ids, rooms, reservations, date_from, date_to)
    property_closed = [night for night in window if night in property_closures]
    is_property_closed = int(bool(property_closed))
    available_rooms = []
    for room_type_id in room_type_ids:
        closed = room_type_closures.get(room_type_id, frozenset())
        available_rooms.append(
            RoomTypeAvailability(
                room_type_id=room_type_id,
                available=min(free[room_type_id]) if window else 0,
                is_room_type_closed=int(any(night in closed for night in window)),
                is_property_closed=is_property_closed,
            )
        )
    sold_out = [
        night for offset, night in enumerate(window) if all(row[offset] <= 0 for row in free.values())
    ]
    return CombinedAvailability(available_rooms, runs_of_nights(property_closed), runs_of_nights(sold_out))
