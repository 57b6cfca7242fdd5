"""The admin API of a deployment of several properties: ``/admin/properties`` and
``/admin/properties/{id}/...`` answered by one real ``roomsync serve`` (SQLite) serving two
properties added as data.

The emulator serves two domains (``roomsync.emulator.domains``); the properties are rows added with
``roomsync properties add`` (passwords by reference to environment variables) and each has a
mapping of its own, loaded with ``roomsync mappings load --property``: hotel-01 maps host account
2001's listings, hotel-02 account 2002's, so a listing of one property is not one of the other.
Every route is asked for each property, and must answer about that property only; an unknown
property is 404 and every route needs the token.
"""

from __future__ import annotations

import contextlib
import os
import subprocess
import tomllib
from collections.abc import Iterator
from dataclasses import dataclass
from datetime import UTC, datetime
from datetime import time as day_time
from typing import Any

import httpx
import pytest
from daemon_harness import (
    ADMIN_TOKEN,
    ROOMSYNC,
    DaemonProcess,
    Emulator,
    domain_emulators,
    free_port,
    start_daemon,
    wait_until,
)
from test_daemon_day import Day

from roomsync.emulator.clock import EmulatorClock
from roomsync.emulator.domains import DomainsApp, build_domains, domain_credentials
from roomsync.emulator.scenario import DEMO_MAPPING_TOML
from roomsync.emulator.server import serve_in_thread

pytestmark = pytest.mark.slow

A, B = "hotel-01", "hotel-02"
ACCOUNT = {A: "2001", B: "2002"}
"""The host account whose listings each property maps."""
MAPPED = {A: {"2001/41000001", "2001/41000002", "2001/41000003"}, B: {"2002/41000004", "2002/41000005"}}
ROUTES = [
    ("GET", "/status"),
    ("GET", "/runs"),
    ("GET", "/budget"),
    ("GET", "/webhooks"),
    ("POST", "/resync"),
    ("POST", "/pause"),
    ("POST", "/resume"),
    ("POST", "/listings/2001/41000003/pause"),
    ("POST", "/listings/2001/41000003/resume"),
    ("GET", "/listings/2001/41000003/nights/2030-01-01"),
    ("GET", "/dead-letters"),
]
"""Every per-property route (``{id}`` prefix left out), with its method."""


def mapping_of(property_id: str) -> str:
    """The demo mapping cut to the property's host account: its listings and the connected room
    types among theirs (the two accounts map different room types)."""
    head, *entries = DEMO_MAPPING_TOML.strip().split("\n\n")
    fields = [tomllib.loads(entry.partition("\n")[2]) for entry in entries]
    own = [
        (entry, f)
        for entry, f in zip(entries, fields, strict=True)
        if f.get("account_id") == ACCOUNT[property_id]
    ]
    room_types = {f["room_type_id"] for _, f in own}
    connected = [
        entry
        for entry, f in zip(entries, fields, strict=True)
        if entry.startswith("[[connected]]") and f["room_type_id"] in room_types
    ]
    return "\n\n".join([head, *(entry for entry, _ in own), *connected]) + "\n"


@dataclass
class Deployment:
    daemon: DaemonProcess
    emulators: dict[str, Emulator]
    env: dict[str, str]

    def ask(self, method: str, path: str, **kwargs: Any) -> httpx.Response:
        return self.daemon.admin(method, path, **kwargs)

    def ok(self, method: str, path: str, **kwargs: Any) -> Any:
        response = self.ask(method, path, **kwargs)
        assert response.status_code == 200, f"{method} {path}: {response.status_code} {response.text}"
        return response.json()


def roomsync(env: dict[str, str], *args: str) -> None:
    done = subprocess.run([*ROOMSYNC, *args], env=env, capture_output=True, text=True, timeout=60)
    assert done.returncode == 0, f"roomsync {' '.join(args)}: {done.stderr}"


