"""The PMS state's rules: booking, conflicts, cancellations, prices, closures, invoices, seeds."""

from __future__ import annotations

import random
from datetime import UTC, date, datetime, timedelta
from decimal import Decimal

import pytest

from roomsync.emulator.errors import ApiError
from roomsync.emulator.pms.invoices import TaxSettings
from roomsync.emulator.pms.prices import PriceList
from roomsync.emulator.pms.records import ReservationExtraCharge, Room, RoomType, Title
from roomsync.emulator.pms.seed import generate_pms, seed_demo_pms
from roomsync.emulator.pms.state import PmsState

TODAY = date(2027, 5, 1)
NOW = datetime(2027, 5, 1, 10, 0, tzinfo=UTC)


def day(offset: int) -> date:
    return TODAY + timedelta(days=offset)


@pytest.fixture
def hotel() -> PmsState:
    """Type 1 with rooms 1 and 2, type 2 with room 3; rack rate 100.00 a night for 60 nights."""
    state = PmsState(clock=lambda: (TODAY, NOW), taxes=TaxSettings(vat_percentage=Decimal("13")))
    state.room_types[1] = RoomType(1, [Title("Double")])
    state.room_types[2] = RoomType(2, [Title("Suite")])
    state.rooms[1] = Room(1, "101", 1)
    state.rooms[2] = Room(2, "102", 1)
    state.rooms[3] = Room(3, "201", 2)
    rack = PriceList(1, "Rack", "EUR", TODAY, is_rack_rate=True)
    for room_type_id in (1, 2):
        rack.set_prices(room_type_id, [day(i) for i in range(60)], Decimal("100"))
    state.price_lists[1] = rack
    return state


def error_of(action: object) -> ApiError:
    assert callable(action)
    with pytest.raises(ApiError) as caught:
        action()
    return caught.value


def test_booking_by_room_type_takes_a_free_room_until_none_is_left(hotel: PmsState) -> None:
    first = hotel.book(room_type_id=1, date_from=day(1), date_to=day(3), last_name="Alpha")
    second = hotel.book(room_type_id=1, date_from=day(2), date_to=day(4), last_name="Beta")
    assert {hotel.reservations[first].room_id, hotel.reservations[second].room_id} == {1, 2}
    error = error_of(lambda: hotel.book(room_type_id=1, date_from=day(2), date_to=day(3), last_name="Gamma"))
    assert (error.status, error.field) == (409, "roomTypeId")


def test_a_held_room_conflicts_but_the_departure_day_is_free(hotel: PmsState) -> None:
    hotel.book(room_id=1, date_from=day(1), date_to=day(3), last_name="Alpha")
    error = error_of(lambda: hotel.book(room_id=1, date_from=day(2), date_to=day(5), last_name="Beta"))
    assert (error.status, error.field) == (409, "roomId")
    hotel.book(room_id=1, date_from=day(3), date_to=day(5), last_name="Beta")  # arrives as Alpha leaves


def test_a_failed_booking_leaves_no_customer_behind(hotel: PmsState) -> None:
    hotel.book(room_id=1, date_from=day(1), date_to=day(3), last_name="Alpha")
    before = dict(hotel.customers)
    error_of(lambda: hotel.book(room_id=1, date_from=day(1), date_to=day(2), last_name="Beta"))
    assert hotel.customers == before


def test_stay_must_be_at_least_one_night(hotel: PmsState) -> None:
    error = error_of(lambda: hotel.book(room_type_id=1, date_from=day(3), date_to=day(3), last_name="A"))
    assert (error.status, error.field) == (400, "dateTo")


def test_price_list_is_required_without_rack_rate(hotel: PmsState) -> None:
    hotel.price_lists[1].is_rack_rate = False
    error = error_of(lambda: hotel.book(room_type_id=1, date_from=day(1), date_to=day(2), last_name="A"))
    assert (error.status, error.field) == (400, "priceListId")


def test_agreed_price_defaults_to_the_nightly_prices(hotel: PmsState) -> None:
    hotel.change_price(1, [day(2)], Decimal("130"))
    reservation = hotel.reservations[
        hotel.book(room_type_id=1, date_from=day(1), date_to=day(4), last_name="A")
    ]
    assert reservation.total_agreed_price == Decimal("330.00")
    assert reservation.normal_price == Decimal("330.00")
    priced = hotel.reservations[
        hotel.book(room_type_id=1, date_from=day(1), date_to=day(4), last_name="B", price=Decimal("250"))
    ]
    assert (priced.total_agreed_price, priced.normal_price) == (Decimal("250.00"), Decimal("330.00"))


