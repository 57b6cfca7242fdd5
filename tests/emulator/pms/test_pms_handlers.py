"""Every document-02 handler, called as the app calls it (body through the request model, answer
through the response model in JSON and XML), on a small hand-built property."""

from __future__ import annotations

from collections.abc import Callable
from datetime import timedelta
from decimal import Decimal
from typing import Any

import pytest
from pms_calls import TODAY, Desk, day, desk, small_property

from roomsync.core.codec import PayloadFormat
from roomsync.core.errors import LimitViolation
from roomsync.emulator.errors import ApiError


@pytest.fixture
def front() -> Desk:
    return desk(small_property(TODAY), TODAY)


def refusal(action: Callable[[], Any]) -> tuple[int, str | None]:
    """(status, field) of a refused call: a model limit violation is a 400 naming the field."""
    try:
        action()
    except ApiError as error:
        return error.status, error.field
    except LimitViolation as error:
        return 400, error.field
    raise AssertionError("the call was accepted")


def book(front: Desk, **fields: Any) -> int:
    body = {
        "customer": {"lastName": "Papadopoulou", "firstName": "Maria"},
        "dateFrom": day(1),
        "dateTo": day(3),
        "roomTypeId": 1,
        "reservationStatus": 3,
        **fields,
    }
    return int(front.call("create_reservation", body)["id"])


# --- customers ---------------------------------------------------------------------


def test_customer_lifecycle(front: Desk) -> None:
    created = front.call(
        "create_customer",
        {
            "lastName": "Smith",
            "firstName": "Anna",
            "email": "anna@example.com",
            "countryCode": "gb",
            "mobile": "6900000001",
            "categories": [{"id": 1}],
        },
    )
    customer_id = created["id"]
    shown = front.call("get_customer", id=customer_id)
    assert (shown["lastName"], shown["countryCode"], shown["categories"]) == (
        "Smith",
        "GB",
        [{"id": 1, "title": "VIP"}],
    )
    # PUT replaces: the e-mail and the categories, not sent, go back to their defaults.
    assert front.call("update_customer", {"id": customer_id, "lastName": "Smith-Jones"}) is None
    shown = front.call("get_customer", id=customer_id)
    assert (shown["lastName"], shown["email"], shown["categories"], shown["isSalesTaxExempt"]) == (
        "Smith-Jones",
        None,
        [],
        0,
    )
    assert [c["id"] for c in front.call("list_customers")] == [customer_id]
    assert front.call("delete_customer", {"id": customer_id}) is None
    assert refusal(lambda: front.call("get_customer", id=customer_id)) == (404, None)


def test_customer_rules(front: Desk) -> None:
    assert refusal(lambda: front.call("create_customer", {"firstName": "No last name"})) == (400, "lastName")
    assert refusal(lambda: front.call("create_customer", {"lastName": "  "})) == (400, "lastName")
    assert refusal(lambda: front.call("create_customer", {"lastName": "X", "categories": [{"id": 9}]})) == (
        400,
        "categories.0.id",
    )
    assert refusal(lambda: front.call("update_customer", {"id": 999, "lastName": "X"})) == (404, "id")
    assert refusal(lambda: front.call("update_customer", {"id": 999})) == (400, "lastName")
    assert refusal(lambda: front.call("delete_customer", {"id": 999})) == (404, "id")
    reservation_id = book(front)
    holder = front.pms.reservations[reservation_id].customer_id
    assert refusal(lambda: front.call("delete_customer", {"id": holder})) == (409, "id")


def test_customer_filter(front: Desk) -> None:
    ids = {}
    for last, first, country, phone in (
        ("Rossi", "Chiara", "IT", "555-1234"),
        ("Rossini", "Marco", "IT", None),
        ("Muller", "Rossa", "DE", None),
    ):
        ids[last] = front.call(
            "create_customer", {"lastName": last, "firstName": first, "countryCode": country, "phone": phone}
        )["id"]
    found = front.call("filter_customers", {"NameContains": "ross"})
    assert sorted(c["lastName"] for c in found) == ["Muller", "Rossi", "Rossini"]  # first or last name
    found = front.call("filter_customers", {"NameContains": "ross", "CountryIs": {"Id": "IT"}})
    assert sorted(c["lastName"] for c in found) == ["Rossi", "Rossini"]
    assert [c["id"] for c in front.call("filter_customers", {"PhoneContains": "1234"})] == [ids["Rossi"]]
    assert front.call("filter_customers", {"CustomerId": ids["Muller"], "NameContains": "chiara"}) == []


