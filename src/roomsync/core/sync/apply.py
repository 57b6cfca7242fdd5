"""What the service does with planned writes, as pure functions.

Why it lives in the core: the property tests check the compiler against it (applying the compiled
operations must give exactly the desired calendar), and the emulator uses the very same rules for
``PUT Inventory`` and for the price ledger, so roomsync and its sandbox cannot drift apart.

``PUT Inventory`` (03-conventions, "Channel inventory"): operations apply in order, a later one
wins on the days it shares with an earlier one, and each changes only the groups whose flag is
set. A day the calendar does not hold yet starts as :data:`BLANK_DAY`. Validating a request (and
rejecting it as a whole) is the caller's job; :class:`OperationPlan` already refuses
``dateFrom > dateTo`` and negative counts or prices.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from dataclasses import replace
from datetime import date, timedelta
from decimal import Decimal
from typing import Any

from roomsync.core.sync.calendar import BLANK_DAY, Calendar, DayState
from roomsync.core.sync.plans import OperationPlan, PriceElement, PriceKey


def apply_operations(current: Calendar, operations: Iterable[OperationPlan]) -> dict[date, DayState]:
    """The calendar after ``operations`` (a new dict; ``current`` is not changed)."""
    result = dict(current)
    for operation in operations:
        changes = _changes_of(operation)
        if not changes:
            continue
        day = operation.date_from
        for _ in range(operation.days):
            result[day] = replace(result.get(day, BLANK_DAY), **changes)
            day += timedelta(days=1)
    return result


def _changes_of(operation: OperationPlan) -> dict[str, Any]:
    changes: dict[str, Any] = {}
    if operation.available is not None:
        changes["available"] = operation.available
    if operation.count is not None:
        changes["count"] = operation.count
    if operation.price is not None:
        changes["price"] = operation.price
    if operation.restrictions is not None:
        changes["min_nights"] = operation.restrictions.min_nights
        changes["max_nights"] = operation.restrictions.max_nights
        changes["closed_to_arrival"] = operation.restrictions.closed_to_arrival
        changes["closed_to_departure"] = operation.restrictions.closed_to_departure
    return changes


def apply_price_elements(
    ledger: Mapping[PriceKey, Decimal], elements: Iterable[PriceElement]
) -> dict[PriceKey, Decimal]:
    """The price ledger after the connected channels accepted ``elements`` (a new dict)."""
    result = dict(ledger)
    for element in elements:
        for night in element.nights():
            result[PriceKey(element.room_type_id, element.room_rate_type, night)] = element.price
    return result
