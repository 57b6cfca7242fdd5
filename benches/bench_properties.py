"""Benchmark: ``roomsync serve`` replicas serving N properties of the demo's size.

Run: ``.venv/bin/python benches/bench_properties.py --properties 100 [--time-scale 1]
[--window 180] [--changes 2] [--replicas 1,3] [--database postgres|sqlite] [--logs DIR]``

Three kinds of processes talk real HTTP, as in production:

- the emulator (``roomsync emulator --domains N``: ``hotel-01``... each the demo hotel with its
  own quota, PMS and channel, behind one address, on its live clock);
- ``roomsync serve`` replicas, the properties rows of a scratch database (Postgres at
  127.0.0.1:5432 by default, or an SQLite file, which serves one replica), passwords by reference
  to environment variables, each with the demo mapping; ``time_scale`` compresses their schedule;
- this process: it adds the properties, runs the phases, makes the front-desk changes and
  watches which runs bring them to the channel.

One invocation warms up once and measures a phase per count of ``--replicas`` (default ``1``),
in order, on the same emulator and the same database (a 1,000-property warm-up costs about 45
minutes of CPU; ``--replicas 1,3`` measures one replica, then three sharing the same properties):

1. the phase's replicas start, each its own process, port, log and ``replica_id``
   (``bench-<phase>-<k>``); several replicas share the properties out over Postgres
   (``roomsync.adapters.store.ownership``: a replica owns a property while its lock connection
   holds the property's session advisory lock);
2. the first phase only, the warm-up (reported apart): every property's first full sync;
3. ownership settles: every property is served by exactly one live replica (its ``/healthz``
   lists it and, on Postgres, ``pg_locks`` shows that replica's lock connection holding it), no
   replica above its share (``ceil(N / replicas)``), and, with several replicas, no property
   changing owner for ``OWNERSHIP_QUIET`` seconds;
4. the plan is read: each scheduled job's next run (``next_run_at``) of every property, from its
   owner's admin API (``GET /admin/properties/{id}/status``), before the window;
5. for ``--window`` real seconds, ``--changes`` front-desk bookings per property at random times;
   after it (outside its figures), up to ``--settle`` seconds more watching for the changes the
   channel does not show yet, and one ``/metrics`` scrape of each replica;
6. the phase's replicas are stopped (SIGTERM, waited for) and the phase is reported; the next
   phase's replicas take the properties over, and should continue each property's schedule from
   the store (``roomsync.app.daemon.resume``) rather than run its first full sync again: the
   replicas' logs say which they did, and the phase counts the full syncs of its window.

Measured from outside the replicas, never inside them:

- CPU seconds of each replica process (``/proc/PID/stat``: user + system, every thread) and of the
  emulator (the Postgres server is shared with other work, its CPU is not told apart);
- each replica's RSS: ``VmRSS`` sampled every second of the window, and ``VmHWM`` (the high-water
  mark of the process's life, its warm-up or takeover included);
- requests per property (the emulator's own count of each domain's calls);
- front desk to channel: the change's instant to the end of the first run of its property after
  which the channel shows it. As in ``bench_daemon_day``, the wait before that run began is
  simulated time (real seconds / ``time_scale``) and the run's own duration counts as it is;
- the lag against the plan: each run that the plan read before the window had due by the
  window's end (the next run of each job of each property: one run per job, not every run of
  the window), its start (``sync_run.started_at``) against that due time. The store records no
  due time (``sync_run`` has the start, end and heartbeat of a run; the schedule lives in the
  daemon's memory, ``app.daemon.scheduler``), hence the one read of the admin API. A full sync
  ending plans its property's poll and detection again (``app.daemon.schedule``): such runs are
  left out (and counted). A run due by the window's end that had not begun by then is reported
  apart, its lateness at the end being a lower bound;
- the phase's CPU per replica against the one-replica phase's (issue 26: three replicas each under
  a third of one replica's CPU, within 20 %), as CPU seconds per real second of the window.

"CPU seconds per property per simulated day" is the replicas' CPU in the window divided by the
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
import math
import os
import random
import re
import shutil
import signal
import socket
import statistics
import subprocess
import sys
import tempfile
import time
from collections.abc import Callable, Iterator
from dataclasses import dataclass, field
from datetime import UTC, date, datetime, timedelta
from pathlib import Path

import cpu_profile
import httpx
import sqlalchemy as sa

from roomsync.adapters.store import open_store
from roomsync.adapters.store.ownership import PROPERTY_LOCK_SPACE, REPLICA_LOCK_SPACE
from roomsync.app.sync.mapping_io import parse_mapping_toml
from roomsync.core.property import PropertyRecord
from roomsync.emulator.domains import domain_credentials, domain_name
from roomsync.emulator.scenario import DEMO_MAPPING_TOML
from roomsync.settings import Settings

ROOMSYNC = [sys.executable, "-m", "roomsync.app.cli"]
ADMIN_TOKEN = "adm-bench-Pq4Xv8"
CORES = os.cpu_count() or 1
TICKS = os.sysconf("SC_CLK_TCK")
HORIZON_CHECKED = 60
CHECK_EVERY = 0.25
"""Real seconds between two looks at the runs that finished (the channel is read only after one)."""
OWNERSHIP_CHECK = float(Settings.model_fields["ownership_check_seconds"].default)
"""The replicas' ``ownership_check_seconds`` (the bench leaves the default): each replica checks
what it owns every 0.8 to 1.2 times this."""
OWNERSHIP_QUIET = 3 * OWNERSHIP_CHECK
"""Seconds without a property changing owner (two checks of each replica at least) before several
replicas count as settled."""
STOP_LIMIT = 120.0
"""Real seconds a replica gets to stop after SIGTERM (its shutdown grace is 25 s) before a kill."""
CPU_TOLERANCE = 1.2
"""Issue 26: each of k replicas under 1/k of the one replica's CPU, within 20 %."""
SCHEDULED_RUN_KINDS = {
    "prices": "sync",
    "poll": "poll",
    "detect": "detect",
    "reconcile": "reconcile",
    "repush": "repush",
}
"""The daemon's scheduled job (``app.daemon.run_kinds.SCHEDULED``) -> the kind of its ``sync_run`` rows."""
REPLANNED_BY_FULL_SYNC = ("poll", "detect")
"""Run kinds whose pending run a full sync's end schedules again (``Schedule._fire``)."""

