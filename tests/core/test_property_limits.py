"""Document 02's limits are enforced by the property data models, through ``checked()``.

The expected limits are transcribed below from document 02 (its ``string (n)`` fields, the
enumerations, the POS rule and the 2000-reservation status chunk of 01's Limits); they are not
read from the models, so a model that loses or changes a limit fails here.
"""

from __future__ import annotations

from typing import Any

import pytest

from roomsync.core.api.base import ApiModel, checked
from roomsync.core.api.pms import (
    Customer,
    CustomerCategory,
    CustomerCreateRequest,
    CustomerUpdateRequest,
    ExtraCharge,
    Guest,
    GuestCreateRequest,
    GuestUpdateRequest,
    Invoice,
    InvoiceCounter,
    InvoiceCustomer,
    InvoicePreview,
    PosChargeRequest,
    PosChargeUpdateRequest,
    Reservation,
    ReservationContractCreateRequest,
    ReservationCreateRequest,
    ReservationExtended,
    ReservationFieldsUpdateRequest,
    ReservationFilterRequest,
    ReservationGroupRequest,
    ReservationStatusChunk,
    ReservationStatusEntry,
    ReservationUngroupRequest,
    ReservationUpdateRequest,
    ReservationV2,
    Room,
    RoomAvailabilityRequest,
    RoomExtended,
    RoomTypeAvailabilityRequest,
    TaxEntry,
    TaxEntryPreview,
)
from roomsync.core.errors import LimitViolation

# --- `string (n)` fields of document 02: (where 02 lists the field, JSON name, n) ------------------
STRING_LIMITS: list[tuple[str, str, int]] = [
    ("Customer", "lastName", 100),
    ("Customer", "firstName", 100),
    ("Customer", "email", 50),
    ("Customer", "mobile", 20),
    ("Customer", "phone", 50),
    ("Customer", "billingAddress1", 100),
    ("Customer", "billingAddress2", 100),
    ("Customer", "billingCity", 100),
    ("Customer", "billingZipCode", 20),
    ("Customer", "countryCode", 2),
    ("Customer", "taxId", 50),
    ("Customer", "taxIdAdditional", 50),
    ("Customer", "occupation", 50),
    ("Customer", "notes", 250),
    ("Customer category", "title", 50),
    ("Guest", "firstName", 100),
    ("Guest", "lastName", 100),
    ("Guest", "lastName2", 100),
    ("Guest", "idDocNumber", 50),
    ("Guest", "IdDocIssueCountryId", 2),
    ("Guest", "nationalityCountryId", 2),
    ("Guest", "spanishProvinceCode", 2),
    ("Guest", "spanishMunicipalityCode", 3),
    ("Guest", "countryAlpha3Code", 3),
    ("Guest", "residenceAlpha3Code", 3),
    ("Reservation", "bookingAgencyReferenceCode", 50),
    ("Reservation", "currencyCode", 5),
    ("Reservation", "notes", 1000),
    ("Create reservation", "bookingAgencyReferenceCode", 50),
    ("Create reservation", "currencyCode", 5),
    ("Invoice", "number", 30),
    ("Invoice counter", "title", 50),
    ("Invoice customer", "taxId", 50),
    ("Invoice customer", "taxIdAdditional", 50),
    ("Invoice customer", "city", 50),
    ("Invoice customer", "zipCode", 20),
    ("Invoice customer", "address1", 255),
    ("Invoice customer", "address2", 255),
    ("Invoice customer", "country", 50),
    ("Invoice customer", "occupation", 50),
    ("Tax entry", "title", 50),
    ("Room", "title", 255),
]
# Guest.idDocType is also a `string (50)`, but only its documented codes are valid: see below.

_NEW_RESERVATION: dict[str, Any] = {
    "customer": {"id": 7},
    "dateFrom": "2027-03-01",
    "dateTo": "2027-03-04",
    "reservationStatus": 3,
    "roomTypeId": 2,
}

