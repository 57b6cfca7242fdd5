"""What an operator or an orchestrator talks to on a running `roomsync serve` process.

One real daemon process serves the module (against the emulator over loopback): /healthz,
/readyz, /metrics, the admin API and its token, pause/resume, dead letters, and the CLI's
`roomsync status` and `roomsync resync`, which go through the admin API while a daemon runs and
run directly when none does.
"""

from __future__ import annotations

import json
import subprocess
import time
from collections.abc import Callable, Iterator
from datetime import UTC, date, datetime, timedelta
from pathlib import Path
from typing import Any

import pytest
from daemon_harness import (
    ROOMSYNC,
    WEBHOOK_SECRET,
    DaemonProcess,
    Emulator,
    daemon_env,
    emulator_at_start_of_today,
    free_port,
    start_daemon,
    wait_until,
)
from prometheus_client.parser import text_string_to_metric_families

from roomsync.core.webhook_signature import SIGNATURE_HEADER, sign
from roomsync.metrics import Metrics


@pytest.fixture(scope="module")
def emulator() -> Iterator[Emulator]:
    with emulator_at_start_of_today() as running:
        yield running


@pytest.fixture(scope="module")
def env(emulator: Emulator, tmp_path_factory: pytest.TempPathFactory) -> dict[str, str]:
    data = tmp_path_factory.mktemp("operator") / "data"
    return daemon_env(emulator.url, data, free_port(), time_scale="0.01", schedule_jitter_seconds="0")


@pytest.fixture(scope="module")
def daemon(env: dict[str, str], tmp_path_factory: pytest.TempPathFactory) -> Iterator[DaemonProcess]:
    running = start_daemon(env, tmp_path_factory.mktemp("log") / "daemon.log", "--migrate")
    try:
        wait_until(lambda: running.job("prices")["last_result"] == "ok", 60, "the first full sync")
        yield running
    finally:
        if running.process.poll() is None:
            running.stop()