LISTINGS = {1: [("41000003", False)], 2: [("41000004", False)], 4: [("41000001", True), ("41000002", True)]}
"""Room type -> (listing, single unit?) that the demo mapping sells."""

Shown = dict[tuple[str, str], tuple[str, int | None]]
Owners = dict[str, list[str]]
"""Property -> the names of the replicas that own it."""


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


def wait_for(check: Callable[[], bool], timeout: float, what: str, interval: float = 0.2) -> None:
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
    args: argparse.Namespace, emulator_url: str, database_url: str, data_dir: Path, port: int, name: str
) -> dict[str, str]:
    env = {k: v for k, v in os.environ.items() if not k.startswith("ROOMSYNC_")}
    env.update(
        ROOMSYNC_BASE_URL=emulator_url,
        ROOMSYNC_DATABASE_URL=database_url,
        ROOMSYNC_DATA_DIR=str(data_dir),
        ROOMSYNC_SERVE_PORT=str(port),
        ROOMSYNC_REPLICA_ID=name,
        ROOMSYNC_ADMIN_TOKEN=ADMIN_TOKEN,
        ROOMSYNC_TIME_SCALE=str(args.time_scale),
        ROOMSYNC_HORIZON_DAYS=str(args.horizon_days),
    )
    env.update({f"HOTEL_PW_{i:04d}": domain_credentials(i).password for i in range(1, args.properties + 1)})
    return env


@dataclass
class Deployment:
    """What every phase shares: the emulator, the database and its properties."""

    args: argparse.Namespace
    tmp: Path
    emulator_url: str
    emulator: subprocess.Popen[bytes]
    database_url: str
    engine: sa.Engine
    control: httpx.Client
    """The emulator's control surface (each domain's request count)."""
    ids: list[str]

    @property
    def postgres(self) -> bool:
        return self.database_url.startswith("postgresql")


@dataclass
class ReplicaProcess:
    """One ``roomsync serve`` process of a phase."""

    name: str
    process: subprocess.Popen[bytes]
    port: int
    log_path: Path

    @property
    def pid(self) -> int:
        return self.process.pid

    @property
    def url(self) -> str:
        return f"http://127.0.0.1:{self.port}"

    def log(self) -> str:
        return self.log_path.read_text(errors="replace")

    def check_running(self) -> None:
        if self.process.poll() is not None:
            raise SystemExit(
                f"replica {self.name} (roomsync serve) exited with {self.process.returncode}:\n"
                + self.log()[-3000:]
            )

    def served(self) -> list[str] | None:
        """The properties it runs (``/healthz``: its daemons); None while it does not answer."""
        try:
            response = httpx.get(f"{self.url}/healthz", timeout=10)
        except httpx.HTTPError:
            return None
        return list(response.json()["properties"]) if response.status_code == 200 else None


def start_replicas(deployment: Deployment, phase: int, count: int) -> list[ReplicaProcess]:
    """``count`` replicas started together (as a deployment does), each with its own ``replica_id``,
    port, data directory and log."""
    args, tmp = deployment.args, deployment.tmp
    replicas = []
    for k in range(1, count + 1):
        name = f"bench-{phase}-{k}"
        data_dir = tmp / name
        data_dir.mkdir()
        port = free_port()
        log_path = tmp / f"{name}.log"
        env = replica_env(args, deployment.emulator_url, deployment.database_url, data_dir, port, name)
        with open(log_path, "wb") as log_file:
            process = subprocess.Popen(
                [*ROOMSYNC, "serve"], env=env, stdout=log_file, stderr=subprocess.STDOUT
            )
        replicas.append(ReplicaProcess(name, process, port, log_path))
    return replicas


def stop_replicas(replicas: list[ReplicaProcess]) -> list[str]:
    """SIGTERM to each (a graceful stop: runs in flight finish, properties are released), then wait
    for each; one still running after ``STOP_LIMIT`` is killed. Returns how each ended."""
    began = time.monotonic()
    for replica in replicas:
        if replica.process.poll() is None:
            replica.process.send_signal(signal.SIGTERM)
    ended = []
    for replica in replicas:
        try:
            code = replica.process.wait(max(STOP_LIMIT - (time.monotonic() - began), 1.0))
            ended.append(f"{replica.name} exited {code} after {time.monotonic() - began:.0f} s")
        except subprocess.TimeoutExpired:
            replica.process.kill()
            replica.process.wait(30)
            ended.append(f"{replica.name} KILLED, still running {STOP_LIMIT:.0f} s after SIGTERM")
    return ended


# --- who owns which property --------------------------------------------------------------------


def served_by(replicas: list[ReplicaProcess]) -> Owners | None:
    """Property -> the replicas whose ``/healthz`` lists it; None while one does not answer."""
    owners: Owners = {}
    for replica in replicas:
        served = replica.served()
        if served is None:
            return None
        for property_id in served:
            owners.setdefault(property_id, []).append(replica.name)
    return owners