@pytest.fixture(scope="module")
def deployment(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Deployment]:
    tmp_path = tmp_path_factory.mktemp("admin-properties")
    start = datetime.combine(datetime.now(UTC).date(), day_time(0, 0, 30), tzinfo=UTC)
    states = build_domains(2, clock=EmulatorClock(start, frozen=True))
    with serve_in_thread(DomainsApp(states)) as url, contextlib.ExitStack() as cleanup:
        emulators = domain_emulators(states, url, cleanup)
        env = {k: v for k, v in os.environ.items() if not k.startswith("ROOMSYNC_")}
        env.update(
            ROOMSYNC_BASE_URL=url,
            ROOMSYNC_DATA_DIR=str(tmp_path / "data"),
            ROOMSYNC_SERVE_PORT=str(free_port()),
            ROOMSYNC_ADMIN_TOKEN=ADMIN_TOKEN,
            ROOMSYNC_SCHEDULE_JITTER_SECONDS="0",
            ROOMSYNC_OWNERSHIP_CHECK_SECONDS="1",
            # the emulator signs with its own (frozen) clock: deliveries are accepted unsigned, said here
            ROOMSYNC_WEBHOOK_REQUIRE_SIGNATURE="false",
        )
        roomsync(env, "db", "upgrade")
        for i, property_id in enumerate((A, B), start=1):
            credentials = domain_credentials(i)
            env[f"HOTEL_PW_{i:02d}"] = credentials.password
            roomsync(
                env,
                "properties",
                "add",
                property_id,
                "--set",
                f"username={credentials.username}",
                "--set",
                f"domain={credentials.domain}",
                "--secret",
                f"password=env:HOTEL_PW_{i:02d}",
            )
            mapping = tmp_path / f"{property_id}.toml"
            mapping.write_text(mapping_of(property_id))
            roomsync(env, "mappings", "load", "--property", property_id, str(mapping))
        daemon = start_daemon(env, tmp_path / "daemon.log")
        try:
            for domain, emulator in emulators.items():
                emulator.post("/webhooks/receiver", {"url": f"{daemon.url}/webhooks/RentalChannel/{domain}"})
            deployment = Deployment(daemon, emulators, env)

            def synced(property_id: str) -> bool:
                runs = deployment.ok("GET", f"/properties/{property_id}/runs")
                return any(run["kind"] == "sync" and run["result"] == "ok" for run in runs)

            wait_until(lambda: synced(A) and synced(B), 90, "a full sync of both properties")
            yield deployment
        finally:
            assert daemon.stop() == 0, daemon.log()[-3000:]


def test_the_list_names_both_properties_served_here(deployment: Deployment) -> None:
    listed = deployment.ok("GET", "/properties")
    assert [row["property"] for row in listed] == [A, B]
    assert all(row["served_here"] and not row["paused"] and row["failed"] is None for row in listed)
    # the one-property paths of before ask which property
    answer = deployment.ask("GET", "/status")
    assert answer.status_code == 400 and "2 properties" in answer.json()["detail"]


