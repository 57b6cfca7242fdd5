"""The mapping is validated before anything is sent, with errors naming the place and rule."""

from __future__ import annotations

import tomllib
from decimal import Decimal
from pathlib import Path
from typing import Any

import pytest

from roomsync.core.mapping import ListingKind, MappingError, parse_mapping

EXAMPLE = Path(__file__).parents[2] / "config" / "mapping.example.toml"


def listing(**overrides: Any) -> dict[str, Any]:
    base: dict[str, Any] = {
        "room_type_id": 1, "account_id": "a", "listing_id": "L1", "kind": "single", "currency": "EUR",
    }
    return {**base, **overrides}


def mapping(*listings: dict[str, Any], **extra: Any) -> dict[str, Any]:
    return {"currency": "EUR", "listing": list(listings), **extra}


def test_documented_example_loads() -> None:
    loaded = parse_mapping(tomllib.loads(EXAMPLE.read_text()), str(EXAMPLE))
    assert [entry.kind for entry in loaded.listings] == [ListingKind.SINGLE, ListingKind.ROOM_TYPE]
    assert loaded.connected[0].non_refundable_discount_percent == Decimal(10)


def test_currency_mismatch_is_rejected_naming_the_listing() -> None:
    with pytest.raises(MappingError, match=r"listing a/L1: currency USD differs from the PMS currency EUR"):
        parse_mapping(mapping(listing(currency="USD")))


@pytest.mark.parametrize(
    ("rules", "accepted"),
    [
        ({"min_hours_ahead": 24}, True), ({"min_hours_ahead": 25}, False),
        ({"min_hours_ahead": 48}, True), ({"min_hours_ahead": 47}, False),
        ({"min_hours_ahead": 168}, True), ({"min_hours_ahead": 169}, False),
        ({"max_days_notice": 330}, True), ({"max_days_notice": 331}, False),
        ({"max_days_notice": 365}, True), ({"max_days_notice": 360}, False),
        ({"max_days_notice": -1}, True), ({"max_days_notice": -2}, False),
        ({"preparation_time": 2}, True), ({"preparation_time": 3}, False),
        ({"allow_request_to_book": -1}, True), ({"allow_request_to_book": -2}, False),
        ({"check_in_days": [0, 6]}, True), ({"check_in_days": [7]}, False),
    ],
)
def test_availability_rules_are_checked_before_sending(rules: dict[str, Any], accepted: bool) -> None:
    data = mapping(listing(availability_rules=rules))
    if accepted:
        assert parse_mapping(data).listings[0].availability_rules is not None
    else:
        field = next(iter(rules))
        with pytest.raises(MappingError, match=rf"listing L1\)\.availability_rules\.{field}"):
            parse_mapping(data)


def test_weekdays_and_min_max_nights() -> None:
    with pytest.raises(MappingError, match="closed_to_arrival"):
        parse_mapping(mapping(listing(restrictions={"closed_to_arrival": [7]})))
    with pytest.raises(MappingError, match="min_nights 5 is above max_nights 3"):
        parse_mapping(mapping(listing(restrictions={"min_nights": 5, "max_nights": 3})))


def test_duplicate_listing_and_unknown_key_are_rejected() -> None:
    with pytest.raises(MappingError, match="mapped twice"):
        parse_mapping(mapping(listing(), listing(room_type_id=2)))
    with pytest.raises(MappingError, match="markup"):
        parse_mapping(mapping(listing(price={"markup": 3})))