def test_cancelling_frees_the_room(hotel: PmsState) -> None:
    booked = hotel.book(room_id=3, date_from=day(1), date_to=day(3), last_name="Alpha")
    hotel.cancel(booked)
    assert hotel.reservations[booked].reservation_status_id == 7
    assert hotel.reservations[booked].cancel_date == NOW
    hotel.book(room_id=3, date_from=day(1), date_to=day(3), last_name="Beta")
    # Reconfirming the cancelled one would double-book room 201.
    error = error_of(
        lambda: hotel.set_reservation_status(hotel.reservations[booked], 3, today=TODAY, now=NOW)
    )
    assert error.status == 409


@pytest.mark.parametrize(("status", "cancelled_as"), [(1, 8), (2, 11), (10, 11), (3, 7), (4, 7)])
def test_cancellation_status_follows_the_origin(hotel: PmsState, status: int, cancelled_as: int) -> None:
    booked = hotel.book(room_id=1, date_from=day(1), date_to=day(2), last_name="A", status=status)
    hotel.cancel(booked)
    assert hotel.reservations[booked].reservation_status_id == cancelled_as


def test_moving_a_reservation_checks_only_the_new_nights(hotel: PmsState) -> None:
    first = hotel.book(room_id=1, date_from=day(1), date_to=day(3), last_name="A")
    hotel.book(room_id=1, date_from=day(4), date_to=day(6), last_name="B")
    reservation = hotel.reservations[first]
    error = error_of(lambda: hotel.change_stay(reservation, date_to=day(5), today=TODAY, now=NOW))
    assert error.status == 409
    assert reservation.date_to == day(3)  # unchanged after the refusal
    hotel.set_room(1, is_enabled=0)
    hotel.change_stay(reservation, date_to=day(2), today=TODAY, now=NOW)  # shrinking needs no free room
    assert reservation.date_to == day(2)
    hotel.change_stay(reservation, room_type_id=2, today=TODAY, now=NOW)
    assert (reservation.room_id, reservation.room_type_id) == (3, 2)


def test_change_price_outside_the_list_extends_it(hotel: PmsState) -> None:
    hotel.change_price(2, [day(-2), day(70)], Decimal("90.50"))
    rack = hotel.price_lists[1]
    assert rack.price(2, day(-2)) == Decimal("90.50")
    assert rack.price(2, day(70)) == Decimal("90.50")
    assert rack.price(2, day(65)) is None
    assert rack.price(1, day(0)) == Decimal("100.00")


def test_close_and_open(hotel: PmsState) -> None:
    hotel.close([day(5), day(6)], room_type_id=1)
    hotel.close([day(6)])
    window = hotel.combined(day(5), day(7))
    assert {a.room_type_id: a.is_room_type_closed for a in window.available_rooms} == {1: 1, 2: 0}
    assert window.closed_dates == [(day(6), day(6))]
    hotel.open([day(5), day(6)], room_type_id=1)
    hotel.open([day(6)])
    window = hotel.combined(day(5), day(7))
    assert all(a.is_room_type_closed == 0 and a.is_property_closed == 0 for a in window.available_rooms)


def test_invoice_preview_and_issue(hotel: PmsState) -> None:
    booked = hotel.book(room_id=1, date_from=day(1), date_to=day(3), last_name="A", price=Decimal("226"))
    hotel.reservation_extra_charges[1] = ReservationExtraCharge(
        1, booked, 1, "Breakfast", Decimal("2"), Decimal("11.30"), day(1), NOW
    )
    preview = hotel.invoice_preview(hotel.reservations[booked], today=TODAY, now=NOW)
    # 226.00 incl. 13% VAT = 200.00 net + 26.00; 22.60 = 20.00 + 2.60.
    assert [(line.item_type, line.gross_subtotal, line.net_subtotal) for line in preview.lines] == [
        (1, Decimal("226.00"), Decimal("200.00")),
        (7, Decimal("22.60"), Decimal("20.00")),
    ]
    assert preview.lines[0].quantity == 2 and preview.lines[0].gross_unit_price == Decimal("113.00")
    assert (preview.total_gross_value, preview.total_net_value, preview.total_taxes) == (
        Decimal("248.60"),
        Decimal("220.00"),
        Decimal("28.60"),
    )
    assert preview.taxes[0].amount == Decimal("28.60") and preview.taxes[0].is_included == 1
    assert {line.id for line in preview.lines} == {-1}
    issued = hotel.issue_invoice(booked, issue_date=day(3))
    assert issued.id is not None and issued.number
    assert hotel.reservations[booked].invoice_id == issued.id
    assert hotel.invoices[issued.id].issue_date == day(3)


