"""Benchmark: a property's first quota day, from a never-synced start to the quota's reset.

Run: ``.venv/bin/python benches/bench_first_day.py [--day-seconds 240] [--changes 30] [--seed 7]
[--listings N] [--first sync|serve]``

The emulator (in this process, over loopback) starts at 00:00:30 of a quota day with nothing of the
property in roomsync's store: the default 365-night horizon, the real quota (1,500 a day). The
first start is either the daemon's own (``--first serve``, the default: ``roomsync serve`` on a new
property) or a command-line ``roomsync sync`` first (``--first sync``, as issue 23's outside run
did), then the daemon until the reset, its waits compressed into ``--day-seconds`` real seconds
(the emulator's clock moves with real time at the same rate), while a front desk makes
``--changes`` bookings and cancellations at random times. ``--listings N`` runs a generated
property of N single-unit listings instead of the demo hotel (no front desk then: its rooms are
not the demo's).

Printed: the first start's cost (requests) and its real duration (what it takes at real time: the
run is the same whatever the compression), the price nights still unread after it, the day's
total as the SERVICE counted it (the emulator's quota) against the 60 % ceiling, the requests of
each kind of run, and the front-desk-to-channel latency p50/p95, for the first six hours and for
the whole day. The exit status is 1 when the day passes 60 % or a night's price is still unread.
"""

from __future__ import annotations

import argparse
import asyncio
import random
import statistics
import sys
import tempfile
import time
from datetime import UTC, datetime, timedelta
from pathlib import Path

import httpx
from bench_daemon_day import Day, RunTiming, percentile, timed
from bench_sync import mapping_toml
from pydantic import SecretStr

from roomsync.app.daemon import run_kinds
from roomsync.app.daemon.replica import Replica
from roomsync.app.sync.runs.full_sync import sync_property
from roomsync.app.sync.runs.property_sync import PropertySync
from roomsync.emulator.app import create_app
from roomsync.emulator.clock import EmulatorClock
from roomsync.emulator.scenario import DEMO_MAPPING_TOML, Sizes, build_state
from roomsync.emulator.server import serve_in_thread
from roomsync.emulator.state import EmulatorState
from roomsync.property_context import PropertyContext
from roomsync.settings import Settings

QUOTA = 1500
CEILING = 0.60
TICK_SECONDS = 0.002
FIRST_HOURS = 6


async def cli_first_sync(settings: Settings, clock: EmulatorClock) -> tuple[int, float]:
    """What ``roomsync sync`` does on a new property: one engine run with the command line's options."""
    from roomsync.adapters.client import ServiceClient
    from roomsync.adapters.store import open_store, upgrade_to_head

    upgrade_to_head(settings.effective_database_url)
    context = PropertyContext.of(settings)
    with open_store(settings.effective_database_url) as store:
        from roomsync.app.sync.mapping_io import parse_mapping_toml

        assert settings.mapping_file is not None
        mapping = parse_mapping_toml(settings.mapping_file.read_text(), "bench mapping")
        store.mappings.replace_mapping(context.property_id, mapping)
        client = ServiceClient(context, budget_store=store.budget, token_store=store.tokens, clock=clock.now)
        try:
            began = time.perf_counter()
            report = await sync_property(PropertySync.of(context, store, client, clock=clock.now))
            return report.requests, time.perf_counter() - began
        finally:
            await client.aclose()


