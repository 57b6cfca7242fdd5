"""Benchmark: one ``roomsync serve`` replica serving N properties of the demo's size.

Run: ``.venv/bin/python benches/bench_properties.py --properties 100 [--time-scale 1]
[--window 180] [--changes 2] [--database postgres|sqlite]``

Three processes talk real HTTP, as in production:

- the emulator (``roomsync emulator --domains N``: ``hotel-01``... each the demo hotel with its
  own quota, PMS and channel, behind one address, on its live clock);
- one ``roomsync serve`` replica, its properties rows of a scratch database (Postgres at
  127.0.0.1:5432 by default, or an SQLite file), passwords by reference to environment variables,
  each with the demo mapping; ``time_scale`` compresses its schedule;
- this process: it adds the properties, waits for every first full sync (the warm-up, reported
  apart), then for ``--window`` real seconds makes ``--changes`` front-desk bookings per property
  at random times and watches which runs bring them to the channel.

Measured from outside the replica, never inside it:

- CPU seconds of the replica process (``/proc/PID/stat``: user + system, every thread) and of the
  emulator (the Postgres server is shared with other work, its CPU is not told apart);
- the replica's peak RSS (``VmHWM`` of ``/proc/PID/status``: the high-water mark of its life);
- requests per property (the emulator's own count of each domain's calls);
- front desk to channel: the change's instant to the end of the first run of its property after
  which the channel shows it. As in ``bench_daemon_day``, the wait before that run began is
  simulated time (real seconds / ``time_scale``) and the run's own duration counts as it is.

"CPU seconds per property per simulated day" is the replica's CPU in the window divided by the
properties and by the simulated days the window spans. Work that the schedule does at a cadence
(polls, full syncs, reconciliation, re-push) scales with ``time_scale``; work on a real-time
cadence (the webhook inbox's claim loop, ownership checks) does not, so a compressed run
understates it. The target (1,000 properties under 50 % of 2 cores, under 1 GB) is measured at
``--time-scale 1``: CPU % of the window is then the production figure.
"""

from __future__ import annotations

import argparse
import asyncio
import contextlib
import os
import random
import signal
import socket
import statistics
import subprocess
import sys
import tempfile
import time
from collections.abc import Iterator
from dataclasses import dataclass, field
from datetime import UTC, date, datetime, timedelta
from pathlib import Path
from typing import Any

import cpu_profile
import httpx
import sqlalchemy as sa

from roomsync.adapters.store import open_store
from roomsync.app.sync.mapping_io import parse_mapping_toml
from roomsync.core.property import PropertyRecord
from roomsync.emulator.domains import domain_credentials, domain_name
from roomsync.emulator.scenario import DEMO_MAPPING_TOML

ROOMSYNC = [sys.executable, "-m", "roomsync.app.cli"]
ADMIN_TOKEN = "adm-bench-Pq4Xv8"
CORES = os.cpu_count() or 1
TICKS = os.sysconf("SC_CLK_TCK")
HORIZON_CHECKED = 60
CHECK_EVERY = 0.25
"""Real seconds between two looks at the runs that finished (the channel is read only after one)."""

LISTINGS = {1: [("41000003", False)], 2: [("41000004", False)], 4: [("41000001", True), ("41000002", True)]}
"""Room type -> (listing, single unit?) that the demo mapping sells."""

Shown = dict[tuple[str, str], tuple[str, int | None]]


def free_port() -> int:
    with socket.socket(socket.AF_INET, socket.SOCK_STREAM) as probe:
        probe.bind(("127.0.0.1", 0))
        port: int = probe.getsockname()[1]
        return port


def cpu_seconds(pid: int) -> float:
    """User + system CPU of a process (all its threads), from /proc."""
    try:
        fields = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()
    except (FileNotFoundError, ProcessLookupError):
        return 0.0
    return (int(fields[11]) + int(fields[12])) / TICKS


def memory_kib(pid: int, name: str) -> int:
    for line in Path(f"/proc/{pid}/status").read_text().splitlines():
        if line.startswith(f"{name}:"):
            return int(line.split()[1])
    return 0


def load_average() -> str:
    return " ".join(Path("/proc/loadavg").read_text().split()[:3])


def percentile(values: list[float], share: float) -> float:
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, round(share * (len(ordered) - 1)))]


