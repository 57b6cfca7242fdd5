"""Turn calendar differences into the fewest writes the service accepts.

Why this matters: every request counts against a daily quota of about 1,500 shared by the whole
property (03-conventions), so a sync must send one ``PUT Inventory`` per changed listing, not one
per day, and one ``POST Prices`` per sync, not one per room type.

Inventory operations (:func:`compile_operations`)
    Each day that differs gets a *run key*: the tuple of ``(field group, new value)`` for the
    groups that change on that day, in :class:`~roomsync.core.sync.calendar.Field` order. A *run*
    is a maximal sequence of calendar-consecutive days with equal, non-empty run keys, and becomes
    one operation that sets exactly those groups to exactly those values. So a day that needs
    availability and price followed by a day that needs only price are two runs, even when the
    prices are equal: an operation's value set is the same on every day it covers. Groups that do
    not change are never sent, so the operation cannot undo a change the channel made to them in
    the meantime. Runs never overlap, so the order of operations does not matter for the result;
    they are sent in date order. A run longer than ``max_dates_per_request`` is cut at the limit.
    The operations go into one request per listing; a new request is started only when the next
    operation would take the summed dates of the current one past ``max_dates_per_request``
    (next-fit in date order, so the nearest dates leave in the first request and no two
    consecutive requests could have been merged).

Connected-channel prices (:func:`compile_price_ranges`)
    Desired prices per (room type, rate type, night) are compared with the ledger of what was
    last pushed; the nights that differ become elements over maximal runs of consecutive changed
    nights with the same price, per (room type, rate type), cut so that ``dateTo - dateFrom``
    stays within 365 days. Nights that did not change are not re-sent, even when re-sending one
    would join two elements: elements are free, only requests cost.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from datetime import date, timedelta
from decimal import Decimal
from itertools import groupby
from typing import cast

from roomsync.core.sync.calendar import Availability, Calendar, Field, GroupValue, ListingKind, Restrictions
from roomsync.core.sync.diff import DiffItem, diff_calendar
from roomsync.core.sync.plans import (
    MAX_PRICE_ELEMENT_SPAN_DAYS,
    InventoryRequestPlan,
    OperationPlan,
    PriceElement,
    PriceKey,
    PricePlan,
    RoomRateType,
    check_price,
)

DEFAULT_MAX_DATES_PER_REQUEST = 731
"""Default of the ``max_dates_per_request`` setting: the whole 730-day channel calendar plus today."""

RunKey = tuple[tuple[Field, GroupValue], ...]
_ONE_DAY = timedelta(days=1)


def compile_operations(
    kind: ListingKind,
    desired: Calendar,
    current: Calendar,
    max_dates_per_request: int = DEFAULT_MAX_DATES_PER_REQUEST,
) -> list[InventoryRequestPlan]:
    """The ``PUT Inventory`` requests (in sending order) that make ``current`` equal ``desired``."""
    if kind is ListingKind.SINGLE:
        for day, state in desired.items():
            if state.count is not None:
                raise ValueError(f"desired calendar, {day}: a single-unit listing has no count")
    return operations_from_diff(diff_calendar(desired, current), max_dates_per_request)


def operations_from_diff(
    items: Iterable[DiffItem], max_dates_per_request: int = DEFAULT_MAX_DATES_PER_REQUEST
) -> list[InventoryRequestPlan]:
    """Compile a diff (ordered by day, as :func:`diff_calendar` gives it) into requests."""
    if max_dates_per_request < 1:
        raise ValueError(f"max_dates_per_request={max_dates_per_request!r}: must be 1 or more")
    operations: list[OperationPlan] = []
    for first, last, key in _runs(items):
        operations.extend(_operations_for_run(first, last, key, max_dates_per_request))
    return _pack(operations, max_dates_per_request)


def _runs(items: Iterable[DiffItem]) -> Iterable[tuple[date, date, RunKey]]:
    """Maximal runs ``(first day, last day, run key)`` of consecutive days with equal keys."""
    run: tuple[date, date, RunKey] | None = None
    for day, day_items in groupby(items, key=lambda item: item.field.day):
        key: RunKey = tuple((item.field.group, item.new) for item in day_items)
        if run is not None and run[2] == key and run[1] + _ONE_DAY == day:
            run = (run[0], day, key)
            continue
        if run is not None:
            yield run
        run = (day, day, key)
    if run is not None:
        yield run


def _operations_for_run(first: date, last: date, key: RunKey, limit: int) -> Iterable[OperationPlan]:
    values = dict(key)
    available = cast(Availability | None, values.get(Field.AVAILABILITY))
    count = cast(int | None, values.get(Field.COUNT))
    price = cast(int | None, values.get(Field.PRICE))
    restrictions = cast(Restrictions | None, values.get(Field.RESTRICTIONS))
    for start, end in _split(first, last, limit):
        yield OperationPlan(start, end, available, count, price, restrictions)


def _split(first: date, last: date, max_days: int) -> Iterable[tuple[date, date]]:
    """``first..last`` cut into pieces of at most ``max_days`` days, in order."""
    start = first
    while start <= last:
        end = min(last, start + timedelta(days=max_days - 1))
        yield start, end
        start = end + _ONE_DAY


def _pack(operations: list[OperationPlan], limit: int) -> list[InventoryRequestPlan]:
    requests: list[InventoryRequestPlan] = []
    batch: list[OperationPlan] = []
    dates = 0
    for operation in operations:
        if batch and dates + operation.days > limit:
            requests.append(InventoryRequestPlan(tuple(batch)))
            batch, dates = [], 0
        batch.append(operation)
        dates += operation.days
    if batch:
        requests.append(InventoryRequestPlan(tuple(batch)))
    return requests


def compile_price_ranges(
    desired_prices: Mapping[PriceKey, Decimal], ledger: Mapping[PriceKey, Decimal]
) -> PricePlan:
    """The Prices elements that bring the connected channels from ``ledger`` to ``desired_prices``.

    Only keys of ``desired_prices`` are considered (the horizon); a ledger entry for a night
    outside it is left alone. All elements belong in one request.
    """
    changed: dict[tuple[int, RoomRateType], list[tuple[date, Decimal]]] = {}
    for key, price in desired_prices.items():
        check_price(price, f"desired price {key}")
        if ledger.get(key) != price:
            room_type_id, rate_type, night = key
            changed.setdefault((room_type_id, RoomRateType(rate_type)), []).append((night, price))
    elements: list[PriceElement] = []
    for (room_type_id, rate_type), nights in sorted(changed.items()):
        nights.sort()
        for first, last, price in _equal_price_runs(nights):
            for start, end in _split(first, last, MAX_PRICE_ELEMENT_SPAN_DAYS + 1):
                elements.append(PriceElement(start, end, room_type_id, rate_type, price))
    return PricePlan(tuple(elements))


def _equal_price_runs(nights: list[tuple[date, Decimal]]) -> Iterable[tuple[date, date, Decimal]]:
    """Maximal runs ``(first, last, price)`` of consecutive nights with equal prices (sorted input)."""
    run: tuple[date, date, Decimal] | None = None
    for night, price in nights:
        if run is not None and run[1] + _ONE_DAY == night and run[2] == price:
            run = (run[0], night, price)
            continue
        if run is not None:
            yield run
        run = (night, night, price)
    if run is not None:
        yield run
