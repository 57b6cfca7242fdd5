"""One key of a listing everywhere: ``ListingKey`` and its one text form ``ACCOUNT/LISTING``."""

from __future__ import annotations

from datetime import date

import pytest

from roomsync.core.mapping import parse_mapping
from roomsync.core.ports import ListingKey, listing_text
from roomsync.core.sync import horizon, stay_nights


def test_the_text_form_is_account_slash_listing_and_reads_back() -> None:
    key = ListingKey("hotel-01", "2001", "41000001")
    assert key.text == str(key) == listing_text("2001", "41000001") == "2001/41000001"
    assert ListingKey.parse("hotel-01", key.text) == key
    assert ListingKey.parse("hotel-01", " 2001/41000001 ") == key


@pytest.mark.parametrize("text", ["", "2001", "2001/", "/41000001", "2001/41000001/7"])
def test_a_malformed_key_is_refused_naming_the_text_and_the_form(text: str) -> None:
    with pytest.raises(ValueError) as refused:
        ListingKey.parse("hotel-01", text)
    message = str(refused.value)
    assert repr(text) in message and "ACCOUNT/LISTING" in message and "\n" not in message


def test_the_nights_of_a_stay_are_the_horizon_of_its_length() -> None:
    first = date(2026, 12, 30)
    assert stay_nights(first, 3) == [date(2026, 12, 30), date(2026, 12, 31), date(2027, 1, 1)]
    assert tuple(stay_nights(first, 3)) == horizon(first, 3)
    assert stay_nights(first, 0) == []


def test_a_mapped_listing_gives_its_key_in_the_property() -> None:
    mapping = parse_mapping(
        {
            "currency": "EUR",
            "listing": [
                {
                    "room_type_id": 4,
                    "account_id": "2001",
                    "listing_id": "41000001",
                    "kind": "single",
                    "currency": "EUR",
                },
            ],
        }
    )
    (listing,) = mapping.listings
    assert listing.listing_key("hotel-01") == ListingKey("hotel-01", "2001", "41000001")
    assert listing.listing_key("hotel-01").text == "2001/41000001"
