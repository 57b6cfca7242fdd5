"""Every document-02 operation over real loopback HTTP, in JSON and in XML, and the error answers.

One emulator server for the module; each test gets a fresh small property (``small_property``)
and a frozen emulator clock, so every expected value below is worked out from that property.
"""

from __future__ import annotations

import json
from collections.abc import Iterator
from datetime import UTC, datetime, timedelta
from decimal import Decimal
from typing import Any

import httpx
import pytest
from pms_calls import TODAY, day, small_property

from roomsync.core.catalog import OPERATIONS, by_name
from roomsync.core.codec import (
    ACCEPT,
    CONTENT_TYPE,
    PayloadFormat,
    decode,
    decode_error,
    encode,
    encode_request,
)
from roomsync.emulator.app import create_app
from roomsync.emulator.clock import EmulatorClock
from roomsync.emulator.quota import Credentials
from roomsync.emulator.scenario import build_state
from roomsync.emulator.server import serve_in_thread
from roomsync.emulator.state import EmulatorState

API_KEY = "pms-test-key"
DOCUMENT_02 = {op.name for op in OPERATIONS if op.document == "02"}
FORMATS = [PayloadFormat.JSON, PayloadFormat.XML]


class Refused(Exception):
    def __init__(self, status: int, code: str | None, field: str | None, message: str) -> None:
        super().__init__(f"{status} {code} {field}: {message}")
        self.status, self.code, self.field = status, code, field


class Api:
    """A small client: request bodies built from JSON-shaped dicts, sent and read in one format."""

    def __init__(self, client: httpx.Client, fmt: PayloadFormat) -> None:
        self.client = client
        self.fmt = fmt
        self.called: set[str] = set()

    def __call__(self, name: str, body: Any = None, **params: object) -> Any:
        operation = by_name(name)
        content = None
        if operation.request is not None:
            content = encode_request(operation.request.model_validate(body), self.fmt)
        response = self.raw(name, content, **params)
        self.called.add(name)
        if operation.response is None:
            assert response.content == b""
            return None
        assert response.headers["content-type"].startswith(ACCEPT[self.fmt])
        answer = decode(operation.response, response.content, self.fmt)
        return json.loads(encode(answer, PayloadFormat.JSON))

    def raw(self, name: str, content: bytes | str | None, **params: object) -> httpx.Response:
        """Send ``content`` as it is; a non-200 answer is raised as ``Refused`` read from its body."""
        operation = by_name(name)
        headers = {"Accept": ACCEPT[self.fmt], "apikey": API_KEY}
        if content is not None:
            headers["Content-Type"] = CONTENT_TYPE[self.fmt]
        response = self.client.request(
            operation.method,
            operation.render_path("RentalChannel", **params),
            content=content,
            headers=headers,
        )
        if response.status_code != 200:
            assert response.headers["content-type"].startswith(ACCEPT[self.fmt])
            detail = decode_error(response.content, self.fmt)
            assert detail is not None, response.text
            raise Refused(response.status_code, detail.code, detail.field, detail.message)
        return response

    def refused(self, name: str, body: Any = None, **params: object) -> tuple[int, str | None]:
        with pytest.raises(Refused) as caught:
            self(name, body, **params)
        return caught.value.status, caught.value.field

    def refused_raw(
        self, name: str, json_body: dict[str, Any], xml_body: str, **params: object
    ) -> tuple[int, str | None]:
        """For bodies the request model itself refuses: sent as written, in this format."""
        content = json.dumps(json_body) if self.fmt is PayloadFormat.JSON else xml_body
        with pytest.raises(Refused) as caught:
            self.raw(name, content, **params)
        return caught.value.status, caught.value.field


@pytest.fixture(scope="module")
def server() -> Iterator[tuple[EmulatorState, str]]:
    clock = EmulatorClock(datetime(TODAY.year, TODAY.month, TODAY.day, 10, 0, tzinfo=UTC), frozen=True)
    state = build_state("demo", 1, clock=clock, credentials=Credentials(static_key=API_KEY))
    with serve_in_thread(create_app(state)) as base_url:
        yield state, base_url


@pytest.fixture
def emulator(server: tuple[EmulatorState, str]) -> EmulatorState:
    state, _ = server
    pms = small_property(TODAY)
    pms.clock = lambda: (state.clock.today(), state.clock.now())
    state.pms = pms
    state.quota.set_used(0)
    return state


