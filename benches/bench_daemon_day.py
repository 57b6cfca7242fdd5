"""Benchmark: one simulated day of the daemon on the emulator's demo hotel.

Run: ``.venv/bin/python benches/bench_daemon_day.py [--day-seconds 240] [--changes 40] [--seed 7]``

The daemon (``roomsync.app.daemon``, its real schedule, engine and client) runs in this process
against the emulator served over loopback, with the emulator's clock as its clock and
``time_scale`` compressing the day into ``--day-seconds`` real seconds; the emulator's clock is
advanced through its control surface in step with real time. A front-desk change reaches the
channel with the run that first shows it: its latency is the simulated wait from the change to
that run's start, plus the run's real duration (compressed time would otherwise stretch
roomsync's processing by the compression factor).

1. The first full sync (cold caches) runs in the last hour of the day before, as it would the
   first time the daemon starts; it is reported apart.
2. Then a whole day: ``--changes`` front-desk bookings and cancellations at random times, each
   on a room type some listing sells. For each one that changes what the channel should show,
   the simulated time until the channel shows it.

Reported: the requests spent during the day against the 1,500-request quota, and the
front-desk-to-channel latency p50/p95. Targets: p95 under 2 minutes (simulated) while spending
under 60 % of the quota. The exit status is 1 when a target is missed.
"""

from __future__ import annotations

import argparse
import asyncio
import random
import statistics
import sys
import tempfile
import time
from collections.abc import Awaitable, Callable
from dataclasses import dataclass, field
from datetime import UTC, date, datetime, timedelta
from pathlib import Path
from typing import Any

import httpx
from pydantic import SecretStr

from roomsync.app.daemon import run_kinds
from roomsync.app.daemon.replica import Replica
from roomsync.app.daemon.run_kinds import Runs
from roomsync.app.sync import SyncReport
from roomsync.emulator.app import create_app
from roomsync.emulator.clock import EmulatorClock
from roomsync.emulator.scenario import DEMO_MAPPING_TOML, build_state
from roomsync.emulator.server import serve_in_thread
from roomsync.settings import Settings

QUOTA = 1500
SPEND_TARGET = 0.60
LATENCY_TARGET_SECONDS = 120.0
HORIZON_CHECKED = 60
TICK_SECONDS = 0.002
"""Real seconds between two advances of the emulator's clock while the daemon waits."""

MAPPING = DEMO_MAPPING_TOML
LISTINGS = {1: [("41000003", False)], 2: [("41000004", False)], 4: [("41000001", True), ("41000002", True)]}
"""Room type -> (listing, single unit?) that the mapping sells."""


@dataclass
class Change:
    at: datetime
    """Emulated instant of the front-desk change."""
    expected: dict[tuple[str, str], tuple[str, int | None]]
    """(listing, night) -> (availability, count) the channel must come to show."""
    latency: float | None = None
    """Simulated seconds until the channel showed it."""


@dataclass(frozen=True)
class RunTiming:
    started_at: datetime
    """Emulated instant the run began."""
    real_seconds: float


def timed(
    run: Callable[[Runs], Awaitable[SyncReport]], clock: EmulatorClock, timings: list[RunTiming]
) -> Callable[[Runs], Awaitable[SyncReport]]:
    """``run``, recording when it began (emulated) and how long it took (real)."""

    async def measured(runs: Runs) -> SyncReport:
        started_at, began = clock.now(), time.perf_counter()
        try:
            return await run(runs)
        finally:
            timings.append(RunTiming(started_at, time.perf_counter() - began))

    return measured


