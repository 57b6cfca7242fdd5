"""Document-01 listing transitions, the first-publish rule and the availability-rule limits."""

from __future__ import annotations

from typing import Any

import pytest
from emulator_http import CORNER, DOUBLES, HOST_A, HOST_B, RC, STUDIO, SUITES, Emu, day


def put_listing(emu: Emu, listing_id: str, account: str, action: str, **fields: Any) -> Any:
    return emu.call(
        "PUT", f"{RC}/Listing", {"accountId": account, "listingId": listing_id, "action": action, **fields}
    )


def test_connect_publishes_the_listing_as_approved(emu: Emu) -> None:
    answer = put_listing(
        emu, SUITES, HOST_B, "connect", totalInventoryCount=3, propertyExternalId="demo-hotel"
    )
    assert answer.status_code == 200
    listing = answer.json()
    assert listing["approvalStatus"] == {"statusCategory": "approved", "notes": ""}
    assert listing["connected"] == "Full"
    assert (listing["totalInventoryCount"], listing["propertyExternalId"]) == (3, "demo-hotel")


def test_a_failed_publish_explains_itself_in_the_notes_and_can_be_retried(emu: Emu) -> None:
    failed = put_listing(emu, SUITES, HOST_B, "connect").json()
    assert failed["approvalStatus"]["statusCategory"] == "new"
    assert "totalInventoryCount" in failed["approvalStatus"]["notes"]
    assert failed["connected"] == "Undecided"
    fixed = put_listing(emu, SUITES, HOST_B, "connect", totalInventoryCount=3).json()
    assert fixed["approvalStatus"]["statusCategory"] == "approved"


def test_a_publish_blocked_on_the_host_side_succeeds_once_the_host_fixes_the_listing(emu: Emu) -> None:
    failed = put_listing(emu, CORNER, HOST_B, "connect").json()
    assert "permitOrTaxId" in failed["approvalStatus"]["notes"]
    emu.ctl("POST", "/host/edit-listing", {"listingId": CORNER, "permitOrTaxId": "00000123K0001"})
    assert (
        put_listing(emu, CORNER, HOST_B, "connect").json()["approvalStatus"]["statusCategory"] == "approved"
    )


def test_in_the_rare_case_connect_stays_ready_for_review(emu: Emu) -> None:
    emu.ctl("POST", "/channel/settings", {"manualReviewNext": 1})
    listing = put_listing(emu, SUITES, HOST_B, "connect", totalInventoryCount=3).json()
    assert listing["approvalStatus"]["statusCategory"] == "ready_for_review"
    reviewed = emu.ctl("POST", "/host/approval", {"listingId": SUITES, "statusCategory": "approved"})
    assert reviewed["statusCategory"] == "approved"
    assert emu.ok("GET", f"{RC}/Listing/{HOST_B}/{SUITES}")["approvalStatus"]["statusCategory"] == "approved"


def test_disconnect_stops_management_and_refuses_calendar_writes(emu: Emu) -> None:
    answer = put_listing(emu, STUDIO, HOST_A, "disconnect").json()
    assert answer["connected"] == "Disconnected"
    write = emu.call(
        "PUT",
        f"{RC}/Inventory",
        {"accountId": HOST_A, "listingId": STUDIO, "operations": [{"dateFrom": day(1), "dateTo": day(1)}]},
    )
    assert write.status_code == 409
    assert write.json()["error"]["field"] == "listingId"
    # Reading stays possible, and connecting again brings it back.
    assert (
        emu.call(
            "POST",
            f"{RC}/Inventory",
            {"accountId": HOST_A, "listingId": STUDIO, "dateFrom": day(1), "dateTo": day(1)},
        ).status_code
        == 200
    )
    assert put_listing(emu, STUDIO, HOST_A, "connect").json()["connected"] == "Full"


