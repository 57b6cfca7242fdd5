"""The token, authentication, content negotiation and error bodies of the emulator (03-conventions)."""

from __future__ import annotations

from collections.abc import Iterator
from datetime import timedelta

import httpx
import pytest
from emulator_http import CREDENTIALS, HOST_A, RC, STUDIO, TODAY, Emu, day, text, xml_of

from roomsync.core.catalog import OPERATIONS
from roomsync.emulator.app import create_app, load_handlers
from roomsync.emulator.clock import EmulatorClock
from roomsync.emulator.registry import HANDLERS, Call
from roomsync.emulator.scenario import build_state
from roomsync.emulator.server import serve_in_thread


def test_every_catalog_operation_has_a_handler() -> None:
    handlers = load_handlers()
    missing = [op.name for op in OPERATIONS if op.name not in handlers]
    assert missing == []


def test_token_answers_a_bearer_token_living_86399_seconds(emu: Emu) -> None:
    response = emu.client.post("/v1/Token", data=CREDENTIALS)
    assert response.status_code == 200
    answer = response.json()
    assert answer["token_type"] == "bearer"
    assert answer["expires_in"] == 86399
    listed = emu.client.get(f"{RC}/Accounts", headers={"Authorization": f"Bearer {answer['access_token']}"})
    assert listed.status_code == 200


def test_token_takes_a_multipart_form_too(emu: Emu) -> None:
    response = emu.client.post("/v1/Token", files={k: (None, v) for k, v in CREDENTIALS.items()})
    assert response.status_code == 200
    assert response.json()["token_type"] == "bearer"


@pytest.mark.parametrize(
    ("change", "error"),
    [
        ({"password": "wrong"}, "invalid_grant"),
        ({"domain": "other-hotel"}, "invalid_grant"),
        ({"username": "nobody"}, "invalid_grant"),
        ({"grant_type": "client_credentials"}, "unsupported_grant_type"),
    ],
)
def test_token_refuses_wrong_credentials_with_400(emu: Emu, change: dict[str, str], error: str) -> None:
    response = emu.client.post("/v1/Token", data={**CREDENTIALS, **change})
    assert response.status_code == 400
    assert response.json()["error"] == error
    assert response.json()["error_description"]


def test_token_without_a_field_is_an_invalid_request(emu: Emu) -> None:
    response = emu.client.post("/v1/Token", data={"grant_type": "password", "username": "demo"})
    assert response.status_code == 400
    assert response.json()["error"] == "invalid_request"
    assert "password" in response.json()["error_description"]


def test_a_request_without_a_token_gets_401_with_the_error_body(emu: Emu) -> None:
    response = emu.call("GET", f"{RC}/Accounts", auth=False)
    assert response.status_code == 401
    assert response.json()["error"]["code"] == "UNAUTHORIZED"
    bogus = emu.call("GET", f"{RC}/Accounts", auth=False, headers={"Authorization": "Bearer not-a-token"})
    assert bogus.status_code == 401


def test_a_token_expires_after_24_hours_of_the_emulator_clock(emu: Emu) -> None:
    assert emu.call("GET", f"{RC}/Accounts").status_code == 200
    emu.ctl("POST", "/clock/advance", {"seconds": 86398})
    assert emu.call("GET", f"{RC}/Accounts").status_code == 200
    emu.ctl("POST", "/clock/advance", {"seconds": 2})
    assert emu.call("GET", f"{RC}/Accounts").status_code == 401


def test_static_key_mode_accepts_only_the_key_header(emu: Emu) -> None:
    emu.ctl("POST", "/auth", {"staticKey": "k-123", "authHeader": "apikey"})
    assert emu.call("GET", f"{RC}/Accounts", auth=False, headers={"apikey": "k-123"}).status_code == 200
    assert emu.call("GET", f"{RC}/Accounts", auth=False, headers={"apikey": "other"}).status_code == 401
    # A bearer token is not what this deployment takes.
    assert emu.call("GET", f"{RC}/Accounts").status_code == 401


def test_the_control_surface_never_shows_the_password_or_the_key(emu: Emu) -> None:
    emu.ctl("POST", "/auth", {"staticKey": "secret-key-1", "password": "secret-pass-1"})
    shown = emu.client.get("/_emulator/auth").text + emu.client.get("/_emulator/").text
    assert "secret-key-1" not in shown
    assert "secret-pass-1" not in shown


def test_the_answer_follows_accept(emu: Emu) -> None:
    as_json = emu.call("GET", f"{RC}/Listing/{HOST_A}/{STUDIO}")
    assert as_json.headers["content-type"].startswith("application/json")
    as_xml = emu.call("GET", f"{RC}/Listing/{HOST_A}/{STUDIO}", fmt="xml")
    element = xml_of(as_xml)
    assert element.tag == "Listing"
    assert text(element, "ListingId") == as_json.json()["listingId"] == STUDIO