def locked_by(engine: sa.Engine, replicas: list[ReplicaProcess], ids: list[str]) -> Owners:
    """Property -> the replicas whose lock connection holds its advisory lock (``pg_locks`` of this
    database): a replica's connection is told by the lock of its own name it holds there."""
    query = sa.text(
        "SELECT r.objid::bigint, p.objid::bigint FROM pg_locks r JOIN pg_locks p "
        "ON p.pid = r.pid AND p.database = r.database "
        "WHERE r.locktype = 'advisory' AND r.granted AND r.classid = :replica_space AND r.objsubid = 2 "
        "AND p.locktype = 'advisory' AND p.granted AND p.classid = :property_space AND p.objsubid = 2 "
        "AND r.database = (SELECT oid FROM pg_database WHERE datname = current_database())"
    )
    # pg_try_advisory_lock(space, hashtext(key)) shows as classid = space, objid = the key as an oid
    keys = sa.text("SELECT k, hashtext(k)::bigint & 4294967295 FROM unnest(CAST(:keys AS text[])) AS k")
    with engine.connect() as conn:
        names = {key: name for name, key in conn.execute(keys, {"keys": [r.name for r in replicas]}).all()}
        properties = {key: pid for pid, key in conn.execute(keys, {"keys": ids}).all()}
        rows = conn.execute(
            query, {"replica_space": REPLICA_LOCK_SPACE, "property_space": PROPERTY_LOCK_SPACE}
        ).all()
    owners: Owners = {}
    for replica_key, property_key in rows:
        if property_key in properties:
            owner = names.get(replica_key, f"a replica not of this phase (lock {replica_key})")
            owners.setdefault(properties[property_key], []).append(owner)
    return owners


def ownership_problems(ids: list[str], served: Owners, locked: Owners | None, replicas: int) -> list[str]:
    """What keeps the ownership from being settled: a property served by no replica or by several,
    held (``pg_locks``) by another replica than the one serving it, a replica above its share."""
    problems = []
    for property_id in ids:
        serving = sorted(served.get(property_id, []))
        if len(serving) != 1:
            problems.append(f"{property_id} served by {serving or 'no replica'}")
        elif locked is not None and sorted(locked.get(property_id, [])) != serving:
            problems.append(
                f"{property_id} served by {serving[0]}, its lock held by {locked.get(property_id)}"
            )
    share = math.ceil(len(ids) / replicas)
    for name, owned in owned_by(served).items():
        if len(owned) > share:
            problems.append(f"{name} owns {len(owned)}, above its share of {share}")
    return problems


def owned_by(owners: Owners) -> dict[str, list[str]]:
    """Replica -> the properties it owns."""
    owned: dict[str, list[str]] = {}
    for property_id, names in sorted(owners.items()):
        for name in names:
            owned.setdefault(name, []).append(property_id)
    return owned


def await_ownership(deployment: Deployment, replicas: list[ReplicaProcess]) -> tuple[Owners, float]:
    """Wait until the ownership has settled (see the module docstring); returns it and the seconds
    it took. One replica owns every property as soon as it owns them (there is nobody to give
    any to); several must keep the same owners ``OWNERSHIP_QUIET`` seconds."""
    quiet = OWNERSHIP_QUIET if len(replicas) > 1 else 0.0
    began = time.monotonic()
    deadline = began + deployment.args.ownership_limit
    last: Owners | None = None
    stable_since: float | None = None
    problems: list[str] = []
    while True:
        for replica in replicas:
            replica.check_running()
        served = served_by(replicas)
        now = time.monotonic()
        if served is None:
            problems, stable_since = ["a replica does not answer /healthz yet"], None
        else:
            locked = locked_by(deployment.engine, replicas, deployment.ids) if deployment.postgres else None
            problems = ownership_problems(deployment.ids, served, locked, len(replicas))
            if problems:
                stable_since = None
            elif stable_since is None or served != last:
                stable_since = now
            if stable_since is not None and now - stable_since >= quiet:
                return served, now - began
        last = served
        if now > deadline:
            raise SystemExit(
                f"the ownership did not settle within {deployment.args.ownership_limit:.0f} s: "
                + ("; ".join(problems[:5]) if problems else "owners still changing")
            )
        time.sleep(2.0)


def schedule_starts(log: str) -> tuple[set[str], set[str]]:
    """The properties a replica's log shows starting their schedule afresh (first full sync now)
    and continuing it from the store (``app.daemon.schedule.Schedule.first_runs``)."""
    fresh = set(re.findall(r"serving property (\S+?): first full sync now", log))
    resumed = set(re.findall(r"serving property (\S+?): its last full sync \(run", log))
    return fresh, resumed


# --- the plan: when each scheduled run is due ----------------------------------------------------


@dataclass(frozen=True)
class Planned:
    """A scheduled run as the owner's admin API showed it pending."""

    property_id: str
    kind: str
    """The kind of its ``sync_run`` row (``sync`` for the schedule's ``prices``)."""
    due: datetime
    asked_at: datetime
    answered_at: datetime


