"""The calendar ledger, the connected-channel price ledger and the PMS price cache."""

from __future__ import annotations

from datetime import UTC, date, datetime, timedelta
from decimal import Decimal

import pytest

from roomsync.adapters.store import Store
from roomsync.core.ports import ChannelDay, ListingKey, RateKey, WindowTotal

START = date(2027, 1, 1)
CONFIRMED = datetime(2026, 12, 31, 23, 59, 59, 123456, tzinfo=UTC)


def year_of_days(listing_number: int) -> list[ChannelDay]:
    """730 days whose every field varies with the day and the listing."""
    return [
        ChannelDay(
            day=START + timedelta(days=i),
            available=("available", "unavailable", "default")[(i + listing_number) % 3],
            count=(i + listing_number) % 5,
            price=Decimal(100 + listing_number) + Decimal(i % 100) / 100,
            min_nights=1 + i % 4,
            max_nights=28 + listing_number,
            cta=i % 7 == 0,
            ctd=i % 7 == 6,
        )
        for i in range(730)
    ]


def test_ledger_holds_730_days_of_50_listings(store: Store, property_id: str) -> None:
    listings = [ListingKey(property_id, f"host-{n % 3}", f"listing-{n}") for n in range(50)]
    for number, listing in enumerate(listings):
        store.calendar.record_confirmed(listing, year_of_days(number), CONFIRMED)

    last = START + timedelta(days=729)
    for number, listing in enumerate(listings):
        read = store.calendar.read_days(listing, START, last)
        assert [entry.state for entry in read.values()] == year_of_days(number)
        assert {entry.confirmed_at for entry in read.values()} == {CONFIRMED}


def test_ledger_range_includes_both_ends(store: Store, property_id: str) -> None:
    listing = ListingKey(property_id, "host", "L1")
    store.calendar.record_confirmed(listing, year_of_days(0)[:10], CONFIRMED)
    read = store.calendar.read_days(listing, START + timedelta(days=2), START + timedelta(days=4))
    assert list(read) == [START + timedelta(days=d) for d in (2, 3, 4)]


def test_a_partial_write_keeps_the_fields_it_did_not_send(store: Store, property_id: str) -> None:
    listing = ListingKey(property_id, "host", "L1")
    full = ChannelDay(START, "available", 2, Decimal("120.00"), 2, 14, False, True)
    store.calendar.record_confirmed(listing, [full], CONFIRMED)
    later = CONFIRMED + timedelta(hours=1)
    store.calendar.record_confirmed(listing, [ChannelDay(START, price=Decimal("99.50"))], later)

    entry = store.calendar.read_days(listing, START, START)[START]
    assert entry.state == ChannelDay(START, "available", 2, Decimal("99.50"), 2, 14, False, True)
    assert entry.confirmed_at == later


def test_forget_days(store: Store, property_id: str) -> None:
    listing = ListingKey(property_id, "host", "L1")
    store.calendar.record_confirmed(listing, year_of_days(0)[:10], CONFIRMED)
    assert store.calendar.forget_days(listing, START, START + timedelta(days=3)) == 4
    assert len(store.calendar.read_days(listing, START, START + timedelta(days=9))) == 6
    assert store.calendar.forget_days(listing) == 6
    assert store.calendar.read_days(listing, START, START + timedelta(days=9)) == {}


def test_pushed_prices_are_kept_exactly_per_rate(store: Store, property_id: str) -> None:
    standard = RateKey(property_id, room_type_id=7, room_rate_type=1)
    non_refundable = RateKey(property_id, room_type_id=7, room_rate_type=2)
    prices = {START + timedelta(days=i): Decimal("0.10") * (i + 1) for i in range(365)}
    store.channel_prices.record_pushed_prices(standard, prices, CONFIRMED)
    store.channel_prices.record_pushed_prices(non_refundable, {START: Decimal("123456789012.34")}, CONFIRMED)

    read = store.channel_prices.read_pushed_prices(standard, START, START + timedelta(days=364))
    assert {day: pushed.price for day, pushed in read.items()} == prices
    assert read[START + timedelta(days=2)].price == Decimal("0.30")
    only = store.channel_prices.read_pushed_prices(non_refundable, START, START + timedelta(days=364))
    assert only[START].price == Decimal("123456789012.34")
    assert len(only) == 1

    store.channel_prices.record_pushed_prices(standard, {START: Decimal("80")}, CONFIRMED + timedelta(days=1))
    again = store.channel_prices.read_pushed_prices(standard, START, START)[START]
    assert (again.price, again.pushed_at) == (Decimal("80.00"), CONFIRMED + timedelta(days=1))