# --- guests ---------------------------------------------------------------------


def test_guest_lifecycle(front: Desk) -> None:
    reservation_id = book(front)
    guest_id = front.call(
        "create_guest",
        {
            "firstName": "Eleni",
            "lastName": "Georgiou",
            "reservationId": reservation_id,
            "isPrimaryGuest": 1,
            "email": "eleni@example.com",
            "idDocType": 1,
        },
    )["id"]
    loose_id = front.call("create_guest", {"firstName": "Nikos", "lastName": "Ioannou"})["id"]
    assert [g["id"] for g in front.call("list_reservation_guests", reservationId=reservation_id)] == [
        guest_id
    ]
    assert sorted(g["id"] for g in front.call("list_guests")) == sorted([guest_id, loose_id])
    # PUT changes only what is sent.
    assert front.call("update_guest", {"id": guest_id, "phoneNumber": "2100000000"}) is None
    shown = front.call("get_guest", id=guest_id)
    assert (shown["phoneNumber"], shown["email"], shown["firstName"], shown["idDocType"]) == (
        "2100000000",
        "eleni@example.com",
        "Eleni",
        "1",
    )
    assert front.call("add_reservation_guest", {"id": loose_id}, reservationId=reservation_id) is None
    listed = front.call("list_reservation_guests", reservationId=reservation_id)
    assert [g["id"] for g in listed] == [guest_id, loose_id]
    assert front.call("delete_guest", id=guest_id) is None
    assert [g["id"] for g in front.call("list_reservation_guests", reservationId=reservation_id)] == [
        loose_id
    ]


def test_guest_rules(front: Desk) -> None:
    assert refusal(lambda: front.call("create_guest", {"lastName": "Only"})) == (400, "firstName")
    assert refusal(lambda: front.call("create_guest", {"firstName": "Only"})) == (400, "lastName")
    assert refusal(
        lambda: front.call("create_guest", {"firstName": "A", "lastName": "B", "reservationId": 5})
    ) == (
        404,
        "reservationId",
    )
    guest_id = front.call("create_guest", {"firstName": "A", "lastName": "B"})["id"]
    assert refusal(lambda: front.call("update_guest", {"firstName": "X"})) == (400, "id")
    assert refusal(lambda: front.call("update_guest", {"id": 1})) == (404, "id")
    assert refusal(lambda: front.call("update_guest", {"id": guest_id, "lastName": ""})) == (400, "lastName")
    assert refusal(lambda: front.call("get_guest", id=1)) == (404, None)
    assert refusal(lambda: front.call("delete_guest", id=1)) == (404, None)
    assert refusal(lambda: front.call("list_reservation_guests", reservationId=1)) == (404, None)
    assert refusal(lambda: front.call("add_reservation_guest", {"id": 1}, reservationId=book(front))) == (
        404,
        "id",
    )


# --- reservations ---------------------------------------------------------------------


def test_create_and_read_reservation(front: Desk) -> None:
    reservation_id = book(front, board="BB", numAdults=2, notes="late arrival")
    basic = front.call("get_reservation", id=reservation_id)
    assert (basic["dateFrom"], basic["dateTo"], basic["reservationStatusId"], basic["roomTypeId"]) == (
        day(1),
        day(3),
        3,
        1,
    )
    assert basic["roomId"] in (1, 2)
    assert basic["totalAgreedPrice"] == 200.0  # two nights at the rack rate
    assert basic["customerId"] is not None and basic["customer"] is None
    customer = front.call("get_customer", id=basic["customerId"])
    assert customer["lastName"] == "Papadopoulou"
    [extended] = front.call("get_reservations", {"ReservationIds": [reservation_id, 4242]})
    assert (extended["customerLastName"], extended["numNights"], extended["roomTypeTitle"]) == (
        "Papadopoulou",
        2,
        "Double",
    )
    assert (extended["balance"], extended["boardTitle"], extended["reservationStatusTitle"]) == (
        200.0,
        "Bed and breakfast",
        "Confirmed",
    )
    [v2] = front.call("get_reservations_v2", {"ReservationIds": [reservation_id]})
    assert v2["customer"]["lastName"] == "Papadopoulou" and "customerLastName" not in v2
    # An existing customer needs only its id.
    second = book(front, customer={"id": basic["customerId"]}, roomId=3, roomTypeId=2)
    assert front.call("get_reservation", id=second)["customerId"] == basic["customerId"]