@pytest.fixture(params=FORMATS, ids=lambda fmt: fmt.value)
def api(
    request: pytest.FixtureRequest, server: tuple[EmulatorState, str], emulator: EmulatorState
) -> Iterator[Api]:
    with httpx.Client(base_url=server[1], timeout=10) as client:
        yield Api(client, request.param)


def new_reservation(api: Api, **fields: Any) -> int:
    body = {
        "customer": {"lastName": "Papadopoulou", "firstName": "Maria", "email": "maria@example.com"},
        "dateFrom": day(1),
        "dateTo": day(3),
        "roomTypeId": 1,
        "reservationStatus": 3,
        **fields,
    }
    return int(api("create_reservation", body)["id"])


def test_every_operation(api: Api, emulator: EmulatorState) -> None:
    # Rooms and the extra-charge catalog.
    assert [(r["id"], r["title"], r["roomType"]["id"]) for r in api("list_rooms")] == [
        (1, "101", 1),
        (2, "102", 1),
        (3, "201", 2),
    ]
    assert api("list_rooms_extended")[2]["numAdultsMax"] == 4
    assert [c["titles"][0]["title"] for c in api("list_extra_charges")] == ["Breakfast", "POS item"]
    assert api("list_extra_charge_categories") == [{"id": 1, "title": "Food"}]

    # Customers.
    loner = api("create_customer", {"lastName": "Loner", "email": "l@example.com", "countryCode": "GR"})["id"]
    assert api("get_customer", id=loner)["email"] == "l@example.com"
    api("update_customer", {"id": loner, "lastName": "Loner", "firstName": "Lou"})
    assert (api("get_customer", id=loner)["email"], api("get_customer", id=loner)["firstName"]) == (
        None,
        "Lou",
    )
    assert [c["id"] for c in api("list_customers")] == [loner]
    assert [c["id"] for c in api("filter_customers", {"NameContains": "lou"})] == [loner]

    # Reservations.
    first = new_reservation(api, board="BB")
    basic = api("get_reservation", id=first)
    assert (basic["dateFrom"], basic["dateTo"], basic["totalAgreedPrice"], basic["board"]) == (
        day(1),
        day(3),
        200.0,
        "BB",
    )
    in_house = new_reservation(api, dateFrom=day(0), dateTo=day(2), roomTypeId=2, reservationStatus=4)
    assert [r["id"] for r in api("get_reservations", {"ReservationIds": [first, in_house]})] == [
        first,
        in_house,
    ]
    [v2] = api("get_reservations_v2", {"ReservationIds": [in_house]})
    assert v2["customer"]["lastName"] == "Papadopoulou"
    assert [r["id"] for r in api("list_future_reservations")] == [in_house, first]
    assert [
        r["reservationId"] for r in api("filter_reservations", {"dateFrom": day(1), "dateTo": day(1)})
    ] == [first]
    assert [r["id"] for r in api("list_checked_in_v2", {"dateFrom": day(0), "dateTo": day(0)})] == [in_house]
    chunk = api("list_reservation_statuses_v2", {"lastReservationId": 0})["reservations"]
    assert chunk == [
        {"reservationId": first, "reservationStatusId": 3},
        {"reservationId": in_house, "reservationStatusId": 4},
    ]
    api("update_reservation", {"id": first, "notes": "quiet room"})
    api("update_reservation_fields", {"dateTo": day(4)}, id=first)
    shown = api("get_reservation", id=first)
    assert (shown["notes"], shown["dateTo"]) == ("quiet room", day(4))

    # Guests.
    guest = api("create_guest", {"firstName": "Eleni", "lastName": "Georgiou", "reservationId": first})["id"]
    other = api("create_guest", {"firstName": "Nikos", "lastName": "Ioannou"})["id"]
    api("update_guest", {"id": guest, "email": "eleni@example.com"})
    assert api("get_guest", id=guest)["email"] == "eleni@example.com"
    api("add_reservation_guest", {"id": other}, reservationId=first)
    assert [g["id"] for g in api("list_reservation_guests", reservationId=first)] == [guest, other]
    api("delete_guest", id=other)
    assert [g["id"] for g in api("list_guests")] == [guest]

    # Extra charges, POS tickets.
    charge = api("add_reservation_extra_charge", {"extraChargeId": 1, "quantity": 2}, id=first)["id"]
    assert [c["unitPrice"] for c in api("list_reservation_extra_charges", id=first)] == [12.5]
    api("delete_reservation_extra_charge", id=first, id2=charge)
    ticket = {
        "items": [{"Name": "Espresso", "Price": 2.5, "Quantity": 2}],
        "roomTitle": "201",
        "timeStamp": f"{day(0)}T08:30:00+03:00",
    }
    api("post_pos_charge", {**ticket, "sum": 5})
    api("update_pos_charge", {**ticket, "items": [{"Name": "Espresso", "Price": 2.5, "Quantity": 3}]})
    assert [(c["notes"], c["quantity"]) for c in api("list_reservation_extra_charges", id=in_house)] == [
        ("Espresso", 3.0)
    ]

    # Groups.
    group = api("group_reservations", {"ReservationIds": [first, in_house]})["groupId"]
    assert api("get_reservation", id=in_house)["groupId"] == group
    api("ungroup_reservations", {"ReservationIds": [first, in_house]})
    assert api("get_reservation", id=in_house)["groupId"] == ""

    # Payment descriptions and payments.
    described = api("create_payment_description", {"Description": "Balance", "IsEnabled": 1})["id"]
    api("update_payment_description", {"Id": described, "Description": "Final balance", "IsEnabled": 1})
    assert [d["Description"] for d in api("list_payment_descriptions")] == ["Deposit", "Old", "Final balance"]
    payment = api(
        "create_payment",
        {
            "reservationId": first,
            "paymentDate": day(0),
            "paymentMethodId": 2,
            "amount": 60,
            "plannedPaymentDescription": "Final balance",
        },
    )["id"]
    api("update_payment", {"id": payment, "amount": 90})
    assert [(p["id"], p["amount"]) for p in api("list_reservation_payments", id=first)] == [(payment, 90.0)]
    api("delete_payment_description", id=described)

    # Contracts.
    contract = api(
        "create_reservation_contract",
        {"ContractStart": day(1), "ContractEnd": day(4), "ReservationId": first},
    )["id"]
    api(
        "update_reservation_contract",
        {"Id": contract, "ContractStart": day(1), "ContractEnd": day(3), "ReservationId": first},
    )
    assert api("get_reservation_contract", reservationId=first)["contractEnd"] == f"{day(3)}T00:00:00"
    api("delete_reservation_contract", id=contract)

    # Availability: 201 is held on nights 0-1, one Double (of two) on nights 1-3.
    rooms = api("room_availability", {"dateFrom": day(0), "dateTo": day(2), "groupDates": 1})
    assert rooms[2]["availabilityDateRanges"] == [
        {"dateRanges": [{"from": day(0), "to": day(1)}], "isAvailable": 0},
        {"dateRanges": [{"from": day(2), "to": day(2)}], "isAvailable": 1},
    ]
    combined = api("room_type_availability", {"dateFrom": day(0), "dateTo": day(2)})
    assert [(a["roomTypeId"], a["available"]) for a in combined["availableRooms"]] == [(1, 1), (2, 0)]
    extended = api(
        "room_type_availability_extended", {"dateFrom": day(5), "dateTo": day(7), "currencyCode": "EUR"}
    )
    assert [(a["roomTypeId"], a["available"], a["price"]) for a in extended["availableRooms"]] == [
        (1, 2, 200.0),
        (2, 1, 400.0),
    ]

    # Invoices: 10% VAT included; 300 accommodation (three nights now).
    preview = api("preview_invoice", {"reservationId": first})
    assert (preview["totalGrossValue"], preview["totalNetValue"], preview["totalTaxes"]) == (
        300.0,
        272.73,
        27.27,
    )
    api("delete_payment", id=payment)
    emulator.pms.issue_invoice(first, issue_date=TODAY + timedelta(days=4), now=emulator.clock.now())
    invoices = api("filter_invoices", {"dateFrom": day(4), "dateTo": day(4)})
    assert [(i["customer"]["lastName"], i["totalGrossValue"]) for i in invoices] == [("Papadopoulou", 300.0)]

    api("delete_customer", {"id": loner})
    assert api.called == DOCUMENT_02, sorted(DOCUMENT_02 - api.called)


