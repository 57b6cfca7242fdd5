"""Retries against the emulator's injected faults: 429, 5xx, dropped connections, slow creates.

Waits are injected: ``sleep`` records what the client would wait (or awaits the event a test
needs, such as "the emulator finished the slow request"), so nothing here sleeps for timing.
"""

from __future__ import annotations

import asyncio
import dataclasses
from collections.abc import Callable
from datetime import date, timedelta
from decimal import Decimal
from typing import Any

import pytest
from client_harness import FAST_RETRIES, FIXED_NOW, ClientFactory, Control, SlowAnswers

from roomsync.adapters.client import (
    AmbiguousWrite,
    NotFoundError,
    RequestRecord,
    RetriableError,
    ServiceClient,
    Timeouts,
)
from roomsync.core.api import channel
from roomsync.core.api.pms import extra_charges, guests, reservations

ROOMS = "GET /v1/Rooms"
CREATE_RESERVATION = "POST /v1/Reservation"
INVENTORY = "PUT /v1/ChannelManager/RentalChannel/Inventory"
ACCOUNT, STUDIO = "2001", "41000001"
TODAY = FIXED_NOW.date()


async def until(condition: Callable[[], bool], timeout: float = 10.0) -> None:
    """Poll the emulator until ``condition`` holds (the event is on the server's side)."""
    deadline = asyncio.get_running_loop().time() + timeout
    while not condition():
        if asyncio.get_running_loop().time() > deadline:
            raise AssertionError("the emulator never got there")
        await asyncio.sleep(0.02)


def recorded_sleep(waits: list[float]) -> Callable[[float], Any]:
    async def sleep(seconds: float) -> None:
        waits.append(seconds)

    return sleep


def statuses(control: Control, key: str) -> dict[int, int]:
    found: dict[str, int] = control.log()["byStatus"]
    return {int(name.rsplit(" ", 1)[1]): n for name, n in found.items() if name.rsplit(" ", 1)[0] == key}


def new_reservation(code: str, room_type_id: int) -> reservations.ReservationCreateRequest:
    return reservations.ReservationCreateRequest.model_validate(
        {
            "booking_agency_reference_code": code,
            "customer": {"last_name": "Slowpoke", "first_name": "Tim"},
            "currency_code": "EUR",
            "date_from": TODAY + timedelta(days=90),
            "date_to": TODAY + timedelta(days=93),
            "num_adults": 2,
            "reservation_status": 3,
            "room_type_id": room_type_id,
            "total_agreed_price": Decimal("270.00"),
        }
    )


async def a_room_type(client: ServiceClient) -> int:
    room_type = (await client.list_rooms())[0].room_type
    assert room_type is not None
    return room_type.id


async def reservations_with_code(client: ServiceClient, code: str) -> list[int]:
    found = await client.filter_reservations(
        reservations.ReservationFilterRequest.model_validate(
            {
                "booking_agency_reference_code_contains": code,
                "date_type_id": 1,
                "date_from": TODAY + timedelta(days=80),
                "date_to": TODAY + timedelta(days=100),
            }
        )
    )
    return [hit.reservation_id for hit in found]


async def test_a_throttled_request_waits_retry_after_and_succeeds(
    make_client: ClientFactory, control: Control
) -> None:
    waits: list[float] = []
    client = make_client(sleep=recorded_sleep(waits))
    await client.list_accounts()  # the token, before the faults
    control.call("POST", "/clock", {"now": "2027-03-01T23:59:58+00:00", "frozen": True})
    control.faults(throttleNext=2)  # the emulator's 429 asks to wait until its midnight: 2 s

    assert await client.list_rooms()

    assert waits == [2.0, 2.0]
    assert statuses(control, ROOMS) == {429: 2, 200: 1}
    assert client.requests_sent.by_operation["list_rooms"] == 3