# The models that carry each of those places, with the other fields they need to be valid.
CARRIERS: dict[str, list[tuple[type[ApiModel], dict[str, Any]]]] = {
    "Customer": [
        (Customer, {}),
        (CustomerCreateRequest, {"lastName": "Papadopoulos"}),
        (CustomerUpdateRequest, {"id": 1, "lastName": "Papadopoulos"}),
    ],
    "Customer category": [(CustomerCategory, {"id": 1})],
    "Guest": [
        (Guest, {}),
        (GuestCreateRequest, {"firstName": "Nicole", "lastName": "Marin"}),
        (GuestUpdateRequest, {"id": 8}),
    ],
    "Reservation": [
        (Reservation, {}),
        (ReservationExtended, {}),
        (ReservationV2, {}),
        (ReservationUpdateRequest, {"id": 1}),
        (ReservationFieldsUpdateRequest, {}),
    ],
    "Create reservation": [(ReservationCreateRequest, _NEW_RESERVATION)],
    "Invoice": [(Invoice, {}), (InvoicePreview, {})],
    "Invoice counter": [(InvoiceCounter, {"id": 1})],
    "Invoice customer": [(InvoiceCustomer, {})],
    "Tax entry": [(TaxEntry, {}), (TaxEntryPreview, {})],
    "Room": [(Room, {"id": 1}), (RoomExtended, {"id": 1})],
}

LENGTH_CASES = [
    pytest.param(model, base, name, limit, id=f"{model.__name__}.{name}[{limit}]")
    for place, name, limit in STRING_LIMITS
    for model, base in CARRIERS[place]
]


def _violation(model: type[ApiModel], **values: Any) -> LimitViolation:
    with pytest.raises(LimitViolation) as caught:
        checked(model, **values)
    return caught.value


def _same_name(reported: str, documented: str) -> bool:
    # 02 spells two Guest names PascalCase in its table; the JSON name is their camelCase.
    return reported[:1].lower() + reported[1:] == documented[:1].lower() + documented[1:]


@pytest.mark.parametrize(("model", "base", "name", "limit"), LENGTH_CASES)
def test_a_string_of_exactly_n_characters_is_accepted(
    model: type[ApiModel], base: dict[str, Any], name: str, limit: int
) -> None:
    value = "x" * limit
    built = checked(model, **{**base, name: value})
    json_name = name[:1].lower() + name[1:]
    assert built.model_dump(by_alias=True)[json_name] == value


@pytest.mark.parametrize(("model", "base", "name", "limit"), LENGTH_CASES)
def test_a_string_of_n_plus_one_characters_is_a_limit_violation(
    model: type[ApiModel], base: dict[str, Any], name: str, limit: int
) -> None:
    value = "x" * (limit + 1)
    violation = _violation(model, **{**base, name: value})
    assert _same_name(violation.field, name)
    assert violation.value == value
    assert f"at most {limit} character" in violation.rule
    assert violation.model == model.__name__
    assert value in str(violation)


def test_a_nested_string_limit_names_the_dotted_path() -> None:
    violation = _violation(Customer, categories=[{"id": 1, "title": "ok"}, {"id": 2, "title": "t" * 51}])
    assert violation.field == "categories.1.title"
    assert violation.value == "t" * 51
    assert "at most 50 characters" in violation.rule


# --- the POS rule: timeStamp or lastName or both ---------------------------------------------------
_POS_ITEMS = [{"Name": "Wine", "Price": 7, "Quantity": 1}, {"Name": "Cake", "Price": 8.5, "Quantity": 2}]
_POS_BODIES: list[tuple[type[ApiModel], dict[str, Any]]] = [
    (PosChargeRequest, {"items": _POS_ITEMS, "sum": 24, "roomTitle": "01"}),
    (PosChargeUpdateRequest, {"items": _POS_ITEMS, "roomTitle": "01"}),
]


@pytest.mark.parametrize(("model", "base"), _POS_BODIES, ids=lambda v: getattr(v, "__name__", ""))
@pytest.mark.parametrize(
    "identification",
    [
        {"timeStamp": "2019-06-26"},
        {"timeStamp": "2019-06-26T17:53:20.179807+03:00"},
        {"lastName": "Cinder"},
        {"timeStamp": "2019-06-26", "lastName": "Cinder"},
    ],
    ids=["date", "date-time", "last-name", "both"],
)
def test_a_pos_charge_with_time_stamp_or_last_name_is_accepted(
    model: type[ApiModel], base: dict[str, Any], identification: dict[str, str]
) -> None:
    body = checked(model, **base, **identification)
    dumped = body.model_dump(mode="json", by_alias=True)
    assert dumped["roomTitle"] == "01"
    assert [item["Name"] for item in dumped["items"]] == ["Wine", "Cake"]
    for name, value in identification.items():
        assert dumped[name] == value


