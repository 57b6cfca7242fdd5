"""Every document-01 endpoint over loopback HTTP, once in JSON and once in XML."""

from __future__ import annotations

from typing import Any

import pytest
from emulator_http import (
    DOUBLES,
    HOST_A,
    HOST_B,
    RC,
    STUDIO,
    TWINS,
    Emu,
    day,
    text,
    xml_of,
)

FORMATS = pytest.mark.parametrize("fmt", ["json", "xml"])


def read(emu: Emu, method: str, path: str, fmt: str, body: dict[str, Any] | None = None, **kw: Any) -> Any:
    """The answer of a call that must succeed: JSON value, XML element, or None when empty."""
    response = emu.call(method, path, body, fmt=fmt, **kw)
    assert response.status_code == 200, f"{method} {path}: {response.status_code} {response.text}"
    if not response.content:
        return None
    return xml_of(response) if fmt == "xml" else response.json()


@FORMATS
def test_accounts_list_and_read(emu: Emu, fmt: str) -> None:
    listed = read(emu, "GET", f"{RC}/Accounts", fmt)
    one = read(emu, "GET", f"{RC}/Account/{HOST_A}", fmt)
    if fmt == "json":
        assert [a["id"] for a in listed] == [HOST_A, HOST_B]
        assert one["firstName"] == "Eleni"
        assert listed[1]["phone"] is None
    else:
        assert [text(a, "Id") for a in listed.findall("Account")] == [HOST_A, HOST_B]
        assert text(one, "FirstName") == "Eleni"


@FORMATS
def test_delete_account_unauthorizes_it(emu: Emu, fmt: str) -> None:
    response = emu.call("DELETE", f"{RC}/Account/{HOST_B}", fmt=fmt)
    assert (response.status_code, response.content) == (200, b"")
    assert emu.call("GET", f"{RC}/Account/{HOST_B}").status_code == 404
    assert [a["id"] for a in emu.ok("GET", f"{RC}/Accounts")] == [HOST_A]
    assert all(x["accountId"] == HOST_A for x in emu.ok("GET", f"{RC}/Listings"))
    assert emu.call("GET", f"{RC}/Listings/{HOST_B}").status_code == 404


@FORMATS
def test_listings_of_all_accounts_and_of_one(emu: Emu, fmt: str) -> None:
    everything = read(emu, "GET", f"{RC}/Listings", fmt)
    of_a = read(emu, "GET", f"{RC}/Listings/{HOST_A}", fmt)
    if fmt == "json":
        assert len(everything) == 6
        assert {x["accountId"] for x in of_a} == {HOST_A}
        assert "currency" not in everything[0] and "price" not in everything[0]
        doubles = next(x for x in everything if x["listingId"] == DOUBLES)
        assert doubles["totalInventoryCount"] == 8
        assert doubles["approvalStatus"]["statusCategory"] == "approved"
    else:
        assert len(everything.findall("Listing")) == 6
        assert {text(x, "AccountId") for x in of_a.findall("Listing")} == {HOST_A}
        assert everything.find("Listing/Currency") is None


@FORMATS
def test_one_listing_carries_currency_and_price(emu: Emu, fmt: str) -> None:
    listing = read(emu, "GET", f"{RC}/Listing/{HOST_A}/{STUDIO}", fmt)
    if fmt == "json":
        assert listing["currency"] == "EUR"
        assert float(listing["price"]) > 0
        assert listing["checkInOption"]["category"] == "keypad"
    else:
        assert text(listing, "Currency") == "EUR"
        assert float(text(listing, "Price") or 0) > 0
        assert text(listing, "CheckInOption/Category") == "keypad"


@FORMATS
def test_update_listing_answers_the_listing(emu: Emu, fmt: str) -> None:
    body = {"accountId": HOST_A, "listingId": DOUBLES, "action": "update", "totalInventoryCount": 7}
    answer = read(emu, "PUT", f"{RC}/Listing", fmt, body, root="Listing")
    if fmt == "json":
        assert answer["totalInventoryCount"] == 7
    else:
        assert text(answer, "TotalInventoryCount") == "7"


@FORMATS
def test_availability_rules_read_and_change(emu: Emu, fmt: str) -> None:
    body = {
        "accountId": HOST_A,
        "listingId": STUDIO,
        "minHoursAhead": 48,
        "maxDaysNotice": 180,
        "checkInDays": [5, 6],
        "minNightsForCheckIn": [{"dayOfWeek": 5, "minNights": 3}],
    }
    items = {"checkInDays": "Day", "minNightsForCheckIn": "Day"}
    assert (
        read(emu, "PUT", f"{RC}/AvailabilityRules", fmt, body, root="AvailabilityRules", items=items) is None
    )
    rules = read(emu, "GET", f"{RC}/AvailabilityRules/{HOST_A}/{STUDIO}", fmt)
    if fmt == "json":
        assert (rules["minHoursAhead"], rules["maxDaysNotice"], rules["checkInDays"]) == (48, 180, [5, 6])
        assert rules["minNightsForCheckIn"] == [{"dayOfWeek": 5, "minNights": 3}]
        assert rules["defaultMinNights"] == 2  # not sent, not changed
    else:
        assert text(rules, "MinHoursAhead") == "48"
        assert [d.text for d in rules.findall("CheckInDays/Day")] == ["5", "6"]
        assert text(rules, "MinNightsForCheckIn/Day/MinNights") == "3"


