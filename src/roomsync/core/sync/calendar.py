"""The channel calendar as plain values: one :class:`DayState` per day of a listing.

Why its own small types instead of the API models: the sync engine compares and rewrites hundreds
of thousands of days per run, so a day is a frozen slotted dataclass that compares and hashes in
one step, and the engine stays independent of the wire format (JSON or XML) and of the helper that
owns the API models. Converting to and from ``Inventory`` entries and ``Inventory operation``
elements happens at the edge.

A day is split into the four *field groups* of an ``Inventory operation`` (document 01), because
the channel only ever changes a day group by group: ``setAvailable`` changes ``available``,
``countEligible`` changes ``count`` (room-type listings only), ``setPrice`` changes
``dailyPrice`` and ``setRestrictions`` changes minimum and maximum nights, closed-to-arrival and
closed-to-departure together (03-conventions, "Channel inventory").
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from datetime import date
from enum import StrEnum
from typing import NamedTuple


class Availability(StrEnum):
    """``availability`` of an Inventory day and ``available`` of an operation (document 01)."""

    AVAILABLE = "available"
    UNAVAILABLE = "unavailable"
    DEFAULT = "default"


class ListingKind(StrEnum):
    """How a listing sells: one unit, or a count of rooms of one room type."""

    SINGLE = "single"
    """A single-unit listing: a day is available or not; a channel booking makes it unavailable."""
    ROOM_TYPE = "room_type"
    """A room-type listing: a day carries ``count``, the rooms the channel may hold (document 01)."""


class Field(StrEnum):
    """A field group of an Inventory operation, named after the flag that switches it on.

    The declaration order is the canonical order of groups inside a run key (compile.py).
    """

    AVAILABILITY = "setAvailable"
    COUNT = "countEligible"
    PRICE = "setPrice"
    RESTRICTIONS = "setRestrictions"


CHANNEL_MIN_NIGHTS = 1
CHANNEL_MAX_NIGHTS = 1125
"""What a channel read shows for a stay limit that no day sets: the listing's ``defaultMinNights``
and ``defaultMaxNights`` as the channel leaves them (document 01 gives the read's ``minNights`` and
``maxNights`` as plain ints, never null; the values are the sandbox's, docs/emulator.md,
"Availability rules"). roomsync does not write a listing's availability rules, so a host who
changed them there makes an unset limit read as the host's value, which these cannot know."""


class Restrictions(NamedTuple):
    """The restriction group's value: the four fields ``setRestrictions`` changes together."""

    min_nights: int | None
    max_nights: int | None
    closed_to_arrival: bool | None
    closed_to_departure: bool | None

    def as_shown(self) -> Restrictions:
        """What a channel read shows for these: an unset stay limit reads as the default."""
        return Restrictions(
            CHANNEL_MIN_NIGHTS if self.min_nights is None else self.min_nights,
            CHANNEL_MAX_NIGHTS if self.max_nights is None else self.max_nights,
            self.closed_to_arrival,
            self.closed_to_departure,
        )


GroupValue = Availability | int | Restrictions | None
"""What one field group holds on one day (``int`` for count and price)."""


@dataclass(frozen=True, slots=True)
class DayState:
    """One day of a listing's channel calendar.

    In a *current* calendar (what the channel holds, or what roomsync last pushed) every field is
    what the channel has; ``None`` means the channel holds nothing (or a value roomsync cannot
    represent, such as a non-integer ``dailyPrice``: mapping it to ``None`` makes it differ from
    any desired price, so it is rewritten).

    In a *desired* calendar ``count is None`` and ``price is None`` mean "roomsync does not manage
    this group on this day": a single-unit listing has no count, and a night whose PMS price is
    not known yet keeps whatever price the channel has. Restriction fields that are ``None`` are
    managed values: the operation sends ``null``, which unsets them (document 01).
    """

    available: Availability
    count: int | None = None
    price: int | None = None
    """``dailyPrice``: the channel's operation takes an integer nightly price."""
    min_nights: int | None = None
    max_nights: int | None = None
    closed_to_arrival: bool | None = None
    closed_to_departure: bool | None = None

    def __post_init__(self) -> None:
        if self.count is not None and self.count < 0:
            raise ValueError(f"DayState.count={self.count!r}: must be 0 or more")
        if self.price is not None and self.price < 0:
            raise ValueError(f"DayState.price={self.price!r}: must be 0 or more")
        for name in ("min_nights", "max_nights"):
            nights = getattr(self, name)
            if nights is not None and nights < 1:
                raise ValueError(f"DayState.{name}={nights!r}: must be 1 or more")

    @property
    def restrictions(self) -> Restrictions:
        return Restrictions(
            self.min_nights, self.max_nights, self.closed_to_arrival, self.closed_to_departure
        )

    def value_of(self, group: Field) -> GroupValue:
        """The value this day holds in ``group``."""
        if group is Field.AVAILABILITY:
            return self.available
        if group is Field.COUNT:
            return self.count
        if group is Field.PRICE:
            return self.price
        return self.restrictions

    def manages(self, group: Field) -> bool:
        """True when this (desired) day says what ``group`` must hold (see the class docstring)."""
        if group is Field.COUNT:
            return self.count is not None
        if group is Field.PRICE:
            return self.price is not None
        return True


def shows_alike(group: Field, one: GroupValue, other: GroupValue) -> bool:
    """Whether the channel shows the same for two values of ``group``.

    Equal values, or restrictions that differ only where one leaves a stay limit unset and the
    other gives the channel's default for it: what roomsync sets (``null`` unsets a limit) and what
    a read shows (the default in its place) are compared with this, never with ``!=``, or a rule
    without ``max_nights`` would differ from every read of its listing, as drift to rewrite.
    """
    if one == other:
        return True
    if group is not Field.RESTRICTIONS:
        return False
    return (
        isinstance(one, Restrictions)
        and isinstance(other, Restrictions)
        and one.as_shown() == other.as_shown()
    )


BLANK_DAY = DayState(Availability.DEFAULT)
"""A day the channel was never told anything about: the base for a day missing from a calendar."""

Calendar = Mapping[date, DayState]
"""One listing's days. A desired calendar's keys are the nights of the sync horizon."""


def groups_of(kind: ListingKind) -> tuple[Field, ...]:
    """The field groups a listing of ``kind`` has: only room-type listings carry a count."""
    if kind is ListingKind.ROOM_TYPE:
        return (Field.AVAILABILITY, Field.COUNT, Field.PRICE, Field.RESTRICTIONS)
    return (Field.AVAILABILITY, Field.PRICE, Field.RESTRICTIONS)
