"""XML answers are read by their content, whatever their root is called; amounts are written with
two decimal digits (issue 23, item 7).

Documents 01 and 02 name the elements inside an answer and hardly ever its root (02 names none for
the ``Combined``/``CombinedExtended`` answer nor for list answers): the roots of the models are
roomsync's choices (docs/shapes/). A service that names them otherwise (``<AvailabilityResponse>``)
must still be read. Request bodies keep being read strictly (the emulator reads them so).

01 types a channel price ``decimal (2 digits)`` (the transcription notes it), 02 its amounts
``decimal (##.##)``: XML writes them ``158.00``, not the float repr ``158.0``.
"""

from __future__ import annotations

from collections.abc import Iterator
from decimal import Decimal
from typing import Any

import pytest
from hypothesis import HealthCheck, given, settings
from lxml import etree
from pydantic import BaseModel
from pydantic_xml import BaseXmlModel
from test_catalog_completeness import RESOURCE_MODELS, SPEC_RESOURCES, documented_fields, resolve
from test_request_bodies import request_models

from roomsync.core.api.base import ErrorDetail, amount_fields, xml_amount
from roomsync.core.api.channel_manager import PriceForDateRange, PricesRequest, RoomRateType
from roomsync.core.api.pms.availability import RoomTypeAvailabilityExtended
from roomsync.core.catalog import OPERATIONS
from roomsync.core.codec import (
    PayloadError,
    PayloadFormat,
    decode,
    decode_answer,
    decode_error,
    encode,
    encode_request,
)
from roomsync.core.errors import LimitViolation
from strategies import from_model

XML = PayloadFormat.XML

ANSWER_MODELS = sorted(
    {op.response for op in OPERATIONS if op.response is not None and not op.form_body},
    key=lambda model: f"{model.__module__}.{model.__name__}",
)
"""Every model the client reads an XML answer as (the token answer is JSON in both modes)."""

SHAPE_SETTINGS = settings(
    max_examples=10, deadline=None, suppress_health_check=[HealthCheck.too_slow, HealthCheck.filter_too_much]
)


def renamed(body: bytes, root: str) -> bytes:
    tree = etree.fromstring(body)
    tree.tag = root
    return etree.tostring(tree)


def model_id(model: type[BaseXmlModel]) -> str:
    return model.__name__


# --- answers by their content ----------------------------------------------------------------------


def test_the_answers_cover_the_reported_case_and_lists() -> None:
    assert RoomTypeAvailabilityExtended in ANSWER_MODELS
    assert any(model.__xml_serializer__.element_name == "Listings" for model in ANSWER_MODELS)  # type: ignore[attr-defined]


@pytest.mark.parametrize("root", ["Answer", "AvailabilityResponse"])
@pytest.mark.parametrize("model", ANSWER_MODELS, ids=model_id)
def test_every_xml_answer_is_read_whatever_its_root_is_called(model: type[BaseXmlModel], root: str) -> None:
    @SHAPE_SETTINGS
    @given(from_model(model))
    def read(original: Any) -> None:
        body = renamed(encode(original, XML), root)
        assert decode_answer(model, body, XML) == original
        if model.__xml_serializer__.element_name != root:  # type: ignore[attr-defined]
            with pytest.raises(PayloadError, match="root element not found"):
                decode(model, body, XML)  # a request body is still read by its root (the emulator)

    read()


def test_the_reported_room_type_availability_answer_is_read() -> None:
    body = (
        b'<AvailabilityResponse><AvailableRooms><AvailableRoom roomTypeId="4" isPropertyClosed="0" '
        b'isRoomTypeClosed="0" price="158.00" currencyCode="EUR">3</AvailableRoom></AvailableRooms>'
        b"<Contracts/><ClosedDates/><SoldOutDates/></AvailabilityResponse>"
    )
    answer = decode_answer(RoomTypeAvailabilityExtended, body, XML)
    [room] = answer.available_rooms
    assert (room.room_type_id, room.available, room.price, room.currency_code) == (
        4,
        3,
        Decimal("158.00"),
        "EUR",
    )


def test_an_answer_under_another_root_is_still_checked_by_its_content() -> None:
    with pytest.raises((PayloadError, LimitViolation)):
        decode_answer(
            PricesRequest,
            b"<Answer><PricesForDateRanges><PriceForDateRange/></PricesForDateRanges></Answer>",
            XML,
        )
    with pytest.raises(PayloadError, match="not valid XML"):
        decode_answer(RoomTypeAvailabilityExtended, b"<AvailabilityResponse>", XML)