def roomsync(env: dict[str, str], *args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run([*ROOMSYNC, *args], env=env, capture_output=True, text=True, timeout=120)


def test_health_and_readiness(daemon: DaemonProcess) -> None:
    assert daemon.http.get(f"{daemon.url}/healthz").json()["status"] == "alive"
    ready = daemon.http.get(f"{daemon.url}/readyz")
    assert ready.status_code == 200
    assert ready.json()["checks"] == {"database": "ok", "credentials": "ok", "budget": "ok"}


def test_the_console_typed_without_its_slash_is_redirected_to_it(daemon: DaemonProcess) -> None:
    """An admin types ``/console``: it answered the webhook dispatcher's 404 JSON (issue 23)."""
    typed = daemon.http.get(f"{daemon.url}/console?next=x", follow_redirects=False)
    assert typed.status_code == 307, typed.text
    assert typed.headers["location"] == f"{daemon.url}/console/?next=x"
    shown = daemon.http.get(f"{daemon.url}/console", follow_redirects=True)
    assert shown.status_code == 200 and "text/html" in shown.headers["content-type"]
    assert shown.url.path.startswith("/console/")
    assert daemon.http.get(f"{daemon.url}/consoles", follow_redirects=False).status_code == 404


def test_the_healthcheck_command_asks_the_daemon_on_the_configured_port(
    daemon: DaemonProcess, env: dict[str, str]
) -> None:
    alive = roomsync(env, "healthcheck")
    assert alive.returncode == 0 and "alive" in alive.stdout, alive.stderr
    nobody = roomsync(env, "healthcheck", "--port", str(free_port()), "--timeout", "1")
    assert nobody.returncode == 1 and nobody.stderr.count("\n") == 1 and "Traceback" not in nobody.stderr


def test_metrics_scrape_cleanly_and_show_the_plan(daemon: DaemonProcess) -> None:
    families = {family.name: family for family in text_string_to_metric_families(daemon.metrics_text())}
    assert {name.removesuffix("_created") for name in families} <= Metrics().metric_names()
    interval = [s.value for s in families["roomsync_poll_interval_seconds"].samples]
    assert len(interval) == 1 and 60 <= interval[0] <= 6 * 3600
    used = families["roomsync_budget_used_requests"].samples[0].value
    sent = sum(s.value for s in families["roomsync_requests"].samples if s.name == "roomsync_requests_total")
    assert used >= sent > 0
    runs = {
        (s.labels["kind"], s.labels["result"]): s.value
        for s in families["roomsync_sync_runs"].samples
        if s.name == "roomsync_sync_runs_total"
    }
    assert runs[("sync", "ok")] >= 1


def test_admin_api_needs_the_token(daemon: DaemonProcess) -> None:
    anonymous = daemon.http.get(f"{daemon.url}/admin/status")
    assert anonymous.status_code == 401
    assert anonymous.headers["www-authenticate"] == "Bearer"
    wrong = daemon.http.get(f"{daemon.url}/admin/status", headers={"Authorization": "Bearer not-it"})
    assert wrong.status_code == 401
    assert daemon.admin("GET", "/status").status_code == 200
    spec = daemon.http.get(f"{daemon.url}/admin/openapi.json").json()
    assert {"/status", "/resync", "/dead-letters"} <= set(spec["paths"])


def test_the_admin_docs_page_works_offline_and_asks_for_the_token(daemon: DaemonProcess) -> None:
    page = daemon.http.get(f"{daemon.url}/admin/docs")
    assert page.status_code == 200 and page.headers["content-type"].startswith("text/html")
    html = page.text
    assert 'id="token" type="password"' in html  # the page asks for the token
    assert "/admin/properties/{property_id}/status" in html and "/admin/resync" in html
    # nothing loaded from elsewhere: no external script, stylesheet or image
    assert "http://" not in html and "https://" not in html and "<link" not in html
    assert "src=" not in html
    assert daemon.http.get(f"{daemon.url}/admin/redoc").status_code in (401, 404)


def test_the_history_of_a_night_through_the_admin_api(daemon: DaemonProcess) -> None:
    night = datetime.now(UTC).date() + timedelta(days=3)
    answer = daemon.admin("GET", f"/properties/demo-hotel/listings/2001/41000003/nights/{night}")
    assert answer.status_code == 200, answer.text
    story = answer.json()
    assert story["listing"] == "2001/41000003" and set(story["current"]) >= {"available", "count"}
    assert story["current"]["available"]["trigger"] == "schedule"  # the daemon's first full sync
    assert daemon.admin("GET", f"/properties/demo-hotel/listings/2001/9/nights/{night}").status_code == 404


def story_of(daemon: DaemonProcess, listing: str, night: date) -> dict[str, Any]:
    answer = daemon.admin("GET", f"/properties/demo-hotel/listings/{listing}/nights/{night}")
    assert answer.status_code == 200, answer.text
    story: dict[str, Any] = answer.json()
    return story


def pushed_since(daemon: DaemonProcess, listing: str, night: date, field: str, new: object) -> Any:
    """The night's last push of ``field`` once it is ``new``, else None (for wait_until)."""
    entry = story_of(daemon, listing, night)["current"].get(field)
    return entry if entry is not None and entry["new"] == new else None


def free_rooms(emulator: Emulator, room_type_id: int, night: date) -> int:
    free = emulator.get("/pms/availability", **{"from": str(night), "to": str(night)})["freeRooms"]
    return int(free.get(str(room_type_id), {}).get(str(night), 0))


def front_desk_books(emulator: Emulator, room_type_id: int, night: date, guest: str) -> None:
    emulator.post(
        "/pms/book",
        {
            "dateFrom": str(night),
            "dateTo": str(night + timedelta(days=1)),
            "lastName": guest,
            "roomTypeId": room_type_id,
        },
    )


TRIGGER_OF_RUN = {"poll": "poll", "detect": "detection", "push_nights": "webhook", "sync": "schedule"}
"""What the history must say started a push, by the kind of the daemon's run that made it."""


def pushed_by(run_kind: str, change: Callable[[], dict[str, Any]], tries: int = 3) -> dict[str, Any]:
    """The push of a change made by ``change()`` (which returns that push's history entry) when a
    run of ``run_kind`` carried it. Another job may get to a change first (a detection that found
    anything reads the free rooms as well; a poll may read the PMS between the bridge's booking and
    the guard's push): its entry must then name its own trigger, and a new change is made."""
    for _ in range(tries):
        entry = change()
        assert entry["trigger"] == TRIGGER_OF_RUN.get(entry["run_kind"]), entry
        if entry["run_kind"] == run_kind:
            return entry
    raise AssertionError(f"another job pushed each of {tries} changes before a {run_kind} run did")


def test_the_history_records_what_started_each_run(emulator: Emulator, daemon: DaemonProcess) -> None:
    """Every push is recorded with what started its run: the availability poll, the closure and
    price detection, the overbooking guard's push after a booking webhook, an admin's resync (with
    who asked). Full syncs run every ~10 min of wall time here, after the test."""
    today = datetime.now(UTC).date()
    doubles = "2001/41000003"  # the room-type listing of room type 1 (8 rooms)
    closures = (20, 21, 22, 45, 46)  # the demo's own closures (of the suites, of the property)
    nights = [today + timedelta(days=offset) for offset in range(10, 80) if offset not in closures]
    open_doubles = iter(n for n in nights[:40] if free_rooms(emulator, 1, n) >= 2)

    def front_desk_books_a_double() -> dict[str, Any]:
        booked = next(open_doubles)
        count = story_of(daemon, doubles, booked)["current"]["count"]["new"]
        front_desk_books(emulator, 1, booked, "Poll")
        return wait_until(
            lambda: pushed_since(daemon, doubles, booked, "count", count - 1), 30, "the booking's push"
        )

    # the front desk books a double: the next availability poll pushes the night's new count
    entry = pushed_by("poll", front_desk_books_a_double)
    assert entry["trigger"] == "poll", entry

    # the front desk closes the doubles for a night: only a detection (or a full sync) reads closures
    closed = next(open_doubles)
    emulator.post("/pms/close", {"dateFrom": str(closed), "dateTo": str(closed), "roomTypeId": 1})
    entry = wait_until(
        lambda: pushed_since(daemon, doubles, closed, "available", "unavailable"), 30, "the detection's push"
    )
    assert (entry["trigger"], entry["run_kind"]) == ("detection", "detect"), entry

    # a host changes a night on the channel; an admin's resync through the API reads and repairs it
    # (no other job reads the channel but the daily reconciliation)
    drifted = next(open_doubles)
    emulator.host_sets_availability("2001", "41000003", drifted, "unavailable")
    resync = daemon.admin(
        "POST",
        "/resync",
        json={
            "listings": [doubles],
            "date_from": str(drifted),
            "date_to": str(drifted),
            "requested_by": "Bob",
        },
    )
    assert resync.status_code == 200 and resync.json()["result"] == "ok", resync.text
    story = story_of(daemon, doubles, drifted)
    entry = story["current"]["available"]
    assert entry["new"] == "available", entry
    assert (entry["trigger"], entry["run_kind"]) == ("admin resync by Bob", "resync"), entry
    drift = [item["text"] for item in story["timeline"] if item["kind"] == "drift"]
    assert drift and "started by admin resync by Bob" in drift[-1], story["timeline"]

    # a guest books the last free room of type 4 through 41000001: the booking webhook makes the
    # bridge book it in the PMS, and the overbooking guard's push closes the night on 41000002
    singles = iter(n for n in nights[40:] if free_rooms(emulator, 4, n) >= 1)

    def guest_books_the_last_single() -> dict[str, Any]:
        night = next(singles)
        for extra in range(free_rooms(emulator, 4, night) - 1):
            front_desk_books(emulator, 4, night, f"Desk{extra}")
        stay = {"listingId": "41000001", "startDate": str(night), "nights": 1}
        booking = emulator.post("/guest/book", stay)
        assert booking["booked"], booking
        delivered = emulator.get("/webhooks", action="ReservationAcceptanceConfirmation")["deliveries"]
        body = json.dumps(next(d["payload"] for d in delivered if d["id"] == booking["delivery"]["id"]))
        received = daemon.http.post(
            f"{daemon.url}/webhooks/RentalChannel",
            content=body.encode(),
            headers={
                "Content-Type": "application/json",
                SIGNATURE_HEADER: sign(WEBHOOK_SECRET, int(time.time()), body.encode()),
            },
        )
        assert received.status_code == 200, received.text
        return wait_until(
            lambda: pushed_since(daemon, "2001/41000002", night, "available", "unavailable"),
            30,
            "the guard's push",
        )

    entry = pushed_by("push_nights", guest_books_the_last_single)
    assert entry["trigger"] == "webhook", entry


def test_status_lists_every_mapped_listing_with_the_schedule(daemon: DaemonProcess) -> None:
    status = daemon.status()
    listings = {row["listing_id"]: row for row in status["listings"]}
    assert set(listings) == {"41000001", "41000002", "41000003", "41000004", "41000005"}
    assert listings["41000003"]["last_sync_result"] in ("written", "unchanged")
    assert listings["41000005"]["sync_category"] == "Undecided"
    schedule = status["schedule"]
    assert schedule["daemon_running"] is True
    assert schedule["staleness_bound_seconds"] > schedule["poll_interval_seconds"]
    assert {job["kind"] for job in schedule["jobs"]} >= {"poll", "prices", "reconcile", "repush"}
    assert status["budget"]["quota"] == 1500


def test_pause_and_resume_a_listing(daemon: DaemonProcess) -> None:
    paused = daemon.admin("POST", "/listings/2002/41000004/pause", json={"reason": "renovation"})
    assert paused.status_code == 200
    row = next(r for r in daemon.status()["listings"] if r["listing_id"] == "41000004")
    assert row["paused"] and "renovation" in row["pause_reason"]
    assert daemon.admin("POST", "/listings/2002/99999999/pause").status_code == 404
    assert daemon.admin("POST", "/listings/2002/41000004/resume").json()["paused"] is False
    row = next(r for r in daemon.status()["listings"] if r["listing_id"] == "41000004")
    assert not row["paused"]


def sync_runs_total(daemon: DaemonProcess) -> dict[tuple[str, str], float]:
    families = {family.name: family for family in text_string_to_metric_families(daemon.metrics_text())}
    return {
        (s.labels["kind"], s.labels["result"]): s.value
        for s in families["roomsync_sync_runs"].samples
        if s.name == "roomsync_sync_runs_total"
    }


def test_an_operators_mistake_is_refused_and_is_not_a_run(daemon: DaemonProcess) -> None:
    """A resync naming a listing the mapping does not have, or dates outside the horizon, is the
    operator's mistake: 400 with the reason, and no run recorded, no failure counted."""
    def resync_runs() -> list[int]:
        # the daemon's own schedule may record a poll meanwhile: only resyncs are in question here
        return [run["id"] for run in daemon.status()["recent_runs"] if run["kind"] == "resync"]

    runs_before = resync_runs()
    counted_before = sync_runs_total(daemon)

    unknown = daemon.admin("POST", "/resync", json={"listings": ["2001/99999999"]})
    assert unknown.status_code == 400 and "2001/99999999" in unknown.json()["detail"]
    outside = daemon.admin("POST", "/resync", json={"date_from": "2099-01-01", "date_to": "2099-01-05"})
    assert outside.status_code == 400 and "horizon" in outside.json()["detail"]

    assert resync_runs() == runs_before
    counted = sync_runs_total(daemon)
    assert counted.get(("resync", "failed"), 0) == counted_before.get(("resync", "failed"), 0)


def test_every_mapped_listing_has_a_state_a_reason_and_a_staleness_series(daemon: DaemonProcess) -> None:
    """Listings that never sync (41000005 is 'Undecided' on the channel) are visible: a state and a
    reason in the status, a last-success series (0: never) and a paused-listings count."""
    listings = {row["listing_id"]: row for row in daemon.status()["listings"]}
    undecided = listings["41000005"]
    assert undecided["state"] == "not_connected"
    assert "Undecided" in (undecided["reason"] or "")
    for row in listings.values():
        assert row["state"] in {"syncing", "paused", "not_connected", "missing", "never_synced"}
        assert row["state"] == "syncing" or row["reason"], row

    families = {family.name: family for family in text_string_to_metric_families(daemon.metrics_text())}
    last_success = {
        s.labels["listing"]: s.value
        for s in families["roomsync_listing_last_success_timestamp_seconds"].samples
    }
    mapped = {f"{row['account_id']}/{row['listing_id']}" for row in listings.values()}
    assert set(last_success) == mapped
    undecided_key = f"{undecided['account_id']}/41000005"
    assert last_success[undecided_key] == 0.0
    paused = {s.labels["reason"]: s.value for s in families["roomsync_paused_listings"].samples}
    assert paused["not_connected"] >= 1

    # counters exist at 0 before anything happened to them
    counters = {s.name for family in families.values() for s in family.samples}
    assert {"roomsync_auth_failures_total", "roomsync_budget_refused_total"} <= counters
    assert ("reconcile", "failed") in sync_runs_total(daemon)


def test_a_broken_delivery_is_kept_as_a_dead_letter_without_its_secrets(daemon: DaemonProcess) -> None:
    body = b'{"action": "NoSuchAction"}'
    refused = daemon.http.post(
        f"{daemon.url}/webhooks/RentalChannel",
        content=body,
        headers={
            "Content-Type": "application/json",
            "Authorization": "Bearer s3cr3t-value",
            SIGNATURE_HEADER: sign(WEBHOOK_SECRET, int(time.time()), body),  # it authenticated
        },
    )
    assert refused.status_code == 400
    letters = daemon.admin("GET", "/dead-letters", params={"limit": 5}).json()
    assert letters[0]["body"] == '{"action": "NoSuchAction"}'
    assert "s3cr3t-value" not in str(letters[0]["headers"])


def test_cli_status_shows_the_running_daemon(daemon: DaemonProcess, env: dict[str, str]) -> None:
    shown = roomsync(env, "status")
    assert shown.returncode == 0, shown.stderr
    assert "daemon running" in shown.stdout
    assert "41000003" in shown.stdout


def test_cli_resync_goes_through_the_daemon(daemon: DaemonProcess, env: dict[str, str]) -> None:
    resync = roomsync(env, "resync", "--listing", "2001/41000003")
    assert resync.returncode == 0, resync.stderr
    assert f"asking it at {daemon.url}" in resync.stdout
    job = daemon.job("resync")
    assert job["last_result"] == "ok"
    without_token = {k: v for k, v in env.items() if k != "ROOMSYNC_ADMIN_TOKEN"}
    refused = roomsync(without_token, "resync")
    assert refused.returncode == 1
    assert "ROOMSYNC_ADMIN_TOKEN" in refused.stderr.strip().splitlines()[-1]


def test_cli_resync_runs_directly_when_no_daemon_runs(daemon: DaemonProcess, env: dict[str, str]) -> None:
    assert daemon.stop() == 0
    assert not daemon.alive()
    direct = roomsync(env, "resync", "--listing", "2001/41000003")
    assert direct.returncode == 0, direct.stderr
    assert "asking it" not in direct.stdout
    assert "result: ok" in direct.stdout  # the sync engine's own report: it ran in this process
    (lock,) = Path(env["ROOMSYNC_DATA_DIR"]).glob("serve-*.lock")  # one database, one lock file
    assert not lock.read_text()


def test_nothing_answers_admin_when_no_token_is_configured(emulator: Emulator, tmp_path: Path) -> None:
    env = daemon_env(emulator.url, tmp_path / "data", free_port(), schedule_jitter_seconds="3600")
    del env["ROOMSYNC_ADMIN_TOKEN"]
    other = start_daemon(env, tmp_path / "daemon.log", "--migrate")
    try:
        assert other.http.get(f"{other.url}/admin/status").status_code == 404
        assert other.http.get(f"{other.url}/admin/openapi.json").status_code == 404
        assert other.http.get(f"{other.url}/healthz").status_code == 200
    finally:
        assert other.stop() == 0

