"""The client against an emulator whose XML answers carry roots of another name (issue 23, item 7).

Documents 01/02 name the elements inside an answer, hardly ever its root; an independent reading of
them answered ``CombinedExtended`` with ``<AvailabilityResponse>`` and ``mappings load`` failed on
it. Here every XML answer of the real emulator, over real HTTP, leaves with its root renamed
(``RenamedRoots``, an ASGI wrapper that also records each exchange): the client must read every
answer of the catalog, and the error bodies of the refusals, as it reads them under their own root.

The same recording shows what the client writes: prices (01 ``decimal (2 digits)``) go out as
``price="158.00"`` in XML, and stay JSON numbers in JSON.
"""

from __future__ import annotations

import json
from collections.abc import Iterator
from dataclasses import dataclass
from datetime import timedelta
from decimal import Decimal
from typing import Any

import pytest
from catalog_sweep import STEPS
from client_harness import FIXED_NOW, ClientFactory, Control
from lxml import etree
from pydantic_xml import RootXmlModel
from starlette.types import ASGIApp, Message, Receive, Scope, Send

from roomsync.adapters.client import FatalError, NotFoundError
from roomsync.core.api.base import amount_fields
from roomsync.core.api.channel_manager import ChannelResult, PricesRequest
from roomsync.core.catalog import by_name
from roomsync.core.codec import PayloadFormat, decode, decode_error
from roomsync.emulator.app import create_app
from roomsync.emulator.clock import EmulatorClock
from roomsync.emulator.scenario import build_state
from roomsync.emulator.server import serve_in_thread

NEW_ROOT = "Answer"
"""A root name no model of roomsync uses."""


@dataclass
class Exchange:
    method: str
    path: str
    status: int
    request: bytes
    answer: bytes
    """The answer as the emulator made it."""
    sent: bytes
    """The answer as the client received it (root renamed when it is XML)."""


class RenamedRoots:
    """ASGI wrapper around the emulator: records every exchange of the API (not of the control
    surface) and gives the root element of every XML answer the name ``NEW_ROOT``."""

    def __init__(self, app: ASGIApp) -> None:
        self.app = app
        self.exchanges: list[Exchange] = []

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] != "http" or scope["path"].startswith("/_emulator"):
            await self.app(scope, receive, send)
            return
        request: list[bytes] = []
        start: dict[str, Any] = {}
        chunks: list[bytes] = []

        async def recording_receive() -> Message:
            message = await receive()
            if message["type"] == "http.request":
                request.append(message.get("body", b""))
            return message

        async def renaming_send(message: Message) -> None:
            if message["type"] == "http.response.start":
                start.update(message)
                return
            if message["type"] != "http.response.body":
                await send(message)
                return
            chunks.append(message.get("body", b""))
            if message.get("more_body"):
                return
            answer = b"".join(chunks)
            headers = [(k, v) for k, v in start.get("headers", []) if k.lower() != b"content-length"]
            content_type = dict(headers).get(b"content-type", b"").decode()
            sent = answer
            if "xml" in content_type and answer.strip():
                tree = etree.fromstring(answer)
                tree.tag = NEW_ROOT
                sent = etree.tostring(tree)
            headers.append((b"content-length", str(len(sent)).encode()))
            self.exchanges.append(
                Exchange(scope["method"], scope["path"], start["status"], b"".join(request), answer, sent)
            )
            await send({**start, "headers": headers})
            await send({"type": "http.response.body", "body": sent})

        await self.app(scope, recording_receive, renaming_send)


@pytest.fixture(scope="module")
def renaming_emulator() -> Iterator[tuple[str, RenamedRoots]]:
    state = build_state("demo", 7, clock=EmulatorClock(FIXED_NOW, frozen=True))
    wrapper = RenamedRoots(create_app(state))
    with serve_in_thread(wrapper) as base_url:
        yield base_url, wrapper


@pytest.fixture(scope="module")
def emulator_url(renaming_emulator: tuple[str, RenamedRoots]) -> str:
    """The clients and the control surface of this module talk to the renaming emulator."""
    return renaming_emulator[0]


@pytest.fixture
def renamed_roots(renaming_emulator: tuple[str, RenamedRoots], control: Control) -> RenamedRoots:
    wrapper = renaming_emulator[1]
    wrapper.exchanges.clear()
    return wrapper


def root_of(body: bytes) -> str:
    return str(etree.fromstring(body).tag)