@pytest.mark.parametrize(("model", "base"), _POS_BODIES, ids=lambda v: getattr(v, "__name__", ""))
@pytest.mark.parametrize("absent", [{}, {"timeStamp": None, "lastName": None}], ids=["absent", "null"])
def test_a_pos_charge_without_time_stamp_and_last_name_is_a_limit_violation(
    model: type[ApiModel], base: dict[str, Any], absent: dict[str, Any]
) -> None:
    violation = _violation(model, **base, **absent)
    assert violation.field == "timeStamp"
    assert violation.value is None
    assert "timeStamp or lastName" in violation.rule


def test_a_pos_charge_needs_an_item() -> None:
    violation = _violation(PosChargeRequest, items=[], sum=0, roomTitle="01", lastName="Cinder")
    assert violation.field == "items"
    assert violation.value == []


# --- enumerations -----------------------------------------------------------------------------------
# Where a reservation status id is carried, with the rest of a valid body.
_STATUS_FIELDS: list[tuple[type[ApiModel], str, dict[str, Any]]] = [
    (ReservationCreateRequest, "reservationStatus", _NEW_RESERVATION),
    (Reservation, "reservationStatusId", {}),
    (ReservationFilterRequest, "reservationStatusId", {}),
    (ReservationStatusEntry, "reservationStatusId", {"reservationId": 1}),
]
_STATUS_IDS = [f"{model.__name__}.{name}" for model, name, _ in _STATUS_FIELDS]


@pytest.mark.parametrize(("model", "name", "base"), _STATUS_FIELDS, ids=_STATUS_IDS)
@pytest.mark.parametrize("status", range(1, 13))
def test_every_documented_reservation_status_is_accepted(
    model: type[ApiModel], name: str, base: dict[str, Any], status: int
) -> None:
    built = checked(model, **{**base, name: status})
    assert built.model_dump(mode="json", by_alias=True)[name] == status


@pytest.mark.parametrize(("model", "name", "base"), _STATUS_FIELDS, ids=_STATUS_IDS)
@pytest.mark.parametrize("status", [0, 13, -1, 99])
def test_a_reservation_status_outside_1_to_12_is_a_limit_violation(
    model: type[ApiModel], name: str, base: dict[str, Any], status: int
) -> None:
    violation = _violation(model, **{**base, name: status})
    assert violation.field == name
    assert violation.value == status
    assert "1, 2, 3" in violation.rule and "12" in violation.rule


_BOARD_CARRIERS: list[tuple[type[ApiModel], dict[str, Any]]] = [
    (Reservation, {}),
    (ReservationCreateRequest, _NEW_RESERVATION),
    (ReservationFieldsUpdateRequest, {}),
]


@pytest.mark.parametrize(("model", "base"), _BOARD_CARRIERS, ids=lambda v: getattr(v, "__name__", ""))
@pytest.mark.parametrize("board", ["RO", "BB", "HB", "FB", "AI"])
def test_every_documented_board_is_accepted(model: type[ApiModel], base: dict[str, Any], board: str) -> None:
    assert checked(model, **base, board=board).model_dump(mode="json", by_alias=True)["board"] == board


@pytest.mark.parametrize(("model", "base"), _BOARD_CARRIERS, ids=lambda v: getattr(v, "__name__", ""))
@pytest.mark.parametrize("board", ["XX", "bb", "", "BB "])
def test_a_board_outside_the_documented_set_is_a_limit_violation(
    model: type[ApiModel], base: dict[str, Any], board: str
) -> None:
    violation = _violation(model, **base, board=board)
    assert violation.field == "board"
    assert violation.value == board
    assert "'RO'" in violation.rule and "'AI'" in violation.rule


@pytest.mark.parametrize(("value", "accepted"), [(1, True), (6, True), (0, False), (7, False)])
def test_the_filter_date_type_is_1_to_6(value: int, accepted: bool) -> None:
    if accepted:
        assert checked(ReservationFilterRequest, dateTypeId=value).date_type_id == value
    else:
        violation = _violation(ReservationFilterRequest, dateTypeId=value)
        assert (violation.field, violation.value) == ("dateTypeId", value)


