"""Planned writes become API bodies, and read Inventory days become engine days."""

from __future__ import annotations

import json
from datetime import date
from decimal import Decimal

from roomsync.core.api.channel import Inventory, InventoryList
from roomsync.core.codec import PayloadFormat, decode, encode
from roomsync.core.sync import (
    Availability,
    DayState,
    InventoryRequestPlan,
    OperationPlan,
    PriceElement,
    PricePlan,
    Restrictions,
    RoomRateType,
)
from roomsync.core.sync.convert import (
    calendar_from_inventory,
    calendar_from_read,
    inventory_update,
    prices_request,
)


def test_a_planned_request_is_sent_with_only_the_groups_it_sets() -> None:
    request = InventoryRequestPlan(
        (
            OperationPlan(date(2027, 6, 1), date(2027, 6, 3), available=Availability.UNAVAILABLE),
            OperationPlan(
                date(2027, 6, 4), date(2027, 6, 4), price=120, restrictions=Restrictions(2, None, True, False)
            ),
        )
    )

    body = json.loads(encode(inventory_update("acc-1", "lst-9", request), PayloadFormat.JSON))

    assert body == {
        "accountId": "acc-1",
        "listingId": "lst-9",
        "operations": [
            {
                "dateFrom": "2027-06-01",
                "dateTo": "2027-06-03",
                "setAvailable": True,
                "available": "unavailable",
                "countEligible": False,
                "setPrice": False,
                "setRestrictions": False,
            },
            {
                "dateFrom": "2027-06-04",
                "dateTo": "2027-06-04",
                "setAvailable": False,
                "countEligible": False,
                "setPrice": True,
                "dailyPrice": 120,
                "setRestrictions": True,
                # maxNights null: the restriction is unset, not left alone.
                "minNights": 2,
                "maxNights": None,
                "closedToArrival": True,
                "closedToDeparture": False,
            },
        ],
    }


def test_inventory_days_become_engine_days() -> None:
    body = json.dumps(
        [
            {
                "date": "2027-06-01",
                "dailyPrice": 120.0,
                "availability": "available",
                "availabilityType": "available",
                "availableCount": 3,
                "minNights": 2,
                "maxNights": 30,
                "closedToArrival": False,
                "closedToDeparture": True,
                "notes": "",
            },
            {
                "date": "2027-06-02",
                "dailyPrice": 99.5,
                "availability": "default",
                "availabilityType": "default",
                "availableCount": None,
                "minNights": 1,
                "maxNights": 1125,
                "closedToArrival": False,
                "closedToDeparture": False,
                "notes": "",
            },
        ]
    )
    entries: list[Inventory] = decode(InventoryList, body, PayloadFormat.JSON).root

    assert calendar_from_inventory(entries) == {
        date(2027, 6, 1): DayState(Availability.AVAILABLE, 3, 120, 2, 30, False, True),
        # 99.5 is not an integer dailyPrice: unknown to the engine, so it is rewritten.
        date(2027, 6, 2): DayState(Availability.DEFAULT, None, None, 1, 1125, False, False),
    }


def _read_day(night: str, availability: str, kind: str, price: float) -> dict[str, object]:
    return {
        "date": night,
        "dailyPrice": price,
        "availability": availability,
        "availabilityType": kind,
        "availableCount": None,
        "minNights": 1,
        "maxNights": 1125,
        "closedToArrival": False,
        "closedToDeparture": False,
    }


def test_a_read_keeps_the_pushed_availability_under_the_channels_own_reservation() -> None:
    body = json.dumps(
        [
            _read_day("2027-06-01", "unavailable", "reserved", 80),  # held, the ledger knows it
            _read_day("2027-06-02", "unavailable", "reserved", 80),  # held, unknown to the ledger
            _read_day("2027-06-03", "unavailable", "blocked", 80),  # closed by someone: drift
        ]
    )
    entries: list[Inventory] = decode(InventoryList, body, PayloadFormat.JSON).root
    pushed = {
        date(2027, 6, 1): DayState(Availability.AVAILABLE, None, 95),
        date(2027, 6, 3): DayState(Availability.AVAILABLE, None, 95),
    }

    assert calendar_from_read(entries, pushed) == {
        # the read's price and restrictions, the availability underneath the reservation
        date(2027, 6, 1): DayState(Availability.AVAILABLE, None, 80, 1, 1125, False, False),
        date(2027, 6, 2): DayState(Availability.UNAVAILABLE, None, 80, 1, 1125, False, False),
        date(2027, 6, 3): DayState(Availability.UNAVAILABLE, None, 80, 1, 1125, False, False),
    }


def test_a_price_plan_is_one_prices_request() -> None:
    plan = PricePlan(
        (
            PriceElement(date(2027, 6, 1), date(2027, 6, 30), 4, RoomRateType.STANDARD, Decimal("120.50")),
            PriceElement(
                date(2027, 6, 1), date(2027, 6, 30), 4, RoomRateType.NON_REFUNDABLE, Decimal("108.45")
            ),
        )
    )

    xml = encode(prices_request(plan), PayloadFormat.XML).decode()

    assert xml.count("<PriceForDateRange ") == 2
    assert 'dateFrom="2027-06-01"' in xml and 'roomRateType="2"' in xml and 'price="108.45"' in xml
