"""The per-day channel inventory of one listing, stored compactly.

A benchmark property has 1,000 listings with 731 days each, so a day is not an object: each field
is an ``array`` (or ``bytearray``) indexed by the day's offset from ``epoch``, and the arrays grow
at either end when the emulator clock moves. Unset values use sentinels:

* ``availability``: 0 ``default``, 1 ``available``, 2 ``unavailable`` (what the host or an
  Inventory PUT set; a channel reservation overlays it when read, see :meth:`ListingCalendar.view`);
* ``price_cents``: -1 = no custom price (the listing's default daily price applies);
* ``count``: -1 = never set (room-type listings then show their ``totalInventoryCount``);
* ``min_nights`` / ``max_nights``: 0 = unset (the availability rule's defaults apply);
* ``reserved``: nights held by the channel's own active reservations of this listing.
"""

from __future__ import annotations

from array import array
from dataclasses import dataclass
from datetime import date, timedelta

AVAILABILITY_VALUES = ("default", "available", "unavailable")
AVAILABILITY_CODE = {value: code for code, value in enumerate(AVAILABILITY_VALUES)}
DEFAULT, AVAILABLE, UNAVAILABLE = 0, 1, 2
NO_PRICE = -1
NO_COUNT = -1
UNSET_NIGHTS = 0


@dataclass(frozen=True)
class DayView:
    """One day as the Inventory read shows it."""

    day: date
    availability: str
    availability_type: str
    availability_sub_type: str | None
    price_cents: int
    available_count: int | None
    min_nights: int
    max_nights: int
    closed_to_arrival: bool
    closed_to_departure: bool
    notes: str | None


class ListingCalendar:
    """Arrays of per-day values of one listing, indexed by days since ``epoch``."""

    __slots__ = (
        "availability",
        "closed_to_arrival",
        "closed_to_departure",
        "count",
        "epoch",
        "max_nights",
        "min_nights",
        "notes",
        "price_cents",
        "reserved",
    )

    def __init__(self, epoch: date, days: int) -> None:
        self.epoch = epoch
        self.availability = bytearray(days)
        self.price_cents = array("q", [NO_PRICE]) * days
        self.count = array("l", [NO_COUNT]) * days
        self.min_nights = array("l", [UNSET_NIGHTS]) * days
        self.max_nights = array("l", [UNSET_NIGHTS]) * days
        self.closed_to_arrival = bytearray(days)
        self.closed_to_departure = bytearray(days)
        self.reserved = array("l", [0]) * days
        self.notes: dict[date, str] = {}

    def __len__(self) -> int:
        return len(self.availability)

    def covers(self, first: date, last: date) -> tuple[int, int]:
        """Offsets of ``first`` and ``last``, growing the arrays so that both exist."""
        if first < self.epoch:
            self._grow_front((self.epoch - first).days)
        end = (last - self.epoch).days + 1
        if end > len(self):
            self._grow_back(end - len(self))
        return (first - self.epoch).days, (last - self.epoch).days

    def offset(self, day: date) -> int:
        return self.covers(day, day)[0]

    def _grow_back(self, extra: int) -> None:
        self.availability.extend(bytes(extra))
        self.price_cents.extend(array("q", [NO_PRICE]) * extra)
        self.count.extend(array("l", [NO_COUNT]) * extra)
        self.min_nights.extend(array("l", [UNSET_NIGHTS]) * extra)
        self.max_nights.extend(array("l", [UNSET_NIGHTS]) * extra)
        self.closed_to_arrival.extend(bytes(extra))
        self.closed_to_departure.extend(bytes(extra))
        self.reserved.extend(array("l", [0]) * extra)

    def _grow_front(self, extra: int) -> None:
        self.availability[0:0] = bytes(extra)
        self.price_cents[0:0] = array("q", [NO_PRICE]) * extra
        self.count[0:0] = array("l", [NO_COUNT]) * extra
        self.min_nights[0:0] = array("l", [UNSET_NIGHTS]) * extra
        self.max_nights[0:0] = array("l", [UNSET_NIGHTS]) * extra
        self.closed_to_arrival[0:0] = bytes(extra)
        self.closed_to_departure[0:0] = bytes(extra)
        self.reserved[0:0] = array("l", [0]) * extra
        self.epoch -= timedelta(days=extra)

    def hold(self, first_night: date, nights: int, delta: int) -> None:
        """Add ``delta`` (+1 book, -1 release) to the reserved count of each night."""
        start, _ = self.covers(first_night, first_night + timedelta(days=max(nights, 1) - 1))
        for i in range(start, start + nights):
            self.reserved[i] = max(0, self.reserved[i] + delta)

    def view(
        self,
        offset: int,
        *,
        room_type: bool,
        total_inventory: int | None,
        default_price_cents: int,
        default_min_nights: int,
        default_max_nights: int,
    ) -> DayView:
        """The day at ``offset`` with defaults and the channel's own reservations applied.

        A single-unit listing's night held by a channel reservation reads ``unavailable``
        (type ``reserved``). A room-type listing keeps its ``availableCount`` (document 01);
        its type says ``sold_out`` once its own reservations use up that count.
        """
        stored = self.availability[offset]
        availability = AVAILABILITY_VALUES[stored]
        sub_type: str | None = None
        count: int | None = None
        reserved = self.reserved[offset]
        if room_type:
            raw = self.count[offset]
            count = raw if raw != NO_COUNT else (total_inventory or 0)
        if not room_type and reserved:
            availability, kind, sub_type = "unavailable", "reserved", "channel_reservation"
        elif stored == UNAVAILABLE:
            kind = "blocked"
            sub_type = "set_unavailable"
        elif room_type and count is not None and count - reserved <= 0:
            kind, sub_type = "sold_out", "no_units_left"
        else:
            kind = "available"
            sub_type = None if stored != DEFAULT else "default_settings"
        price = self.price_cents[offset]
        min_n = self.min_nights[offset] or default_min_nights
        max_n = self.max_nights[offset] or default_max_nights
        day = self.epoch + timedelta(days=offset)
        return DayView(
            day=day,
            availability=availability,
            availability_type=kind,
            availability_sub_type=sub_type,
            price_cents=price if price != NO_PRICE else default_price_cents,
            available_count=count,
            min_nights=min_n,
            max_nights=max_n,
            closed_to_arrival=bool(self.closed_to_arrival[offset]),
            closed_to_departure=bool(self.closed_to_departure[offset]),
            notes=self.notes.get(day),
        )

    def sellable(self, offset: int, *, room_type: bool, total_inventory: int | None) -> bool:
        """Whether the channel would sell one more night at ``offset``."""
        if self.availability[offset] == UNAVAILABLE:
            return False
        if not room_type:
            return self.reserved[offset] == 0
        raw = self.count[offset]
        count = raw if raw != NO_COUNT else (total_inventory or 0)
        return count - self.reserved[offset] > 0