async def read_plan(owner_of: dict[str, ReplicaProcess]) -> list[Planned]:
    """Each property's pending scheduled runs (``next_run_at`` of its jobs), from its owner's
    ``GET /admin/properties/{id}/status``, four properties at a time per replica."""
    gates = {replica.name: asyncio.Semaphore(4) for replica in owner_of.values()}
    headers = {"Authorization": f"Bearer {ADMIN_TOKEN}"}
    async with httpx.AsyncClient(timeout=120, headers=headers) as http:

        async def one(property_id: str, replica: ReplicaProcess) -> list[Planned]:
            async with gates[replica.name]:
                asked_at = datetime.now(UTC)
                response = await http.get(f"{replica.url}/admin/properties/{property_id}/status")
                answered_at = datetime.now(UTC)
            response.raise_for_status()
            return [
                Planned(
                    property_id,
                    SCHEDULED_RUN_KINDS[job["kind"]],
                    _utc(job["next_run_at"]),
                    asked_at,
                    answered_at,
                )
                for job in response.json()["schedule"]["jobs"]
                if job["kind"] in SCHEDULED_RUN_KINDS and job["next_run_at"]
            ]

        found = await asyncio.gather(*(one(pid, replica) for pid, replica in sorted(owner_of.items())))
    return [planned for each in found for planned in each]


@dataclass(frozen=True)
class RunRow:
    property_id: str
    kind: str
    started_at: datetime
    finished_at: datetime | None


def runs_between(engine: sa.Engine, since: datetime, until: datetime) -> list[RunRow]:
    """The runs that began by ``until`` and were running at ``since`` or began after it."""
    query = sa.text(
        "SELECT property_id, kind, started_at, finished_at FROM sync_run "
        "WHERE started_at <= :until "
        "AND (started_at >= :since OR finished_at IS NULL OR finished_at >= :since) ORDER BY started_at"
    )
    with engine.connect() as conn:
        rows = conn.execute(query, {"since": since, "until": until}).all()
    return [RunRow(r[0], r[1], _utc(r[2]), None if r[3] is None else _utc(r[3])) for r in rows]


@dataclass
class PlanLag:
    """The runs the plan had due by the window's end against their start (real seconds)."""

    late: dict[str, list[float]] = field(default_factory=dict)
    """Run kind -> seconds each run began after its due time."""
    waiting: list[float] = field(default_factory=list)
    """Runs due by the window's end that had not begun by then: seconds late at the end (lower bounds)."""
    replanned: int = 0
    """Left out: a poll or detection whose property's full sync ended meanwhile (it plans them
    again), a run that began before its due time, or one that began while its status was read."""
    planned_syncs: set[tuple[str, datetime]] = field(default_factory=set)
    """(property, start) of the full syncs that were the plan's."""


def plan_lag(plan: list[Planned], runs: list[RunRow], window_end: datetime) -> PlanLag:
    """Match each planned run due by ``window_end`` with the first run of its property and kind
    that began after its status was read (see the module docstring)."""
    starts: dict[tuple[str, str], list[datetime]] = {}
    sync_ends: dict[str, list[datetime]] = {}
    for run in runs:
        starts.setdefault((run.property_id, run.kind), []).append(run.started_at)
        if run.kind == "sync" and run.finished_at is not None:
            sync_ends.setdefault(run.property_id, []).append(run.finished_at)
    lag = PlanLag()
    for planned in plan:
        if planned.due > window_end:
            continue
        began = starts.get((planned.property_id, planned.kind), [])
        if any(planned.asked_at <= at < planned.answered_at for at in began):
            lag.replanned += 1  # it may have begun before the status was taken, or after
            continue
        start = next((at for at in began if at >= planned.answered_at), None)
        end = start or window_end
        replanned = planned.kind in REPLANNED_BY_FULL_SYNC and any(
            planned.answered_at <= at <= end for at in sync_ends.get(planned.property_id, [])
        )
        if replanned or (start is not None and start < planned.due - timedelta(seconds=1)):
            lag.replanned += 1
        elif start is None:
            lag.waiting.append((window_end - planned.due).total_seconds())
        else:
            lag.late.setdefault(planned.kind, []).append((start - planned.due).total_seconds())
            if planned.kind == "sync":
                lag.planned_syncs.add((planned.property_id, start))
    return lag


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
    id: int
    property_id: str
    kind: str
    started_at: datetime
    finished_at: datetime


def finished_runs(engine: sa.Engine, after: datetime) -> list[Run]:
    query = sa.text(
        "SELECT id, property_id, kind, started_at, finished_at FROM sync_run "
        "WHERE finished_at > :after ORDER BY finished_at"
    )
    with engine.connect() as conn:
        rows = conn.execute(query, {"after": after}).all()
    return [Run(r[0], r[1], r[2], _utc(r[3]), _utc(r[4])) for r in rows]


def _utc(value: datetime | str) -> datetime:
    if isinstance(value, str):
        value = datetime.fromisoformat(value)
    return value if value.tzinfo else value.replace(tzinfo=UTC)


RECORD_OVERLAP = timedelta(seconds=60)
"""How far back each look at the runs reaches before the newest end seen: a run's record commits
a moment after its end, and a replica's record can commit after another's later end."""


@dataclass
class RunsSeen:
    """The runs the watch has looked at, by id, through the window and the settling after it.

    Following a watermark of the newest end alone, restarted at each look of the settling, misses
    runs whose record committed late (another replica's), and those that ended in the pause between
    the window and the settling: the changes they showed stay "not shown" with nothing wrong on the
    channel. That is the likely reason for 6 such changes of about 1,750 in the 1,000-property
    bench of 2026-11-28 00:00 UTC."""

    cursor: datetime
    ids: set[int] = field(default_factory=set)

    def new(self, runs: list[Run]) -> list[Run]:
        fresh = [run for run in runs if run.id not in self.ids]
        self.ids.update(run.id for run in fresh)
        for run in fresh:
            self.cursor = max(self.cursor, run.finished_at)
        return fresh