@FORMATS
def test_inventory_read_and_update(emu: Emu, fmt: str) -> None:
    query = {"accountId": HOST_A, "listingId": DOUBLES, "dateFrom": day(3), "dateTo": day(5)}
    update = {
        "accountId": HOST_A,
        "listingId": DOUBLES,
        "operations": [
            {"dateFrom": day(3), "dateTo": day(4), "setPrice": True, "dailyPrice": 140},
            {"dateFrom": day(5), "dateTo": day(5), "countEligible": True, "count": 2},
        ],
    }
    changed = read(
        emu, "PUT", f"{RC}/Inventory", fmt, update, root="Inventory", items={"operations": "Operation"}
    )
    days = read(emu, "POST", f"{RC}/Inventory", fmt, query, root="Inventory")
    if fmt == "json":
        assert changed == {"updatedDays": 3}
        assert [d["dailyPrice"] for d in days[:2]] == [140, 140]
        assert days[2]["availableCount"] == 2
    else:
        assert changed.tag == "UpdatedDays" and changed.text == "3"
        entries = days.findall("Inventory")
        assert [text(e, "Date") for e in entries] == [day(3), day(4), day(5)]
        assert float(text(entries[0], "DailyPrice") or 0) == 140
        assert text(entries[2], "AvailableCount") == "2"


@FORMATS
def test_pricing_settings_read_and_change(emu: Emu, fmt: str) -> None:
    body = {
        "accountId": HOST_A,
        "listingId": STUDIO,
        "defaultDailyPrice": 95.5,
        "cleaningFee": 30,
        "defaultPricingRules": [
            {"ruleType": "STAYED_AT_LEAST_X_DAYS", "priceChange": -10, "thresholdOne": 7},
        ],
    }
    items = {"defaultPricingRules": "DefaultPricingRule"}
    assert read(emu, "PUT", f"{RC}/PricingSettings", fmt, body, root="PricingSettings", items=items) is None
    settings = read(emu, "GET", f"{RC}/PricingSettings/{HOST_A}/{STUDIO}", fmt)
    if fmt == "json":
        assert (settings["defaultDailyPrice"], settings["cleaningFee"]) == (95.5, 30)
        assert settings["defaultPricingRules"][0]["priceChange"] == -10
    else:
        assert float(text(settings, "DefaultDailyPrice") or 0) == 95.5
        assert text(settings, "DefaultPricingRules/DefaultPricingRule/ThresholdOne") == "7"
    # The default price is what the calendar shows on days without a custom price (far future).
    far = emu.inventory(HOST_A, STUDIO, day(400), day(400))
    assert far[0]["dailyPrice"] == 95.5


@FORMATS
def test_rule_sets_create_list_update_delete(emu: Emu, fmt: str) -> None:
    created = read(
        emu,
        "POST",
        f"{RC}/RuleSet",
        fmt,
        {"accountId": HOST_A, "title": "Summer", "minNights": 3, "pricingRules": []},
        root="RuleSet",
        items={"pricingRules": "PricingRule"},
    )
    rule_set_id = created["id"] if fmt == "json" else text(created, "Id")
    assert rule_set_id
    update = {"accountId": HOST_A, "ruleSetId": rule_set_id, "title": "High summer"}
    assert read(emu, "PUT", f"{RC}/RuleSet", fmt, update, root="RuleSet") is None
    listed = read(emu, "GET", f"{RC}/RuleSets/{HOST_A}", fmt)
    if fmt == "json":
        assert [(r["id"], r["title"], r["minNights"]) for r in listed] == [(rule_set_id, "High summer", 3)]
    else:
        assert [text(r, "Title") for r in listed.findall("RuleSet")] == ["High summer"]
    assert read(emu, "DELETE", f"{RC}/RuleSet/{HOST_A}/{rule_set_id}", fmt) is None
    assert emu.ok("GET", f"{RC}/RuleSets/{HOST_A}") == []
    assert emu.call("DELETE", f"{RC}/RuleSet/{HOST_A}/{rule_set_id}").status_code == 404


