"""The property's other connected channels: desired prices vs the ledger of what was pushed.

Desired prices per ``[[connected]]`` entry of the mapping (``desired_connected_prices``: rate 1 at
the PMS price, rate 2 at the price less the configured discount) are compared with
``store.channel_prices``, and every difference goes out in ONE ``POST /v1/ChannelManager/Prices``
(priority ``PRICES``). The service's answer decides what is recorded:

* ``result`` 1: every element is recorded as pushed;
* ``result`` 2 (accepted with warnings): every element is recorded and the warnings are kept in
  the run's record;
* ``result`` 3: nothing is recorded (the next sync sends the same elements) and the errors are kept.

There is no read of the connected channels' prices, so ``resync`` re-pushes every desired price
(``ignore_ledger``) instead of comparing with a read.
"""

from __future__ import annotations

import asyncio
from collections.abc import Callable, Sequence
from datetime import date, datetime
from decimal import Decimal

from roomsync.adapters.client import QuotaExhausted, ServiceClient, ServiceError
from roomsync.adapters.store import Store
from roomsync.app.sync.history_writer import RunStamp, price_push_entries, store_entries
from roomsync.app.sync.report import PricesOutcome, PricesResult
from roomsync.core.api.channel_manager import ChannelMessage, ChannelResult
from roomsync.core.catalog.types import Priority
from roomsync.core.mapping import ConnectedPush
from roomsync.core.night_history import JsonValue
from roomsync.core.ports import RateKey
from roomsync.core.sync import (
    PriceKey,
    PricePlan,
    RoomRateType,
    compile_price_ranges,
    desired_connected_prices,
)
from roomsync.core.sync.convert import prices_request


def desired_prices(
    pushes: Sequence[ConnectedPush], prices: dict[int, dict[date, Decimal]], nights: Sequence[date]
) -> dict[PriceKey, Decimal]:
    desired: dict[PriceKey, Decimal] = {}
    for push in pushes:
        part = desired_connected_prices(
            {push.room_type_id: prices.get(push.room_type_id, {})},
            nights,
            discount_percent=push.non_refundable_discount_percent,
        )
        for key, price in part.items():
            if key.rate_type is RoomRateType.STANDARD and not push.standard:
                continue
            if price > 0:  # the service refuses a price of 0 or less, and with it the whole batch
                desired[key] = price
    return desired


def rate_keys(pushes: Sequence[ConnectedPush]) -> list[tuple[int, RoomRateType]]:
    keys: list[tuple[int, RoomRateType]] = []
    for push in pushes:
        if push.standard:
            keys.append((push.room_type_id, RoomRateType.STANDARD))
        if push.non_refundable_discount_percent is not None:
            keys.append((push.room_type_id, RoomRateType.NON_REFUNDABLE))
    return keys


def _read_ledger(
    store: Store, property_id: str, keys: list[tuple[int, RoomRateType]], first: date, last: date
) -> dict[PriceKey, Decimal]:
    ledger: dict[PriceKey, Decimal] = {}
    for room_type_id, rate in keys:
        pushed = store.channel_prices.read_pushed_prices(
            RateKey(property_id, room_type_id, int(rate)), first, last
        )
        for night, entry in pushed.items():
            ledger[PriceKey(room_type_id, rate, night)] = entry.price
    return ledger


def _record(store: Store, property_id: str, plan: PricePlan, at: datetime) -> None:
    by_rate: dict[tuple[int, int], dict[date, Decimal]] = {}
    for element in plan.elements:
        prices = by_rate.setdefault((element.room_type_id, int(element.room_rate_type)), {})
        for night in element.nights():
            prices[night] = element.price
    for (room_type_id, rate), prices in sorted(by_rate.items()):
        store.channel_prices.record_pushed_prices(RateKey(property_id, room_type_id, rate), prices, at)