async def watch(
    desks: dict[str, Desk], engine: sa.Engine, scale: float, until: float, seen: RunsSeen
) -> None:
    """After each run of a property with changes pending, read its channel; a change shown now
    reached it with that run (or, for a run that began before the change, within it)."""
    while time.monotonic() < until:
        await asyncio.sleep(CHECK_EVERY)
        runs = await asyncio.to_thread(finished_runs, engine, seen.cursor - RECORD_OVERLAP)
        latest: dict[str, Run] = {}
        for run in sorted(seen.new(runs), key=lambda run: run.finished_at):
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
    """One GET /metrics (it refreshes the gauges of every property the replica serves from the
    store): its wall time and the replica's CPU over it (its runs meanwhile included, a few ms at
    real time)."""
    cpu, began = cpu_seconds(pid), time.monotonic()
    httpx.get(f"http://127.0.0.1:{port}/metrics", timeout=120).raise_for_status()
    return time.monotonic() - began, cpu_seconds(pid) - cpu


def run_counts(engine: sa.Engine, since: datetime, until: datetime) -> dict[str, int]:
    with engine.connect() as conn:
        rows = conn.execute(
            sa.text(
                "SELECT kind, count(*) FROM sync_run WHERE started_at >= :since AND started_at <= :until "
                "GROUP BY kind"
            ),
            {"since": since, "until": until},
        ).all()
    return {row[0]: row[1] for row in rows}


def warm_up(deployment: Deployment, replicas: list[ReplicaProcess]) -> None:
    """Wait for every property's first full sync (the first phase only) and print what it cost."""
    n, engine = len(deployment.ids), deployment.engine
    started = time.monotonic()

    def warmed() -> bool:
        for replica in replicas:
            replica.check_running()
        with engine.connect() as conn:
            done = conn.execute(
                sa.text(
                    "SELECT count(DISTINCT property_id) FROM sync_run "
                    "WHERE kind = 'sync' AND result IS NOT NULL AND finished_at IS NOT NULL"
                )
            ).scalar_one()
        return bool(done >= n)

    wait_for(warmed, deployment.args.warm_up_limit, "every property's first full sync", interval=1.0)
    seconds = time.monotonic() - started
    cpu = sum(cpu_seconds(replica.pid) for replica in replicas)
    calls = used_calls(deployment.control, deployment.ids)
    rss = sum(memory_kib(replica.pid, "VmRSS") for replica in replicas) / 1024
    who = (
        f"replica pid {replicas[0].pid}"
        if len(replicas) == 1
        else "replicas " + ", ".join(f"{r.name} pid {r.pid}" for r in replicas)
    )
    total = "" if len(replicas) == 1 else " (sum)"
    print(
        f"warm-up ({who}: start, ownership, first full sync of each): {seconds:.0f} s, "
        f"replica CPU {cpu:.1f} s{total}, {sum(calls.values()) / n:.0f} requests per property, "
        f"RSS {rss:.0f} MB{total}"
    )


@dataclass
class ReplicaFigures:
    """One replica's share of a phase."""

    name: str
    pid: int
    owned: int
    """Properties it owned when the window began."""
    cpu: float
    """CPU seconds in the window."""
    rss_kib: list[int]
    """VmRSS, sampled every second of the window."""
    peak_kib: int = 0
    """VmHWM after the window (the process's life: its warm-up or takeover included)."""
    scrape: tuple[float, float] = (0.0, 0.0)
    errors: list[str] = field(default_factory=list)
    fresh: set[str] = field(default_factory=set)
    """Properties whose schedule it started afresh (a first full sync at once), from its log."""
    resumed: set[str] = field(default_factory=set)
    """Properties whose schedule it continued from the store, from its log."""


@dataclass
class PhaseResult:
    """What a phase measured, for :func:`report_phase`."""

    number: int
    replicas: list[ReplicaFigures]
    owner_changes: list[str]
    """Properties whose owner changed during the window."""
    plan_seconds: float
    plan_runs: int
    wall: float
    emulator_cpu: float
    spent: list[int]
    """Requests per property in the window."""
    counts: dict[str, int]
    """Run kind -> runs started in the window."""
    syncs_before: int
    """Full syncs begun between the replicas' start and the window."""
    unplanned_syncs: int
    """Full syncs begun in the window that were not the plan's."""
    lag: PlanLag
    desks: dict[str, Desk]
    settled: float
    unseen_lines: list[str]
    load: str
    profile: Path | None
    """py-spy's raw samples of the window (the first phase's one replica, with --profile)."""
    ownership_seconds: float = 0.0
    """Real seconds from the replicas' start (the warm-up's end, first phase) to settled ownership."""
    stopped: list[str] = field(default_factory=list)
    """How each replica ended after the SIGTERM."""

    @property
    def cpu_rate(self) -> float:
        """The replicas' CPU seconds per real second of the window."""
        return sum(r.cpu for r in self.replicas) / self.wall


def run_phase(deployment: Deployment, number: int, count: int) -> PhaseResult:
    """Start ``count`` replicas (and warm up, in the first phase), wait for the ownership to
    settle, measure the window, stop the replicas and read their logs."""
    args = deployment.args
    print(f"--- phase {number}: {count} replica{'s' if count > 1 else ''}")
    phase_start = datetime.now(UTC)
    replicas = start_replicas(deployment, number, count)
    try:
        if number == 1:
            warm_up(deployment, replicas)
        owners, ownership_seconds = await_ownership(deployment, replicas)
        result = measure_window(deployment, number, replicas, owners, phase_start)
        result.ownership_seconds = ownership_seconds
    finally:
        stopped = stop_replicas(replicas)
    result.stopped = stopped
    if args.logs is not None:
        args.logs.mkdir(parents=True, exist_ok=True)
        for replica in replicas:
            shutil.copy(replica.log_path, args.logs)
    for replica, figure in zip(replicas, result.replicas, strict=True):
        log = replica.log()
        figure.errors = logged_errors(log)
        figure.fresh, figure.resumed = schedule_starts(log)
    return result


