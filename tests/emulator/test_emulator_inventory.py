"""Channel inventory semantics of 03-conventions on worked examples: the read, the PUT, and how
channel reservations block nights on single-unit and room-type listings."""

from __future__ import annotations

from typing import Any

import pytest
from emulator_http import DOUBLES, HOST_A, RC, STUDIO, Emu, day


def put_inventory(emu: Emu, listing: str, *operations: dict[str, Any]) -> Any:
    return emu.call(
        "PUT", f"{RC}/Inventory", {"accountId": HOST_A, "listingId": listing, "operations": list(operations)}
    )


def op(first: int, last: int, **fields: Any) -> dict[str, Any]:
    return {"dateFrom": day(first), "dateTo": day(last), **fields}


def book(emu: Emu, listing: str, start: int, nights: int, expect: int = 200) -> dict[str, Any]:
    result: dict[str, Any] = emu.ctl(
        "POST",
        "/guest/book",
        {"listingId": listing, "startDate": day(start), "nights": nights},
        expect=expect,
    )
    return result


# --- the read --------------------------------------------------------------------------------------


def test_the_read_has_one_entry_per_day_of_the_inclusive_range(emu: Emu) -> None:
    days = emu.inventory(HOST_A, STUDIO, day(0), day(9))
    assert [d["date"] for d in days] == [day(i) for i in range(10)]
    one = emu.inventory(HOST_A, STUDIO, day(5), day(5))
    assert [d["date"] for d in one] == [day(5)]


def test_the_read_covers_today_up_to_730_days_ahead(emu: Emu) -> None:
    days = emu.inventory(HOST_A, DOUBLES, day(0), day(730))
    assert len(days) == 731
    assert days[-1]["date"] == day(730)
    assert all(d["availableCount"] is not None for d in days)  # room-type listing


@pytest.mark.parametrize(
    ("first", "last", "field"),
    [(-1, 3, "dateFrom"), (0, 731, "dateTo"), (5, 4, "dateTo")],
)
def test_a_read_outside_the_window_or_reversed_is_a_400(emu: Emu, first: int, last: int, field: str) -> None:
    response = emu.call(
        "POST",
        f"{RC}/Inventory",
        {"accountId": HOST_A, "listingId": STUDIO, "dateFrom": day(first), "dateTo": day(last)},
    )
    assert response.status_code == 400
    assert response.json()["error"]["field"] == field


def test_the_window_follows_the_emulator_clock(emu: Emu) -> None:
    emu.ctl("POST", "/clock/advance", {"days": 10})
    assert (
        emu.call(
            "POST",
            f"{RC}/Inventory",
            {"accountId": HOST_A, "listingId": STUDIO, "dateFrom": day(5), "dateTo": day(5)},
        ).status_code
        == 400
    )
    assert len(emu.inventory(HOST_A, STUDIO, day(10), day(740))) == 731


# --- the PUT -------------------------------------------------------------------------------------


def test_operations_apply_in_order_and_the_later_one_wins(emu: Emu) -> None:
    answer = put_inventory(
        emu, STUDIO, op(1, 5, setPrice=True, dailyPrice=100), op(3, 4, setPrice=True, dailyPrice=150)
    )
    assert answer.json() == {"updatedDays": 5}
    prices = [d["dailyPrice"] for d in emu.inventory(HOST_A, STUDIO, day(1), day(5))]
    assert prices == [100, 100, 150, 150, 100]


def test_only_the_flagged_groups_change(emu: Emu) -> None:
    put_inventory(
        emu, STUDIO, op(1, 1, setAvailable=True, available="available", setPrice=True, dailyPrice=90)
    )
    before = emu.inventory(HOST_A, STUDIO, day(1), day(1))[0]
    # Values without their flag are ignored.
    put_inventory(
        emu,
        STUDIO,
        op(1, 1, setPrice=True, dailyPrice=120, available="unavailable", minNights=9, closedToArrival=True),
    )
    after = emu.inventory(HOST_A, STUDIO, day(1), day(1))[0]
    assert after["dailyPrice"] == 120
    assert {k: after[k] for k in ("availability", "minNights", "closedToArrival")} == {
        k: before[k] for k in ("availability", "minNights", "closedToArrival")
    }


def test_an_invalid_operation_rejects_the_whole_request(emu: Emu) -> None:
    before = emu.inventory(HOST_A, STUDIO, day(1), day(3))
    response = put_inventory(
        emu,
        STUDIO,
        op(1, 3, setPrice=True, dailyPrice=333),
        op(2, 731, setAvailable=True, available="unavailable"),
    )
    assert response.status_code == 400
    assert response.json()["error"]["field"] == "operations.1.dateTo"
    assert emu.inventory(HOST_A, STUDIO, day(1), day(3)) == before


@pytest.mark.parametrize(
    ("operation", "field"),
    [
        (op(1, 1, setAvailable=True), "operations.0.available"),
        (op(1, 1, setAvailable=True, available="maybe"), "operations.0.available"),
        (op(1, 1, setPrice=True, dailyPrice=0), "operations.0.dailyPrice"),
        (op(1, 1, countEligible=True, count=1), "operations.0.countEligible"),
        (op(3, 1, setPrice=True, dailyPrice=10), "operations.0.dateTo"),
        (op(1, 1, setRestrictions=True, minNights=4, maxNights=2), "operations.0.maxNights"),
    ],
)
def test_invalid_operations_are_400s_naming_the_field(
    emu: Emu, operation: dict[str, Any], field: str
) -> None:
    response = put_inventory(emu, STUDIO, operation)
    assert response.status_code == 400
    assert response.json()["error"]["field"] == field


