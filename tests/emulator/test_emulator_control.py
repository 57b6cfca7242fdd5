"""The control surface: scenarios, the request log, read-backs and the PMS front desk."""

from __future__ import annotations

from typing import Any

from emulator_http import CORNER, DOUBLES, HOST_A, RC, STUDIO, SUITES, Emu, day


def test_the_demo_scenario_has_the_documented_shape(emu: Emu) -> None:
    scenario = emu.ctl("GET", "/scenario")
    listings = scenario["listings"]
    assert (scenario["name"], scenario["seed"]) == ("demo", 7)
    assert len(listings) == 6
    assert {x["accountId"] for x in listings} == {"2001", "2002"}
    assert {x["inventory"] for x in listings} == {"single-unit", "room-type"}
    assert len({x["pmsRoomTypeId"] for x in listings}) >= 3
    rooms = emu.ok("GET", "/v1/Rooms")
    assert len(rooms) == 20
    by_id = {x["listingId"]: x for x in listings}
    assert by_id[SUITES]["connected"] == by_id[CORNER]["connected"] == "Undecided"
    assert by_id[STUDIO]["pmsRoomId"] is not None and by_id[DOUBLES]["units"] == 8


def test_the_same_seed_builds_the_same_property(emu: Emu) -> None:
    first = emu.calendar(STUDIO, day(0), day(60))
    first_reservations = emu.ctl("GET", "/channel/reservations")
    emu.ctl("POST", "/reset", {"seed": 7})
    assert emu.calendar(STUDIO, day(0), day(60)) == first
    assert emu.ctl("GET", "/channel/reservations") == first_reservations
    emu.ctl("POST", "/reset", {"seed": 8})
    assert emu.calendar(STUDIO, day(0), day(60)) != first


def test_the_demo_channel_calendar_is_stale_against_the_pms(emu: Emu) -> None:
    """A first sync has work: channel prices differ from the PMS rack rate on some nights."""
    emu.ctl("POST", "/reset", {})
    calendar = emu.calendar(DOUBLES, day(0), day(29))
    pms = emu.ok(
        "POST",
        "/v1/Availability/RoomType/CombinedExtended",
        {"dateFrom": day(0), "dateTo": day(1)},
    )
    assert pms["availableRooms"]
    differing = 0
    for offset in range(30):
        quote = emu.ok(
            "POST",
            "/v1/Availability/RoomType/CombinedExtended",
            {"dateFrom": day(offset), "dateTo": day(offset + 1)},
        )
        price = next(r["price"] for r in quote["availableRooms"] if r["roomTypeId"] == 1)
        differing += calendar[offset]["dailyPrice"] != price
    assert 0 < differing < 30
    far = emu.calendar(DOUBLES, day(300), day(300))[0]
    settings = emu.ok("GET", f"{RC}/PricingSettings/{HOST_A}/{DOUBLES}")
    assert far["dailyPrice"] == settings["defaultDailyPrice"]


def test_a_generated_scenario_of_chosen_size(emu: Emu) -> None:
    emu.ctl("POST", "/reset", {"scenario": "generated", "listings": 30, "units": 3, "days": 100})
    listings = emu.ok("GET", f"{RC}/Listings")
    assert len(listings) == 30
    assert {x["totalInventoryCount"] for x in listings} == {3}
    assert emu.ctl("GET", "/scenario")["sizes"] == {"listings": 30, "units": 3, "days": 100}


def test_an_unknown_scenario_is_refused(emu: Emu) -> None:
    assert emu.ctl("POST", "/reset", {"scenario": "mars"}, expect=400)["error"]["field"] == "scenario"


def test_the_request_log_counts_each_endpoint_exactly(emu: Emu) -> None:
    emu.ctl("DELETE", "/requests")
    emu.token()
    for listing in (STUDIO, DOUBLES, STUDIO):
        emu.call("GET", f"{RC}/Listing/{HOST_A}/{listing}", fmt="xml")
    emu.call("GET", f"{RC}/Listing/{HOST_A}/00000000")
    log = emu.ctl("GET", "/requests")
    template = f"GET {RC}/Listing/{{accountId}}/{{listingId}}"
    assert log["counts"] == {"POST /v1/Token": 1, template: 4}
    assert log["byStatus"] == {"POST /v1/Token 200": 1, f"{template} 200": 3, f"{template} 404": 1}
    last = log["recent"][-2]
    assert (last["method"], last["path"], last["status"], last["format"]) == ("GET", template[4:], 200, "xml")
    assert emu.count("GET", template[4:]) == 4


