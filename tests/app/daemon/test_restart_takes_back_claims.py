"""SIGKILL the daemon while it applies guest bookings: the restarted process takes back its own
claims at once (no claim timeout to wait out), and every booking reaches the PMS exactly once.

A real ``roomsync serve`` process against the emulator, which delivers the bookings' webhooks to
it over HTTP. The emulator answers every API request 2 s late while the daemon applies the
bookings, so the kill finds reservation events claimed and unfinished; the claim timeout is left
at its default (300 s), which is what a restart used to wait.
"""

from __future__ import annotations

import time
from collections import Counter
from datetime import timedelta
from pathlib import Path

import pytest
from daemon_harness import daemon_env, emulator_at_start_of_today, free_port, start_daemon, wait_until

pytestmark = pytest.mark.slow

GUESTS = [("41000003", 20), ("41000004", 24), ("41000003", 28), ("41000001", 32), ("41000004", 36)]


def test_a_killed_daemon_restarted_places_every_booking_within_ten_seconds(tmp_path: Path) -> None:
    with emulator_at_start_of_today() as emulator:
        env = daemon_env(
            emulator.url,
            tmp_path / "data",
            free_port(),
            time_scale="0.001",
            schedule_jitter_seconds="0",
            webhook_require_signature="false",  # the emulator signs with its own, far-off clock
            replica_id="test-replica-1",
            # the guests' checks answer from the view the first sync filled: a re-read of the PMS
            # (2 s late below) would pass the checkout's 1.5 s wait and the check would say no
            availability_view_max_age_seconds="3600",
        )
        daemon = start_daemon(env, tmp_path / "first.log", "--migrate")
        try:
            emulator.post("/webhooks/receiver", {"url": f"{daemon.url}/webhooks/RentalChannel"})
            wait_until(lambda: daemon.job("prices")["last_result"] == "ok", 60, "the first full sync")
            codes = []
            emulator.post("/faults", {"latencyMs": 2000})  # the bridge's PMS requests now crawl
            today = emulator.state.clock.today()
            for listing_id, offset in GUESTS:
                answer = emulator.post(
                    "/guest/book",
                    {
                        "listingId": listing_id,
                        "startDate": (today + timedelta(days=offset)).isoformat(),
                        "nights": 2,
                        "force": True,
                    },
                    ok=(200, 409),
                )
                assert answer["booked"], answer
                codes.append(answer["confirmationCode"])

            def claimed() -> bool:
                status = daemon.status()["inbox"]
                return bool(status["backlog"])

            wait_until(claimed, 20, "reservation events in the daemon's inbox")
            time.sleep(1.0)  # the worker has claimed and is waiting on the slow PMS
        finally:
            daemon.kill()
        emulator.post("/faults", {"latencyMs": 0})

        restarted_at = time.monotonic()
        again = start_daemon(env, tmp_path / "second.log")
        try:

            def in_pms() -> Counter[str | None]:
                reservations = list(emulator.state.pms.reservations.values())
                return Counter(r.booking_agency_reference_code for r in reservations)

            def placed() -> bool:
                return all(in_pms()[code] >= 1 for code in codes)

            wait_until(placed, 30, "every booking in the PMS")
            took = time.monotonic() - restarted_at
            found = in_pms()
            assert [found[code] for code in codes] == [1] * len(codes)
            print(f"all {len(codes)} bookings in the PMS {took:.1f} s after the restart")
            assert took <= 10.0, f"{took:.1f} s after the restart"
            assert "took back" in again.log()
        finally:
            again.stop()
