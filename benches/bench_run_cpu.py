"""Benchmark: the CPU one run of each kind costs a replica, at a hotel's 365-night horizon.

Run: ``.venv/bin/python benches/bench_run_cpu.py [--runs 20] [--horizon-days 365]
[--database postgres|sqlite]``

Issue 26's target is a quiet run under 20 ms of CPU: a replica of a thousand properties makes
about twenty runs a second. ``bench_properties`` measures a whole replica from outside, where
each run's cost is mixed with the replica's fixed work and the schedule's hour; this bench
isolates the runs:

- the emulator (the demo hotel) runs in its own process, reached over loopback HTTP with the real
  client; the store is a scratch Postgres database (or an SQLite file);
- one property is opened as ``roomsync serve`` opens it (``Replica.open``), without its timer:
  the bench calls the daemon's own scheduled-run entry (the property's lock, the run, its
  record, the learning and replanning after it, the budget's gauges) one run at a time;
- after the first full sync (reported, not judged), ``--runs`` quiet polls, ``--runs`` quiet
  detections, then ``--runs`` polls each after one front-desk booking (a poll that pushes).

CPU is the process's (``time.process_time``: every thread, so the store's calls in worker
threads count), which here is the daemon's alone: the emulator is another process. Reported per
kind: median and p90 CPU per run, and the median wall time. A figure, not an assertion.
"""

from __future__ import annotations

import argparse
import asyncio
import random
import statistics
import sys
import tempfile
import time
from datetime import date, timedelta
from pathlib import Path

import httpx
from bench_properties import scratch_database
from bench_sync import emulator_process
from pydantic import SecretStr

from roomsync.app.daemon.replica import Replica
from roomsync.app.daemon.run_kinds import DETECT, POLL, PRICES
from roomsync.emulator.scenario import DEMO_MAPPING_TOML
from roomsync.settings import Settings

ROOM_TYPES = (1, 2, 4)
"""The demo hotel's room types that have listings."""


async def timed_runs(
    daemon: object, kind: str, count: int, before: object = None
) -> list[tuple[float, float]]:
    """CPU and wall seconds of ``count`` runs of ``kind`` (``before``: awaited ahead of each, untimed)."""
    spent = []
    for _ in range(count):
        if before is not None:
            await before()  # type: ignore[operator]
        cpu, wall = time.process_time(), time.perf_counter()
        await daemon._run_scheduled(kind)  # type: ignore[attr-defined]  # the timer's own entry
        spent.append((time.process_time() - cpu, time.perf_counter() - wall))
    return spent


def line(name: str, spent: list[tuple[float, float]]) -> str:
    cpu = sorted(c * 1000 for c, _ in spent)
    p90 = cpu[min(len(cpu) - 1, round(0.9 * (len(cpu) - 1)))]
    wall = statistics.median(w * 1000 for _, w in spent)
    median = statistics.median(cpu)
    return f"{name:<22} CPU median {median:6.1f} ms, p90 {p90:6.1f} ms; wall median {wall:5.0f} ms"


async def measure(args: argparse.Namespace, url: str, database_url: str, data_dir: Path) -> None:
    mapping = data_dir / "mapping.toml"
    mapping.write_text(DEMO_MAPPING_TOML)
    settings = Settings(
        base_url=url,
        username="demo",
        password=SecretStr("demo"),
        domain="demo-hotel",
        data_dir=data_dir,
        mapping_file=mapping,
        database_url=database_url,
        horizon_days=args.horizon_days,
        schedule_jitter_seconds=0,
    )
    replica = Replica(settings, rng=random.Random(args.seed))
    await replica.open(migrate=True)
    daemon = replica.daemons[settings.effective_property_id]
    rng = random.Random(args.seed)
    bookings: list[int] = []
    try:
        async with httpx.AsyncClient(base_url=f"{url}/_emulator", timeout=60) as control:
            first = await timed_runs(daemon, PRICES, 1)
            print(f"first full sync: {first[0][0]:.2f} CPU s, {first[0][1]:.1f} s wall")
            results = {"quiet poll": await timed_runs(daemon, POLL, args.runs)}
            if not args.quiet_polls_only:
                results["quiet detection"] = await timed_runs(daemon, DETECT, args.runs)
            today = date.fromisoformat((await control.get("/clock")).json()["now"][:10])

            async def book() -> None:
                """One front-desk booking of one night within the next 60 (a room may be full:
                the emulator then answers an error, and the poll finds nothing to push)."""
                night = today + timedelta(days=rng.randrange(1, min(args.horizon_days, 60)))
                body = {
                    "dateFrom": night.isoformat(),
                    "dateTo": (night + timedelta(days=1)).isoformat(),
                    "lastName": "Bench",
                    "roomTypeId": rng.choice(ROOM_TYPES),
                }
                booked = await control.post("/pms/book", json=body)
                bookings.append(booked.status_code)

            if not args.quiet_polls_only:
                results["poll after a booking"] = await timed_runs(daemon, POLL, args.runs, before=book)
    finally:
        await replica.stop()
        await replica.close()
    for name, spent in results.items():
        print(line(name, spent))
    print(f"front-desk bookings accepted: {sum(1 for code in bookings if code == 200)} of {len(bookings)}")


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--runs", type=int, default=20)
    parser.add_argument("--horizon-days", type=int, default=365)
    parser.add_argument("--database", choices=("postgres", "sqlite"), default="postgres")
    parser.add_argument("--seed", type=int, default=7)
    parser.add_argument(
        "--quiet-polls-only", action="store_true", help="the first sync and quiet polls alone (to profile)"
    )
    args = parser.parse_args()
    with (
        tempfile.TemporaryDirectory() as tmp,
        emulator_process("demo", 0) as url,
        scratch_database(args.database, Path(tmp)) as database_url,
    ):
        asyncio.run(measure(args, url, database_url, Path(tmp)))
    return 0


if __name__ == "__main__":
    sys.exit(main())