def measure_window(
    deployment: Deployment, number: int, replicas: list[ReplicaProcess], owners: Owners, phase_start: datetime
) -> PhaseResult:
    """Read the plan, then ``--window`` real seconds of front-desk changes measured, then the watch
    for the changes not shown yet and a /metrics scrape of each replica."""
    args, engine, ids = deployment.args, deployment.engine, deployment.ids
    owned = owned_by(owners)
    by_name = {replica.name: replica for replica in replicas}
    began = time.monotonic()
    plan = asyncio.run(read_plan({pid: by_name[names[0]] for pid, names in owners.items()}))
    plan_seconds = time.monotonic() - began

    window_start = datetime.now(UTC)
    calls0 = used_calls(deployment.control, ids)
    cpu0 = {replica.name: cpu_seconds(replica.pid) for replica in replicas}
    emu0 = cpu_seconds(deployment.emulator.pid)
    began = time.monotonic()
    rss: dict[int, list[int]] = {replica.pid: [] for replica in replicas}
    profiled = bool(args.profile) and number == 1 and len(replicas) == 1
    profiling = (
        cpu_profile.recording(replicas[0].pid, args.window, args.profile)
        if profiled
        else contextlib.nullcontext()
    )
    seed = args.seed + number - 1  # the first phase's changes are the ones made before --replicas
    seen = RunsSeen(window_start - timedelta(seconds=1))
    with profiling:
        desks = asyncio.run(window(args, deployment.emulator_url, ids, engine, rss, seed, seen))
    wall = time.monotonic() - began
    figures = [
        ReplicaFigures(
            r.name, r.pid, len(owned.get(r.name, [])), cpu_seconds(r.pid) - cpu0[r.name], rss[r.pid]
        )
        for r in replicas
    ]
    window_end = datetime.now(UTC)
    emulator_cpu = cpu_seconds(deployment.emulator.pid) - emu0
    calls = used_calls(deployment.control, ids)
    counts = run_counts(engine, window_start, window_end)
    runs = runs_between(engine, min((p.asked_at for p in plan), default=window_start), window_end)
    after = served_by(replicas) or {}
    lag = plan_lag(plan, runs, window_end)
    unplanned_syncs = sum(
        1
        for run in runs
        if run.kind == "sync"
        and run.started_at >= window_start
        and (run.property_id, run.started_at) not in lag.planned_syncs
    )

    settled = asyncio.run(settle_pending(args, deployment.emulator_url, desks, engine, seen))
    for replica, figure in zip(replicas, figures, strict=True):
        figure.scrape = scrape_cost(replica.port, replica.pid)
    unseen_lines = asyncio.run(describe_unseen(deployment.emulator_url, desks))
    for replica, figure in zip(replicas, figures, strict=True):
        figure.peak_kib = memory_kib(replica.pid, "VmHWM")
    return PhaseResult(
        number=number,
        replicas=figures,
        owner_changes=[
            f"{p}: {owners.get(p)} -> {after.get(p)}" for p in ids if owners.get(p) != after.get(p)
        ],
        plan_seconds=plan_seconds,
        plan_runs=len(plan),
        wall=wall,
        emulator_cpu=emulator_cpu,
        spent=[calls[pid] - calls0[pid] for pid in ids],
        counts=counts,
        syncs_before=run_counts(engine, phase_start, window_start).get("sync", 0),
        unplanned_syncs=unplanned_syncs,
        lag=lag,
        desks=desks,
        settled=settled,
        unseen_lines=unseen_lines,
        load=load_average(),
        profile=args.profile if profiled else None,
    )


