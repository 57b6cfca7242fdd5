"""Deliveries that arrive twice, and deliveries that arrive newest first, change nothing twice:
the PMS ends with each reservation once, in its latest state."""

from __future__ import annotations

from roomsync.core.ports import InboxStatus
from support.webhooks import DOUBLE_TYPE, DOUBLES, PROPERTY, STUDIO_A, STUDIO_TYPE, Harness, nights_from


async def test_every_delivery_twice_stores_and_applies_each_event_once(harness: Harness) -> None:
    harness.ctl("POST", "/webhooks/settings", {"duplicate": True})
    code = harness.book(DOUBLES, 250, 2)["confirmationCode"]
    harness.settle()
    harness.ctl("POST", "/guest/cancel", {"confirmationCode": code, "by": "guest"})
    harness.settle()

    deliveries = harness.ctl("GET", "/webhooks")["deliveries"]
    async_ones = [d for d in deliveries if not d["sync"]]
    assert all(len(d["attempts"]) == 2 for d in async_ones)  # the emulator did send each twice
    await harness.drain()

    # CheckAvailability, MakeReservation, the acceptance and the cancellation: four, not six
    assert sum(harness.inbox_counts().values()) == 4
    pms = harness.the_pms_reservation(code)
    assert pms.reservation_status_id == 11
    assert harness.nights.calls == [
        (PROPERTY, DOUBLE_TYPE, nights_from(harness.day(250), 2), DOUBLES),  # taken
        (PROPERTY, DOUBLE_TYPE, nights_from(harness.day(250), 2), DOUBLES),  # freed
    ]


async def test_newest_first_ends_in_the_latest_state(harness: Harness) -> None:
    harness.ctl("POST", "/webhooks/settings", {"reorder": True})
    harness.open_channel(STUDIO_A, 255, 275)
    code = harness.book(STUDIO_A, 260, 2)["confirmationCode"]
    try:
        harness.ctl("POST", "/clock/advance", {"seconds": 2})  # distinct updatedAt of each event
        altered = harness.ctl(
            "POST", "/guest/alter", {"confirmationCode": code, "startDate": harness.day(262).isoformat()}
        )
        assert altered["altered"] is True, altered
        harness.ctl("POST", "/clock/advance", {"seconds": 2})
        harness.ctl("POST", "/guest/cancel", {"confirmationCode": code, "by": "guest"})
    finally:
        harness.ctl("POST", "/clock/advance", {"seconds": -4})
    assert harness.ctl("POST", "/webhooks/release")["released"] == 3  # cancellation, alteration, acceptance
    harness.settle()
    await harness.drain()

    pms = harness.the_pms_reservation(code)
    assert pms.reservation_status_id == 11
    assert (pms.date_from, pms.date_to) == (harness.day(262), harness.day(264))
    # the first news was the cancellation: the PMS never held the nights, so nothing is pushed
    assert harness.nights.calls == []
    # CheckAvailability, MakeReservation, UpdateReservation and the three notifications
    assert harness.inbox_counts()[InboxStatus.DONE] == 6


async def test_newest_first_within_one_second_still_ends_in_the_latest_state(harness: Harness) -> None:
    harness.ctl("POST", "/clock", {"frozen": True})  # every event carries the same updatedAt
    try:
        harness.ctl("POST", "/webhooks/settings", {"reorder": True})
        harness.open_channel(STUDIO_A, 265, 285)
        code = harness.book(STUDIO_A, 270, 3)["confirmationCode"]
        assert harness.ctl("POST", "/guest/alter", {"confirmationCode": code, "nights": 2})["altered"] is True
        harness.ctl("POST", "/webhooks/release")
        harness.settle()
        await harness.drain()
    finally:
        harness.ctl("POST", "/clock", {"frozen": False})

    pms = harness.the_pms_reservation(code)
    assert pms.reservation_status_id == 10
    assert (pms.date_from, pms.date_to) == (harness.day(270), harness.day(272))
    assert harness.nights.calls == [(PROPERTY, STUDIO_TYPE, nights_from(harness.day(270), 2), STUDIO_A)]