@pytest.mark.parametrize("property_id", [A, B])
def test_status_runs_and_budget_are_the_propertys_own(deployment: Deployment, property_id: str) -> None:
    other = B if property_id == A else A
    status = deployment.ok("GET", f"/properties/{property_id}/status")
    assert status["property_id"] == property_id and status["mapping_loaded"]
    listed = {f"{row['account_id']}/{row['listing_id']}" for row in status["listings"]}
    assert listed == MAPPED[property_id]  # its listings only, none of the other property's
    assert status["schedule"]["daemon_running"]

    runs = deployment.ok("GET", f"/properties/{property_id}/runs", params={"limit": 100})
    others = deployment.ok("GET", f"/properties/{other}/runs", params={"limit": 100})
    assert runs and {run["id"] for run in runs}.isdisjoint(run["id"] for run in others)
    assert any(run["kind"] == "sync" and run["result"] == "ok" and run["requests"] > 0 for run in runs)
    assert {run["id"] for run in status["recent_runs"]} <= {run["id"] for run in runs}

    budget = deployment.ok("GET", f"/properties/{property_id}/budget")
    assert budget["property"] == property_id and budget["quota"] > 0
    # what the budget counted is what this property's domain received (a poll may be in flight)
    received = deployment.emulators[property_id].state.quota.used
    assert budget["used"] > 0 and abs(budget["used"] - received) <= 2, (budget["used"], received)
    assert budget["remaining"] == budget["quota"] - budget["used"]
    assert {line["priority"] for line in budget["lines"]} >= {"guest", "availability"}

    assert deployment.ok("GET", f"/properties/{property_id}/dead-letters") == []
    own, foreign = sorted(MAPPED[property_id])[0], sorted(MAPPED[other])[0]
    night = datetime.now(UTC).date().isoformat()
    assert deployment.ok("GET", f"/properties/{property_id}/listings/{own}/nights/{night}")
    refused = deployment.ask("GET", f"/properties/{property_id}/listings/{foreign}/nights/{night}")
    assert refused.status_code == 404 and foreign in refused.json()["detail"]


@pytest.mark.parametrize("property_id", [A, B])
def test_a_listing_is_paused_and_resumed_with_a_reason(deployment: Deployment, property_id: str) -> None:
    other = B if property_id == A else A
    own = sorted(MAPPED[property_id])[0]
    paused = deployment.ok(
        "POST", f"/properties/{property_id}/listings/{own}/pause", json={"reason": "new photos"}
    )
    assert paused["listing"] == own and paused["paused"] and "new photos" in paused["pause_reason"]

    def row(pid: str, listing: str) -> dict[str, Any]:
        status = deployment.ok("GET", f"/properties/{pid}/status")
        return next(r for r in status["listings"] if f"{r['account_id']}/{r['listing_id']}" == listing)

    shown = row(property_id, own)
    assert shown["paused"] and shown["state"] == "paused" and "new photos" in shown["pause_reason"]
    assert not any(
        r["paused"] for r in deployment.ok("GET", f"/properties/{other}/status")["listings"]
    )  # the other property's listings untouched
    # a listing of the other property is not one of this one
    foreign = sorted(MAPPED[other])[0]
    refused = deployment.ask("POST", f"/properties/{property_id}/listings/{foreign}/pause", json={})
    assert refused.status_code == 404 and foreign in refused.json()["detail"]

    resumed = deployment.ok("POST", f"/properties/{property_id}/listings/{own}/resume")
    assert resumed["listing"] == own and not resumed["paused"]
    assert not row(property_id, own)["paused"]


@pytest.mark.parametrize("property_id", [A, B])
def test_resync_takes_the_propertys_listings_and_refuses_the_others(
    deployment: Deployment, property_id: str
) -> None:
    other = B if property_id == A else A
    own = f"{ACCOUNT[property_id]}/{'41000003' if property_id == A else '41000004'}"
    done = deployment.ok(
        "POST", f"/properties/{property_id}/resync", json={"listings": [own], "requested_by": "test"}
    )
    assert done["result"] in ("ok", "ok_with_warnings"), done
    assert [row["listing"] for row in done["listings"]] == [own]
    runs = deployment.ok("GET", f"/properties/{property_id}/runs", params={"limit": 5})
    assert any(run["id"] == done["run_id"] and run["kind"] == "resync" for run in runs)
    assert all(
        run["id"] != done["run_id"]
        for run in deployment.ok("GET", f"/properties/{other}/runs", params={"limit": 100})
    )

    foreign = sorted(MAPPED[other])[0]
    refused = deployment.ask("POST", f"/properties/{property_id}/resync", json={"listings": [foreign]})
    assert refused.status_code in (400, 404), refused.text
    assert foreign in refused.json()["detail"]
    bad = deployment.ask("POST", f"/properties/{property_id}/resync", json={"listings": ["no-slash"]})
    assert bad.status_code == 400 and "no-slash" in bad.json()["detail"]


