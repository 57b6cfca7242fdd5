"""A listing paused by hand is declined to guests at once: the admin API's pause (like the
console's and the CLI's, one helper) tells the webhook side of the process, whose listing states
are otherwise cached for a second, so a guest check a moment after the pause is not answered
from the state read before it (issue 24)."""

from __future__ import annotations

import json
import time
from collections.abc import Iterator
from datetime import UTC, datetime, timedelta
from pathlib import Path

import pytest
from daemon_harness import (
    WEBHOOK_SECRET,
    DaemonProcess,
    Emulator,
    daemon_env,
    emulator_at_start_of_today,
    free_port,
    start_daemon,
    wait_until,
)

from roomsync.core.webhook_signature import SIGNATURE_HEADER, sign

LISTING = "41000003"  # room type 1, a room-type listing of 8 units


@pytest.fixture
def daemon(tmp_path: Path) -> Iterator[tuple[Emulator, DaemonProcess]]:
    with emulator_at_start_of_today() as emulator:
        env = daemon_env(emulator.url, tmp_path / "data", free_port(), schedule_jitter_seconds="0")
        running = start_daemon(env, tmp_path / "daemon.log", "--migrate")
        try:
            wait_until(lambda: running.job("prices")["last_result"] == "ok", 60, "the first full sync")
            yield emulator, running
        finally:
            running.stop()


def guest_check(daemon: DaemonProcess, number: int) -> dict[str, object]:
    stay = datetime.now(UTC).date() + timedelta(days=30)
    body = json.dumps(
        {"action": "CheckAvailability", "startDate": str(stay), "nights": "1", "listingId": LISTING}
    ).encode()
    signature = sign(WEBHOOK_SECRET, int(time.time()), body)
    headers = {SIGNATURE_HEADER: signature, "X-Webhook-Id": f"check-{number}"}
    answer = daemon.http.post(f"{daemon.url}/webhooks/RentalChannel", content=body, headers=headers)
    assert answer.status_code == 200, answer.text
    found: dict[str, object] = answer.json()
    return found


def test_a_guest_check_a_moment_after_a_pause_is_declined(daemon: tuple[Emulator, DaemonProcess]) -> None:
    _, running = daemon
    before = guest_check(running, 1)  # loads the webhook side's listing states
    assert before["succeed"] is True, before
    paused = running.admin("POST", f"/listings/2001/{LISTING}/pause", json={"reason": "deep clean"})
    assert paused.status_code == 200, paused.text
    after = guest_check(running, 2)
    assert after["succeed"] is False, after
    resumed = running.admin("POST", f"/listings/2001/{LISTING}/resume")
    assert resumed.status_code == 200, resumed.text
    again = guest_check(running, 3)
    assert again["succeed"] is True, again
