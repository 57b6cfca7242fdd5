"""Availability derivation on a small property worked out by hand from 03-conventions.

The property: room type A (id 1) with rooms 101 and 102, room type B (id 2) with room 201.
Nights of March 2027, written by day number below.

* reservation on 101, dateFrom 02, dateTo 04: holds nights 02 and 03;
* a cancelled reservation on 102 for the same nights: holds nothing;
* reservation on 201, dateFrom 05, dateTo 07: holds nights 05 and 06;
* room type B closed on night 03; the property closed on night 05.

Rack-rate prices of type A: nights 01-02 100.00, 03-04 120.00, 05 150.00; type B: 80.00 on
nights 01-04 and no price on 05.
"""

from __future__ import annotations

from datetime import UTC, date, datetime
from decimal import Decimal
from typing import Any

import pytest

from roomsync.emulator.errors import ApiError
from roomsync.emulator.pms.availability import NightRun, runs_of_nights
from roomsync.emulator.pms.prices import PriceList
from roomsync.emulator.pms.records import Customer, Room, RoomType, Title
from roomsync.emulator.pms.state import PmsState

TODAY = date(2027, 2, 1)
NOW = datetime(2027, 2, 1, 9, 0, tzinfo=UTC)


def night(day: int) -> date:
    return date(2027, 3, day)


def run(first: int, last: int, available: int) -> NightRun:
    return NightRun(night(first), night(last), available)


@pytest.fixture
def hotel() -> PmsState:
    state = PmsState(clock=lambda: (TODAY, NOW))
    state.room_types[1] = RoomType(1, [Title("A")])
    state.room_types[2] = RoomType(2, [Title("B")])
    state.rooms[101] = Room(101, "101", 1)
    state.rooms[102] = Room(102, "102", 1)
    state.rooms[201] = Room(201, "201", 2)
    rack = PriceList(1, "Rack", "EUR", night(1), is_rack_rate=True)
    rack.set_prices(1, [night(1), night(2)], Decimal("100"))
    rack.set_prices(1, [night(3), night(4)], Decimal("120"))
    rack.set_prices(1, [night(5)], Decimal("150"))
    rack.set_prices(2, [night(d) for d in range(1, 5)], Decimal("80"))
    state.price_lists[1] = rack
    state.customers[1] = Customer(1, "Guest")
    book: dict[str, Any] = {"customer_id": 1, "today": TODAY, "now": NOW}
    state.create_reservation(room_id=101, date_from=night(2), date_to=night(4), status=3, **book)
    state.create_reservation(room_id=102, date_from=night(2), date_to=night(4), status=7, **book)
    state.create_reservation(
        room_id=201, date_from=night(5), date_to=night(7), status=3, total_agreed_price=Decimal("170"), **book
    )
    state.close([night(3)], room_type_id=2)
    state.close([night(5)])
    return state


def test_room_runs_grouped(hotel: PmsState) -> None:
    calendars = {c.room_id: c for c in hotel.room_calendars(night(1), night(6), group_dates=True)}
    assert calendars[101].runs == [run(1, 1, 1), run(2, 3, 0), run(4, 6, 1)]
    assert calendars[102].runs == [run(1, 6, 1)]  # the cancelled reservation holds nothing
    assert calendars[201].runs == [run(1, 4, 1), run(5, 6, 0)]
    assert calendars[201].room_type_id == 2


def test_room_runs_one_per_night(hotel: PmsState) -> None:
    calendars = {c.room_id: c for c in hotel.room_calendars(night(1), night(6), group_dates=False)}
    assert calendars[101].runs == [
        run(1, 1, 1),
        run(2, 2, 0),
        run(3, 3, 0),
        run(4, 4, 1),
        run(5, 5, 1),
        run(6, 6, 1),
    ]
    assert [r.is_available for r in calendars[201].runs] == [1, 1, 1, 1, 0, 0]


def test_single_night_calendar(hotel: PmsState) -> None:
    calendars = {c.room_id: c for c in hotel.room_calendars(night(3), night(3), group_dates=True)}
    assert calendars[101].runs == [run(3, 3, 0)]
    assert calendars[102].runs == [run(3, 3, 1)]


def test_disabled_room_is_never_available(hotel: PmsState) -> None:
    hotel.set_room(102, is_enabled=0)
    calendars = {c.room_id: c for c in hotel.room_calendars(night(1), night(6), group_dates=True)}
    assert calendars[102].runs == [run(1, 6, 0)]
    result = hotel.combined(night(1), night(2))
    assert {a.room_type_id: a.available for a in result.available_rooms} == {1: 1, 2: 1}