@dataclass
class Day:
    control: httpx.AsyncClient
    today: date
    rng: random.Random
    bookings: list[tuple[int, int, list[date]]] = field(default_factory=list)
    """(reservation id, room type, nights) of the front desk's bookings still standing."""
    changes: list[Change] = field(default_factory=list)

    async def post(self, path: str, body: dict[str, Any]) -> httpx.Response:
        return await self.control.post(path, json=body)

    async def now(self) -> datetime:
        answer = (await self.control.get("/clock")).json()
        return datetime.fromisoformat(answer["now"])

    async def expected(
        self, room_type_id: int, nights: list[date]
    ) -> dict[tuple[str, str], tuple[str, int | None]]:
        first, last = min(nights), max(nights)
        free = (
            await self.control.get(
                "/pms/availability", params={"from": first.isoformat(), "to": last.isoformat()}
            )
        ).json()["freeRooms"][str(room_type_id)]
        wanted: dict[tuple[str, str], tuple[str, int | None]] = {}
        for listing_id, single in LISTINGS[room_type_id]:
            for night in nights:
                rooms = free[night.isoformat()]
                wanted[(listing_id, night.isoformat())] = (
                    ("available" if rooms else "unavailable", None) if single else ("available", rooms)
                )
        return wanted

    async def shown(self, keys: set[tuple[str, str]]) -> dict[tuple[str, str], tuple[str, int | None]]:
        by_listing: dict[str, list[str]] = {}
        for listing_id, night in keys:
            by_listing.setdefault(listing_id, []).append(night)
        shown: dict[tuple[str, str], tuple[str, int | None]] = {}
        for listing_id, nights in by_listing.items():
            days = (
                await self.control.get(
                    f"/channel/calendar/{listing_id}", params={"from": min(nights), "to": max(nights)}
                )
            ).json()["days"]
            for day in days:
                availability = (
                    "unavailable"
                    if day["reserved"] and day["availableCount"] is None
                    else day["availability"]
                )
                shown[(listing_id, day["date"])] = (availability, day["availableCount"])
        return shown

    async def front_desk(self) -> None:
        """A booking (or, one time in three, a cancellation of an earlier one) at the front desk.

        It counts when it changes what the channel should show on a night where the channel was in
        step with the PMS before it (closed nights, and nights the channel's own reservations hold,
        are left out that way)."""
        at = await self.now()
        if self.bookings and self.rng.random() < 1 / 3:
            reservation_id, room_type_id, nights = self.bookings.pop(self.rng.randrange(len(self.bookings)))
            before = await self.expected(room_type_id, nights)
            await self.post("/pms/cancel", {"reservationId": reservation_id})
        else:
            room_type_id = self.rng.choice(sorted(LISTINGS))
            length = self.rng.randint(1, 3)
            for _ in range(20):
                start = self.today + timedelta(days=self.rng.randint(1, HORIZON_CHECKED - length))
                nights = [start + timedelta(days=n) for n in range(length)]
                before = await self.expected(room_type_id, nights)
                answer = await self.post(
                    "/pms/book",
                    {
                        "dateFrom": start.isoformat(),
                        "dateTo": (start + timedelta(days=length)).isoformat(),
                        "lastName": f"Desk{len(self.bookings)}",
                        "roomTypeId": room_type_id,
                    },
                )
                if answer.status_code == 200:
                    self.bookings.append((answer.json()["reservationId"], room_type_id, nights))
                    break
            else:
                return
        after = await self.expected(room_type_id, nights)
        shown = await self.shown(set(after))
        must = {
            key: value for key, value in after.items() if value != before[key] and shown[key] == before[key]
        }
        if must:
            self.changes.append(Change(at, must))

    async def check_pending(self, run: RunTiming) -> None:
        """After ``run``: the changes the channel now shows reached it with that run."""
        pending = [c for c in self.changes if c.latency is None]
        if not pending:
            return
        shown = await self.shown({key for change in pending for key in change.expected})
        for change in pending:
            if all(shown.get(key) == value for key, value in change.expected.items()):
                waited = max((run.started_at - change.at).total_seconds(), 0.0)
                change.latency = waited + run.real_seconds


def percentile(values: list[float], share: float) -> float:
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, round(share * (len(ordered) - 1)))]


