"""Properties of the connected-channel price compiler (POST /v1/ChannelManager/Prices).

Expected element counts come from a brute-force walk over the nights, written here.
"""

from __future__ import annotations

import math
from datetime import date, timedelta
from decimal import Decimal

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from roomsync.core.sync import (
    PriceElement,
    PriceKey,
    RoomRateType,
    apply_price_elements,
    compile_price_ranges,
)

START = date(2027, 1, 1)
prices = st.sampled_from([Decimal("80.00"), Decimal("99.50"), Decimal("120"), Decimal("120.01")])


@st.composite
def price_series(draw: st.DrawFn) -> tuple[dict[PriceKey, Decimal], dict[PriceKey, Decimal]]:
    desired: dict[PriceKey, Decimal] = {}
    ledger: dict[PriceKey, Decimal] = {}
    room_types = draw(st.sets(st.sampled_from([1, 2, 7]), min_size=1))
    rate_types = draw(st.sets(st.sampled_from(list(RoomRateType)), min_size=1))
    for room_type_id in sorted(room_types):
        for rate_type in sorted(rate_types):
            # Segments of equal prices, some long enough to need the 365-day cut.
            segments = draw(
                st.lists(
                    st.tuples(st.integers(1, 400), prices, st.sampled_from(["same", "other", "none"])),
                    min_size=1,
                    max_size=4,
                )
            )
            night = START
            for length, price, ledger_mode in segments:
                for _ in range(length):
                    key = PriceKey(room_type_id, rate_type, night)
                    desired[key] = price
                    if ledger_mode == "same":
                        ledger[key] = price
                    elif ledger_mode == "other":
                        ledger[key] = price + Decimal("1.00")
                    night += timedelta(days=1)
            # A ledger entry outside the desired horizon stays as it is.
            ledger[PriceKey(room_type_id, rate_type, START - timedelta(days=1))] = Decimal("1.00")
    return desired, ledger


def brute_force_element_count(desired: dict[PriceKey, Decimal], ledger: dict[PriceKey, Decimal]) -> int:
    count = 0
    series = sorted({(key.room_type_id, key.rate_type) for key in desired})
    for room_type_id, rate_type in series:
        nights = sorted(key.night for key in desired if key[:2] == (room_type_id, rate_type))
        run_length, previous = 0, None
        for night in nights:
            key = PriceKey(room_type_id, rate_type, night)
            changed = ledger.get(key) != desired[key]
            continues = (
                changed
                and previous is not None
                and previous[0] == night - timedelta(days=1)
                and previous[1] == desired[key]
            )
            if continues:
                run_length += 1
            else:
                count += math.ceil(run_length / 366)
                run_length = 1 if changed else 0
            previous = (night, desired[key]) if changed else None
        count += math.ceil(run_length / 366)
    return count


@settings(max_examples=100, deadline=None)
@given(price_series())
def test_applying_the_elements_to_the_ledger_gives_the_desired_prices(
    case: tuple[dict[PriceKey, Decimal], dict[PriceKey, Decimal]],
) -> None:
    desired, ledger = case
    plan = compile_price_ranges(desired, ledger)
    after = apply_price_elements(ledger, plan.elements)

    for key, price in desired.items():
        assert after[key] == price
    for key, price in ledger.items():
        if key not in desired:
            assert after[key] == price
    assert compile_price_ranges(desired, after).elements == ()


@settings(max_examples=100, deadline=None)
@given(price_series())
def test_elements_are_maximal_equal_price_runs_within_365_days(
    case: tuple[dict[PriceKey, Decimal], dict[PriceKey, Decimal]],
) -> None:
    desired, ledger = case
    plan = compile_price_ranges(desired, ledger)

    assert len(plan.elements) == brute_force_element_count(desired, ledger)
    assert plan.requests == (1 if plan.elements else 0)
    for element in plan.elements:
        assert element.date_from <= element.date_to
        assert (element.date_to - element.date_from).days <= 365
        # Every night an element covers needed exactly that price.
        night = element.date_from
        while night <= element.date_to:
            key = PriceKey(element.room_type_id, element.room_rate_type, night)
            assert desired[key] == element.price != ledger.get(key)
            night += timedelta(days=1)


def test_a_long_run_is_cut_after_366_nights() -> None:
    nights = [START + timedelta(days=offset) for offset in range(400)]
    desired = {PriceKey(5, RoomRateType.STANDARD, night): Decimal("10.00") for night in nights}

    plan = compile_price_ranges(desired, {})

    assert plan.elements == (
        PriceElement(START, START + timedelta(days=365), 5, RoomRateType.STANDARD, Decimal("10.00")),
        PriceElement(START + timedelta(days=366), nights[-1], 5, RoomRateType.STANDARD, Decimal("10.00")),
    )


def test_a_price_with_three_decimals_is_refused() -> None:
    with pytest.raises(ValueError, match=r"more than 2 decimal digits"):
        compile_price_ranges({PriceKey(1, RoomRateType.STANDARD, START): Decimal("10.005")}, {})


def test_an_element_longer_than_365_days_is_refused() -> None:
    with pytest.raises(ValueError, match=r"366 days, more than 365"):
        PriceElement(START, START + timedelta(days=366), 1, RoomRateType.STANDARD, Decimal(1))