def wait_for(check: Any, timeout: float, what: str, interval: float = 0.2) -> None:
    deadline = time.monotonic() + timeout
    while not check():
        if time.monotonic() > deadline:
            raise SystemExit(f"timed out after {timeout:.0f} s waiting for {what}")
        time.sleep(interval)


# --- the parts ------------------------------------------------------------------------------------


@contextlib.contextmanager
def emulator_process(domains: int, log_path: Path) -> Iterator[tuple[str, subprocess.Popen[bytes]]]:
    port = free_port()
    url = f"http://127.0.0.1:{port}"
    with open(log_path, "wb") as log_file:
        process = subprocess.Popen(
            [*ROOMSYNC, "emulator", "--port", str(port), "--domains", str(domains)],
            stdout=log_file,
            stderr=subprocess.STDOUT,
        )
    try:

        def answers() -> bool:
            if process.poll() is not None:
                raise SystemExit(f"the emulator exited: {log_path.read_text()[-2000:]}")
            try:
                return httpx.get(f"{url}/_domains/{domain_name(1)}/_emulator/quota", timeout=5).is_success
            except httpx.HTTPError:
                return False

        wait_for(answers, 60 + domains * 0.6, "the emulator")
        yield url, process
    finally:
        process.terminate()
        process.wait(30)


@contextlib.contextmanager
def scratch_database(kind: str, data_dir: Path) -> Iterator[str]:
    if kind == "sqlite":
        yield f"sqlite:///{data_dir / 'roomsync.sqlite3'}"
        return
    import psycopg
    from psycopg import sql

    name = f"roomsync_bench_{os.getpid()}_{free_port()}"
    admin_dsn = "host=127.0.0.1 port=5432 user=postgres dbname=test connect_timeout=5"
    with psycopg.connect(admin_dsn, autocommit=True) as admin:
        admin.execute(sql.SQL("CREATE DATABASE {}").format(sql.Identifier(name)))
    try:
        yield f"postgresql+psycopg://postgres@127.0.0.1:5432/{name}"
    finally:
        with psycopg.connect(admin_dsn, autocommit=True) as admin:
            admin.execute(sql.SQL("DROP DATABASE IF EXISTS {} WITH (FORCE)").format(sql.Identifier(name)))


def add_properties(database_url: str, count: int) -> list[str]:
    store = open_store(database_url, upgrade=True)
    mapping = parse_mapping_toml(DEMO_MAPPING_TOML, "demo mapping")
    ids = []
    try:
        for i in range(1, count + 1):
            credentials = domain_credentials(i)
            record = PropertyRecord(
                domain_name(i),
                {"username": credentials.username, "domain": credentials.domain},
                {"password": f"env:HOTEL_PW_{i:04d}"},
            )
            store.properties.add_property(record)
            store.mappings.replace_mapping(record.property_id, mapping)
            ids.append(record.property_id)
    finally:
        store.close()
    return ids


def replica_env(
    args: argparse.Namespace, emulator_url: str, database_url: str, data_dir: Path, port: int
) -> dict[str, str]:
    env = {k: v for k, v in os.environ.items() if not k.startswith("ROOMSYNC_")}
    env.update(
        ROOMSYNC_BASE_URL=emulator_url,
        ROOMSYNC_DATABASE_URL=database_url,
        ROOMSYNC_DATA_DIR=str(data_dir),
        ROOMSYNC_SERVE_PORT=str(port),
        ROOMSYNC_REPLICA_ID="bench",
        ROOMSYNC_ADMIN_TOKEN=ADMIN_TOKEN,
        ROOMSYNC_TIME_SCALE=str(args.time_scale),
        ROOMSYNC_HORIZON_DAYS=str(args.horizon_days),
    )
    env.update({f"HOTEL_PW_{i:04d}": domain_credentials(i).password for i in range(1, args.properties + 1)})
    return env


# --- the front desk and what the channel shows ----------------------------------------------------


@dataclass
class Change:
    property_id: str
    at: datetime
    """Wall-clock instant of the front-desk change (the replica's clock is the wall clock)."""
    expected: Shown
    latency: float | None = None
    """Seconds to the channel: simulated wait before the run that showed it, plus that run."""
    superseded: bool = False
    """A later change at the same property covered every night of it before the channel showed
    it: what it expected can no longer be seen (the later change is followed instead)."""

    @property
    def pending(self) -> bool:
        return self.latency is None and not self.superseded