def test_an_xml_error_body_is_read_whatever_its_root_is_called() -> None:
    body = renamed(
        encode(ErrorDetail(code="INVALID_INPUT", message="dateTo is before dateFrom", field="dateTo"), XML),
        "Fault",
    )
    detail = decode_error(body, XML)
    assert detail == ErrorDetail(code="INVALID_INPUT", message="dateTo is before dateFrom", field="dateTo")
    assert decode_error(b"<html><body>Bad gateway</body></html>", XML) is None


# --- amounts with two decimal digits -------------------------------------------------------------


@pytest.mark.parametrize(
    ("amount", "text"),
    [
        ("158", "158.00"),
        ("158.0", "158.00"),
        ("158.5", "158.50"),
        ("99.99", "99.99"),
        ("0", "0.00"),
        ("1E+3", "1000.00"),
        ("-3", "-3.00"),
        ("0.125", "0.125"),  # more digits than two are kept, not rounded away
    ],
)
def test_an_amount_is_written_with_two_decimal_digits(amount: str, text: str) -> None:
    assert xml_amount(Decimal(amount)) == text


def test_a_price_element_is_written_as_01_states_it() -> None:
    body = encode_request(
        PricesRequest(
            prices_for_date_ranges=[
                PriceForDateRange.model_validate(
                    {
                        "date_from": "2027-01-01",
                        "date_to": "2027-01-03",
                        "room_type_id": 1,
                        "room_rate_type": RoomRateType.STANDARD,
                        "price": Decimal(price),
                    }
                )
                for price in ("158", "158.0", "74.5")
            ]
        ),
        XML,
    )
    prices = [element.get("price") for element in etree.fromstring(body).iter("PriceForDateRange")]
    assert prices == ["158.00", "158.00", "74.50"]


def test_the_fields_documented_with_two_digits_are_amounts() -> None:
    """Each field the transcription notes "2 digits" (01: ``decimal (2 digits)``) is typed ``Money``
    in every model that carries its resource."""
    checked = []
    for resource, spec in SPEC_RESOURCES.items():
        two_digits = [f["name"] for f in documented_fields(resource) if "2 digits" in f.get("note", "")]
        if not two_digits or "document" not in spec:
            continue
        for reference in RESOURCE_MODELS.get(resource, ()):
            model = resolve(reference)
            by_alias = {(info.alias or name): name for name, info in model.model_fields.items()}
            for field in two_digits:
                assert by_alias[field] in amount_fields(model), f"{model.__name__}.{field} is not Money"
                checked.append(f"{model.__name__}.{field}")
    assert "PriceForDateRange.price" in checked


def amounts(value: Any, path: str) -> Iterator[tuple[str, Decimal]]:
    """Every amount (a ``Money`` field's value) in a model read back, with where it is."""
    if isinstance(value, list):
        for index, item in enumerate(value):
            yield from amounts(item, f"{path}[{index}]")
    elif isinstance(value, dict):
        for key, item in value.items():
            yield from amounts(item, f"{path}.{key}")
    elif isinstance(value, BaseModel):
        money = amount_fields(type(value)) if isinstance(value, BaseXmlModel) else frozenset()
        for name in type(value).model_fields:
            item = getattr(value, name)
            if name in money and isinstance(item, Decimal):
                yield f"{path}.{name}", item
            else:
                yield from amounts(item, f"{path}.{name}")


def _has_amounts(model: type[BaseXmlModel]) -> bool:
    return bool(amount_fields(model))


REQUEST_MODELS_WITH_AMOUNTS = [model for model in request_models() if _has_amounts(model)]


def test_the_requests_with_amounts_are_found() -> None:
    names = {model.__name__ for model in REQUEST_MODELS_WITH_AMOUNTS}
    assert {"PriceForDateRange", "ReservationCreateRequest"} <= names


@pytest.mark.parametrize("model", REQUEST_MODELS_WITH_AMOUNTS, ids=model_id)
def test_every_amount_a_request_carries_has_two_decimal_digits_in_xml(model: type[BaseXmlModel]) -> None:
    @SHAPE_SETTINGS
    @given(from_model(model))
    def written(original: Any) -> None:
        body = encode_request(original, XML)
        found = list(amounts(decode(model, body, XML), model.__name__))
        for where, amount in found:
            exponent = amount.as_tuple().exponent
            assert isinstance(exponent, int) and exponent <= -2, f"{where} written as {amount} in {body!r}"

    written()