async def test_an_inventory_update_converges_under_half_failing_requests(
    make_client: ClientFactory, control: Control
) -> None:
    client = make_client(retry=dataclasses.replace(FAST_RETRIES, max_retries=20))
    await client.list_accounts()
    control.faults(errorNext=2, errorRate=0.5)  # 503, half of the time after two certain ones
    prices = {(10, 12): 111, (20, 24): 122, (11, 21): 133}  # the last overlaps both
    for (first, last), price in prices.items():
        body = channel.InventoryUpdate.model_validate(
            {
                "account_id": ACCOUNT,
                "listing_id": STUDIO,
                "operations": [
                    {
                        "date_from": TODAY + timedelta(days=first),
                        "date_to": TODAY + timedelta(days=last),
                        "set_price": True,
                        "daily_price": price,
                    }
                ],
            }
        )
        updated = await client.update_inventory(body)
        assert updated.updated_days == last - first + 1
    control.call("DELETE", "/faults")

    sent = statuses(control, INVENTORY)
    assert sent[200] == 3 and sent[503] >= 2
    assert client.requests_sent.by_operation["update_inventory"] == sum(sent.values())
    calendar = control.call(
        "GET", f"/channel/calendar/{STUDIO}?from={TODAY + timedelta(days=10)}&to={TODAY + timedelta(days=24)}"
    )["days"]
    expected: dict[date, int] = {}
    for (first, last), price in prices.items():  # later operations win
        for offset in range(first, last + 1):
            expected[TODAY + timedelta(days=offset)] = price
    assert {date.fromisoformat(d["date"]): d["dailyPrice"] for d in calendar} == expected


async def test_dropped_connections_are_survived_and_every_attempt_is_measured(
    make_client: ClientFactory, control: Control
) -> None:
    records: list[RequestRecord] = []
    client = make_client(on_request=records.append)
    await client.list_accounts()
    records.clear()
    control.faults(dropNext=2)

    rooms = await client.list_rooms()

    assert rooms
    assert statuses(control, ROOMS) == {0: 2, 200: 1}  # the emulator logs a hang-up as status 0
    assert [(r.attempt, r.status, r.outcome) for r in records] == [
        (1, None, "maybe_sent"),
        (2, None, "maybe_sent"),
        (3, 200, "ok"),
    ]
    assert {(r.operation, r.path, r.method, r.priority.name) for r in records} == {
        ("list_rooms", "/v1/Rooms", "GET", "RECONCILE")
    }
    assert records[-1].response_bytes > 0 and records[-1].request_bytes == 0


@pytest.mark.parametrize("fmt", ["json", "xml"])
async def test_a_timed_out_reservation_create_is_found_not_duplicated(
    fmt: str, make_client: ClientFactory, control: Control, slow_answers: SlowAnswers
) -> None:
    settled: list[float] = []

    async def settle(seconds: float) -> None:  # the client lets a timed-out create finish first
        settled.append(seconds)
        await until(lambda: control.count(CREATE_RESERVATION) == 1)

    client = make_client(fmt, timeouts=Timeouts(read=0.5), sleep=settle)
    room_type_id = await a_room_type(client)
    code = f"TIMEOUT-{fmt}-7"
    slow_answers.arm("POST", "/v1/Reservation", 2.0)  # created at once, answered after the client gave up

    created = await client.create_reservation(new_reservation(code, room_type_id))

    assert settled, "the client waited before looking"
    assert control.count(CREATE_RESERVATION) == 1  # never resent
    assert client.requests_sent.by_operation["create_reservation"] == 1
    assert client.requests_sent.by_operation["filter_reservations"] == 1  # the lookup
    assert await reservations_with_code(client, code) == [created.id]


async def test_a_create_the_slow_service_never_read_is_sent_again_once(
    make_client: ClientFactory, control: Control
) -> None:
    """The emulator's latency comes before it reads the body: a client that gives up aborts it."""

    def clear_latency_after_the_timeout(record: RequestRecord) -> None:
        if record.operation == "create_reservation" and record.status is None:
            control.call("DELETE", "/faults")

    async def settle(seconds: float) -> None:  # until the emulator has given up on the request
        await until(lambda: control.count(CREATE_RESERVATION) == 1)

    client = make_client(
        timeouts=Timeouts(read=0.5), on_request=clear_latency_after_the_timeout, sleep=settle
    )
    room_type_id = await a_room_type(client)
    control.faults(latencyMs=1500)

    created = await client.create_reservation(new_reservation("ABORTED-1", room_type_id))

    assert control.count(CREATE_RESERVATION) == 2
    assert client.requests_sent.by_operation["filter_reservations"] == 1
    assert await reservations_with_code(client, "ABORTED-1") == [created.id]


