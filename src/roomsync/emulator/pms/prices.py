"""Price lists: a nightly price per room type and night, stored compactly.

A benchmark property has 1,000 room types and two years of nights, so prices are kept per room
type as an ``array('q')`` of cents indexed by the night's offset from the list's first night,
not as a dict of Decimals: building, reading and summing stay fast and small.
"""

from __future__ import annotations

from array import array
from collections.abc import Iterable
from dataclasses import dataclass, field
from datetime import date
from decimal import Decimal

NO_PRICE = -1
"""Cents value of a night without a price."""

_CENT = Decimal("0.01")


def to_cents(price: Decimal) -> int:
    cents = int((price / _CENT).to_integral_value())
    if cents < 0:
        raise ValueError(f"a nightly price cannot be negative: {price}")
    return cents


def from_cents(cents: int) -> Decimal:
    return (Decimal(cents) * _CENT).quantize(_CENT)


@dataclass
class PriceList:
    id: int
    title: str
    currency_code: str
    start: date
    """The first night the rows are indexed from."""
    is_rack_rate: bool = False
    rows: dict[int, array[int]] = field(default_factory=dict)
    """Per room type: cents per night, index = days since ``start``; ``NO_PRICE`` where unset."""

    def price(self, room_type_id: int, night: date) -> Decimal | None:
        cents = self.cents(room_type_id, night)
        return None if cents == NO_PRICE else from_cents(cents)

    def cents(self, room_type_id: int, night: date) -> int:
        row = self.rows.get(room_type_id)
        offset = (night - self.start).days
        if row is None or offset < 0 or offset >= len(row):
            return NO_PRICE
        return row[offset]

    def total(self, room_type_id: int, first_night: date, end: date) -> Decimal | None:
        """Sum of the nightly prices of ``[first_night, end)``; None if any night has no price."""
        row = self.rows.get(room_type_id)
        first = (first_night - self.start).days
        last = (end - self.start).days
        if row is None or first < 0 or last > len(row) or first >= last:
            return None
        window = row[first:last]
        if NO_PRICE in window:
            return None
        return from_cents(sum(window))

    def set_prices(self, room_type_id: int, nights: Iterable[date], price: Decimal | None) -> None:
        """Set (or, with None, clear) the price of ``nights``; nights before ``start`` move it."""
        cents = NO_PRICE if price is None else to_cents(price)
        wanted = sorted(set(nights))
        if not wanted:
            return
        if wanted[0] < self.start:
            self._move_start(wanted[0])
        row = self.rows.setdefault(room_type_id, array("q"))
        last = (wanted[-1] - self.start).days
        if last >= len(row):
            row.extend([NO_PRICE] * (last + 1 - len(row)))
        for night in wanted:
            row[(night - self.start).days] = cents

    def _move_start(self, new_start: date) -> None:
        shift = (self.start - new_start).days
        for room_type_id, row in self.rows.items():
            self.rows[room_type_id] = array("q", [NO_PRICE] * shift) + row
        self.start = new_start
