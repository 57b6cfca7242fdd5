"""The writes the sync engine plans, as frozen values: inventory operations and price elements.

Why separate from compile.py: the compiler produces these values, :mod:`.apply` simulates them and
the adapters turn them into API models; none of those should have to import the others. They are
deliberately not the API models (``core.api.channel``), so the engine stays a pure, fast
computation over plain values; :func:`OperationPlan.as_api_fields` gives the API field names for
the conversion at the edge.

An :class:`OperationPlan` cannot hold an inconsistent flag: a group is set exactly when its value
is present, which is how the channel reads ``setAvailable``/``countEligible``/``setPrice``/
``setRestrictions`` (document 01, "Inventory operation").
"""

from __future__ import annotations

from dataclasses import dataclass
from datetime import date, timedelta
from decimal import Decimal
from enum import IntEnum
from typing import Any, NamedTuple

from roomsync.core.sync.calendar import Availability, Field, GroupValue, Restrictions

MAX_PRICE_ELEMENT_SPAN_DAYS = 365
"""``dateTo - dateFrom`` of a Prices element may not exceed this (document 01, Limits)."""

_CENT = Decimal("0.01")


@dataclass(frozen=True, slots=True)
class OperationPlan:
    """One ``Inventory operation``: the days ``date_from..date_to`` (both included) get the values
    that are not ``None``; the groups left ``None`` are not touched."""

    date_from: date
    date_to: date
    available: Availability | None = None
    count: int | None = None
    price: int | None = None
    restrictions: Restrictions | None = None

    def __post_init__(self) -> None:
        if self.date_from > self.date_to:
            raise ValueError(f"OperationPlan: dateFrom {self.date_from} is after dateTo {self.date_to}")
        if self.count is not None and self.count < 0:
            raise ValueError(f"OperationPlan.count={self.count!r}: must be 0 or more")
        if self.price is not None and self.price < 0:
            raise ValueError(f"OperationPlan.dailyPrice={self.price!r}: must be 0 or more")

    @property
    def days(self) -> int:
        """Dates the operation covers (both ends included, 03-conventions)."""
        return (self.date_to - self.date_from).days + 1

    @property
    def changes(self) -> tuple[tuple[Field, GroupValue], ...]:
        """The groups the operation sets, with their values, in :class:`Field` order."""
        pairs: list[tuple[Field, GroupValue]] = []
        if self.available is not None:
            pairs.append((Field.AVAILABILITY, self.available))
        if self.count is not None:
            pairs.append((Field.COUNT, self.count))
        if self.price is not None:
            pairs.append((Field.PRICE, self.price))
        if self.restrictions is not None:
            pairs.append((Field.RESTRICTIONS, self.restrictions))
        return tuple(pairs)

    def as_api_fields(self) -> dict[str, Any]:
        """The operation as the API's camelCase fields (values of groups not set are omitted)."""
        fields: dict[str, Any] = {
            "dateFrom": self.date_from.isoformat(),
            "dateTo": self.date_to.isoformat(),
            "setAvailable": self.available is not None,
            "countEligible": self.count is not None,
            "setPrice": self.price is not None,
            "setRestrictions": self.restrictions is not None,
        }
        if self.available is not None:
            fields["available"] = self.available.value
        if self.count is not None:
            fields["count"] = self.count
        if self.price is not None:
            fields["dailyPrice"] = self.price
        if self.restrictions is not None:
            fields["minNights"] = self.restrictions.min_nights
            fields["maxNights"] = self.restrictions.max_nights
            fields["closedToArrival"] = self.restrictions.closed_to_arrival
            fields["closedToDeparture"] = self.restrictions.closed_to_departure
        return fields


@dataclass(frozen=True, slots=True)
class InventoryRequestPlan:
    """The operations of one ``PUT Inventory`` request of one listing, in the order to send."""

    operations: tuple[OperationPlan, ...]

    @property
    def dates(self) -> int:
        """Dates summed over the operations: the quantity ``max_dates_per_request`` limits."""
        return sum(operation.days for operation in self.operations)


class RoomRateType(IntEnum):
    """``roomRateType`` of a Prices element (document 01)."""

    STANDARD = 1
    NON_REFUNDABLE = 2


class PriceKey(NamedTuple):
    """One price of the connected channels: a room type's rate on one night."""

    room_type_id: int
    rate_type: RoomRateType
    night: date


@dataclass(frozen=True, slots=True)
class PriceElement:
    """One ``Price for date range`` element of ``POST /v1/ChannelManager/Prices``."""

    date_from: date
    date_to: date
    room_type_id: int
    room_rate_type: RoomRateType
    price: Decimal

    def __post_init__(self) -> None:
        span = (self.date_to - self.date_from).days
        if span < 0:
            raise ValueError(f"PriceElement: dateFrom {self.date_from} is after dateTo {self.date_to}")
        if span > MAX_PRICE_ELEMENT_SPAN_DAYS:
            raise ValueError(
                f"PriceElement: dateTo - dateFrom = {span} days, more than {MAX_PRICE_ELEMENT_SPAN_DAYS}"
            )
        check_price(self.price, f"PriceElement(roomTypeId={self.room_type_id}, {self.date_from})")

    def nights(self) -> tuple[date, ...]:
        span = (self.date_to - self.date_from).days
        return tuple(self.date_from + timedelta(days=offset) for offset in range(span + 1))

    def as_api_fields(self) -> dict[str, Any]:
        return {
            "dateFrom": self.date_from.isoformat(),
            "dateTo": self.date_to.isoformat(),
            "roomTypeId": self.room_type_id,
            "roomRateType": int(self.room_rate_type),
            "price": self.price,
        }


@dataclass(frozen=True, slots=True)
class PricePlan:
    """All price elements of one sync; they go out in a single ``POST Prices`` request."""

    elements: tuple[PriceElement, ...]

    @property
    def requests(self) -> int:
        return 1 if self.elements else 0


def check_price(price: Decimal, where: str) -> None:
    """A channel price is a ``decimal (2 digits)`` of 0 or more (document 01)."""
    if not isinstance(price, Decimal) or not price.is_finite():
        raise ValueError(f"{where}: price {price!r} is not a finite Decimal")
    if price < 0:
        raise ValueError(f"{where}: price {price} must be 0 or more")
    if price != price.quantize(_CENT):
        raise ValueError(f"{where}: price {price} has more than 2 decimal digits")