def test_combined_min_free_and_room_type_closure(hotel: PmsState) -> None:
    result = hotel.combined(night(1), night(4))  # nights 01, 02, 03
    by_type = {a.room_type_id: a for a in result.available_rooms}
    assert by_type[1].available == 1  # 2, 1, 1 free
    assert by_type[2].available == 1
    assert (by_type[1].is_room_type_closed, by_type[2].is_room_type_closed) == (0, 1)
    assert (by_type[1].is_property_closed, by_type[2].is_property_closed) == (0, 0)
    assert result.closed_dates == []


def test_combined_property_closure(hotel: PmsState) -> None:
    result = hotel.combined(night(4), night(6))  # nights 04, 05
    by_type = {a.room_type_id: a for a in result.available_rooms}
    assert by_type[1].available == 2
    assert by_type[2].available == 0  # 201 is held on 05
    assert (by_type[1].is_property_closed, by_type[2].is_property_closed) == (1, 1)
    assert by_type[2].is_room_type_closed == 0  # B's closure on 03 is outside the window
    assert result.closed_dates == [(night(5), night(5))]


def test_combined_departure_day_is_not_a_night(hotel: PmsState) -> None:
    # dateTo 04 is the departure day: the night of 04 (free for 101) is not in the window 03..04.
    result = hotel.combined(night(3), night(4))
    assert {a.room_type_id: a.available for a in result.available_rooms} == {1: 1, 2: 1}


def test_sold_out_runs(hotel: PmsState) -> None:
    book: dict[str, Any] = {"customer_id": 1, "today": TODAY, "now": NOW}
    price = Decimal("300")
    hotel.create_reservation(
        room_id=101, date_from=night(5), date_to=night(7), status=3, total_agreed_price=price, **book
    )
    hotel.create_reservation(
        room_id=102, date_from=night(6), date_to=night(8), status=4, total_agreed_price=price, **book
    )
    result = hotel.combined(night(4), night(8))
    assert result.sold_out_dates == [(night(6), night(6))]


def test_extended_price_is_total_of_the_nights(hotel: PmsState) -> None:
    prices, currency = hotel.stay_prices(
        night(1), night(4), booking_agency_id=None, promo_code=None, currency_code=None
    )
    assert currency == "EUR"
    assert prices[1] == Decimal("320.00")  # 100 + 100 + 120
    assert prices[2] == Decimal("240.00")


def test_extended_price_of_one_night_is_that_nights_price(hotel: PmsState) -> None:
    prices, _ = hotel.stay_prices(
        night(5), night(6), booking_agency_id=None, promo_code=None, currency_code=None
    )
    assert prices[1] == Decimal("150.00")
    assert prices[2] is None  # B has no price on 05


def test_extended_price_in_another_currency_and_with_promo(hotel: PmsState) -> None:
    hotel.exchange_rates["USD"] = Decimal("1.10")
    hotel.promo_codes["SPRING"] = Decimal("10")
    prices, currency = hotel.stay_prices(
        night(1), night(3), booking_agency_id=None, promo_code="spring", currency_code="usd"
    )
    assert currency == "USD"
    assert prices[1] == Decimal("198.00")  # (100 + 100) * 0.9 * 1.10
    with pytest.raises(ApiError) as error:
        hotel.stay_prices(night(1), night(3), booking_agency_id=None, promo_code=None, currency_code="XYZ")
    assert (error.value.status, error.value.field) == (400, "currencyCode")


def test_early_departure_frees_the_remaining_nights(hotel: PmsState) -> None:
    reservation = next(r for r in hotel.reservations.values() if r.room_id == 201)
    hotel.check_in(reservation.id, today=night(5), now=NOW)
    hotel.check_out(reservation.id, today=night(6), now=NOW)
    assert reservation.reservation_status_id == 6
    calendars = {c.room_id: c for c in hotel.room_calendars(night(5), night(6), group_dates=True)}
    assert calendars[201].runs == [run(5, 5, 0), run(6, 6, 1)]


def test_runs_of_nights() -> None:
    assert runs_of_nights([night(3), night(1), night(2), night(6)]) == [
        (night(1), night(3)),
        (night(6), night(6)),
    ]
