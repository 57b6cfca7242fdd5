"""The emulator refuses what documents 01-03 do not allow in a request body, in JSON and XML: an
``id`` on a create, ``null`` for a field not typed nullable, a field the operation does not have.
Each refusal is a 400 with the 03 error body naming the field, and changes nothing; the same body
without the fault is accepted (so the check is not a blanket refusal)."""

from __future__ import annotations

import json
from typing import Any

import pytest
from emulator_http import Emu

CUSTOMER = "/v1/Customer"
CREATED = "POST /v1/Customer 200"
"""Creates the emulator accepted, in its request log."""


def send(emu: Emu, path: str, content: str, fmt: str) -> tuple[int, dict[str, Any] | str]:
    content_type = "text/xml" if fmt == "xml" else "application/json"
    response = emu.client.post(
        path,
        content=content.encode(),
        headers={
            "Authorization": f"Bearer {emu.token()}",
            "Content-Type": content_type,
            "Accept": "application/json",
        },
    )
    return response.status_code, response.json() if response.content else ""


def customers(emu: Emu) -> int:
    counts: dict[str, int] = emu.ctl("GET", "/requests")["byStatus"]
    return counts.get(CREATED, 0)


CASES = {
    # (JSON body, XML body, the error code, the field named)
    "id on a create": (
        {"id": 7, "lastName": "Smith"},
        "<Customer><Id>7</Id><LastName>Smith</LastName></Customer>",
        "ID_NOT_ALLOWED",
        "id",
    ),
    "null for a field not typed nullable": (
        {"lastName": "Smith", "isSalesTaxExempt": None},
        '<Customer xmlns:xsi="http://www.w3.org/2001/XMLSchema-instance"><LastName>Smith</LastName>'
        '<IsSalesTaxExempt xsi:nil="true"/></Customer>',
        "INVALID_VALUE",
        "isSalesTaxExempt",
    ),
    "a field the operation does not have": (
        {"lastName": "Smith", "loyaltyTier": "gold"},
        "<Customer><LastName>Smith</LastName><LoyaltyTier>gold</LoyaltyTier></Customer>",
        "UNKNOWN_FIELD",
        "loyaltyTier",
    ),
}


@pytest.mark.parametrize("fmt", ["json", "xml"])
@pytest.mark.parametrize("case", sorted(CASES))
def test_a_forbidden_body_is_refused_naming_the_field_and_changes_nothing(
    emu: Emu, case: str, fmt: str
) -> None:
    json_body, xml_body, code, field = CASES[case]
    before = customers(emu)

    status, answer = send(emu, CUSTOMER, json.dumps(json_body) if fmt == "json" else xml_body, fmt)

    assert status == 400, answer
    assert isinstance(answer, dict)
    error = answer["error"]
    assert error["code"] == code
    expected_field = field if fmt == "json" else field[0].upper() + field[1:]
    assert error["field"] in (field, expected_field), error
    assert customers(emu) == before


@pytest.mark.parametrize("fmt", ["json", "xml"])
def test_the_same_body_without_the_fault_is_accepted(emu: Emu, fmt: str) -> None:
    xml = "<Customer><LastName>Smith</LastName></Customer>"
    content = json.dumps({"lastName": "Smith"}) if fmt == "json" else xml
    status, answer = send(emu, CUSTOMER, content, fmt)
    assert status == 200 and isinstance(answer, dict) and answer["id"] > 0