def _changes(
    plan: PricePlan,
    ledger: dict[PriceKey, Decimal],
    prices: dict[int, dict[date, Decimal]],
    pushes: Sequence[ConnectedPush],
) -> dict[tuple[int, str], dict[date, tuple[Decimal | None, Decimal, dict[str, JsonValue]]]]:
    """Per room type and rate, night -> (last pushed, now pushed, the PMS price and rule)."""
    discounts = {push.room_type_id: push.non_refundable_discount_percent for push in pushes}
    changes: dict[tuple[int, str], dict[date, tuple[Decimal | None, Decimal, dict[str, JsonValue]]]] = {}
    for element in plan.elements:
        rate = element.room_rate_type
        rule = "the PMS price" if rate is RoomRateType.STANDARD else (
            f"the PMS price less {discounts.get(element.room_type_id)} %"
        )
        nights = changes.setdefault((element.room_type_id, rate.name.lower()), {})
        for night in element.nights():
            pms = prices.get(element.room_type_id, {}).get(night)
            facts: dict[str, JsonValue] = {
                "room_type": element.room_type_id,
                "pms_price": str(pms) if pms is not None else None,
                "rule": rule,
            }
            old = ledger.get(PriceKey(element.room_type_id, rate, night))
            nights[night] = (old, element.price, facts)
    return changes


def _describe(messages: Sequence[ChannelMessage]) -> list[str]:
    described = []
    for message in messages:
        where = f"channel {message.channel_id}: " if message.channel_id is not None else ""
        code = f"{message.code}: " if message.code else ""
        described.append(f"{where}{code}{message.message}")
    return described


async def push_connected_prices(
    client: ServiceClient,
    store: Store,
    property_id: str,
    pushes: Sequence[ConnectedPush],
    prices: dict[int, dict[date, Decimal]],
    nights: Sequence[date],
    *,
    clock: Callable[[], datetime],
    dry_run: bool,
    stamp: RunStamp,
    ignore_ledger: bool = False,
) -> PricesOutcome:
    if not pushes:
        return PricesOutcome(PricesResult.NOT_CONFIGURED)
    desired = desired_prices(pushes, prices, nights)
    ledger: dict[PriceKey, Decimal] = {}
    if not ignore_ledger:
        ledger = await asyncio.to_thread(
            _read_ledger, store, property_id, rate_keys(pushes), nights[0], nights[-1]
        )
    plan = compile_price_ranges(desired, ledger)
    outcome = PricesOutcome(PricesResult.NOTHING_TO_SEND, plan.elements)
    if not plan.elements:
        return outcome
    if dry_run:
        outcome.result = PricesResult.PLANNED
        return outcome
    try:
        answer = await client.push_prices(prices_request(plan), priority=Priority.PRICES)
    except QuotaExhausted as refused:
        outcome.result = PricesResult.NO_BUDGET
        outcome.messages.append(str(refused))
        return outcome
    except ServiceError as error:
        outcome.result = PricesResult.FAILED
        outcome.messages.append(str(error))
        return outcome
    if answer.result is ChannelResult.ERROR:
        outcome.result = PricesResult.ERROR
        outcome.messages = _describe([*answer.service_errors, *answer.channel_errors])
        return outcome
    pushed_at = clock()
    await asyncio.to_thread(_record, store, property_id, plan, pushed_at)
    # the ledger advanced: the same accepted batch is the history of these prices
    entries = price_push_entries(
        property_id,
        _changes(plan, ledger, prices, pushes),
        {"result": answer.result.name.lower(), "elements": len(plan.elements)},
        pushed_at,
        stamp,
    )
    await asyncio.to_thread(store_entries, store, property_id, entries, pushed_at, stamp.keep_days)
    if answer.result is ChannelResult.OK_WITH_WARNINGS:
        outcome.result = PricesResult.OK_WITH_WARNINGS
        outcome.messages = _describe([*answer.channel_warnings, *answer.channel_errors])
    else:
        outcome.result = PricesResult.OK
    return outcome