def test_create_reservation_rules(front: Desk) -> None:
    assert refusal(lambda: book(front, dateTo=day(1))) == (400, "dateTo")
    assert refusal(lambda: book(front, customer={"firstName": "Nameless"})) == (400, "customer")
    assert refusal(lambda: book(front, customer={"id": 77})) == (404, "customer.id")
    assert refusal(lambda: book(front, roomTypeId=9)) == (404, "roomTypeId")
    assert refusal(lambda: book(front, roomId=3)) == (400, "roomTypeId")  # room 201 is a Suite
    assert refusal(lambda: book(front, reservationStatus=13)) == (400, "reservationStatus")
    assert refusal(lambda: book(front, PriceListId=9)) == (404, "priceListId")
    assert refusal(lambda: book(front, currencyCode="XYZ")) == (400, "currencyCode")
    customers_before = len(front.pms.customers)
    book(front, roomId=3, roomTypeId=2)
    assert refusal(lambda: book(front, roomId=3, roomTypeId=2, dateFrom=day(2), dateTo=day(4))) == (
        409,
        "roomId",
    )
    assert len(front.pms.customers) == customers_before + 1  # the refused booking left no customer
    book(front)
    book(front)
    assert refusal(lambda: book(front)) == (409, "roomTypeId")  # both Doubles are taken
    # A cancelled reservation holds no room, so it can be made on a full night.
    book(front, reservationStatus=7)
    front.pms.price_lists[1].is_rack_rate = False
    assert refusal(lambda: book(front, dateFrom=day(10), dateTo=day(11))) == (400, "priceListId")
    book(front, dateFrom=day(10), dateTo=day(11), PriceListId=2)


def test_agency_booking_uses_the_contract_price_list(front: Desk) -> None:
    reservation_id = book(front, bookingAgencyId=1, bookingAgencyReferenceCode="TO-1")
    reservation = front.pms.reservations[reservation_id]
    assert (reservation.price_list_id, reservation.total_agreed_price) == (2, Decimal("160.00"))
    assert refusal(lambda: book(front, bookingAgencyId=5)) == (404, "bookingAgencyId")


def test_future_reservations_and_filter(front: Desk) -> None:
    soon = book(front, dateFrom=day(1), dateTo=day(2))
    later = book(front, dateFrom=day(40), dateTo=day(42), customer={"lastName": "Later", "email": "l@x.org"})
    front.pms.reservations[later].booking_agency_reference_code = "ABC-991"
    assert [r["id"] for r in front.call("list_future_reservations")] == [soon, later]
    # Defaults: arrivals from today to today + 30.
    assert [r["reservationId"] for r in front.call("filter_reservations", {})] == [soon]
    found = front.call(
        "filter_reservations", {"dateFrom": day(30), "dateTo": day(60), "emailContains": "@X.org"}
    )
    assert [r["reservationId"] for r in found] == [later]
    assert found[0]["createDate"].startswith(TODAY.isoformat())
    by_departure = front.call("filter_reservations", {"dateTypeId": 2, "dateFrom": day(2), "dateTo": day(2)})
    assert [r["reservationId"] for r in by_departure] == [soon]
    by_code = front.call(
        "filter_reservations",
        {"dateTypeId": 5, "bookingAgencyReferenceCodeContains": "991", "customerNameContains": "later"},
    )
    assert [r["reservationId"] for r in by_code] == [later]
    front.pms.cancel(soon, today=TODAY, now=front.now)
    cancelled = front.call("filter_reservations", {"dateTypeId": 4, "reservationStatusId": 7})
    assert [r["reservationId"] for r in cancelled] == [soon]
    assert refusal(lambda: front.call("filter_reservations", {"dateFrom": day(40)})) == (400, "dateTo")