def test_front_desk_booking_and_cancelling_change_pms_availability(emu: Emu) -> None:
    def free(room_type: int, offset: int) -> int:
        counts: dict[str, Any] = emu.ctl("GET", f"/pms/availability?from={day(offset)}&to={day(offset)}")
        return int(counts["freeRooms"][str(room_type)][day(offset)])

    before = free(1, 200)
    booked = emu.ctl(
        "POST", "/pms/book", {"dateFrom": day(200), "dateTo": day(202), "lastName": "Walker", "roomTypeId": 1}
    )
    assert booked["roomTypeId"] == 1
    assert free(1, 200) == before - 1
    emu.ctl("POST", "/pms/cancel", {"reservationId": booked["reservationId"]})
    assert free(1, 200) == before
    reservation = emu.ok("GET", f"/v1/Reservation/{booked['reservationId']}")
    assert reservation["reservationStatusId"] == 7


def test_front_desk_price_change_and_closure_show_in_the_pms_api(emu: Emu) -> None:
    emu.ctl("POST", "/pms/price", {"roomTypeId": 2, "dateFrom": day(210), "dateTo": day(211), "price": 77.7})
    quote = emu.ok(
        "POST", "/v1/Availability/RoomType/CombinedExtended", {"dateFrom": day(210), "dateTo": day(212)}
    )
    assert next(r["price"] for r in quote["availableRooms"] if r["roomTypeId"] == 2) == 155.4
    emu.ctl("POST", "/pms/close", {"dateFrom": day(220), "dateTo": day(220), "roomTypeId": 2})
    closed = emu.ok("POST", "/v1/Availability/RoomType/Combined", {"dateFrom": day(220), "dateTo": day(221)})
    assert next(r["isRoomTypeClosed"] for r in closed["availableRooms"] if r["roomTypeId"] == 2) == 1
    emu.ctl("POST", "/pms/close", {"dateFrom": day(220), "dateTo": day(220), "roomTypeId": 2, "open": True})
    reopened = emu.ok(
        "POST", "/v1/Availability/RoomType/Combined", {"dateFrom": day(220), "dateTo": day(221)}
    )
    assert next(r["isRoomTypeClosed"] for r in reopened["availableRooms"] if r["roomTypeId"] == 2) == 0


def test_front_desk_errors_come_back_as_error_bodies(emu: Emu) -> None:
    refused = emu.ctl(
        "POST",
        "/pms/book",
        {"dateFrom": day(5), "dateTo": day(5), "lastName": "Walker", "roomTypeId": 1},
        expect=400,
    )
    assert refused["error"]["field"] == "dateTo"
    assert emu.ctl("POST", "/pms/cancel", {"reservationId": 1}, expect=404)["error"]["code"] == "NOT_FOUND"


def test_the_calendar_read_back_shows_reserved_units(emu: Emu) -> None:
    emu.ok(
        "PUT",
        f"{RC}/Inventory",
        {
            "accountId": HOST_A,
            "listingId": DOUBLES,
            "operations": [{"dateFrom": day(150), "dateTo": day(151), "countEligible": True, "count": 3}],
        },
    )
    emu.ctl("POST", "/guest/book", {"listingId": DOUBLES, "startDate": day(150), "nights": 1})
    days = emu.calendar(DOUBLES, day(150), day(151))
    assert [(d["availableCount"], d["reserved"]) for d in days] == [(3, 1), (3, 0)]


def test_the_overview_shows_every_part(emu: Emu) -> None:
    overview = emu.ctl("GET", "/")
    assert set(overview) >= {"scenario", "clock", "quota", "auth", "faults", "webhooks", "requests"}
    assert overview["clock"]["frozen"] is True
