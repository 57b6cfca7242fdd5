"""Several domains behind one emulator address: each with its own data, quota and log, told apart
by the token request's domain, then by the bearer token, as the service does."""

from __future__ import annotations

import httpx

from roomsync.emulator.domains import DomainsApp, build_domains, domain_credentials
from roomsync.emulator.server import serve_in_thread


def token(http: httpx.Client, index: int) -> str:
    credentials = domain_credentials(index)
    response = http.post(
        "/v1/Token",
        data={
            "grant_type": "password",
            "username": credentials.username,
            "password": credentials.password,
            "domain": credentials.domain,
        },
    )
    assert response.status_code == 200, response.text
    return str(response.json()["access_token"])


def test_each_domain_answers_with_its_own_data_quota_and_log() -> None:
    states = build_domains(3, seed=11)
    with serve_in_thread(DomainsApp(states)) as base_url, httpx.Client(base_url=base_url) as http:
        tokens = {i: token(http, i) for i in (1, 2, 3)}
        rooms = {}
        for i in (1, 2, 3):
            response = http.get(
                "/v1/Rooms", headers={"Authorization": f"Bearer {tokens[i]}", "User-Agent": f"probe-{i}"}
            )
            assert response.status_code == 200, response.text
            rooms[i] = response.json()
        # domain 2 twice more: its quota and log move, the others' do not
        for _ in range(2):
            assert http.get("/v1/Rooms", headers={"Authorization": f"Bearer {tokens[2]}"}).status_code == 200
        used = {
            i: http.get(f"/_domains/hotel-{i:02d}/_emulator/quota").json()["usedCalls"] for i in (1, 2, 3)
        }
        assert used == {1: 2, 2: 4, 3: 2}  # the token request and the reads, each domain its own
        log = http.get("/_domains/hotel-01/_emulator/requests").json()
        agents = {entry["agent"] for entry in log["recent"] if entry["operation"] == "list_rooms"}
        assert agents == {"probe-1"}
        # a token of one domain is not a token of another: unknown everywhere else -> 401
        assert http.get("/v1/Rooms", headers={"Authorization": "Bearer forged"}).status_code == 401
        # wrong password for an existing domain: refused by that domain
        bad = http.post(
            "/v1/Token",
            data={"grant_type": "password", "username": "user-02", "password": "nope", "domain": "hotel-02"},
        )
        assert bad.status_code == 400 and bad.json()["error"] == "invalid_grant"
        assert http.get("/_domains/hotel-09/_emulator/quota").status_code == 404
    assert len(rooms) == 3