def test_webhooks_are_listed_under_the_property_they_were_sent_to(deployment: Deployment) -> None:
    before = {pid: deployment.ok("GET", f"/properties/{pid}/webhooks") for pid in (A, B)}
    emulator = deployment.emulators[A]
    day = Day(emulator, emulator.state.clock.today(), [], [], {})
    day.guest_books("41000003")
    assert emulator.post("/webhooks/wait", {"state": "settled", "timeout": 30})["done"]

    def new_events() -> list[dict[str, Any]]:
        seen = {event["id"] for event in before[A]}
        return [e for e in deployment.ok("GET", f"/properties/{A}/webhooks") if e["id"] not in seen]

    events = wait_until(
        lambda: (found := new_events()) and all(e["status"] == "done" for e in found) and found,
        30,
        "the guest booking's events applied",
    )
    assert events
    assert deployment.ok("GET", f"/properties/{B}/webhooks") == before[B]  # none reached hotel-02
    placed = [
        r
        for r in emulator.state.pms.reservations.values()
        if r.booking_agency_reference_code == day.guest_codes[0]
    ]
    assert len(placed) == 1
    assert not any(
        r.booking_agency_reference_code == day.guest_codes[0]
        for r in deployment.emulators[B].state.pms.reservations.values()
    )
    only_done = deployment.ok("GET", f"/properties/{A}/webhooks", params={"status": "done", "limit": 1})
    assert len(only_done) == 1 and only_done[0]["status"] == "done"


def test_a_property_is_paused_with_a_reason_and_resumed(deployment: Deployment) -> None:
    paused = deployment.ok("POST", f"/properties/{B}/pause", json={"reason": "renovation"})
    assert paused["property"] == B and paused["paused"] and "renovation" in paused["paused_reason"]
    listed = {row["property"]: row for row in deployment.ok("GET", "/properties")}
    assert listed[B]["paused"] and "renovation" in listed[B]["paused_reason"]
    assert not listed[B]["served_here"]  # stopped at once, not at the next ownership check
    assert listed[A]["served_here"] and not listed[A]["paused"]
    status = deployment.ok("GET", f"/properties/{B}/status")  # still answered, from the store
    assert status["property_id"] == B and not status["schedule"]["daemon_running"]
    refused = deployment.ask("POST", f"/properties/{B}/resync", json={})
    assert refused.status_code == 409 and B in refused.json()["detail"]

    resumed = deployment.ok("POST", f"/properties/{B}/resume")
    assert resumed == {"property": B, "paused": False, "paused_reason": None}
    listed = {row["property"]: row for row in deployment.ok("GET", "/properties")}
    assert listed[B]["served_here"] and not listed[B]["paused"]
    assert deployment.ok("GET", f"/properties/{B}/status")["schedule"]["daemon_running"]


@pytest.mark.parametrize(("method", "route"), ROUTES)
def test_an_unknown_property_is_404_naming_it(deployment: Deployment, method: str, route: str) -> None:
    answer = deployment.ask(method, f"/properties/hotel-99{route}", json={})
    assert answer.status_code == 404, answer.text
    assert "hotel-99" in answer.json()["detail"]


@pytest.mark.parametrize(("method", "route"), [("GET", ""), *ROUTES])
def test_every_route_needs_the_token(deployment: Deployment, method: str, route: str) -> None:
    path = f"/admin/properties/{A}{route}" if route else "/admin/properties"
    url = f"{deployment.daemon.url}{path}"
    for headers in ({}, {"Authorization": "Bearer not-the-token"}, {"Authorization": f"Basic {ADMIN_TOKEN}"}):
        answer = deployment.daemon.http.request(method, url, headers=headers, json={})
        assert answer.status_code == 401, (headers, answer.text)
        assert answer.headers["www-authenticate"] == "Bearer"
    assert not deployment.ok("GET", "/properties")[0]["paused"]  # nothing was done without it