def test_count_may_not_exceed_the_total_inventory_count(emu: Emu) -> None:
    response = put_inventory(emu, DOUBLES, op(1, 1, countEligible=True, count=9))
    assert response.status_code == 400
    assert response.json()["error"]["field"] == "operations.0.count"
    assert put_inventory(emu, DOUBLES, op(1, 1, countEligible=True, count=8)).status_code == 200


def test_restrictions_given_change_absent_ones_stay_and_null_unsets(emu: Emu) -> None:
    put_inventory(
        emu, DOUBLES, op(2, 2, setRestrictions=True, minNights=3, maxNights=10, closedToArrival=True)
    )
    put_inventory(emu, DOUBLES, op(2, 2, setRestrictions=True, maxNights=14))
    entry = emu.inventory(HOST_A, DOUBLES, day(2), day(2))[0]
    assert (entry["minNights"], entry["maxNights"], entry["closedToArrival"]) == (3, 14, True)
    put_inventory(emu, DOUBLES, op(2, 2, setRestrictions=True, minNights=None, closedToArrival=None))
    entry = emu.inventory(HOST_A, DOUBLES, day(2), day(2))[0]
    rules = emu.ok("GET", f"{RC}/AvailabilityRules/{HOST_A}/{DOUBLES}")
    assert (entry["minNights"], entry["maxNights"], entry["closedToArrival"]) == (
        rules["defaultMinNights"],
        14,
        False,
    )


def test_a_day_without_a_custom_price_shows_the_default_daily_price(emu: Emu) -> None:
    settings = emu.ok("GET", f"{RC}/PricingSettings/{HOST_A}/{STUDIO}")
    far = emu.inventory(HOST_A, STUDIO, day(500), day(500))[0]
    assert far["dailyPrice"] == settings["defaultDailyPrice"]


# --- channel reservations block nights ---------------------------------------------------------------


def test_a_single_unit_booking_makes_its_nights_unavailable_until_cancelled(emu: Emu) -> None:
    put_inventory(emu, STUDIO, op(40, 46, setAvailable=True, available="available"))
    booked = book(emu, STUDIO, 41, 3)
    assert booked["booked"] is True
    days = emu.inventory(HOST_A, STUDIO, day(40), day(44))
    assert [d["availability"] for d in days] == [
        "available",
        "unavailable",
        "unavailable",
        "unavailable",
        "available",
    ]
    assert days[1]["availabilityType"] == "reserved"
    # The channel does not sell a held night again.
    refused = book(emu, STUDIO, 43, 2, expect=409)
    assert refused["stage"] == "channel"
    emu.ctl("POST", "/guest/cancel", {"confirmationCode": booked["confirmationCode"]})
    days = emu.inventory(HOST_A, STUDIO, day(41), day(43))
    assert [d["availability"] for d in days] == ["available"] * 3


def test_a_room_type_booking_leaves_available_count_and_sells_count_minus_own_reservations(emu: Emu) -> None:
    put_inventory(
        emu, DOUBLES, op(50, 52, setAvailable=True, available="available", countEligible=True, count=2)
    )
    first = book(emu, DOUBLES, 50, 2)
    second = book(emu, DOUBLES, 51, 2)
    assert first["booked"] and second["booked"]
    days = emu.inventory(HOST_A, DOUBLES, day(50), day(52))
    assert [d["availableCount"] for d in days] == [2, 2, 2]
    assert [d["availability"] for d in days] == ["available"] * 3
    assert days[1]["availabilityType"] == "sold_out"  # night 51 holds both reservations
    # Night 51 holds two of two; night 50 and 52 one of two.
    assert book(emu, DOUBLES, 51, 1, expect=409)["stage"] == "channel"
    assert book(emu, DOUBLES, 52, 1)["booked"] is True
    # The count a PMS pushes includes the channel's own reservations: one more room frees a unit.
    put_inventory(emu, DOUBLES, op(51, 51, countEligible=True, count=3))
    assert book(emu, DOUBLES, 51, 1)["booked"] is True


def test_an_unavailable_day_is_not_sold_on_a_room_type_listing(emu: Emu) -> None:
    put_inventory(
        emu, DOUBLES, op(60, 60, setAvailable=True, available="unavailable", countEligible=True, count=5)
    )
    assert book(emu, DOUBLES, 60, 1, expect=409)["stage"] == "channel"


def test_booking_an_unlisted_listing_is_refused_by_the_channel(emu: Emu) -> None:
    emu.call(
        "PUT",
        f"{RC}/Listing",
        {"accountId": HOST_A, "listingId": DOUBLES, "action": "update", "hasAvailability": False},
    )
    assert "not listed" in book(emu, DOUBLES, 70, 1, expect=409)["reason"]


def test_the_reservations_of_a_listing_include_new_bookings(emu: Emu) -> None:
    put_inventory(
        emu, DOUBLES, op(80, 81, setAvailable=True, available="available", countEligible=True, count=4)
    )
    code = book(emu, DOUBLES, 80, 2)["confirmationCode"]
    listed = emu.ok("GET", f"{RC}/Reservations/{HOST_A}/{DOUBLES}")
    mine = next(r for r in listed if r["confirmationCode"] == code)
    assert (mine["nights"], mine["statusType"], mine["listingId"]) == (2, "accept", DOUBLES)