def report_phase(args: argparse.Namespace, result: PhaseResult, reference: PhaseResult | None) -> None:
    """Print a phase; ``reference``: the first phase of one replica, which later phases' replicas'
    CPU is compared with."""
    n, scale, wall = args.properties, args.time_scale, result.wall
    replicas = result.replicas
    several = len(replicas) > 1
    simulated_days = wall / scale / 86_400
    owners = ", ".join(f"{r.name} {r.owned}" for r in replicas)
    locked = ", its lock held by it" if args.database == "postgres" else ""
    print(
        f"ownership settled {result.ownership_seconds:.0f} s after the "
        f"{'warm-up' if result.number == 1 else 'replicas started'}: {owners} properties "
        f"(each served by exactly one replica{locked})"
    )
    fresh = sum(len(r.fresh) for r in replicas)
    resumed = sum(len(r.resumed) for r in replicas)
    print(
        f"schedules started (the replicas' logs): {fresh} afresh (first full sync at once), {resumed} "
        f"continued from the store; full syncs begun before the window: {result.syncs_before}"
    )
    if result.number > 1 and fresh:
        redone = sorted(set().union(*(r.fresh for r in replicas)))
        print(
            f"  UNEXPECTED: {len(redone)} taken over with a first full sync again, not continued "
            f"(app/daemon/resume.py: the last full sync unhealthy or not every listing): "
            + ", ".join(redone[:10])
        )
    print(f"window: {wall:.0f} s real = {wall / scale / 3600:.2f} simulated hours; load after: {result.load}")
    for r in replicas:
        rss = f"{min(r.rss_kib) / 1024:.0f}-{max(r.rss_kib) / 1024:.0f}" if r.rss_kib else "?"
        print(
            f"  {r.name} (pid {r.pid}, {r.owned} properties): CPU {r.cpu:.1f} s = {r.cpu / wall / CORES:.1%} "
            f"of {CORES} cores; RSS in the window {rss} MB, peak (VmHWM) {r.peak_kib / 1024:.0f} MB"
        )
    cpu = sum(r.cpu for r in replicas)
    label = f"replicas' CPU (sum of {len(replicas)})" if several else "replica CPU"
    print(
        f"{label}: {cpu:.1f} s = {cpu / wall / CORES:.1%} of {CORES} cores; "
        f"{cpu / n / simulated_days:.2f} CPU s per property per simulated day"
    )
    # the Postgres server is shared with other work on this machine: its CPU is not told apart here
    print(f"emulator CPU in the window: {result.emulator_cpu:.1f} s")
    if several:
        print(f"replicas' peak RSS (sum of VmHWM): {sum(r.peak_kib for r in replicas) / 1024:.0f} MB")
    if reference is not None and result is not reference:
        compare_cpu(result, reference)
    spent = result.spent
    print(
        f"requests per property in the window: mean {statistics.mean(spent):.1f}, max {max(spent)} "
        f"(= {statistics.mean(spent) / simulated_days:.0f} per simulated day)"
    )
    print(
        "runs in the window: " + ", ".join(f"{kind} {count}" for kind, count in sorted(result.counts.items()))
    )
    syncs = result.counts.get("sync", 0)
    print(
        f"full syncs ('sync' runs) begun in the window: {syncs}, {syncs - result.unplanned_syncs} of them "
        f"due in the plan read before it"
        + (f"; {result.unplanned_syncs} NOT in that plan" if result.unplanned_syncs else "")
    )
    report_lag(result, scale)
    if result.owner_changes:
        print(f"OWNER CHANGED during the window: {'; '.join(result.owner_changes[:10])}")
    desks = result.desks
    latencies = [c.latency for d in desks.values() for c in d.changes if c.latency is not None]
    unseen = sum(1 for d in desks.values() for c in d.changes if c.pending)
    superseded = sum(1 for d in desks.values() for c in d.changes if c.superseded)
    total = sum(len(d.changes) for d in desks.values())
    print(
        f"front-desk changes the channel had to follow: {total} ({unseen} not shown by the end, "
        f"{result.settled:.0f} s after the window; {superseded} overtaken by a later change of its nights)"
    )
    for line in result.unseen_lines[:10]:
        print(f"  not shown: {line}")
    if latencies:
        print(
            f"front desk -> channel: p50 {statistics.median(latencies):.0f} s, "
            f"p95 {percentile(latencies, 0.95):.0f} s, max {max(latencies):.0f} s (simulated wait + real run)"
        )
    for r in replicas:
        wall_s, cpu_s = r.scrape
        print(
            f"one /metrics scrape of {r.name} after the window: {wall_s:.2f} s, {cpu_s:.2f} CPU s of the "
            f"replica ({cpu_s / max(r.owned, 1) * 1000:.1f} ms per property it serves; Prometheus "
            "scrapes every 15 s by default)"
        )
    print("stopped (SIGTERM): " + "; ".join(result.stopped))
    if result.profile is not None and result.profile.exists():
        cpu_profile.report(result.profile, replicas[0].cpu, result.counts)
    elif args.profile and result.profile is None:
        print(f"--profile: not in phase {result.number} (py-spy follows the first phase's one replica)")
    for r in replicas:
        if r.errors:
            print(f"{len(r.errors)} ERROR line(s) in {r.name}'s log; the first ones:")
            for line in r.errors[:3]:
                print(f"  {line[:400]}")


def compare_cpu(result: PhaseResult, reference: PhaseResult) -> None:
    """Each replica's CPU per real second of the window against the one replica's of
    ``reference``, judged against 1/count within 20 % (issue 26)."""
    one, count = reference.cpu_rate, len(result.replicas)
    target = CPU_TOLERANCE / count
    for r in result.replicas:
        share = r.cpu / result.wall / one if one else math.inf
        print(
            f"  {r.name}: {share:.2f} of the one-replica CPU (phase {reference.number}, per real second), "
            f"target <= 1/{count} x {CPU_TOLERANCE} = {target:.2f}: {'met' if share <= target else 'NOT met'}"
        )
    if count > 1:
        print(f"  all {count} together: {result.cpu_rate / one if one else math.inf:.2f} of it")


def report_lag(result: PhaseResult, scale: float) -> None:
    """The runs the plan read before the window had due by its end, against their start."""
    lag = result.lag
    late = [seconds for each in lag.late.values() for seconds in each]
    print(
        f"lag against the plan (next runs of {result.plan_runs} jobs read from the owners' admin API in "
        f"{result.plan_seconds:.1f} s before the window; a run's start against its due time, real s):"
    )
    if late:
        print(
            f"  {len(late)} runs due by the window's end began: p50 {statistics.median(late):.2f} s, "
            f"p95 {percentile(late, 0.95):.2f} s, max {max(late):.2f} s "
            f"(p95 / max = {percentile(late, 0.95) / scale:.0f} / {max(late) / scale:.0f} simulated s); "
            + ", ".join(
                f"{kind} {len(each)} max {max(each):.2f} s" for kind, each in sorted(lag.late.items())
            )
        )
    else:
        print("  no run the plan had due by the window's end began in it")
    if lag.waiting:
        print(
            f"  {len(lag.waiting)} due by the window's end had NOT begun by then, the latest "
            f"{max(lag.waiting):.1f} s late at the end (lower bounds)"
        )
    if lag.replanned:
        print(
            f"  {lag.replanned} left out: planned again meanwhile (a full sync's end), or read as they began"
        )