@dataclass
class Desk:
    """Front-desk bookings at one property (the emulator's control surface of its domain)."""

    http: httpx.AsyncClient
    property_id: str
    today: date
    rng: random.Random
    horizon: int
    """Nights ahead where changes are made (within the replica's horizon)."""
    changes: list[Change] = field(default_factory=list)

    @property
    def base(self) -> str:
        return f"/_domains/{self.property_id}/_emulator"

    async def expected(self, room_type_id: int, nights: list[date]) -> Shown:
        params = {"from": min(nights).isoformat(), "to": max(nights).isoformat()}
        free = (await self.http.get(f"{self.base}/pms/availability", params=params)).json()["freeRooms"]
        wanted: Shown = {}
        for listing_id, single in LISTINGS[room_type_id]:
            for night in nights:
                rooms = free[str(room_type_id)][night.isoformat()]
                wanted[(listing_id, night.isoformat())] = (
                    ("available" if rooms else "unavailable", None) if single else ("available", rooms)
                )
        return wanted

    async def shown(self, keys: set[tuple[str, str]]) -> Shown:
        by_listing: dict[str, list[str]] = {}
        for listing_id, night in keys:
            by_listing.setdefault(listing_id, []).append(night)
        answer: Shown = {}
        for listing_id, nights in by_listing.items():
            params = {"from": min(nights), "to": max(nights)}
            days = (await self.http.get(f"{self.base}/channel/calendar/{listing_id}", params=params)).json()
            for day in days["days"]:
                held = day["reserved"] and day["availableCount"] is None
                answer[(listing_id, day["date"])] = (
                    "unavailable" if held else day["availability"],
                    day["availableCount"],
                )
        return answer

    async def book(self) -> None:
        """One front-desk booking; kept when it changes what the channel should show on nights
        where the channel was in step before (as in ``bench_daemon_day``)."""
        room_type_id = self.rng.choice(sorted(LISTINGS))
        length = self.rng.randint(1, 3)
        for _ in range(20):
            start = self.today + timedelta(days=self.rng.randint(1, self.horizon - length))
            nights = [start + timedelta(days=n) for n in range(length)]
            before = await self.expected(room_type_id, nights)
            at = datetime.now(UTC)
            answer = await self.http.post(
                f"{self.base}/pms/book",
                json={
                    "dateFrom": start.isoformat(),
                    "dateTo": (start + timedelta(days=length)).isoformat(),
                    "lastName": f"Desk{len(self.changes)}",
                    "roomTypeId": room_type_id,
                },
            )
            if answer.status_code == 200:
                break
        else:
            return
        after = await self.expected(room_type_id, nights)
        shown = await self.shown(set(after))
        changed = {k: v for k, v in after.items() if v != before[k]}
        # An earlier change still pending on a night this one changes again can no longer be seen
        # as it was: this change takes that night over, even though the channel is not in step
        # there (it still shows what came before the earlier change).
        taken_over: set[tuple[str, str]] = set()
        for earlier in self.changes:
            if earlier.pending:
                for key in set(earlier.expected) & set(changed):
                    del earlier.expected[key]
                    taken_over.add(key)
                earlier.superseded = not earlier.expected
        must = {k: v for k, v in changed.items() if shown[k] == before[k] or k in taken_over}
        if must:
            self.changes.append(Change(self.property_id, at, must))


@dataclass(frozen=True)
class Run:
    property_id: str
    kind: str
    started_at: datetime
    finished_at: datetime


def finished_runs(engine: sa.Engine, after: datetime) -> list[Run]:
    query = sa.text(
        "SELECT property_id, kind, started_at, finished_at FROM sync_run "
        "WHERE finished_at > :after ORDER BY finished_at"
    )
    with engine.connect() as conn:
        rows = conn.execute(query, {"after": after}).all()
    return [Run(r[0], r[1], _utc(r[2]), _utc(r[3])) for r in rows]


def _utc(value: datetime | str) -> datetime:
    if isinstance(value, str):
        value = datetime.fromisoformat(value)
    return value if value.tzinfo else value.replace(tzinfo=UTC)


async def watch(desks: dict[str, Desk], engine: sa.Engine, scale: float, until: float) -> None:
    """After each run of a property with changes pending, read its channel; a change shown now
    reached it with that run (or, for a run that began before the change, within it)."""
    cursor = datetime.now(UTC) - timedelta(seconds=1)
    while time.monotonic() < until:
        await asyncio.sleep(CHECK_EVERY)
        runs = await asyncio.to_thread(finished_runs, engine, cursor)
        latest: dict[str, Run] = {}
        for run in runs:
            cursor = max(cursor, run.finished_at)
            latest[run.property_id] = run
        checks = []
        for property_id, run in latest.items():
            desk = desks.get(property_id)
            pending = [c for c in desk.changes if c.pending and c.at < run.finished_at] if desk else []
            if desk and pending:
                checks.append(settle(desk, pending, run, scale))
        await asyncio.gather(*checks)