def test_checked_in_and_status_chunks(front: Desk) -> None:
    in_house = book(front, dateFrom=day(0), dateTo=day(3), reservationStatus=4)
    book(front, dateFrom=day(0), dateTo=day(3), reservationStatus=3)
    found = front.call("list_checked_in_v2", {"dateFrom": day(1), "dateTo": day(1)})
    assert [r["id"] for r in found] == [in_house]
    assert front.call("list_checked_in_v2", {"dateFrom": day(3), "dateTo": day(5)}) == []
    for _ in range(2300):  # cancelled ones hold no room, so any number fit
        front.pms.book(
            room_id=1,
            date_from=TODAY,
            date_to=TODAY + timedelta(days=1),
            last_name="X",
            status=8,
            today=TODAY,
            now=front.now,
        )
    first = front.call("list_reservation_statuses_v2", {"lastReservationId": 0})["reservations"]
    assert len(first) == 2000
    assert first[0] == {"reservationId": in_house, "reservationStatusId": 4}
    rest = front.call("list_reservation_statuses_v2", {"lastReservationId": first[-1]["reservationId"]})
    assert len(rest["reservations"]) == 2302 - 2000
    assert front.call("list_reservation_statuses_v2", {"lastReservationId": 10**9})["reservations"] == []


def test_update_reservation(front: Desk) -> None:
    first = book(front, roomId=1, dateFrom=day(1), dateTo=day(3))
    book(front, roomId=1, dateFrom=day(4), dateTo=day(6))
    # Full PUT: the fields given change, the others stay.
    assert front.call("update_reservation", {"id": first, "notes": "vip", "totalAgreedPrice": 180}) is None
    shown = front.call("get_reservation", id=first)
    assert (shown["notes"], shown["totalAgreedPrice"], shown["dateTo"]) == ("vip", 180.0, day(3))
    assert refusal(lambda: front.call("update_reservation", {"id": first, "dateTo": day(5)})) == (
        409,
        "roomId",
    )
    assert front.call("get_reservation", id=first)["dateTo"] == day(3)
    assert refusal(lambda: front.call("update_reservation", {"id": 1, "notes": "x"})) == (404, "id")
    assert refusal(lambda: front.call("update_reservation", {"id": first, "dateFrom": day(3)})) == (
        400,
        "dateTo",
    )
    # Selected-field PUT: a null clears an optional field, the stay moves to the free room.
    assert (
        front.call("update_reservation_fields", {"notes": None, "roomId": 2, "dateTo": day(5)}, id=first)
        is None
    )
    shown = front.call("get_reservation", id=first)
    assert (shown["notes"], shown["roomId"], shown["dateTo"]) == (None, 2, day(5))
    assert refusal(lambda: front.call("update_reservation_fields", {"dateFrom": None}, id=first)) == (
        400,
        "dateFrom",
    )
    assert refusal(lambda: front.call("update_reservation_fields", {"id": 5, "notes": "x"}, id=first)) == (
        400,
        "id",
    )
    assert refusal(lambda: front.call("update_reservation_fields", {"notes": "x"}, id=5)) == (404, None)
    assert front.call("update_reservation_fields", {"reservationStatusId": 7}, id=first) is None
    assert front.pms.reservations[first].cancel_date == front.now


def test_reservation_extra_charges(front: Desk) -> None:
    reservation_id = book(front)
    charge_id = front.call(
        "add_reservation_extra_charge", {"extraChargeId": 1, "quantity": 2}, id=reservation_id
    )["id"]
    listed = front.call("list_reservation_extra_charges", id=reservation_id)
    assert [(c["id"], c["extraChargeId"], c["quantity"], c["unitPrice"]) for c in listed] == [
        (charge_id, 1, 2.0, 12.5)
    ]
    assert (
        front.call("get_reservations", {"ReservationIds": [reservation_id]})[0]["totalExtraCharges"] == 25.0
    )
    assert refusal(
        lambda: front.call("add_reservation_extra_charge", {"extraChargeId": 9}, id=reservation_id)
    ) == (404, "extraChargeId")
    assert refusal(
        lambda: front.call("add_reservation_extra_charge", {"extraChargeId": 1, "id": 3}, id=reservation_id)
    ) == (400, "id")
    assert refusal(lambda: front.call("delete_reservation_extra_charge", id=reservation_id, id2=1)) == (
        404,
        None,
    )
    assert front.call("delete_reservation_extra_charge", id=reservation_id, id2=charge_id) is None
    assert front.call("list_reservation_extra_charges", id=reservation_id) == []