@pytest.mark.parametrize(
    ("code", "accepted"),
    [
        ("1", True),
        ("8", True),
        ("9", True),
        ("10", True),
        (5, True),
        ("0", False),
        ("11", False),
        ("x" * 50, False),
    ],
)
def test_the_id_doc_type_is_one_of_the_documented_codes(code: Any, accepted: bool) -> None:
    if accepted:
        assert checked(Guest, idDocType=code).model_dump(mode="json", by_alias=True)["idDocType"] == str(code)
    else:
        violation = _violation(Guest, idDocType=code)
        assert (violation.field, violation.value) == ("idDocType", code)


@pytest.mark.parametrize(
    ("model", "base", "name"),
    [
        (ExtraCharge, {"id": 1}, "isIbeEnabled"),
        (Guest, {}, "isPrimaryGuest"),
        (RoomExtended, {"id": 1}, "cleanStatus"),
    ],
)
def test_a_flag_is_0_or_1(model: type[ApiModel], base: dict[str, Any], name: str) -> None:
    for value in (0, 1):
        assert checked(model, **base, **{name: value}).model_dump(by_alias=True)[name] == value
    for value in (2, -1):
        violation = _violation(model, **base, **{name: value})
        assert (violation.field, violation.value) == (name, value)


# --- counts: the status chunk (01, Limits) and grouping --------------------------------------------
def _statuses(count: int) -> list[dict[str, int]]:
    return [{"reservationId": n + 1, "reservationStatusId": 3} for n in range(count)]


def test_a_status_chunk_holds_2000_reservations() -> None:
    chunk = checked(ReservationStatusChunk, reservations=_statuses(2000))
    assert len(chunk.reservations) == 2000


def test_a_status_chunk_of_2001_reservations_is_a_limit_violation() -> None:
    violation = _violation(ReservationStatusChunk, reservations=_statuses(2001))
    assert violation.field == "reservations"
    assert len(violation.value) == 2001
    assert "at most 2000" in violation.rule


def test_grouping_needs_two_reservations_and_ungrouping_one() -> None:
    assert checked(ReservationGroupRequest, ReservationIds=[4, 5]).reservation_ids == [4, 5]
    violation = _violation(ReservationGroupRequest, ReservationIds=[4])
    assert (violation.field, violation.value) == ("ReservationIds", [4])
    assert "at least 2" in violation.rule
    assert checked(ReservationUngroupRequest, ReservationIds=[4]).reservation_ids == [4]
    assert _violation(ReservationUngroupRequest, ReservationIds=[]).field == "ReservationIds"


# --- stays are nights: dateFrom before dateTo (03-conventions) --------------------------------------
@pytest.mark.parametrize(
    ("model", "base", "first", "last"),
    [
        (ReservationCreateRequest, _NEW_RESERVATION, "dateFrom", "dateTo"),
        (RoomTypeAvailabilityRequest, {}, "dateFrom", "dateTo"),
        (ReservationContractCreateRequest, {"ReservationId": 1}, "ContractStart", "ContractEnd"),
    ],
    ids=["create-reservation", "combined", "contract"],
)
def test_a_stay_must_end_after_it_starts(
    model: type[ApiModel], base: dict[str, Any], first: str, last: str
) -> None:
    assert checked(model, **{**base, first: "2027-03-01", last: "2027-03-02"}) is not None
    for end in ("2027-03-01", "2027-02-28"):
        violation = _violation(model, **{**base, first: "2027-03-01", last: end})
        assert (violation.field, violation.value) == (last, end)
        assert "must be before" in violation.rule


def test_a_room_availability_window_may_be_one_night() -> None:
    window = checked(RoomAvailabilityRequest, dateFrom="2027-03-01", dateTo="2027-03-01")
    assert window.date_from == window.date_to
    violation = _violation(RoomAvailabilityRequest, dateFrom="2027-03-02", dateTo="2027-03-01")
    assert (violation.field, violation.value) == ("dateTo", "2027-03-01")


def test_a_new_reservation_names_an_existing_or_a_new_customer() -> None:
    by_id = checked(ReservationCreateRequest, **{**_NEW_RESERVATION, "customer": {"id": 7}})
    by_name = checked(ReservationCreateRequest, **{**_NEW_RESERVATION, "customer": {"lastName": "Marin"}})
    assert (by_id.customer.id, by_name.customer.last_name) == (7, "Marin")
    violation = _violation(ReservationCreateRequest, **{**_NEW_RESERVATION, "customer": {"firstName": "Ana"}})
    assert violation.field == "customer"
    assert "id" in violation.rule and "lastName" in violation.rule