async def settle(desk: Desk, pending: list[Change], run: Run, scale: float) -> None:
    shown = await desk.shown({key for change in pending for key in change.expected})
    for change in pending:
        if all(shown.get(key) == value for key, value in change.expected.items()):
            began = max(run.started_at, change.at)
            waited = (began - change.at).total_seconds() / scale
            change.latency = waited + (run.finished_at - began).total_seconds()


async def front_desk(desks: dict[str, Desk], changes: int, window: float, rng: random.Random) -> None:
    began = time.monotonic()
    plan = sorted((rng.uniform(0, window * 0.7), pid) for pid in desks for _ in range(changes))
    tasks = []
    for offset, property_id in plan:
        delay = began + offset - time.monotonic()
        if delay > 0:
            await asyncio.sleep(delay)
        tasks.append(asyncio.create_task(desks[property_id].book()))
    await asyncio.gather(*tasks)


# --- the measurement ------------------------------------------------------------------------------


def used_calls(http: httpx.Client, ids: list[str]) -> dict[str, int]:
    return {pid: http.get(f"/_domains/{pid}/_emulator/quota").json()["usedCalls"] for pid in ids}


def logged_errors(log: str) -> list[str]:
    """The replica's ERROR lines, each with the exception of the traceback that follows it."""
    lines = log.splitlines()
    found = []
    for i, line in enumerate(lines):
        if " ERROR " not in line:
            continue
        if i + 1 < len(lines) and lines[i + 1].startswith("Traceback"):
            raised = next((t for t in lines[i + 2 : i + 200] if t and not t[0].isspace()), "")
            line = f"{line} | {raised}"
        found.append(line)
    return found


def scrape_cost(port: int, pid: int) -> tuple[float, float]:
    """One GET /metrics (it refreshes every property's gauges from the store): its wall time and
    the replica's CPU over it (its runs meanwhile included, a few ms at real time)."""
    cpu, began = cpu_seconds(pid), time.monotonic()
    httpx.get(f"http://127.0.0.1:{port}/metrics", timeout=120).raise_for_status()
    return time.monotonic() - began, cpu_seconds(pid) - cpu


def run_counts(engine: sa.Engine, since: datetime) -> dict[str, int]:
    with engine.connect() as conn:
        rows = conn.execute(
            sa.text("SELECT kind, count(*) FROM sync_run WHERE started_at >= :since GROUP BY kind"),
            {"since": since},
        ).all()
    return {row[0]: row[1] for row in rows}