def test_groups_and_their_payments(front: Desk) -> None:
    first, second, third = book(front), book(front), book(front, roomTypeId=2)
    group = front.call("group_reservations", {"ReservationIds": [first, second]})["groupId"]
    assert len(group) == 36
    # A reservation joining an existing group gets its GUID.
    assert front.call("group_reservations", {"ReservationIds": [second, third]})["groupId"] == group
    grouped = front.call("get_reservations", {"ReservationIds": [first]})[0]["otherReservationsInGroup"]
    assert set(grouped) == {str(second), str(third)}
    front.call(
        "create_payment", {"reservationId": first, "paymentDate": day(0), "paymentMethodId": 1, "amount": 50}
    )
    front.call(
        "create_payment", {"reservationId": third, "paymentDate": day(0), "paymentMethodId": 2, "amount": 70}
    )
    assert sorted(p["amount"] for p in front.call("list_reservation_payments", id=second)) == [50.0, 70.0]
    assert refusal(lambda: front.call("group_reservations", {"ReservationIds": [first]})) == (
        400,
        "ReservationIds",
    )
    assert refusal(lambda: front.call("group_reservations", {"ReservationIds": [first, first]})) == (
        400,
        "ReservationIds",
    )
    assert refusal(lambda: front.call("group_reservations", {"ReservationIds": [first, 5]})) == (
        404,
        "ReservationIds.1",
    )
    assert front.call("ungroup_reservations", {"ReservationIds": [first, second, third]}) is None
    assert front.call("get_reservation", id=first)["groupId"] == ""
    assert refusal(lambda: front.call("ungroup_reservations", {"ReservationIds": [first]})) == (
        409,
        "ReservationIds",
    )
    assert [p["amount"] for p in front.call("list_reservation_payments", id=second)] == []


# --- contracts, payments, descriptions, invoices ---------------------------------------------------


def test_reservation_contracts(front: Desk) -> None:
    reservation_id = book(front)
    contract_id = front.call(
        "create_reservation_contract",
        {"ContractStart": day(1), "ContractEnd": day(3), "ReservationId": reservation_id},
    )["id"]
    shown = front.call("get_reservation_contract", reservationId=reservation_id)
    assert (shown["id"], shown["contractStart"], shown["reservationId"]) == (
        contract_id,
        f"{day(1)}T00:00:00",
        reservation_id,
    )
    assert refusal(
        lambda: front.call(
            "create_reservation_contract",
            {"ContractStart": day(1), "ContractEnd": day(2), "ReservationId": reservation_id},
        )
    ) == (409, "ReservationId")
    assert (
        refusal(
            lambda: front.call(
                "create_reservation_contract",
                {"ContractStart": day(1), "ContractEnd": day(1), "ReservationId": 1},
            )
        )[0]
        == 400
    )
    updated = front.call(
        "update_reservation_contract",
        {"Id": contract_id, "ContractStart": day(1), "ContractEnd": day(9), "ReservationId": reservation_id},
    )
    assert updated == {"id": contract_id}
    assert (
        front.call("get_reservation_contract", reservationId=reservation_id)["contractEnd"]
        == f"{day(9)}T00:00:00"
    )
    assert refusal(
        lambda: front.call(
            "update_reservation_contract",
            {"Id": 5, "ContractStart": day(1), "ContractEnd": day(9), "ReservationId": reservation_id},
        )
    ) == (404, "Id")
    assert front.call("delete_reservation_contract", id=contract_id) is None
    assert refusal(lambda: front.call("get_reservation_contract", reservationId=reservation_id)) == (
        404,
        None,
    )
    assert refusal(lambda: front.call("delete_reservation_contract", id=contract_id)) == (404, None)


