"""Every catalog operation has a typed method, and every one works in JSON and in XML."""

from __future__ import annotations

import inspect
import re
import typing
from datetime import timedelta
from typing import Any

import pytest
from catalog_sweep import STEPS
from client_harness import FIXED_NOW, ClientFactory, Control
from pydantic_xml import RootXmlModel

from roomsync.adapters.client import FatalError, NotFoundError, ServiceClient
from roomsync.core.api.pms.availability import RoomAvailabilityRequest
from roomsync.core.catalog import OPERATIONS, Operation, by_name


def snake(name: str) -> str:
    """``accountId`` -> ``account_id``; ``id2`` stays ``id2``."""
    return re.sub(r"(?<!^)([A-Z])", r"_\1", name).lower()


def expected_return(op: Operation) -> Any:
    if op.response is None:
        return type(None)
    if issubclass(op.response, RootXmlModel):
        return list[typing.get_args(op.response.model_fields["root"].annotation)[0]]  # type: ignore[misc]
    return op.response


@pytest.mark.parametrize("op", OPERATIONS, ids=lambda op: op.name)
def test_every_operation_has_a_typed_method(op: Operation) -> None:
    method = getattr(ServiceClient, op.name, None)
    assert method is not None, f"ServiceClient has no method {op.name}"
    signature = inspect.signature(method)
    positional = [
        p.name
        for p in signature.parameters.values()
        if p.kind is inspect.Parameter.POSITIONAL_OR_KEYWORD and p.name != "self"
    ]
    expected = [snake(p) for p in op.path_params] + (["body"] if op.request is not None else [])
    assert positional == expected
    assert signature.parameters["priority"].kind is inspect.Parameter.KEYWORD_ONLY
    hints = typing.get_type_hints(method)
    if op.request is not None:
        assert op.request in typing.get_args(hints["body"]) or hints["body"] is op.request
    assert hints["return"] == expected_return(op)


def test_the_sweep_calls_every_operation_once() -> None:
    names = [step.operation for step in STEPS]
    assert sorted(names) == sorted(op.name for op in OPERATIONS)


def assert_answer_matches(op: Operation, result: Any) -> None:
    expected = expected_return(op)
    if expected is type(None):
        assert result is None
    elif typing.get_origin(expected) is list:
        item = typing.get_args(expected)[0]
        assert isinstance(result, list)
        assert all(isinstance(entry, item) for entry in result)
    else:
        assert isinstance(result, expected)


@pytest.mark.parametrize("fmt", ["json", "xml"])
async def test_every_operation_against_the_emulator(
    fmt: str, make_client: ClientFactory, control: Control
) -> None:
    client = make_client(fmt)
    ctx: dict[str, Any] = {"today": FIXED_NOW.date(), "reference": f"SWEEP-{fmt.upper()}-1"}
    refused: dict[str, int] = {}
    for step in STEPS:
        op = by_name(step.operation)
        method = getattr(client, step.operation)
        if step.refusal is not None:
            status, why = step.refusal
            with pytest.raises((FatalError, NotFoundError)) as refusal:
                await method(*step.args(ctx))
            assert refusal.value.status == status, why
            assert refusal.value.code, "the 03 error body's code is carried"
            refused[step.operation] = status
            continue
        result = await method(*step.args(ctx))
        assert_answer_matches(op, result)
        if step.keep is not None:
            step.keep(ctx, result)

    log = control.log()
    calls = [entry for entry in log["recent"] if entry["operation"]]
    assert all(entry["status"] < 500 for entry in calls), "no request made the emulator fail"
    for op in OPERATIONS:
        mine = [entry for entry in calls if entry["operation"] == op.name]
        assert mine, f"{op.name} never reached the emulator"
        wanted = "json" if op.form_body else fmt  # the token answer is OAuth JSON in both modes
        assert {entry["format"] for entry in mine} == {wanted}, op.name
        assert {entry["status"] for entry in mine} == {refused.get(op.name, 200)}, op.name
    # Nothing was retried or sent twice: one request per step (the first step got the token).
    assert client.requests_sent.total == log["total"] == len(STEPS)


@pytest.mark.parametrize("fmt", ["json", "xml"])
async def test_a_digested_read_tells_an_answer_again_by_its_bytes(
    make_client: ClientFactory, control: Control, fmt: str
) -> None:
    """``room_availability_digested`` (a poll's read, issue 26): the same answer has the same
    digest, its model is the plain method's, and a front-desk booking changes the digest."""
    client = make_client(fmt)
    first = FIXED_NOW.date()
    body = RoomAvailabilityRequest(date_from=first, date_to=first + timedelta(days=30), group_dates=1)
    one = await client.room_availability_digested(body)
    two = await client.room_availability_digested(body)
    assert one.digest == two.digest
    assert two.model() == await client.room_availability(body)

    control.call(
        "POST",
        "/pms/book",
        {
            "dateFrom": str(first + timedelta(days=2)),
            "dateTo": str(first + timedelta(days=3)),
            "lastName": "Digest",
            "roomTypeId": 1,
        },
    )
    assert (await client.room_availability_digested(body)).digest != one.digest
    with pytest.raises(ValueError, match="only a read"):
        await client.call_digested("create_reservation", body=None)