def measure(args: argparse.Namespace, tmp: Path) -> int:
    n, scale = args.properties, args.time_scale
    print(
        f"{n} properties, time_scale {scale}, {args.database}, {CORES} cores; load before: {load_average()}"
    )
    built = time.monotonic()
    with (
        emulator_process(n, tmp / "emulator.log") as (emulator_url, emulator),
        scratch_database(args.database, tmp) as database_url,
        httpx.Client(base_url=emulator_url, timeout=60) as control,
    ):
        print(f"emulator of {n} domains ready in {time.monotonic() - built:.0f} s")
        ids = add_properties(database_url, n)
        port = free_port()
        log_path = tmp / "serve.log"
        with open(log_path, "wb") as log_file:
            serve = subprocess.Popen(
                [*ROOMSYNC, "serve"],
                env=replica_env(args, emulator_url, database_url, tmp, port),
                stdout=log_file,
                stderr=subprocess.STDOUT,
            )
        engine = sa.create_engine(database_url.replace("postgresql+psycopg", "postgresql+psycopg"))
        try:
            started = time.monotonic()

            def warmed() -> bool:
                if serve.poll() is not None:
                    raise SystemExit(f"roomsync serve exited:\n{log_path.read_text()[-3000:]}")
                with engine.connect() as conn:
                    done = conn.execute(
                        sa.text(
                            "SELECT count(DISTINCT property_id) FROM sync_run "
                            "WHERE kind = 'sync' AND result IS NOT NULL AND finished_at IS NOT NULL"
                        )
                    ).scalar_one()
                return bool(done >= n)

            wait_for(warmed, args.warm_up_limit, "every property's first full sync", interval=1.0)
            warm_seconds = time.monotonic() - started
            warm_cpu = cpu_seconds(serve.pid)
            warm_calls = used_calls(control, ids)
            print(
                f"warm-up (replica pid {serve.pid}: start, ownership, first full sync of each): "
                f"{warm_seconds:.0f} s, "
                f"replica CPU {warm_cpu:.1f} s, {sum(warm_calls.values()) / n:.0f} requests per property, "
                f"RSS {memory_kib(serve.pid, 'VmRSS') / 1024:.0f} MB"
            )

            window_start = datetime.now(UTC)
            cpu0, emu0 = cpu_seconds(serve.pid), cpu_seconds(emulator.pid)
            began = time.monotonic()
            rss_samples: list[int] = []
            profiling = (
                cpu_profile.recording(serve.pid, args.window, args.profile)
                if args.profile
                else contextlib.nullcontext()
            )
            with profiling:
                desks = asyncio.run(window(args, emulator_url, ids, engine, serve.pid, rss_samples))
            wall = time.monotonic() - began
            cpu = cpu_seconds(serve.pid) - cpu0
            settled = asyncio.run(settle_pending(args, emulator_url, desks, engine))
            scrape = scrape_cost(port, serve.pid)
            unseen_lines = asyncio.run(describe_unseen(emulator_url, desks))
            emulator_cpu = cpu_seconds(emulator.pid) - emu0
            peak_rss = memory_kib(serve.pid, "VmHWM") / 1024
            calls = used_calls(control, ids)
            counts = run_counts(engine, window_start)
            load = load_average()
        finally:
            serve.send_signal(signal.SIGTERM)
            try:
                serve.wait(120)
            except subprocess.TimeoutExpired:
                serve.kill()
            engine.dispose()
        errors = logged_errors(log_path.read_text(errors="replace"))

    simulated_days = wall / scale / 86_400
    spent = [calls[pid] - warm_calls[pid] for pid in ids]
    latencies = [c.latency for d in desks.values() for c in d.changes if c.latency is not None]
    unseen = sum(1 for d in desks.values() for c in d.changes if c.pending)
    superseded = sum(1 for d in desks.values() for c in d.changes if c.superseded)
    per_day = cpu / n / simulated_days
    print(f"window: {wall:.0f} s real = {wall / scale / 3600:.2f} simulated hours; load after: {load}")
    print(
        f"replica CPU: {cpu:.1f} s = {cpu / wall / CORES:.1%} of {CORES} cores; "
        f"{per_day:.2f} CPU s per property per simulated day"
    )
    # the Postgres server is shared with other work on this machine: its CPU is not told apart here
    print(f"emulator CPU in the window: {emulator_cpu:.1f} s")
    print(
        f"replica peak RSS {peak_rss:.0f} MB "
        f"(RSS in the window {min(rss_samples) / 1024:.0f}-{max(rss_samples) / 1024:.0f} MB)"
    )
    print(
        f"requests per property in the window: mean {statistics.mean(spent):.1f}, max {max(spent)} "
        f"(= {statistics.mean(spent) / simulated_days:.0f} per simulated day)"
    )
    print("runs in the window: " + ", ".join(f"{kind} {count}" for kind, count in sorted(counts.items())))
    total = sum(len(d.changes) for d in desks.values())
    print(
        f"front-desk changes the channel had to follow: {total} ({unseen} not shown by the end, "
        f"{settled:.0f} s after the window; {superseded} overtaken by a later change of its nights)"
    )
    for line in unseen_lines[:10]:
        print(f"  not shown: {line}")
    if latencies:
        print(
            f"front desk -> channel: p50 {statistics.median(latencies):.0f} s, "
            f"p95 {percentile(latencies, 0.95):.0f} s, max {max(latencies):.0f} s (simulated wait + real run)"
        )
    print(
        f"one /metrics scrape after the window: {scrape[0]:.2f} s, {scrape[1]:.2f} CPU s of the replica "
        f"({scrape[1] / n * 1000:.1f} ms per property; Prometheus scrapes every 15 s by default)"
    )
    if args.profile and args.profile.exists():
        cpu_profile.report(args.profile, cpu, counts)
    if errors:
        print(f"{len(errors)} ERROR line(s) in the replica's log; the first ones:")
        for line in errors[:3]:
            print(f"  {line[:400]}")
    return 0