def test_payments(front: Desk) -> None:
    reservation_id = book(front)
    payment_id = front.call(
        "create_payment",
        {
            "reservationId": reservation_id,
            "paymentDate": day(0),
            "paymentMethodId": 1,
            "amount": 108,
            "currencyCode": "USD",
            "plannedPaymentDescription": "Deposit",
        },
    )["id"]
    [payment] = front.call("list_reservation_payments", id=reservation_id)
    assert (payment["id"], payment["currencyCode"], payment["plannedPaymentDescription"]) == (
        payment_id,
        "USD",
        "Deposit",
    )
    assert payment["amountCurrency"] == 100.0  # 108 USD at 1.08 USD per EUR
    assert front.call("update_payment", {"id": payment_id, "notes": "card", "amount": 54}) is None
    [payment] = front.call("list_reservation_payments", id=reservation_id)
    assert (payment["notes"], payment["amount"], payment["amountCurrency"], payment["paymentMethodId"]) == (
        "card",
        54.0,
        50.0,
        1,
    )
    base = {"reservationId": reservation_id, "paymentDate": day(0), "paymentMethodId": 1, "amount": 10}
    assert refusal(lambda: front.call("create_payment", {**base, "plannedPaymentDescription": "Old"})) == (
        400,
        "plannedPaymentDescription",
    )
    assert refusal(lambda: front.call("create_payment", {**base, "reservationId": 3})) == (
        404,
        "reservationId",
    )
    assert refusal(lambda: front.call("create_payment", {**base, "amount": 0})) == (400, "amount")
    assert refusal(lambda: front.call("create_payment", {**base, "currencyCode": "ZZZ"})) == (
        400,
        "currencyCode",
    )
    assert refusal(lambda: front.call("create_payment", {**base, "invoiceId": 77})) == (404, "invoiceId")
    assert refusal(lambda: front.call("create_payment", {"reservationId": reservation_id})) == (
        400,
        "paymentDate",
    )
    assert refusal(lambda: front.call("update_payment", {"id": 1, "notes": "x"})) == (404, "id")
    assert refusal(lambda: front.call("update_payment", {"id": payment_id, "amount": None})) == (
        400,
        "amount",
    )
    assert front.call("delete_payment", id=payment_id) is None
    assert refusal(lambda: front.call("delete_payment", id=payment_id)) == (404, None)


def test_payment_descriptions(front: Desk) -> None:
    new_id = front.call("create_payment_description", {"Description": "Balance", "IsEnabled": 1})["id"]
    assert (
        front.call("update_payment_description", {"Id": new_id, "Description": "Balance due", "IsEnabled": 0})
        is None
    )
    listed = front.call("list_payment_descriptions")
    assert [(d["Id"], d["Description"], d["IsEnabled"]) for d in listed] == [
        (1, "Deposit", 1),
        (2, "Old", 0),
        (new_id, "Balance due", 0),
    ]
    assert refusal(lambda: front.call("create_payment_description", {"Description": "deposit"})) == (
        409,
        "Description",
    )
    assert refusal(lambda: front.call("create_payment_description", {"Description": " "})) == (
        400,
        "Description",
    )
    assert refusal(lambda: front.call("update_payment_description", {"Id": 99, "Description": "x"})) == (
        404,
        "Id",
    )
    assert front.call("delete_payment_description", id=new_id) is None
    assert refusal(lambda: front.call("delete_payment_description", id=new_id)) == (404, None)


def test_invoice_preview_and_filter(front: Desk) -> None:
    reservation_id = book(front, totalAgreedPrice=220)
    front.call(
        "add_reservation_extra_charge",
        {"extraChargeId": 1, "quantity": 2, "unitPrice": 11},
        id=reservation_id,
    )
    front.call(
        "create_payment",
        {"reservationId": reservation_id, "paymentDate": day(0), "paymentMethodId": 1, "amount": 100},
    )
    preview = front.call("preview_invoice", {"reservationId": reservation_id})
    # 10% VAT included: 220 = 200 + 20, 22 = 20 + 2.
    assert [
        (line["itemType"], line["grossSubtotal"], line["netSubtotal"]) for line in preview["invoiceLines"]
    ] == [
        (1, 220.0, 200.0),
        (7, 22.0, 20.0),
    ]
    assert (preview["totalGrossValue"], preview["totalNetValue"], preview["totalTaxes"]) == (
        242.0,
        220.0,
        22.0,
    )
    assert [p["amount"] for p in preview["payments"]] == [100.0]
    assert {line["id"] for line in preview["invoiceLines"]} == {-1}
    assert preview["customer"]["lastName"] == "Papadopoulou"
    assert refusal(lambda: front.call("preview_invoice", {"reservationId": 1})) == (404, "reservationId")
    front.pms.issue_invoice(reservation_id, issue_date=TODAY + timedelta(days=3), now=front.now)
    found = front.call("filter_invoices", {"dateFrom": day(3), "dateTo": day(3)})
    assert [(i["invoiceId"], i["totalGrossValue"]) for i in found] == [
        (front.pms.reservations[reservation_id].invoice_id, 242.0)
    ]
    assert front.call("filter_invoices", {"dateFrom": day(4), "dateTo": day(9)}) == []
    assert refusal(lambda: front.call("filter_invoices", {"dateFrom": day(4), "dateTo": day(3)})) == (
        400,
        "dateTo",
    )