async def run(args: argparse.Namespace, base_url: str, clock: EmulatorClock, data_dir: Path) -> int:
    mapping = data_dir / "mapping.toml"
    mapping.write_text(MAPPING)
    scale = args.day_seconds / 86_400
    settings = Settings(
        base_url=base_url,
        username="demo",
        password=SecretStr("demo"),
        domain="demo-hotel",
        data_dir=data_dir,
        mapping_file=mapping,
        time_scale=scale,
        schedule_jitter_seconds=0,
    )
    replica = Replica(settings, clock=clock.now, rng=random.Random(args.seed))
    await replica.open(migrate=True)
    daemon = replica.daemons[settings.effective_property_id]
    async with httpx.AsyncClient(base_url=f"{base_url}/_emulator", timeout=30) as control:
        day = Day(control, clock.today() + timedelta(days=1), random.Random(args.seed))
        timings: list[RunTiming] = []
        timings_seen = 0
        for kind in (run_kinds.POLL, run_kinds.DETECT, run_kinds.PRICES):  # the daemon looks them up per run
            run_kinds.SCHEDULED_RUNS[kind] = timed(run_kinds.SCHEDULED_RUNS[kind], clock, timings)
        replica.start()
        while daemon.jobs["prices"].last_result is None:  # the first full sync, on the day before
            await asyncio.sleep(0.05)
        warm_up = (await control.get("/quota")).json()["usedCalls"]
        midnight = datetime.combine(day.today, datetime.min.time(), UTC)
        await control.post("/clock", json={"now": midnight.isoformat()})
        change_times = sorted(day.rng.uniform(600, 86_400 - 3600) for _ in range(args.changes))
        start = await day.now()
        end = start + timedelta(days=1) - timedelta(minutes=1)
        processing_started = time.perf_counter()
        while True:
            # emulated time moves with real time: elapsed real seconds / time_scale
            target = start + timedelta(seconds=(time.perf_counter() - processing_started) / scale)
            now = await day.now()
            step = (min(target, end) - now).total_seconds()
            if step > 0:
                answer = await control.post("/clock/advance", json={"seconds": step})
                now = datetime.fromisoformat(answer.json()["now"])
            if len(timings) > timings_seen:  # a run finished: has the channel caught up?
                timings_seen = len(timings)
                await day.check_pending(timings[-1])
            while change_times and start + timedelta(seconds=change_times[0]) <= now:
                change_times.pop(0)
                await day.front_desk()
            if now >= end:
                break
            await asyncio.sleep(TICK_SECONDS)
        spent = (await control.get("/quota")).json()["usedCalls"]
        wall = time.perf_counter() - processing_started
        by_kind: dict[str, list[int]] = {}
        for run in daemon.store.sync_runs.recent_runs(daemon.property_id, limit=100_000):
            if run.started_at >= start:
                by_kind.setdefault(run.kind, []).append(run.requests_spent)
    await replica.stop()
    runs = {kind: record.last_result for kind, record in daemon.jobs.items()}
    await replica.close()

    latencies = [c.latency for c in day.changes if c.latency is not None]
    unseen = sum(1 for c in day.changes if c.latency is None)
    share = spent / QUOTA
    print(f"first full sync (the day before, cold caches): {warm_up} requests")
    print(f"day: {spent} of {QUOTA} requests spent ({share:.0%}; target under {SPEND_TARGET:.0%})")
    print(f"front-desk changes the channel had to follow: {len(day.changes)} ({unseen} not shown by the end)")
    if latencies:
        p50, p95 = statistics.median(latencies), percentile(latencies, 0.95)
        print(
            f"front desk -> channel (simulated): p50 {p50:.0f} s, p95 {p95:.0f} s, "
            f"max {max(latencies):.0f} s (target p95 under {LATENCY_TARGET_SECONDS:.0f} s)"
        )
    else:
        p95 = float("inf")
    print(
        "runs of the day (count, requests): "
        + ", ".join(f"{kind} {len(spent)} / {sum(spent)}" for kind, spent in sorted(by_kind.items()))
    )
    busy = sum(t.real_seconds for t in timings)
    print(f"real time: {wall:.0f} s, of which polls and full syncs took {busy:.0f} s; last results {runs}")
    ok = latencies and unseen == 0 and p95 < LATENCY_TARGET_SECONDS and share < SPEND_TARGET
    return 0 if ok else 1


def main() -> int:
    parser = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    parser.add_argument("--day-seconds", type=float, default=240.0, help="real seconds of waiting per day")
    parser.add_argument("--changes", type=int, default=40, help="front-desk changes during the day")
    parser.add_argument("--seed", type=int, default=7)
    args = parser.parse_args()
    start = datetime.combine(datetime.now(UTC).date(), datetime.min.time(), UTC) + timedelta(hours=23)
    clock = EmulatorClock(start, frozen=True)
    state = build_state("demo", args.seed, clock=clock)
    with serve_in_thread(create_app(state)) as base_url, tempfile.TemporaryDirectory() as tmp:
        return asyncio.run(run(args, base_url, clock, Path(tmp)))


if __name__ == "__main__":
    sys.exit(main())