def test_a_price_with_more_than_two_decimals_is_refused(store: Store, property_id: str) -> None:
    rate = RateKey(property_id, 1, 1)
    with pytest.raises(ValueError, match="more than 2 decimal places"):
        store.channel_prices.record_pushed_prices(rate, {START: Decimal("10.005")}, CONFIRMED)
    assert store.channel_prices.read_pushed_prices(rate, START, START) == {}


def test_pms_night_prices_and_window_totals(store: Store, property_id: str) -> None:
    nights = {START + timedelta(days=i): Decimal("89.90") + i for i in range(30)}
    store.pms_prices.save_night_prices(property_id, 3, nights, "EUR", CONFIRMED)
    read = store.pms_prices.read_night_prices(property_id, 3, START, START + timedelta(days=29))
    assert {night: cached.price for night, cached in read.items()} == nights
    assert {(cached.currency, cached.read_at) for cached in read.values()} == {("EUR", CONFIRMED)}
    assert store.pms_prices.read_night_prices(property_id, 4, START, START + timedelta(days=29)) == {}

    window = WindowTotal(START, START + timedelta(days=3), Decimal("269.70"), "EUR", CONFIRMED)
    store.pms_prices.save_window_total(property_id, 3, window)
    assert store.pms_prices.read_window_total(property_id, 3, START, START + timedelta(days=3)) == window
    assert store.pms_prices.read_window_total(property_id, 3, START, START + timedelta(days=4)) is None
    with pytest.raises(ValueError, match="date_from must be before date_to"):
        store.pms_prices.save_window_total(
            property_id, 3, WindowTotal(START, START, Decimal(0), "EUR", CONFIRMED)
        )

    store.pms_prices.save_night_prices(property_id, 4, {START: Decimal("1.00")}, "EUR", CONFIRMED)
    store.pms_prices.clear_pms_prices(property_id, room_type_id=3)
    assert store.pms_prices.read_night_prices(property_id, 3, START, START + timedelta(days=29)) == {}
    assert store.pms_prices.read_window_total(property_id, 3, START, START + timedelta(days=3)) is None
    assert len(store.pms_prices.read_night_prices(property_id, 4, START, START)) == 1
    store.pms_prices.clear_pms_prices(property_id)
    assert store.pms_prices.read_night_prices(property_id, 4, START, START) == {}


def test_a_year_of_prices_read_again_is_what_the_rows_say_after_any_replicas_write(
    store: Store, second_store: Store, property_id: str
) -> None:
    """A replica keeps the prices of the generation it last read (issue 26); a write by another
    replica, a clear, or a write in another currency is seen by its next read all the same."""
    last = START + timedelta(days=364)
    year = {START + timedelta(days=i): Decimal("80.00") + (i // 30) for i in range(365)}
    both = {3: year, 4: {START: Decimal("5.50")}}
    store.pms_prices.save_prices_of_types(property_id, both, "EUR", CONFIRMED)

    def read(which: Store) -> dict[int, dict[date, Decimal]]:
        return which.pms_prices.read_prices_of_types(property_id, [3, 4, 5], START, last, "eur")

    expected = {3: year, 4: {START: Decimal("5.50")}, 5: {}}
    assert read(store) == expected
    assert read(store) == expected  # the generation kept

    changed = {START + timedelta(days=40): Decimal("99.99")}
    second_store.pms_prices.save_night_prices(property_id, 3, changed, "EUR", CONFIRMED)
    assert read(store) == expected | {3: year | changed}

    second_store.pms_prices.clear_pms_prices(property_id, room_type_id=4)
    assert read(store) == expected | {3: year | changed, 4: {}}
    cache = store.pms_prices
    assert cache.read_prices_of_types(property_id, [3], START, START, "USD") == {3: {}}
    assert cache.read_prices_of_types(property_id, [3], START, START, "EUR") == {3: {START: year[START]}}