def test_tax_exempt_customer_and_extra_tax(hotel: PmsState) -> None:
    booked = hotel.book(room_id=1, date_from=day(1), date_to=day(2), last_name="A", price=Decimal("200"))
    hotel.taxes = TaxSettings(vat_percentage=Decimal("13"), extra_tax_percentage=Decimal("1.5"))
    reservation = hotel.reservations[booked]
    preview = hotel.invoice_preview(reservation, today=TODAY, now=NOW)
    assert (preview.total_extra_taxes, preview.total_gross_value) == (Decimal("3.00"), Decimal("203.00"))
    assert preview.extra_taxes[0].is_included == 0
    hotel.customers[reservation.customer_id].is_sales_tax_exempt = 1
    preview = hotel.invoice_preview(reservation, today=TODAY, now=NOW)
    assert preview.total_net_value == Decimal("200.00") and preview.total_taxes == Decimal("0.00")


def held_nights_per_room(state: PmsState) -> dict[int, list[date]]:
    held: dict[int, list[date]] = {}
    for reservation in state.reservations.values():
        span = reservation.held_nights()
        if span:
            nights = held.setdefault(reservation.room_id, [])
            nights.extend(span[0] + timedelta(days=i) for i in range((span[1] - span[0]).days))
    return held


def test_demo_seed(hotel: PmsState) -> None:
    state = seed_demo_pms(random.Random(7), today=TODAY)
    assert len(state.room_types) >= 3 and len(state.rooms) >= 20
    rack = state.rack_rate()
    assert rack is not None
    year = [TODAY + timedelta(days=i) for i in range(365)]
    prices = {rack.price(1, night) for night in year}
    assert None not in prices and len(prices) > 3  # seasons and weekends differ
    assert state.property_closures and any(state.room_type_closures.values())
    assert any(r.date_from > TODAY for r in state.reservations.values())
    assert any(r.reservation_status_id == 4 for r in state.reservations.values())
    for room_id, nights in held_nights_per_room(state).items():
        assert len(nights) == len(set(nights)), f"room {room_id} is double-booked"
    again = seed_demo_pms(random.Random(7), today=TODAY)
    assert sorted(again.reservations) == sorted(state.reservations)


def test_generated_property() -> None:
    state = generate_pms(random.Random(3), room_types=50, rooms_per_type=3, days=730, today=TODAY)
    assert len(state.room_types) == 50 and len(state.rooms) == 150
    rack = state.rack_rate()
    assert rack is not None
    assert rack.price(50, TODAY + timedelta(days=729)) is not None
    assert rack.price(50, TODAY + timedelta(days=730)) is None
    for room_id, nights in held_nights_per_room(state).items():
        assert len(nights) == len(set(nights)), f"room {room_id} is double-booked"
    assert state.reservations


def test_new_nights_reprice_an_agreed_price_that_followed_the_list(hotel: PmsState) -> None:
    following = hotel.reservations[hotel.book(room_id=1, date_from=day(1), date_to=day(3), last_name="A")]
    agreed = hotel.reservations[
        hotel.book(room_id=2, date_from=day(1), date_to=day(3), last_name="B", price=Decimal("150"))
    ]
    for reservation in (following, agreed):
        hotel.change_stay(reservation, date_to=day(4), today=TODAY, now=NOW)
    assert (following.total_agreed_price, following.normal_price) == (Decimal("300.00"), Decimal("300.00"))
    assert (agreed.total_agreed_price, agreed.normal_price) == (Decimal("150.00"), Decimal("300.00"))
