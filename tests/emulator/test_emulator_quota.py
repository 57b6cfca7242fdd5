"""The daily request quota (03-conventions): counting, usage headers, 429 and the midnight reset."""

from __future__ import annotations

from emulator_http import CREDENTIALS, RC, Emu

USAGE_HEADERS = ("x-ratelimit-limit", "x-ratelimit-remaining", "x-ratelimit-reset")


def test_every_api_response_carries_the_usage_headers(emu: Emu) -> None:
    token = emu.client.post("/v1/Token", data=CREDENTIALS)
    unauthorized = emu.call("GET", f"{RC}/Accounts", auth=False)
    bearer = {"Authorization": f"Bearer {token.json()['access_token']}"}
    listed = emu.call("GET", f"{RC}/Accounts", auth=False, headers=bearer)
    missing = emu.call("GET", f"{RC}/Account/424242")
    for response in (token, unauthorized, listed, missing):
        assert all(name in response.headers for name in USAGE_HEADERS), response.headers
    assert [int(r.headers["x-ratelimit-remaining"]) for r in (token, unauthorized, listed)] == [
        1499,
        1498,
        1497,
    ]
    assert listed.headers["x-ratelimit-limit"] == "1500"
    # 09:00 UTC: fifteen hours to midnight.
    assert int(listed.headers["x-ratelimit-reset"]) == 15 * 3600


def test_usage_counts_itself_and_every_request_before_it(emu: Emu) -> None:
    emu.token()
    emu.call("GET", f"{RC}/Accounts")
    emu.call("GET", f"{RC}/Accounts", auth=False)
    usage = emu.ok("GET", "/v1/Usage")
    # token + accounts + the 401 + the usage call itself
    assert usage == {"usedCalls": 4, "dailyQuota": 1500}


def test_the_control_surface_is_not_counted(emu: Emu) -> None:
    for _ in range(3):
        emu.ctl("GET", "/clock")
    assert emu.ctl("GET", "/quota")["usedCalls"] == 0


def test_past_the_quota_the_answer_is_429_with_retry_after(emu: Emu) -> None:
    emu.ctl("POST", "/quota", {"dailyQuota": 3})
    emu.token()
    assert emu.call("GET", f"{RC}/Accounts").status_code == 200
    last = emu.call("GET", f"{RC}/Accounts")
    assert last.status_code == 200
    assert last.headers["x-ratelimit-remaining"] == "0"
    refused = emu.call("GET", f"{RC}/Accounts")
    assert refused.status_code == 429
    assert refused.json()["error"]["code"] == "TOO_MANY_REQUESTS"
    assert int(refused.headers["retry-after"]) == 15 * 3600
    # A refused request is not counted: the day stays at its quota.
    assert emu.ctl("GET", "/quota")["usedCalls"] == 3


def test_the_quota_resets_when_the_clock_passes_midnight_utc(emu: Emu) -> None:
    emu.ctl("POST", "/quota", {"dailyQuota": 2})
    emu.token()
    emu.call("GET", f"{RC}/Accounts")
    assert emu.call("GET", f"{RC}/Accounts").status_code == 429
    emu.ctl("POST", "/clock/advance", {"hours": 14, "minutes": 59})
    assert emu.call("GET", f"{RC}/Accounts").status_code == 429
    emu.ctl("POST", "/clock/advance", {"minutes": 1})
    fresh = emu.call("GET", f"{RC}/Accounts")
    assert fresh.status_code == 200
    assert fresh.headers["x-ratelimit-remaining"] == "1"
    assert int(fresh.headers["x-ratelimit-reset"]) == 24 * 3600


def test_a_free_licence_allows_100_requests(emu: Emu) -> None:
    emu.ctl("POST", "/quota", {"freeLicence": True, "usedCalls": 98})
    emu.token()
    usage = emu.ok("GET", "/v1/Usage")
    assert usage == {"usedCalls": 100, "dailyQuota": 100}
    assert emu.call("GET", "/v1/Usage").status_code == 429