def test_update_changes_count_property_and_has_availability(emu: Emu) -> None:
    listing = put_listing(
        emu,
        DOUBLES,
        HOST_A,
        "update",
        totalInventoryCount=6,
        propertyExternalId="annex",
        hasAvailability=False,
    ).json()
    assert (listing["totalInventoryCount"], listing["propertyExternalId"], listing["hasAvailability"]) == (
        6,
        "annex",
        False,
    )
    assert listing["connected"] == "Full"  # update is not a connect or a disconnect


def test_update_needs_something_to_change(emu: Emu) -> None:
    response = put_listing(emu, DOUBLES, HOST_A, "update")
    assert response.status_code == 400


@pytest.mark.parametrize("count", [0, -2])
def test_total_inventory_count_must_be_positive(emu: Emu, count: int) -> None:
    response = put_listing(emu, DOUBLES, HOST_A, "update", totalInventoryCount=count)
    assert response.status_code == 400
    assert response.json()["error"]["field"] == "totalInventoryCount"


def test_has_availability_cannot_go_false_before_the_first_publish(emu: Emu) -> None:
    refused = put_listing(emu, SUITES, HOST_B, "update", hasAvailability=False)
    assert refused.status_code == 409
    assert refused.json()["error"]["field"] == "hasAvailability"
    also_on_connect = put_listing(
        emu, SUITES, HOST_B, "connect", totalInventoryCount=3, hasAvailability=False
    )
    assert also_on_connect.status_code == 409
    # After the first publish it is allowed.
    put_listing(emu, SUITES, HOST_B, "connect", totalInventoryCount=3)
    assert (
        put_listing(emu, SUITES, HOST_B, "update", hasAvailability=False).json()["hasAvailability"] is False
    )


def test_an_unknown_action_is_a_400_naming_action(emu: Emu) -> None:
    response = put_listing(emu, STUDIO, HOST_A, "publish")
    assert response.status_code == 400
    assert response.json()["error"]["field"] == "action"


@pytest.mark.parametrize(
    ("field", "value"),
    [
        ("minHoursAhead", 25),
        ("minHoursAhead", 96),
        ("maxDaysNotice", 45),
        ("maxDaysNotice", 400),
        ("preparationTime", 3),
        ("allowRequestToBook", 2),
        ("checkInDays", [7]),
        ("checkOutDays", [-1]),
        ("minNightsForCheckIn", [{"dayOfWeek": 9, "minNights": 2}]),
    ],
)
def test_availability_rules_outside_the_allowed_values_are_refused(emu: Emu, field: str, value: Any) -> None:
    response = emu.call(
        "PUT", f"{RC}/AvailabilityRules", {"accountId": HOST_A, "listingId": STUDIO, field: value}
    )
    assert response.status_code == 400
    assert response.json()["error"]["field"].split(".")[0] == field
    rules = emu.ok("GET", f"{RC}/AvailabilityRules/{HOST_A}/{STUDIO}")
    assert rules["minHoursAhead"] == 0 and rules["maxDaysNotice"] == -1  # unchanged


@pytest.mark.parametrize(
    ("field", "value"),
    [
        ("minHoursAhead", 24),
        ("minHoursAhead", 168),
        ("maxDaysNotice", 330),
        ("maxDaysNotice", 365),
        ("maxDaysNotice", 0),
        ("preparationTime", 2),
        ("allowRequestToBook", 1),
    ],
)
def test_availability_rules_at_the_allowed_values_are_taken(emu: Emu, field: str, value: int) -> None:
    emu.ok("PUT", f"{RC}/AvailabilityRules", {"accountId": HOST_A, "listingId": STUDIO, field: value})
    assert emu.ok("GET", f"{RC}/AvailabilityRules/{HOST_A}/{STUDIO}")[field] == value


def test_default_max_nights_below_default_min_nights_is_refused(emu: Emu) -> None:
    response = emu.call(
        "PUT", f"{RC}/AvailabilityRules", {"accountId": HOST_A, "listingId": STUDIO, "defaultMaxNights": 1}
    )
    assert response.status_code == 400
    assert response.json()["error"]["field"] == "defaultMaxNights"