# --- extra charges and POS ---------------------------------------------------------------------


def test_extra_charge_catalog(front: Desk) -> None:
    charges = front.call("list_extra_charges")
    assert [(c["id"], c["unitPrice"], c["titles"][0]["title"]) for c in charges] == [
        (1, 12.5, "Breakfast"),
        (2, 0.0, "POS item"),
    ]
    assert front.call("list_extra_charge_categories") == [{"id": 1, "title": "Food"}]


def test_pos_charges(front: Desk) -> None:
    reservation_id = book(front, roomId=3, roomTypeId=2, dateFrom=day(0), dateTo=day(2))
    ticket = {
        "items": [
            {"Name": "Coffee", "Price": 3.5, "Quantity": 2},
            {"Name": "Cake", "Price": 5, "Quantity": 1},
        ],
        "sum": 12,
        "roomTitle": "201",
        "timeStamp": f"{day(1)}T09:15:00+03:00",
    }
    assert front.call("post_pos_charge", ticket) is None
    lines = front.call("list_reservation_extra_charges", id=reservation_id)
    assert [(line["notes"], line["quantity"], line["unitPrice"], line["chargeDate"]) for line in lines] == [
        ("Coffee", 2.0, 3.5, day(1)),
        ("Cake", 1.0, 5.0, day(1)),
    ]
    # UpdatePos replaces the ticket with the same timeStamp.
    update = {
        "items": [{"Name": "Coffee", "Price": 3.5, "Quantity": 1}],
        "roomTitle": "201",
        "timeStamp": ticket["timeStamp"],
        "lastName": "papadopoulou",
    }
    assert front.call("update_pos_charge", update) is None
    assert [line["notes"] for line in front.call("list_reservation_extra_charges", id=reservation_id)] == [
        "Coffee"
    ]
    # Only a last name: the ticket day is today.
    assert front.call("post_pos_charge", {**ticket, "timeStamp": None, "lastName": "Papadopoulou"}) is None
    assert len(front.call("list_reservation_extra_charges", id=reservation_id)) == 3


def test_pos_rules(front: Desk) -> None:
    book(front, roomId=3, roomTypeId=2, dateFrom=day(0), dateTo=day(2))
    ticket = {
        "items": [{"Name": "Tea", "Price": 2, "Quantity": 1}],
        "sum": 2,
        "roomTitle": "201",
        "timeStamp": day(0),
    }
    assert refusal(lambda: front.call("post_pos_charge", {**ticket, "timeStamp": None})) == (400, "timeStamp")
    assert refusal(lambda: front.call("post_pos_charge", {**ticket, "sum": 3})) == (400, "sum")
    assert refusal(lambda: front.call("post_pos_charge", {**ticket, "roomTitle": "999"})) == (
        404,
        "roomTitle",
    )
    assert refusal(lambda: front.call("post_pos_charge", {**ticket, "lastName": "Nobody"})) == (
        404,
        "roomTitle",
    )
    assert refusal(lambda: front.call("post_pos_charge", {**ticket, "timeStamp": day(20)})) == (
        404,
        "roomTitle",
    )
    assert refusal(
        lambda: front.call("post_pos_charge", {k: v for k, v in ticket.items() if k != "sum"})
    ) == (
        400,
        "sum",
    )
    update = {k: v for k, v in ticket.items() if k != "sum"}
    assert refusal(lambda: front.call("update_pos_charge", update)) == (404, "timeStamp")
    front.pms.pos_extra_charge_id = None
    assert refusal(lambda: front.call("post_pos_charge", ticket)) == (409, None)


# --- availability and rooms ---------------------------------------------------------------------


