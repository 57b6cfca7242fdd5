"""Worked examples of the desired state, each value worked out by hand in the comments."""

from __future__ import annotations

from datetime import date, timedelta
from decimal import Decimal

import pytest

from roomsync.core.sync import (
    Availability,
    DayState,
    ListingKind,
    NightRun,
    PriceKey,
    PriceRule,
    RestrictionRule,
    RoomNights,
    RoomRateType,
    RoomTypeNights,
    desired_calendar,
    desired_connected_prices,
    free_rooms_per_night,
    horizon,
)

A, U = Availability.AVAILABLE, Availability.UNAVAILABLE


def d(day: int) -> date:
    return date(2027, 3, day)


def test_free_rooms_per_type_and_night_from_room_runs() -> None:
    rooms = [
        # Room 1 is free for the whole public-example window, as one run (03-conventions).
        RoomNights(1, 10, (NightRun(d(10), d(20), True),)),
        # Room 2 is booked on the nights 13..15.
        RoomNights(
            2, 10, (NightRun(d(10), d(12), True), NightRun(d(13), d(15), False), NightRun(d(16), d(20), True))
        ),
        # Room 3 (another type) is busy throughout.
        RoomNights(3, 20, (NightRun(d(10), d(20), False),)),
        # Room 4: the night 11 is not covered by any run, the night 12 is contradicted.
        RoomNights(
            4, 20, (NightRun(d(10), d(10), True), NightRun(d(12), d(14), True), NightRun(d(12), d(12), False))
        ),
    ]

    free = free_rooms_per_night(rooms, d(10), d(14))

    assert free == {
        10: {d(10): 2, d(11): 2, d(12): 2, d(13): 1, d(14): 1},
        20: {d(10): 1, d(11): 0, d(12): 0, d(13): 1, d(14): 1},
    }


def test_a_run_that_ends_before_it_starts_is_named() -> None:
    with pytest.raises(ValueError, match=r"room 7: run 2027-03-12\.\.2027-03-10 ends before it starts"):
        free_rooms_per_night([RoomNights(7, 1, (NightRun(d(12), d(10), True),))], d(10), d(12))


def test_single_unit_listing_with_closures() -> None:
    nights = horizon(d(1), 5)
    room_type = RoomTypeNights(
        free_rooms={d(1): 1, d(2): 0, d(3): 2, d(4): 1, d(5): 1},
        closed=frozenset({d(4)}),
        nightly_prices={night: Decimal("100.00") for night in nights},
    )

    calendar = desired_calendar(ListingKind.SINGLE, nights, room_type, property_closed={d(5)})

    # 1: a free room; 2: none free; 3: free (two rooms, still one unit); 4: the type is closed;
    # 5: the property is closed.
    assert [calendar[night].available for night in nights] == [A, U, A, U, U]
    assert all(calendar[night].count is None for night in nights)
    assert all(calendar[night].price == 100 for night in nights)


def test_room_type_count_includes_this_channels_own_reservations() -> None:
    nights = horizon(d(1), 3)
    room_type = RoomTypeNights(free_rooms={d(1): 3, d(2): 0, d(3): 1}, closed=frozenset({d(3)}))

    calendar = desired_calendar(
        ListingKind.ROOM_TYPE, nights, room_type, own_reserved_rooms={d(2): 2, d(3): 1}
    )

    # count = free + own: 3 + 0, 0 + 2, 1 + 1. The closed night is unavailable but keeps its
    # count; no PMS price is known, so the channel keeps its prices (price None). The default
    # restriction rule leaves min/max nights unset and no night closed to arrival or departure.
    no_rules = (None, None, False, False)
    assert calendar == {
        d(1): DayState(A, 3, None, *no_rules),
        d(2): DayState(A, 2, None, *no_rules),
        d(3): DayState(U, 2, None, *no_rules),
    }


def test_price_rule_rounds_half_up_to_an_integer() -> None:
    # 99.50 * 1.10 = 109.45, + 5 = 114.45 -> 114
    assert PriceRule(Decimal(10), Decimal(5)).daily_price(Decimal("99.50")) == 114
    # 100.00 + 0.50 = 100.50 -> 101 (banker's rounding would give 100)
    assert PriceRule(fixed_amount=Decimal("0.50")).daily_price(Decimal("100.00")) == 101
    # 101.00 + 0.50 = 101.50 -> 102
    assert PriceRule(fixed_amount=Decimal("0.50")).daily_price(Decimal("101.00")) == 102
    with pytest.raises(ValueError, match=r"dailyPrice -10, which is negative"):
        PriceRule(fixed_amount=Decimal(-20)).daily_price(Decimal("10.00"))


def test_restrictions_follow_the_api_weekday_numbering() -> None:
    # 2027-03-06 is a Saturday (6 in document 01's numbering), 2027-03-07 a Sunday (0).
    rule = RestrictionRule(
        min_nights=2,
        max_nights=14,
        closed_to_arrival_weekdays=frozenset({6}),
        closed_to_departure_weekdays=frozenset({0}),
    )
    nights = horizon(d(5), 3)

    calendar = desired_calendar(
        ListingKind.SINGLE, nights, RoomTypeNights(free_rooms=dict.fromkeys(nights, 1)), restrictions=rule
    )

    assert [
        (s.min_nights, s.max_nights, s.closed_to_arrival, s.closed_to_departure) for s in calendar.values()
    ] == [(2, 14, False, False), (2, 14, True, False), (2, 14, False, True)]


def test_restriction_rule_refuses_bad_values() -> None:
    with pytest.raises(ValueError, match=r"closed_to_arrival_weekdays=\[7\]"):
        RestrictionRule(closed_to_arrival_weekdays=frozenset({7}))
    with pytest.raises(ValueError, match=r"min_nights 5 is more than max_nights 3"):
        RestrictionRule(min_nights=5, max_nights=3)


def test_connected_channel_prices_with_a_non_refundable_discount() -> None:
    nightly = {4: {d(1): Decimal("123.455"), d(2): Decimal("99.99")}}

    prices = desired_connected_prices(nightly, horizon(d(1), 3), discount_percent=Decimal(10))

    # 123.455 -> 123.46 (half-up); -10% = 111.114 -> 111.11. 99.99; -10% = 89.991 -> 89.99.
    # The night 3 has no PMS price: nothing is pushed for it.
    assert prices == {
        PriceKey(4, RoomRateType.STANDARD, d(1)): Decimal("123.46"),
        PriceKey(4, RoomRateType.NON_REFUNDABLE, d(1)): Decimal("111.11"),
        PriceKey(4, RoomRateType.STANDARD, d(2)): Decimal("99.99"),
        PriceKey(4, RoomRateType.NON_REFUNDABLE, d(2)): Decimal("89.99"),
    }


def test_connected_channel_prices_without_a_discount_have_only_the_standard_rate() -> None:
    prices = desired_connected_prices({4: {d(1): Decimal("80")}}, [d(1)])
    assert prices == {PriceKey(4, RoomRateType.STANDARD, d(1)): Decimal("80.00")}


def test_horizon_counts_nights_from_the_first() -> None:
    assert horizon(d(30), 3) == (d(30), d(31), d(31) + timedelta(days=1))