@pytest.mark.parametrize("content_type", ["text/xml", "application/xml", "application/xml; charset=utf-8"])
def test_an_xml_body_is_read_with_either_xml_content_type(emu: Emu, content_type: str) -> None:
    body = (
        f"<Inventory><AccountId>{HOST_A}</AccountId><ListingId>{STUDIO}</ListingId>"
        f"<DateFrom>{day(0)}</DateFrom><DateTo>{day(2)}</DateTo></Inventory>"
    )
    response = emu.client.post(
        f"{RC}/Inventory",
        content=body,
        headers={"Content-Type": content_type, "Authorization": f"Bearer {emu.token()}"},
    )
    assert response.status_code == 200, response.text
    assert [entry["date"] for entry in response.json()] == [day(0), day(1), day(2)]


def test_a_body_of_an_unreadable_type_gets_415(emu: Emu) -> None:
    response = emu.client.post(
        f"{RC}/Inventory",
        content=b"accountId=2001",
        headers={
            "Content-Type": "application/x-www-form-urlencoded",
            "Authorization": f"Bearer {emu.token()}",
        },
    )
    assert response.status_code == 415
    assert response.json()["error"]["code"] == "UNSUPPORTED_MEDIA_TYPE"


@pytest.mark.parametrize("fmt", ["json", "xml"])
def test_a_limit_violation_is_a_400_naming_the_field(emu: Emu, fmt: str) -> None:
    response = emu.call(
        "PUT",
        f"{RC}/AvailabilityRules",
        {"accountId": HOST_A, "listingId": STUDIO, "minHoursAhead": 30},
        fmt=fmt,
        root="AvailabilityRules",
    )
    assert response.status_code == 400
    if fmt == "json":
        error = response.json()["error"]
        assert (error["code"], error["field"]) == ("INVALID_VALUE", "minHoursAhead")
    else:
        element = xml_of(response)
        assert element.tag == "Error"
        assert element.get("code") == "INVALID_VALUE"
        assert element.get("field") == "minHoursAhead"
        assert "minHoursAhead" in (text(element, "Message") or "")


def test_a_broken_body_is_a_400(emu: Emu) -> None:
    response = emu.client.put(
        f"{RC}/Inventory",
        content=b"{not json",
        headers={"Content-Type": "application/json", "Authorization": f"Bearer {emu.token()}"},
    )
    assert response.status_code == 400
    assert response.json()["error"]["code"] == "INVALID_BODY"
    broken_xml = emu.client.put(
        f"{RC}/Inventory",
        content=b"<Inventory><AccountId>",
        headers={"Content-Type": "text/xml", "Authorization": f"Bearer {emu.token()}"},
    )
    assert broken_xml.status_code == 400


def test_a_missing_body_is_a_400(emu: Emu) -> None:
    response = emu.client.post(f"{RC}/Inventory", headers={"Authorization": f"Bearer {emu.token()}"})
    assert response.status_code == 400
    assert "body" in response.json()["error"]["message"]


def test_unknown_paths_and_methods_get_the_error_body(emu: Emu) -> None:
    missing = emu.call("GET", "/v1/NoSuchThing")
    assert missing.status_code == 404
    assert missing.json()["error"]["code"] == "NOT_FOUND"
    wrong_method = emu.call("DELETE", f"{RC}/Accounts")
    assert wrong_method.status_code == 405
    assert wrong_method.json()["error"]["code"] == "METHOD_NOT_ALLOWED"


def test_unknown_ids_are_404(emu: Emu) -> None:
    assert emu.call("GET", f"{RC}/Account/9999").status_code == 404
    response = emu.call("GET", f"{RC}/Listing/{HOST_A}/99999999")
    assert response.status_code == 404
    assert response.json()["error"]["code"] == "NOT_FOUND"


@pytest.fixture
def exploding_emulator() -> Iterator[str]:
    """An emulator whose list_accounts handler raises an unexpected exception."""
    state = build_state("demo", 7, clock=EmulatorClock(frozen=True))
    app = create_app(state)
    original = HANDLERS["list_accounts"]

    def explode(call: Call) -> None:
        raise RuntimeError("a bug")

    HANDLERS["list_accounts"] = explode
    try:
        with serve_in_thread(app) as base_url:
            yield base_url
    finally:
        HANDLERS["list_accounts"] = original


def test_an_unexpected_failure_still_answers_the_error_body(exploding_emulator: str) -> None:
    client = Emu(exploding_emulator)
    response = client.call("GET", f"{RC}/Accounts", fmt="xml")
    assert response.status_code == 500
    assert xml_of(response).get("code") == "INTERNAL_ERROR"
    assert "x-ratelimit-limit" in response.headers


def test_the_clock_can_be_set_advanced_and_frozen(emu: Emu) -> None:
    assert emu.ctl("GET", "/clock")["today"] == TODAY.isoformat()
    moved = emu.ctl("POST", "/clock/advance", {"days": 2, "hours": 1})
    assert moved["today"] == (TODAY + timedelta(days=2)).isoformat()
    assert moved["frozen"] is True
    assert emu.ctl("POST", "/clock", {"today": "2028-01-05"})["today"] == "2028-01-05"
    running = emu.ctl("POST", "/clock", {"frozen": False})
    assert running["frozen"] is False


def test_responses_are_real_http(emu: Emu) -> None:
    with httpx.Client(base_url=emu.base_url) as raw:
        response = raw.get("/v1/Usage")
    assert response.status_code == 401
    assert response.http_version == "HTTP/1.1"