def test_availability_answers(front: Desk) -> None:
    book(front, roomId=1, dateFrom=day(1), dateTo=day(3))
    front.pms.close([TODAY + timedelta(days=2)])
    rooms = front.call("room_availability", {"dateFrom": day(0), "dateTo": day(4), "groupDates": 1})
    assert rooms[0] == {
        "roomId": 1,
        "roomTypeId": 1,
        "availabilityDateRanges": [
            {
                "dateRanges": [{"from": day(0), "to": day(0)}, {"from": day(3), "to": day(4)}],
                "isAvailable": 1,
            },
            {"dateRanges": [{"from": day(1), "to": day(2)}], "isAvailable": 0},
        ],
    }
    nightly = front.call("room_availability", {"dateFrom": day(0), "dateTo": day(1), "groupDates": 0})
    assert nightly[0]["availabilityDateRanges"] == [
        {"dateRanges": [{"from": day(0), "to": day(0)}], "isAvailable": 1},
        {"dateRanges": [{"from": day(1), "to": day(1)}], "isAvailable": 0},
    ]
    assert refusal(lambda: front.call("room_availability", {"dateFrom": day(2), "dateTo": day(1)})) == (
        400,
        "dateTo",
    )
    combined = front.call(
        "room_type_availability", {"dateFrom": day(1), "dateTo": day(3), "bookingAgencyId": 1}
    )
    assert combined["availableRooms"] == [
        {"roomTypeId": 1, "isPropertyClosed": 1, "isRoomTypeClosed": 0, "available": 1},
        {"roomTypeId": 2, "isPropertyClosed": 1, "isRoomTypeClosed": 0, "available": 1},
    ]
    assert combined["closedDates"] == [{"from": day(2), "to": day(2)}]
    assert combined["contracts"] == [
        {"dateRange": {"from": day(0), "to": day(89)}, "contractId": 1, "priceListId": 2}
    ]
    assert refusal(lambda: front.call("room_type_availability", {"dateFrom": day(1), "dateTo": day(1)})) == (
        400,
        "dateTo",
    )
    assert refusal(
        lambda: front.call(
            "room_type_availability", {"dateFrom": day(1), "dateTo": day(2), "bookingAgencyId": 7}
        )
    ) == (404, "bookingAgencyId")
    extended = front.call("room_type_availability_extended", {"dateFrom": day(1), "dateTo": day(4)})
    assert [(a["roomTypeId"], a["price"], a["currencyCode"]) for a in extended["availableRooms"]] == [
        (1, 300.0, "EUR"),
        (2, 600.0, "EUR"),
    ]
    partner = front.call(
        "room_type_availability_extended", {"dateFrom": day(1), "dateTo": day(2), "bookingAgencyId": 1}
    )
    assert [a.get("price") for a in partner["availableRooms"]] == [80.0, None]  # no Suite price in its list


def test_rooms(front: Desk) -> None:
    rooms = front.call("list_rooms")
    assert rooms[0] == {
        "id": 1,
        "title": "101",
        "roomType": {
            "id": 1,
            "titles": [{"languageCode": "en", "title": "Double"}, {"languageCode": "el", "title": "Diklino"}],
        },
        "roomGroup": {"id": 1, "title": "Main"},
    }
    extended = front.call("list_rooms_extended")
    assert [(r["id"], r["isEnabled"], r["numAdultsMax"]) for r in extended] == [
        (1, 1, 2),
        (2, 1, 2),
        (3, 1, 4),
    ]


def test_xml_request_bodies(front: Desk) -> None:
    created = front.call(
        "create_customer",
        "<Customer><LastName>Xml</LastName><Email>x@example.com</Email></Customer>",
        fmt=PayloadFormat.XML,
    )
    assert front.call("get_customer", id=created["id"])["email"] == "x@example.com"
    reservation_id = book(front, roomId=3, roomTypeId=2, dateFrom=day(0), dateTo=day(2))
    front.call(
        "post_pos_charge",
        "<PosCharge><Items><Name>Tea</Name><Price>2</Price><Quantity>1</Quantity></Items>"
        "<Items><Name>Cake</Name><Price>4.5</Price><Quantity>2</Quantity></Items>"
        f"<Sum>11</Sum><RoomTitle>201</RoomTitle><TimeStamp>{day(1)}</TimeStamp></PosCharge>",
        fmt=PayloadFormat.XML,
    )
    assert len(front.call("list_reservation_extra_charges", id=reservation_id)) == 2
    found = front.call(
        "get_reservations", f"<Reservations><Id>{reservation_id}</Id></Reservations>", fmt=PayloadFormat.XML
    )
    assert [r["id"] for r in found] == [reservation_id]