async def test_a_dropped_create_that_never_arrived_is_sent_again_once(
    make_client: ClientFactory, control: Control
) -> None:
    client = make_client()
    room_type_id = await a_room_type(client)
    control.faults(dropNext=1)  # the emulator hangs up before creating anything

    created = await client.create_reservation(new_reservation("DROPPED-1", room_type_id))

    assert statuses(control, CREATE_RESERVATION) == {0: 1, 200: 1}
    assert client.requests_sent.by_operation["filter_reservations"] == 1  # looked up before resending
    assert await reservations_with_code(client, "DROPPED-1") == [created.id]


async def test_a_create_without_a_lookup_is_an_ambiguous_write(
    make_client: ClientFactory, control: Control
) -> None:
    client = make_client()
    await client.list_accounts()
    control.faults(dropNext=1)
    charge = extra_charges.PosChargeRequest.model_validate(
        {
            "items": [{"name": "Minibar", "price": Decimal("4.50"), "quantity": 1}],
            "sum": Decimal("4.50"),
            "room_title": "108",
            "last_name": "Nikolaou",
        }
    )
    with pytest.raises(AmbiguousWrite, match="check whether it was created"):
        await client.post_pos_charge(charge)
    assert control.count("POST /v1/ExtraCharge/Pos") == 1


async def test_a_timed_out_delete_that_happened_is_done(make_client: ClientFactory, control: Control) -> None:
    def clear_latency_after_the_timeout(record: RequestRecord) -> None:
        if record.operation == "delete_guest" and record.status is None:
            control.call("DELETE", "/faults")

    async def wait_for_the_first_delete(seconds: float) -> None:
        await until(lambda: control.count("DELETE /v1/Guest/{id}") == 1)

    client = make_client(
        timeouts=Timeouts(read=0.5),
        on_request=clear_latency_after_the_timeout,
        sleep=wait_for_the_first_delete,
    )
    guest = await client.create_guest(
        guests.GuestCreateRequest.model_validate({"first_name": "Al", "last_name": "Gone"})
    )
    control.faults(latencyMs=1500)

    await client.delete_guest(guest.id)  # no NotFoundError: the resend's 404 means the first one did it

    assert statuses(control, "DELETE /v1/Guest/{id}") == {200: 1, 404: 1}
    with pytest.raises(NotFoundError):
        await client.get_guest(guest.id)


async def test_retries_stop_at_max_retries_and_each_one_is_budgeted(
    make_client: ClientFactory, control: Control
) -> None:
    client = make_client(retry=dataclasses.replace(FAST_RETRIES, max_retries=2))
    await client.list_accounts()
    control.faults(errorRate=1.0)

    with pytest.raises(RetriableError, match="gave up after 3 attempts") as gave_up:
        await client.list_rooms()

    assert gave_up.value.status == 503
    assert statuses(control, ROOMS) == {503: 3}
    assert client.budget().used_local == 2 + 3  # token, accounts, three attempts


async def test_a_500_on_a_read_is_retried_and_a_create_is_never_resent(
    make_client: ClientFactory, control: Control
) -> None:
    client = make_client()
    await client.list_accounts()
    control.faults(errorNext=1, errorStatus=500)

    assert await client.list_rooms()  # a read repeated is one read
    assert statuses(control, ROOMS) == {500: 1, 200: 1}

    control.faults(errorNext=1, errorStatus=500)
    charge = extra_charges.PosChargeRequest.model_validate(
        {
            "items": [{"name": "Minibar", "price": Decimal("4.50"), "quantity": 1}],
            "sum": Decimal("4.50"),
            "room_title": "108",
            "last_name": "Nikolaou",
        }
    )
    with pytest.raises(AmbiguousWrite) as failed:
        await client.post_pos_charge(charge)
    assert failed.value.status == 500
    assert control.count("POST /v1/ExtraCharge/Pos") == 1

    control.faults(errorNext=FAST_RETRIES.max_retries + 1, errorStatus=500)  # more than the retries
    with pytest.raises(RetriableError, match="500"):
        await client.list_rooms()