async def run(
    args: argparse.Namespace, base_url: str, clock: EmulatorClock, state: EmulatorState, data: Path
) -> int:
    mapping = data / "mapping.toml"
    mapping.write_text(
        mapping_toml(state.scenario.hints["listings"], 0) if args.listings else DEMO_MAPPING_TOML
    )
    scale = args.day_seconds / 86_400
    settings = Settings(
        base_url=base_url,
        username="demo",
        password=SecretStr("demo"),
        domain=state.credentials.domain,
        data_dir=data,
        mapping_file=mapping,
        time_scale=scale,
        schedule_jitter_seconds=0,
    )
    cli_requests, cli_seconds = 0, 0.0
    if args.first == "sync":
        cli_requests, cli_seconds = await cli_first_sync(settings, clock)
    replica = Replica(settings, clock=clock.now, rng=random.Random(args.seed))
    await replica.open(migrate=True)
    daemon = replica.daemons[settings.effective_property_id]
    timings: list[RunTiming] = []
    for kind in (run_kinds.POLL, run_kinds.DETECT, run_kinds.PRICES):  # the daemon looks them up per run
        run_kinds.SCHEDULED_RUNS[kind] = timed(run_kinds.SCHEDULED_RUNS[kind], clock, timings)
    async with httpx.AsyncClient(base_url=f"{base_url}/_emulator", timeout=60) as control:
        day = Day(control, clock.today(), random.Random(args.seed))
        start = clock.now()
        end = start.replace(hour=23, minute=59, second=0)
        change_times = sorted(
            day.rng.uniform(300, (end - start).total_seconds() - 600) for _ in range(args.changes)
        )
        processing_started = time.perf_counter()
        replica.start()
        seen = 0
        first_start: tuple[int, float, str] | None = None
        while True:
            target = start + timedelta(seconds=(time.perf_counter() - processing_started) / scale)
            now = clock.now()
            step = (min(target, end) - now).total_seconds()
            if step > 0:
                await control.post("/clock/advance", json={"seconds": step})
                now = clock.now()
            if first_start is None and daemon.jobs["prices"].last_result is not None:
                used = (await control.get("/quota")).json()["usedCalls"]
                # the daemon's own first full sync; none when it went on from the command line's
                took = timings[0].real_seconds if timings else cli_seconds
                first_start = (used, took, daemon.price_fill().explanation)
            if len(timings) > seen:
                seen = len(timings)
                if not args.listings:
                    await day.check_pending(timings[-1])
            while change_times and start + timedelta(seconds=change_times[0]) <= now and not args.listings:
                change_times.pop(0)
                await day.front_desk()
            if now >= end:
                break
            await asyncio.sleep(TICK_SECONDS)
        spent = (await control.get("/quota")).json()["usedCalls"]
        plan = daemon.replan().explanation
        by_kind: dict[str, list[int]] = {}
        for run_row in daemon.store.sync_runs.recent_runs(daemon.property_id, limit=100_000):
            by_kind.setdefault(run_row.kind, []).append(run_row.requests_spent)
        unread = daemon.price_fill()
    await replica.stop()
    await replica.close()

    listings = args.listings or 5
    kind = f"generated, {args.listings} listings" if args.listings else "the demo hotel (5 listings)"
    print(f"property: {kind}")
    if args.first == "sync":
        print(f"first start: roomsync sync, {cli_requests} requests in {cli_seconds:.1f} s real; then serve")
    if first_start is not None:
        used, seconds, text = first_start
        print(
            f"first start done: {used} requests counted by the service so far; the first full sync "
            f"took {seconds:.1f} s real; {text}"
        )
    share = spent / QUOTA
    print(f"the day: {spent} of {QUOTA} requests counted by the service ({share:.1%}; ceiling {CEILING:.0%})")
    print(
        "runs (count / requests): "
        + ", ".join(f"{kind} {len(values)} / {sum(values)}" for kind, values in sorted(by_kind.items()))
    )
    print(f"plan at the end of the day: {plan}")
    if not args.listings:
        cut = start + timedelta(hours=FIRST_HOURS)
        for label, changes in (
            (f"first {FIRST_HOURS} h", [c for c in day.changes if c.at < cut]),
            ("whole day", day.changes),
        ):
            waited = [c.latency for c in changes if c.latency is not None]
            missing = sum(1 for c in changes if c.latency is None)
            if waited:
                print(
                    f"front desk -> channel, {label}: {len(waited)} changes, "
                    f"p50 {statistics.median(waited):.0f} s, p95 {percentile(waited, 0.95):.0f} s, "
                    f"max {max(waited):.0f} s (simulated)"
                    + (f"; {missing} not shown by the end" if missing else "")
                )
    print(f"listings: {listings}; prices at the end: {unread.explanation}")
    return 0 if share <= CEILING and unread.unread_nights == 0 else 1


def main() -> int:
    parser = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    parser.add_argument("--day-seconds", type=float, default=240.0, help="real seconds of waiting per day")
    parser.add_argument("--changes", type=int, default=30, help="front-desk changes during the day")
    parser.add_argument("--seed", type=int, default=7)
    parser.add_argument("--listings", type=int, default=0, help="a generated property of N listings")
    parser.add_argument("--first", choices=("serve", "sync"), default="serve")
    args = parser.parse_args()
    start = datetime.combine(datetime.now(UTC).date(), datetime.min.time(), UTC) + timedelta(seconds=30)
    clock = EmulatorClock(start, frozen=True)
    if args.listings:
        state = build_state("generated", args.seed, clock=clock, sizes=Sizes(listings=args.listings, units=1))
    else:
        state = build_state("demo", args.seed, clock=clock)
    with serve_in_thread(create_app(state)) as base_url, tempfile.TemporaryDirectory() as tmp:
        return asyncio.run(run(args, base_url, clock, state, Path(tmp)))


if __name__ == "__main__":
    sys.exit(main())
