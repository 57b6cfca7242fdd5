"""Fault injection: 5xx errors, dropped connections, forced 429s, added latency."""

from __future__ import annotations

import httpx
import pytest
from emulator_http import RC, Emu


def test_an_error_rate_of_one_fails_every_request_with_the_error_body(emu: Emu) -> None:
    emu.token()
    emu.ctl("POST", "/faults", {"errorRate": 1.0, "errorStatus": 502})
    for fmt in ("json", "xml"):
        response = emu.call("GET", f"{RC}/Accounts", fmt=fmt)
        assert response.status_code == 502
        assert "x-ratelimit-remaining" in response.headers
    assert emu.call("GET", f"{RC}/Accounts").json()["error"]["code"] == "SERVICE_UNAVAILABLE"
    emu.ctl("DELETE", "/faults")
    assert emu.call("GET", f"{RC}/Accounts").status_code == 200


def test_error_next_fails_exactly_that_many_requests(emu: Emu) -> None:
    emu.token()
    emu.ctl("POST", "/faults", {"errorNext": 2})
    statuses = [emu.call("GET", f"{RC}/Accounts").status_code for _ in range(3)]
    assert statuses == [503, 503, 200]
    assert emu.ctl("GET", "/faults")["injected"]["error"] == 2


def test_a_dropped_connection_gets_no_response_at_all(emu: Emu) -> None:
    emu.token()
    emu.ctl("POST", "/faults", {"dropNext": 1})
    with pytest.raises(httpx.TransportError):
        emu.call("GET", f"{RC}/Accounts")
    assert emu.call("GET", f"{RC}/Accounts").status_code == 200
    log = emu.ctl("GET", "/requests")["recent"]
    assert [entry["status"] for entry in log[-2:]] == [0, 200]


def test_a_drop_rate_of_one_drops_every_request(emu: Emu) -> None:
    emu.token()
    emu.ctl("POST", "/faults", {"dropRate": 1.0})
    for _ in range(2):
        with pytest.raises(httpx.TransportError):
            emu.call("GET", f"{RC}/Accounts")
    assert emu.ctl("GET", "/faults")["injected"]["drop"] == 2


def test_forced_429s_are_not_counted_against_the_quota(emu: Emu) -> None:
    emu.token()
    emu.ctl("POST", "/faults", {"throttleNext": 2})
    first, second, third = (emu.call("GET", f"{RC}/Accounts") for _ in range(3))
    assert (first.status_code, second.status_code, third.status_code) == (429, 429, 200)
    assert int(first.headers["retry-after"]) > 0
    assert emu.ctl("GET", "/quota")["usedCalls"] == 2  # the token and the third request


def test_latency_and_webhook_delay_are_settable_and_reported(emu: Emu) -> None:
    shown = emu.ctl("POST", "/faults", {"latencyMs": 5, "webhookDelayMs": 10})
    assert (shown["latencyMs"], shown["webhookDelayMs"]) == (5, 10)
    assert emu.call("GET", f"{RC}/Accounts").status_code == 200


def test_bad_fault_settings_are_refused(emu: Emu) -> None:
    refused = emu.ctl("POST", "/faults", {"errorRate": 2}, expect=400)
    assert refused["error"]["field"] == "errorRate"
    unknown = emu.ctl("POST", "/faults", {"explode": True}, expect=400)
    assert unknown["error"]["field"] == "explode"