def test_validation_errors_name_the_field(api: Api, emulator: EmulatorState) -> None:
    assert api.refused_raw(
        "create_customer", {"firstName": "X"}, "<Customer><FirstName>X</FirstName></Customer>"
    ) == (400, "lastName")
    assert api.refused("create_customer", {"lastName": " "}) == (400, "lastName")
    assert api.refused_raw("create_guest", {"lastName": "X"}, "<Guest><LastName>X</LastName></Guest>") == (
        400,
        "firstName",
    )
    assert api.refused_raw("create_guest", {"firstName": "X"}, "<Guest><FirstName>X</FirstName></Guest>") == (
        400,
        "lastName",
    )
    assert api.refused_raw("update_customer", {"id": 1}, "<Customer><Id>1</Id></Customer>") == (
        400,
        "lastName",
    )
    same_day = {
        "customer": {"lastName": "A"},
        "dateFrom": day(1),
        "dateTo": day(1),
        "roomTypeId": 1,
        "reservationStatus": 3,
    }
    xml_same_day = (
        f"<Reservation><Customer><LastName>A</LastName></Customer><DateFrom>{day(1)}</DateFrom>"
        f"<DateTo>{day(1)}</DateTo><RoomTypeId>1</RoomTypeId><ReservationStatus>3</ReservationStatus></Reservation>"
    )
    assert api.refused_raw("create_reservation", same_day, xml_same_day) == (400, "dateTo")
    no_key = {"items": [{"Name": "Tea", "Price": 2, "Quantity": 1}], "sum": 2, "roomTitle": "201"}
    xml_no_key = (
        "<PosCharge><Items><Name>Tea</Name><Price>2</Price><Quantity>1</Quantity></Items>"
        "<Sum>2</Sum><RoomTitle>201</RoomTitle></PosCharge>"
    )
    assert api.refused_raw("post_pos_charge", no_key, xml_no_key) == (400, "timeStamp")
    one_night = {"dateFrom": day(1), "dateTo": day(1)}
    xml_one_night = f"<Availability><DateFrom>{day(1)}</DateFrom><DateTo>{day(1)}</DateTo></Availability>"
    assert api.refused_raw("room_type_availability", one_night, xml_one_night) == (400, "dateTo")
    assert api.refused(
        "create_reservation", {**same_day, "dateTo": day(2), "roomTypeId": 2, "roomId": 1}
    ) == (
        400,
        "roomTypeId",
    )
    emulator.pms.price_lists[1].is_rack_rate = False
    assert api.refused("create_reservation", {**same_day, "dateTo": day(2)}) == (400, "priceListId")
    # A path id that is not a number.
    with pytest.raises(Refused) as caught:
        api.raw("get_customer", None, id="abc")
    assert (caught.value.status, caught.value.field) == (400, "id")