async def test_every_xml_answer_is_read_whatever_its_root_is_called(
    make_client: ClientFactory, renamed_roots: RenamedRoots
) -> None:
    client = make_client("xml")
    ctx: dict[str, Any] = {"today": FIXED_NOW.date(), "reference": "SWEEP-ROOTS-1"}
    answers_read: list[str] = []
    errors_read: list[str] = []
    for step in STEPS:
        op = by_name(step.operation)
        before = len(renamed_roots.exchanges)
        method = getattr(client, step.operation)
        failure: FatalError | NotFoundError | None = None
        if step.refusal is not None:
            with pytest.raises((FatalError, NotFoundError)) as refused:
                await method(*step.args(ctx))
            failure = refused.value
            result = None
        else:
            result = await method(*step.args(ctx))
            if step.keep is not None:
                step.keep(ctx, result)
        if op.form_body:
            continue  # the token answer is OAuth JSON in both modes
        [exchange] = [e for e in renamed_roots.exchanges[before:] if e.path != "/v1/Token"]
        if failure is not None:
            # The refusal's 03 error body under another root: its code, message and field are read.
            assert root_of(exchange.answer) != NEW_ROOT and root_of(exchange.sent) == NEW_ROOT
            detail = decode_error(exchange.answer, PayloadFormat.XML)
            assert detail is not None
            assert (failure.code, failure.field) == (detail.code, detail.field), op.name
            errors_read.append(op.name)
            continue
        if op.response is None:
            assert result is None
            continue
        assert exchange.status == 200, op.name
        assert root_of(exchange.answer) != NEW_ROOT, op.name
        assert root_of(exchange.sent) == NEW_ROOT, f"{op.name}: the answer reached the client unrenamed"
        # What the client read under the renamed root is what the emulator's own answer says.
        own = decode(op.response, exchange.answer, PayloadFormat.XML)
        expected = own.root if isinstance(own, RootXmlModel) else own
        assert result == expected, op.name
        answers_read.append(op.name)

    readable = {s.operation for s in STEPS if by_name(s.operation).response is not None} - {"request_token"}
    assert set(answers_read) == readable - set(errors_read)
    assert {"room_type_availability_extended", "room_type_availability", "list_listings"} <= set(answers_read)
    assert errors_read, "no refusal's error body was read under another root"


async def test_amounts_of_xml_request_bodies_carry_two_decimal_digits(
    make_client: ClientFactory, renamed_roots: RenamedRoots
) -> None:
    """Every amount in every XML body the sweep sends (reservations, payments, charges, prices)."""
    client = make_client("xml")
    ctx: dict[str, Any] = {"today": FIXED_NOW.date(), "reference": "SWEEP-ROOTS-2"}
    checked = 0
    for step in STEPS:
        op = by_name(step.operation)
        before = len(renamed_roots.exchanges)
        try:
            result = await getattr(client, step.operation)(*step.args(ctx))
        except (FatalError, NotFoundError):
            assert step.refusal is not None, op.name
            continue
        if step.keep is not None:
            step.keep(ctx, result)
        if op.request is None or op.form_body:
            continue
        [exchange] = [e for e in renamed_roots.exchanges[before:] if e.path != "/v1/Token"]
        sent = decode(op.request, exchange.request, PayloadFormat.XML)
        for where, amount in amounts_in(sent, op.request.__name__):
            exponent = amount.as_tuple().exponent
            assert isinstance(exponent, int) and exponent <= -2, f"{where} written {amount}"
            checked += 1
    assert checked >= 3  # the reservation's total, the payment, the price element at least


def amounts_in(value: Any, path: str) -> Iterator[tuple[str, Decimal]]:
    if isinstance(value, list):
        for index, item in enumerate(value):
            yield from amounts_in(item, f"{path}[{index}]")
    elif hasattr(type(value), "model_fields"):
        money = amount_fields(type(value))
        for name in type(value).model_fields:
            item = getattr(value, name)
            if name in money and isinstance(item, Decimal):
                yield f"{path}.{name}", item
            else:
                yield from amounts_in(item, f"{path}.{name}")


PRICES = [Decimal("158"), Decimal("158.5"), Decimal("99.99")]


def prices_request(room_type_id: int) -> PricesRequest:
    first = FIXED_NOW.date() + timedelta(days=40)
    return PricesRequest.model_validate(
        {
            "prices_for_date_ranges": [
                {
                    "date_from": first + timedelta(days=index),
                    "date_to": first + timedelta(days=index),
                    "room_type_id": room_type_id,
                    "room_rate_type": 1,
                    "price": price,
                }
                for index, price in enumerate(PRICES)
            ]
        }
    )


@pytest.mark.parametrize("fmt", ["xml", "json"])
async def test_prices_are_sent_as_01_states_them_and_the_emulator_applies_them(
    fmt: str, make_client: ClientFactory, control: Control, renamed_roots: RenamedRoots
) -> None:
    client = make_client(fmt)
    rooms = await client.list_rooms()
    room_type_id = rooms[0].room_type.id
    answer = await client.push_prices(prices_request(room_type_id))
    assert answer.result is ChannelResult.OK, answer

    [exchange] = [e for e in renamed_roots.exchanges if e.path == "/v1/ChannelManager/Prices"]
    if fmt == "xml":
        sent = [e.get("price") for e in etree.fromstring(exchange.request).iter("PriceForDateRange")]
        assert sent == ["158.00", "158.50", "99.99"]
    else:
        # JSON carries a decimal as a number (its trailing zeros mean nothing there): unchanged.
        body = json.loads(exchange.request, parse_float=Decimal, parse_int=Decimal)
        sent_json = [element["price"] for element in body["pricesForDateRanges"]]
        assert all(isinstance(price, Decimal) for price in sent_json), sent_json
        assert sent_json == PRICES

    assert control.call("POST", "/channel-manager/wait", {"timeout": 5})["done"] is True
    first = FIXED_NOW.date() + timedelta(days=40)
    last = first + timedelta(days=len(PRICES) - 1)
    table = control.call("GET", f"/channel-manager/prices?from={first}&to={last}&roomTypeId={room_type_id}")
    applied = [row["prices"] for row in table["channels"] if row["roomRateType"] == 1]
    assert applied, table
    expected = {(first + timedelta(days=i)).isoformat(): float(price) for i, price in enumerate(PRICES)}
    assert all(prices == expected for prices in applied), applied