@FORMATS
def test_rule_set_timeline_apply_read_remove(emu: Emu, fmt: str) -> None:
    rule_set = emu.ok("POST", f"{RC}/RuleSet", {"accountId": HOST_A, "title": "Weekends"})
    apply = {
        "accountId": HOST_A,
        "listingId": STUDIO,
        "ruleSetId": rule_set["id"],
        "dateFrom": day(10),
        "dateTo": day(20),
    }
    assert read(emu, "POST", f"{RC}/RuleSetTimeline", fmt, apply, root="RuleSetTimeline") is None
    remove = {"accountId": HOST_A, "listingId": STUDIO, "dateFrom": day(14), "dateTo": day(15)}
    assert read(emu, "PUT", f"{RC}/RuleSetTimeline", fmt, remove, root="RuleSetTimeline") is None
    timeline = read(emu, "GET", f"{RC}/RuleSetTimeline/{HOST_A}/{STUDIO}", fmt)
    if fmt == "json":
        assert [(t["dateFrom"], t["dateTo"]) for t in timeline] == [(day(10), day(13)), (day(16), day(20))]
    else:
        assert [text(t, "DateFrom") for t in timeline.findall("RuleSetTimeline")] == [day(10), day(16)]


@FORMATS
def test_channel_reservations_by_code_and_by_listing(emu: Emu, fmt: str) -> None:
    listed = emu.ok("GET", f"{RC}/Reservations/{HOST_A}/{STUDIO}")
    code = listed[0]["confirmationCode"]
    assert len(code) == 10
    one = read(emu, "GET", f"{RC}/Reservation/{HOST_A}/{code}", fmt)
    by_listing = read(emu, "GET", f"{RC}/Reservations/{HOST_A}/{STUDIO}", fmt)
    if fmt == "json":
        assert [r["confirmationCode"] for r in one] == [code]
        assert one[0]["statusType"] == "accept"
        assert "guestPrefferedLocale" in one[0] and "PassThroughTaxAmountPaidToHostAccurate" in one[0]
        assert one[0]["expectedPayoutAmountAccurate"].count(".") == 1
        assert [r["confirmationCode"] for r in by_listing] == [code]
    else:
        assert [text(r, "ConfirmationCode") for r in one.findall("Reservation")] == [code]
        assert len(by_listing.findall("Reservation")) == 1
    assert emu.call("GET", f"{RC}/Reservation/{HOST_B}/{code}").status_code == 404


@FORMATS
def test_channel_names_and_connected_channels(emu: Emu, fmt: str) -> None:
    names = read(emu, "GET", "/v1/ChannelManager/ChannelNames", fmt)
    channels = read(emu, "GET", "/v1/ChannelManager/Channels", fmt)
    if fmt == "json":
        assert {"id": 1, "name": "BookingCom"} in names
        assert {c["isReservationsOnly"] for c in channels} == {0, 1}
        assert channels[0]["parameters"] == [{"name": "has_derived_pricing", "value": "0"}]
    else:
        first = names.find("ChannelName")
        assert first is not None and (first.get("id"), first.text) == ("1", "BookingCom")
        channel = channels.find("Channel")
        assert channel is not None and channel.get("isReservationsOnly") == "0"
        parameter = channel.find("Parameters/Parameter")
        assert parameter is not None and parameter.get("name") == "has_derived_pricing"


@FORMATS
def test_push_prices_answers_the_channel_response(emu: Emu, fmt: str) -> None:
    if fmt == "json":
        body = {
            "pricesForDateRanges": [
                {"dateFrom": day(1), "dateTo": day(10), "roomTypeId": 1, "roomRateType": 1, "price": 120.5}
            ]
        }
        answer = read(emu, "POST", "/v1/ChannelManager/Prices", fmt, body)
        assert answer["result"] == 1
        assert answer["serviceErrors"] == []
    else:
        xml = (
            "<Request><PricesForDateRanges>"
            f'<PriceForDateRange dateFrom="{day(1)}" dateTo="{day(10)}" roomTypeId="1" '
            'roomRateType="1" price="120.50"/>'
            "</PricesForDateRanges></Request>"
        )
        response = emu.client.post(
            "/v1/ChannelManager/Prices",
            content=xml,
            headers={
                "Content-Type": "text/xml",
                "Accept": "application/xml",
                "Authorization": f"Bearer {emu.token()}",
            },
        )
        assert response.status_code == 200, response.text
        assert text(xml_of(response), "Result") == "1"
    emu.ctl("POST", "/channel-manager/process")
    prices = emu.ctl("GET", f"/channel-manager/prices?from={day(1)}&to={day(1)}&roomTypeId=1")
    assert {row["channelId"]: row["prices"][day(1)] for row in prices["channels"]} == {76: 120.5, 77: 120.5}


def test_twins_listing_belongs_to_host_b(emu: Emu) -> None:
    assert emu.call("GET", f"{RC}/Listing/{HOST_A}/{TWINS}").status_code == 404
    assert emu.ok("GET", f"{RC}/Listing/{HOST_B}/{TWINS}")["listingId"] == TWINS