async def settle_pending(
    args: argparse.Namespace, emulator_url: str, desks: dict[str, Desk], engine: sa.Engine, seen: RunsSeen
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
            await watch(desks, engine, args.time_scale, min(until, time.monotonic() + 5), seen)
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
    args: argparse.Namespace,
    emulator_url: str,
    ids: list[str],
    engine: sa.Engine,
    rss: dict[int, list[int]],
    seed: int,
    seen: RunsSeen,
) -> dict[str, Desk]:
    """The front-desk changes and the watch for them, ``--window`` real seconds; ``rss``: each
    replica's pid -> its VmRSS samples, one a second."""
    rng = random.Random(seed)
    limits = httpx.Limits(max_connections=20)
    async with httpx.AsyncClient(base_url=emulator_url, timeout=60, limits=limits) as http:
        today = datetime.now(UTC).date()
        horizon = min(HORIZON_CHECKED, args.horizon_days - 1)
        desks = {pid: Desk(http, pid, today, random.Random(rng.random()), horizon) for pid in ids}
        until = time.monotonic() + args.window

        async def sample() -> None:
            while time.monotonic() < until:
                for pid, samples in rss.items():
                    samples.append(memory_kib(pid, "VmRSS"))
                await asyncio.sleep(1.0)

        await asyncio.gather(
            front_desk(desks, args.changes, args.window, rng),
            watch(desks, engine, args.time_scale, until, seen),
            sample(),
        )
    return desks


def measure(args: argparse.Namespace, tmp: Path) -> int:
    """The emulator and the database, then each phase of ``--replicas`` in turn."""
    n, scale = args.properties, args.time_scale
    print(
        f"{n} properties, time_scale {scale}, {args.database}, {CORES} cores; load before: {load_average()}"
    )
    if len(args.replicas) > 1:
        print("phases: " + ", then ".join(f"{c} replica{'s' if c > 1 else ''}" for c in args.replicas))
    built = time.monotonic()
    with (
        emulator_process(n, tmp / "emulator.log") as (emulator_url, emulator),
        scratch_database(args.database, tmp) as database_url,
        httpx.Client(base_url=emulator_url, timeout=60) as control,
    ):
        print(f"emulator of {n} domains ready in {time.monotonic() - built:.0f} s")
        ids = add_properties(database_url, n)
        engine = sa.create_engine(database_url)
        deployment = Deployment(args, tmp, emulator_url, emulator, database_url, engine, control, ids)
        results: list[PhaseResult] = []
        reference: PhaseResult | None = None
        try:
            for number, count in enumerate(args.replicas, start=1):
                result = run_phase(deployment, number, count)
                report_phase(args, result, reference)
                results.append(result)
                if reference is None and count == 1:
                    reference = result
            if reference is not None:  # the phases of several replicas measured before it
                for earlier in results[: results.index(reference)]:
                    print(f"--- phase {earlier.number} against the one replica of phase {reference.number}")
                    compare_cpu(earlier, reference)
        finally:
            engine.dispose()
            if args.logs is not None:
                args.logs.mkdir(parents=True, exist_ok=True)
                shutil.copy(tmp / "emulator.log", args.logs)
    return 0


def replica_counts(text: str) -> list[int]:
    """``--replicas``: a comma list of replica counts, one phase each."""
    try:
        counts = [int(part) for part in text.split(",")]
    except ValueError:
        raise argparse.ArgumentTypeError(f"not a comma list of counts: {text!r}") from None
    if not counts or min(counts) < 1:
        raise argparse.ArgumentTypeError(f"each phase needs at least one replica: {text!r}")
    return counts


def main() -> int:
    parser = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    parser.add_argument("--properties", type=int, default=1, help="properties (emulator domains) to serve")
    parser.add_argument(
        "--time-scale", type=float, default=1.0, help="the replicas' time_scale (1: real time)"
    )
    parser.add_argument(
        "--window", type=float, default=180.0, help="real seconds measured in each phase, after the warm-up"
    )
    parser.add_argument(
        "--settle", type=float, default=240.0, help="real seconds to watch for changes after the window"
    )
    parser.add_argument(
        "--changes", type=int, default=2, help="front-desk bookings per property in each window"
    )
    parser.add_argument(
        "--replicas",
        type=replica_counts,
        default=[1],
        help="comma list of replica counts, one phase each, in order, after one warm-up (e.g. 1,3)",
    )
    parser.add_argument(
        "--horizon-days",
        type=int,
        default=365,
        help="the replicas' horizon_days (a cold price cache costs one PMS read per night of it)",
    )
    parser.add_argument("--database", choices=("postgres", "sqlite"), default="postgres")
    parser.add_argument("--warm-up-limit", type=float, default=900.0, help="longest wait for the first syncs")
    parser.add_argument(
        "--ownership-limit",
        type=float,
        default=600.0,
        help="longest wait, each phase, for every property to be owned and the owners to settle",
    )
    parser.add_argument("--seed", type=int, default=7)
    parser.add_argument(
        "--logs", type=Path, help="copy each replica's log and the emulator's into this directory"
    )
    parser.add_argument(
        "--profile",
        type=Path,
        help="py-spy the first phase's replica (one replica) through the window into this raw file "
        "and print where its CPU went",
    )
    args = parser.parse_args()
    if args.database == "sqlite" and max(args.replicas) > 1:
        parser.error("SQLite serves one replica: several replicas need --database postgres")
    # a SIGTERM (timeout, Ctrl-C's cousin) still stops the replicas and the emulator and drops the database
    signal.signal(signal.SIGTERM, lambda *_: sys.exit(143))
    with tempfile.TemporaryDirectory() as tmp:
        return measure(args, Path(tmp))


if __name__ == "__main__":
    sys.exit(main())