async def settle_pending(
    args: argparse.Namespace, emulator_url: str, desks: dict[str, Desk], engine: sa.Engine
) -> float:
    """After the window (its CPU already counted): keep watching, up to ``--settle`` seconds, for
    the changes made in it that the channel does not show yet. Returns the seconds it took."""
    began = time.monotonic()
    async with httpx.AsyncClient(base_url=emulator_url, timeout=60) as http:
        for desk in desks.values():
            desk.http = http
        pending = [c for d in desks.values() for c in d.changes if c.pending]
        until = time.monotonic() + args.settle
        while pending and time.monotonic() < until:
            await watch(desks, engine, args.time_scale, min(until, time.monotonic() + 5))
            pending = [c for c in pending if c.pending]
    return time.monotonic() - began


async def describe_unseen(emulator_url: str, desks: dict[str, Desk]) -> list[str]:
    """For each change the channel still does not show: when it was made, and per night what the
    bench expects against what the channel shows now (and what the PMS implies now)."""
    lines = []
    async with httpx.AsyncClient(base_url=emulator_url, timeout=60) as http:
        for desk in desks.values():
            desk.http = http
            for change in (c for c in desk.changes if c.pending):
                shown = await desk.shown(set(change.expected))
                nights = sorted({date.fromisoformat(night) for _, night in change.expected})
                now_pms: Shown = {}
                for room_type_id, listings in LISTINGS.items():
                    if any(listing in {k[0] for k in change.expected} for listing, _ in listings):
                        now_pms.update(await desk.expected(room_type_id, nights))
                wrong = {
                    f"{listing} {night}": f"expected {value}, channel {shown.get((listing, night))}, "
                    f"PMS now {now_pms.get((listing, night))}"
                    for (listing, night), value in sorted(change.expected.items())
                    if shown.get((listing, night)) != value
                }
                lines.append(f"{desk.property_id} change at {change.at:%H:%M:%S}: {wrong}")
    return lines


async def window(
    args: argparse.Namespace, emulator_url: str, ids: list[str], engine: sa.Engine, pid: int, rss: list[int]
) -> dict[str, Desk]:
    rng = random.Random(args.seed)
    limits = httpx.Limits(max_connections=20)
    async with httpx.AsyncClient(base_url=emulator_url, timeout=60, limits=limits) as http:
        today = datetime.now(UTC).date()
        horizon = min(HORIZON_CHECKED, args.horizon_days - 1)
        desks = {pid_: Desk(http, pid_, today, random.Random(rng.random()), horizon) for pid_ in ids}
        until = time.monotonic() + args.window

        async def sample() -> None:
            while time.monotonic() < until:
                rss.append(memory_kib(pid, "VmRSS"))
                await asyncio.sleep(1.0)

        await asyncio.gather(
            front_desk(desks, args.changes, args.window, rng),
            watch(desks, engine, args.time_scale, until),
            sample(),
        )
    return desks


def main() -> int:
    parser = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    parser.add_argument("--properties", type=int, default=1, help="properties (emulator domains) to serve")
    parser.add_argument(
        "--time-scale", type=float, default=1.0, help="the replica's time_scale (1: real time)"
    )
    parser.add_argument("--window", type=float, default=180.0, help="real seconds measured after the warm-up")
    parser.add_argument(
        "--settle", type=float, default=240.0, help="real seconds to watch for changes after the window"
    )
    parser.add_argument(
        "--changes", type=int, default=2, help="front-desk bookings per property in the window"
    )
    parser.add_argument(
        "--horizon-days",
        type=int,
        default=365,
        help="the replicas's horizon_days (a cold price cache costs one PMS read per night of it)",
    )
    parser.add_argument("--database", choices=("postgres", "sqlite"), default="postgres")
    parser.add_argument("--warm-up-limit", type=float, default=900.0, help="longest wait for the first syncs")
    parser.add_argument("--seed", type=int, default=7)
    parser.add_argument(
        "--profile",
        type=Path,
        help="py-spy the replica through the window into this raw file and print where its CPU went",
    )
    args = parser.parse_args()
    # a SIGTERM (timeout, Ctrl-C's cousin) still stops the replica and the emulator and drops the database
    signal.signal(signal.SIGTERM, lambda *_: sys.exit(143))
    with tempfile.TemporaryDirectory() as tmp:
        return measure(args, Path(tmp))


if __name__ == "__main__":
    sys.exit(main())
