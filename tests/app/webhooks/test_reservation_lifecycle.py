"""A channel reservation's life, delivered by the emulator for real and applied to the emulated PMS:
booked, altered, cancelled (twice, with changing payouts), paid out; and a request to book."""

from __future__ import annotations

from decimal import Decimal

from roomsync.adapters.client import RequestRecord
from roomsync.core.ports import InboxStatus
from support.webhooks import (
    PROPERTY,
    STUDIO_A,
    STUDIO_B,
    STUDIO_TYPE,
    TWIN_TYPE,
    TWINS,
    Harness,
    nights_from,
)


def channel_reservation(harness: Harness, code: str) -> object:
    return harness.state.channel.reservations[code]


async def test_a_booking_becomes_one_confirmed_pms_reservation(harness: Harness) -> None:
    result = harness.book(STUDIO_A, 200, 3, firstName="Ingrid", lastName="Larsen", adults=2, children=1)
    assert result["booked"] is True, result
    code = result["confirmationCode"]
    assert [c["succeed"] for c in result["checks"]] == [True, True]
    harness.settle()
    assert await harness.drain() == 1  # the acceptance; the two checks were done on receipt

    pms = harness.the_pms_reservation(code)
    channel = harness.state.channel.reservations[code]
    assert pms.reservation_status_id == 3
    assert (pms.date_from, pms.date_to) == (harness.day(200), harness.day(203))
    assert pms.room_type_id == STUDIO_TYPE
    assert pms.total_agreed_price == channel.base_price + channel.cleaning_fee
    customer = harness.state.pms.customers[pms.customer_id]
    assert (customer.first_name, customer.last_name) == ("Ingrid", "Larsen")
    assert pms.num_adults == 2
    assert "1 children" in (customer.notes or "")
    # the other studio listing is told about exactly the three nights now taken
    assert harness.nights.calls == [(PROPERTY, STUDIO_TYPE, nights_from(harness.day(200), 3), STUDIO_A)]
    assert harness.inbox_counts()[InboxStatus.DONE] == 3


async def test_an_alteration_moves_the_pms_reservation_and_pushes_only_the_changed_nights(
    harness: Harness,
) -> None:
    code = harness.book(TWINS, 210, 3)["confirmationCode"]
    harness.settle()
    await harness.drain()
    harness.nights.calls.clear()
    harness.open_channel(TWINS, 205, 220)

    altered = harness.ctl(
        "POST",
        "/guest/alter",
        {"confirmationCode": code, "startDate": harness.day(211).isoformat(), "nights": 4},
    )
    assert altered["altered"] is True, altered
    harness.settle()
    await harness.drain()

    pms = harness.the_pms_reservation(code)
    assert pms.reservation_status_id == 10
    assert (pms.date_from, pms.date_to) == (harness.day(211), harness.day(215))
    channel = harness.state.channel.reservations[code]
    assert pms.total_agreed_price == channel.base_price + channel.cleaning_fee
    # 210 freed, 214 and 213 taken... the stay was 210-212, is now 211-214: 210, 213, 214 changed
    changed = (harness.day(210), harness.day(213), harness.day(214))
    assert harness.nights.calls == [(PROPERTY, TWIN_TYPE, changed, TWINS)]


async def test_repeated_cancellations_update_the_amounts_and_never_recreate(harness: Harness) -> None:
    code = harness.book(STUDIO_B, 220, 2)["confirmationCode"]
    harness.settle()
    await harness.drain()
    harness.nights.calls.clear()

    harness.ctl("POST", "/guest/cancel", {"confirmationCode": code, "by": "guest"})
    harness.settle()
    await harness.drain()
    pms = harness.the_pms_reservation(code)
    channel = harness.state.channel.reservations[code]
    assert pms.reservation_status_id == 11
    assert pms.total_agreed_price == channel.cancellation_payout + channel.cancellation_host_fee
    assert pms.cancellation_fee_booking_agency == channel.cancellation_host_fee
    assert harness.nights.calls == [(PROPERTY, STUDIO_TYPE, nights_from(harness.day(220), 2), STUDIO_B)]

    harness.ctl("POST", "/guest/cancel", {"confirmationCode": code, "by": "host"})  # the payout changes
    harness.settle()
    await harness.drain()
    pms = harness.the_pms_reservation(code)  # still exactly one
    assert pms.reservation_status_id == 11
    assert pms.total_agreed_price == Decimal("0.00")
    assert len(harness.nights.calls) == 1  # the nights were freed once


async def test_a_payout_becomes_one_payment_even_when_delivered_twice(harness: Harness) -> None:
    harness.ctl("POST", "/webhooks/settings", {"duplicate": True})
    code = harness.book(STUDIO_A, 230, 2)["confirmationCode"]
    harness.settle()
    harness.ctl("POST", "/host/payout", {"confirmationCode": code})
    harness.settle()
    await harness.drain()

    pms = harness.the_pms_reservation(code)
    payments = [p for p in harness.state.pms.payments.values() if p.reservation_id == pms.id]
    channel = harness.state.channel.reservations[code]
    assert [p.amount for p in payments] == [channel.expected_payout]
    assert code in (payments[0].notes or "")


async def test_a_request_is_recorded_and_becomes_a_reservation_only_when_accepted(harness: Harness) -> None:
    requested = harness.ctl(
        "POST",
        "/guest/request",
        {
            "listingId": STUDIO_A,
            "startDate": harness.day(240).isoformat(),
            "nights": 2,
            "message": "Late arrival",
        },
    )
    voided = harness.ctl(
        "POST",
        "/guest/request",
        {"listingId": STUDIO_B, "startDate": harness.day(240).isoformat(), "nights": 2},
    )
    harness.settle()
    await harness.drain()
    assert harness.pms_reservations(requested["confirmationCode"]) == []

    harness.ctl(
        "POST", "/guest/request-decision", {"confirmationCode": requested["confirmationCode"], "accept": True}
    )
    harness.ctl(
        "POST", "/guest/request-decision", {"confirmationCode": voided["confirmationCode"], "accept": False}
    )
    harness.settle()
    await harness.drain()

    accepted = harness.the_pms_reservation(requested["confirmationCode"])
    assert accepted.reservation_status_id == 3
    assert harness.pms_reservations(voided["confirmationCode"]) == []

    records = harness.store.webhook_records
    booking = records.get_booking(PROPERTY, voided["confirmationCode"])
    assert booking is not None and booking.status_type == "pending_voided"


async def test_a_cancellation_stops_counting_its_room_before_the_pms_frees_it(harness: Harness) -> None:
    """A sync run counts a channel reservation in its listing's count while its record holds a
    room (app/sync/own_reservations.py): recorded after the PMS freed the room, a run between the
    two would see the room free and still counted, and offer one room more than the PMS has."""
    code = harness.book(STUDIO_B, 224, 2)["confirmationCode"]
    harness.settle()
    await harness.drain()
    recorded_at_the_pms: list[str] = []

    def at_the_pms(record: RequestRecord) -> None:  # the PMS has freed the room when it answers
        if record.operation == "update_reservation_fields":
            booking = harness.store.webhook_records.get_booking(PROPERTY, code)
            recorded_at_the_pms.append(booking.status_type if booking is not None else "none")

    harness.heard.append(at_the_pms)
    harness.ctl("POST", "/guest/cancel", {"confirmationCode": code, "by": "guest"})
    harness.settle()
    await harness.drain()

    assert harness.the_pms_reservation(code).reservation_status_id == 11
    assert len(recorded_at_the_pms) == 1
    assert recorded_at_the_pms[0].startswith("cancel"), recorded_at_the_pms