def test_unknown_ids_are_404(api: Api) -> None:
    assert api.refused("get_customer", id=999)[0] == 404
    assert api.refused("get_guest", id=999)[0] == 404
    assert api.refused("get_reservation", id=999)[0] == 404
    assert api.refused("list_reservation_guests", reservationId=999)[0] == 404
    assert api.refused("get_reservation_contract", reservationId=999)[0] == 404
    assert api.refused("delete_payment", id=999)[0] == 404
    assert api.refused("delete_reservation_contract", id=999)[0] == 404
    assert api.refused("delete_payment_description", id=999)[0] == 404
    assert api.refused("preview_invoice", {"reservationId": 999}) == (404, "reservationId")
    assert api.refused("delete_customer", {"id": 999}) == (404, "id")
    assert api.refused("update_guest", {"id": 999, "email": "x@example.com"}) == (404, "id")
    reservation_id = new_reservation(api)
    assert api.refused("delete_reservation_extra_charge", id=reservation_id, id2=999)[0] == 404
    assert api.refused("add_reservation_extra_charge", {"extraChargeId": 99}, id=reservation_id) == (
        404,
        "extraChargeId",
    )
    pos = {
        "items": [{"Name": "Tea", "Price": 2, "Quantity": 1}],
        "sum": 2,
        "roomTitle": "999",
        "lastName": "X",
    }
    assert api.refused("post_pos_charge", pos) == (404, "roomTitle")


def test_create_reservation_conflict(api: Api, emulator: EmulatorState) -> None:
    new_reservation(api, roomId=3, roomTypeId=2, dateFrom=day(2), dateTo=day(5))
    assert api.refused(
        "create_reservation",
        {
            "customer": {"lastName": "Late"},
            "dateFrom": day(4),
            "dateTo": day(6),
            "roomId": 3,
            "roomTypeId": 2,
            "reservationStatus": 3,
        },
    ) == (409, "roomId")
    # Arriving on the departure day is no conflict; a cancelled booking holds nothing.
    new_reservation(api, roomId=3, roomTypeId=2, dateFrom=day(5), dateTo=day(6))
    new_reservation(api, roomId=3, roomTypeId=2, dateFrom=day(2), dateTo=day(6), reservationStatus=7)
    assert sum(1 for r in emulator.pms.reservations.values() if r.room_id == 3) == 3
    assert emulator.pms.reservations[max(emulator.pms.reservations)].total_agreed_price == Decimal("800.00")
