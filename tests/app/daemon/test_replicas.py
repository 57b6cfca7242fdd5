"""Three ``roomsync serve`` replicas on one Postgres serving twenty properties of one emulator, for
a compressed day, against the same day served by one replica.

The emulator serves twenty domains behind one address (``roomsync.emulator.domains``), each with
its own quota, listings and webhooks; the properties are rows of the database, their passwords
given by reference to environment variables. The emulators' one clock runs in step with the
replicas' ``time_scale`` (one emulated day in ``DAY_SECONDS`` real seconds, as in
``test_daemon_day``), so the replicas' full syncs, polls and detections run as on a real day,
and at fixed emulated hours the front desk and guests change every property. The test watches
from outside: the emulator's request log of each domain (every request names the replica and
part that sent it), the PMS and channel of each domain, the replicas' ``/healthz`` and admin API,
and the database's run rows.

- every property is owned by one replica, shared fairly (no replica above ``ceil(20 / 3)``);
- every property converges: after the compressed day, and again after the kill and the rolling
  restart, each channel calendar holds what its PMS implies (``test_daemon_day``'s comparison);
- no property is ever synced by two replicas at once: its run rows in ``sync_run`` never overlap
  in time (one replica runs one property's runs one at a time, so an overlap can only be two
  replicas), and in each domain's request log the bursts of one replica's engine requests never
  overlap another replica's;
- requests within 5 % of the one-replica run, in all and per property (per property plus the one
  poll or detection that the end of its window may cut off in one day and not in the other;
  such a run costs about 6 % of a property's window here): the same day (same seeds, same changes
  at the same emulated hours of each property's stretch) is served first by one replica;
  compared, per property, are the requests its domain received in its stretch of
  ``COMPARED_HOURS`` emulated hours, which starts at the same offset from the end of its own first
  full sync in both runs, once every property is synced (the changes happen in it), and the
  requests of the first full syncs (their
  run rows, with any cut short before one ended well); a takeover after the kill is not compared;
- every guest booking delivered by webhook, to whichever replica the domain points at, reaches
  its property's PMS exactly once, through a SIGKILL and a rolling restart;
- a SIGKILLed replica's properties are synced by the others within 60 s.
"""

from __future__ import annotations

import contextlib
import math
import os
import random
import re
import signal
import threading
import time
from collections import Counter
from collections.abc import Callable, Collection, Iterator
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass, field
from datetime import UTC, datetime, timedelta
from datetime import time as day_time
from pathlib import Path
from typing import Any

import httpx
import psycopg
import pytest
from daemon_harness import (
    ADMIN_TOKEN,
    DaemonProcess,
    Emulator,
    await_daemon,
    domain_emulators,
    free_port,
    spawn_daemon,
    wait_until,
)
from test_daemon_day import Day, channel_differences, inactive_listings

from roomsync.adapters.store import open_store
from roomsync.app.sync.mapping_io import parse_mapping_toml
from roomsync.app.sync.report import HEALTHY_RESULTS
from roomsync.core.property import PropertyRecord
from roomsync.emulator.clock import EmulatorClock
from roomsync.emulator.domains import DomainsApp, build_domains, domain_credentials, domain_name
from roomsync.emulator.scenario import DEMO_MAPPING_TOML
from roomsync.emulator.server import serve_in_thread
from support.postgres import scratch_postgres_database

pytestmark = [pytest.mark.slow, pytest.mark.postgres]

DOMAINS = 20
REPLICAS = ("r1", "r2", "r3")
TIME_SCALE = 0.005
DAY_SECONDS = 86_400 * TIME_SCALE
"""Real seconds one emulated day takes (432)."""
LAST_HOUR = 23.5
"""The clock stops here: the quota day must not end inside the test."""
COMPARED_HOURS = 5.0
"""Emulated hours of each property's day whose requests are compared (90 real s): its changes,
polls and detections. Each property's stretch starts ``offset`` emulated hours after the end of
its own first full sync, the same offset in both runs (a daemon's requests depend on how long ago
its first full sync was: 54 in the 5 hours from 4.4 hours after it, against 70 to 75 in the 5
hours right after it, measured). The offset is the one-replica run's spread of first-sync ends
plus ``OFFSET_MARGIN``: one replica starting twenty cold properties is loaded until the last of
them is synced (2.6 to 3.3 emulated hours after the first, on loaded machines), and its polls of
the properties already synced run late meanwhile (5 % fewer requests than three replicas' in
stretches that began at each property's first sync); after it, both runs are in their steady
state. The full syncs come every 12 emulated hours here (``price_check_interval_seconds``), so
none falls inside a stretch."""
OFFSET_MARGIN = 0.25
FIRST_SYNCS_LIMIT = 90.0
"""Real seconds for every property's first full sync to end well."""
WITHIN = 0.05
TAKEOVER_LIMIT = 60.0
BURST_GAP = timedelta(seconds=60)
"""Emulated seconds (0.3 real s) between two engine requests of one replica that still belong to
one burst of its runs (a run's requests follow each other within milliseconds; polls are minutes
apart)."""


def rng_listing(rng: random.Random) -> str:
    return rng.choice(["41000003", "41000004"])


CHANGES: list[tuple[float, Callable[[Day, random.Random], None]]] = [
    (0.1, lambda d, rng: d.guest_books(rng_listing(rng))),
    (0.3, lambda d, rng: d.book_front_desk(1, 5 + rng.randrange(10), 2)),
    (1.1, lambda d, rng: d.change_price(1, 20, 22, "150.00")),
    (1.5, lambda d, rng: d.book_front_desk(2, 8 + rng.randrange(5), 3)),
    (1.9, lambda d, rng: d.close(2, 50, 51)),
    (2.1, lambda d, rng: d.cancel_front_desk()),
]
"""(emulated hours after the start of a property's compared stretch, what happens then at the
property): the same in both runs (one seeded draw per property)."""


class DrivenClock:
    """The emulators' one clock, advanced by a thread in step with the replicas' ``time_scale``
    (one emulated second per ``TIME_SCALE`` real seconds) from when it is entered, through the
    control surface (which wakes the webhook retries); it stops at ``LAST_HOUR``."""

    def __init__(self, control_url: str, state_clock: EmulatorClock) -> None:
        self._control = httpx.Client(base_url=control_url, timeout=30)
        self._clock = state_clock
        self.start = state_clock.now()
        self._stop = threading.Event()
        self._thread = threading.Thread(target=self._run, name="driven-clock", daemon=True)
        self._began = 0.0
        self._began_wall = datetime.now(UTC)

    def __enter__(self) -> DrivenClock:
        self._began = time.monotonic()
        self._began_wall = datetime.now(UTC)
        self._thread.start()
        return self

    def emulated(self, wall: datetime) -> datetime:
        """The emulated instant of a wall-clock one (the replicas record runs in wall time)."""
        seconds = (wall - self._began_wall).total_seconds() / TIME_SCALE
        return self.start + timedelta(seconds=min(seconds, LAST_HOUR * 3600))

    def __exit__(self, *exc: object) -> None:
        self._stop.set()
        self._thread.join(10)
        self._control.close()

    def _run(self) -> None:
        while not self._stop.is_set():
            target = min((time.monotonic() - self._began) / TIME_SCALE, LAST_HOUR * 3600)
            behind = target - (self._clock.now() - self.start).total_seconds()
            if behind > 0:
                self._control.post("/clock/advance", json={"seconds": behind})
            self._stop.wait(0.05)

    def hours(self) -> float:
        return (self._clock.now() - self.start).total_seconds() / 3600

    def wait_for_hour(self, hour: float) -> None:
        wait_until(
            lambda: self.hours() >= hour, (hour - self.hours()) * DAY_SECONDS / 24 + 30, f"hour {hour}"
        )


@dataclass
class Deployment:
    """Twenty domains, their properties in a scratch Postgres, replicas serving them."""

    tmp_path: Path
    emulators: dict[str, Emulator]
    database_url: str
    envs: dict[str, dict[str, str]]
    clock: DrivenClock
    days: dict[str, Day]
    replicas: dict[str, DaemonProcess] = field(default_factory=dict)
    old_logs: list[str] = field(default_factory=list)
    kills: dict[str, datetime] = field(default_factory=dict)
    """When each SIGKILLed replica was killed (the end of the runs it left open)."""

    @property
    def ids(self) -> list[str]:
        return sorted(self.emulators)

    def start_replica(self, name: str) -> None:
        self.spawn_replica(name)
        await_daemon(self.replicas[name])

    def spawn_replica(self, name: str) -> None:
        """Start replica ``name``'s process without waiting for it to answer (it boots, 5 to 15 s
        on a loaded machine, while the test does what it would do anyway meanwhile)."""
        log_path = self.tmp_path / f"{name}-{len(self.old_logs)}-{time.monotonic_ns()}.log"
        self.replicas[name] = spawn_daemon(self.envs[name], log_path)

    def point_webhooks(self, skip: str | None = None) -> None:
        """Each domain delivers to a replica (a load balancer's job in production)."""
        alive = [name for name in self.replicas if name != skip]
        for i, domain in enumerate(self.ids):
            target = self.replicas[alive[i % len(alive)]].url
            self.emulators[domain].post(
                "/webhooks/receiver", {"url": f"{target}/webhooks/RentalChannel/{domain}"}
            )
            self.emulators[domain].post("/webhooks/settings", {"retryScale": 0.0005})

    def owned(self, names: Collection[str] | None = None) -> dict[str, list[str]]:
        return owned({n: r for n, r in self.replicas.items() if names is None or n in names})

    def owned_once(self, names: Collection[str] | None = None) -> bool:
        return sorted(p for ps in self.owned(names).values() for p in ps) == self.ids

    def admin(self, path: str) -> Any:
        for replica in self.replicas.values():
            if replica.process.poll() is None:
                response = replica.admin("GET", path)
                assert response.status_code == 200, response.text
                return response.json()
        raise AssertionError("no replica is running")


def replica_env(emulator_url: str, database_url: str, data_dir: Path, name: str, port: int) -> dict[str, str]:
    env = {k: v for k, v in os.environ.items() if not k.startswith("ROOMSYNC_")}
    env.update(
        ROOMSYNC_BASE_URL=emulator_url,
        ROOMSYNC_DATABASE_URL=database_url,
        ROOMSYNC_DATA_DIR=str(data_dir),
        ROOMSYNC_SERVE_PORT=str(port),
        ROOMSYNC_REPLICA_ID=name,
        ROOMSYNC_ADMIN_TOKEN=ADMIN_TOKEN,
        ROOMSYNC_TIME_SCALE=str(TIME_SCALE),
        ROOMSYNC_SCHEDULE_JITTER_SECONDS="0",
        ROOMSYNC_OWNERSHIP_CHECK_SECONDS="1",
        ROOMSYNC_READ_TIMEOUT="2.0",
        # an availability poll every 40 emulated minutes at most (12 real s), a detection every 80:
        # at the budget's own pace (every minute, 0.3 real s) twenty properties are more runs than
        # one replica gets through on two cores shared with the emulator and Postgres, and the
        # one-replica reference would lag its own plan (measured: at every 10 minutes it made
        # 19.4 polls a property in 4 hours where three replicas made the planned 24; at every 20,
        # 12 in 5 hours of its steady state where three made 16, on 2026-11-26's code)
        # a run's heartbeat (and the sweep for silent runs) every 300 emulated seconds (1.5 real
        # s): at the default 30 (0.15 real s) twenty properties' sweeps alone were 13 % of the one
        # replica's profile, housekeeping a real day does 200 times less often
        # 90 nights (the test checks 60): the first full sync reads every price, so after it each
        # property is in its steady state, whichever replica synced it when (with 365 nights the
        # daemon fills a cold price cache over many runs, and the windows compared would catch
        # the properties at different points of that filling)
        ROOMSYNC_HORIZON_DAYS="90",
        ROOMSYNC_POLL_MIN_SECONDS="2400",
        ROOMSYNC_AVAILABILITY_MAX_GAP_SECONDS="2400",
        ROOMSYNC_DETECT_MIN_SECONDS="4800",
        ROOMSYNC_DETECT_MAX_GAP_SECONDS="4800",
        ROOMSYNC_RUN_HEARTBEAT_SECONDS="300",
        ROOMSYNC_PRICE_CHECK_INTERVAL_SECONDS="43200",  # no full sync inside the compared stretch
        # the emulator signs with its own clock: deliveries are accepted unsigned, said here
        ROOMSYNC_WEBHOOK_REQUIRE_SIGNATURE="false",
    )
    # each property's password, by the reference stored in its row
    env.update({f"HOTEL_PW_{i:02d}": domain_credentials(i).password for i in range(1, DOMAINS + 1)})
    return env


@contextlib.contextmanager
def deployment(tmp_path: Path, names: tuple[str, ...]) -> Iterator[Deployment]:
    """The twenty domains from 00:00:30 of today, their properties in a new database, and the
    replicas ``names`` started together (as a deployment does) as the clock starts running."""
    start = datetime.combine(datetime.now(UTC).date(), day_time(0, 0, 30), tzinfo=UTC)
    states = build_domains(DOMAINS, clock=EmulatorClock(start, frozen=True))
    with (
        serve_in_thread(DomainsApp(states)) as url,
        scratch_postgres_database("roomsync_replicas") as database_url,
        contextlib.ExitStack() as cleanup,
    ):
        emulators = domain_emulators(states, url, cleanup)
        store = open_store(database_url, upgrade=True)
        mapping = parse_mapping_toml(DEMO_MAPPING_TOML, "demo mapping")
        for i in range(1, DOMAINS + 1):
            credentials = domain_credentials(i)
            record = PropertyRecord(
                domain_name(i),
                {"username": credentials.username, "domain": credentials.domain},
                {"password": f"env:HOTEL_PW_{i:02d}"},
            )
            store.properties.add_property(record)
            store.mappings.replace_mapping(record.property_id, mapping)
        store.close()
        envs = {name: replica_env(url, database_url, tmp_path / name, name, free_port()) for name in names}
        first = next(iter(emulators.values()))
        clock = cleanup.enter_context(
            DrivenClock(f"{url}/_domains/{domain_name(1)}/_emulator", first.state.clock)
        )
        days = {domain: Day(emulator, start.date(), [], [], {}) for domain, emulator in emulators.items()}
        running = Deployment(tmp_path, emulators, database_url, envs, clock, days)
        try:
            with ThreadPoolExecutor(len(names)) as pool:  # started together, as a deployment does
                list(pool.map(running.start_replica, names))
            running.point_webhooks()
            yield running
        finally:
            for replica in running.replicas.values():
                replica.kill()


# --- what the test looks at --------------------------------------------------------------------


def owned(replicas: dict[str, DaemonProcess]) -> dict[str, list[str]]:
    answer: dict[str, list[str]] = {}
    for name, replica in replicas.items():
        try:
            response = httpx.get(f"{replica.url}/healthz", timeout=5)
        except httpx.HTTPError:
            continue
        if response.status_code == 200:
            answer[name] = list(response.json()["properties"])
    return answer


def request_log(emulator: Emulator) -> list[dict[str, Any]]:
    log = emulator.get("/requests", limit=2000)
    assert log["total"] <= 2000, "the request log no longer holds the domain's first requests"
    entries: list[dict[str, Any]] = log["recent"]
    return entries


def sender(entry: dict[str, Any]) -> tuple[str, str] | None:
    """(replica, part) that sent a logged request: roomsync's User-Agent ends ``(r1; sync)``."""
    found = re.search(r"\((\w+); (\w+)\)", entry.get("agent", ""))
    return (found.group(1), found.group(2)) if found else None


def requests_in_window(emulator: Emulator, first: datetime) -> tuple[int, Counter[str]]:
    """The requests the domain received in the ``COMPARED_HOURS`` emulated hours from ``first``,
    and how many each part sent of each operation."""
    end = first + timedelta(hours=COMPARED_HOURS)
    entries = request_log(emulator)
    within = [e for e in entries if first <= datetime.fromisoformat(e["at"]) < end]
    parts = Counter(f"{(sender(e) or ('?', 'other'))[1]} {e['operation'] or e['path']}" for e in within)
    return len(within), parts


def run_rows(database_url: str, query: str, params: tuple[Any, ...] = ()) -> list[tuple[Any, ...]]:
    """Rows of ``query`` (over ``sync_run``) in the deployment's database."""
    with psycopg.connect(database_url.replace("postgresql+psycopg://", "postgresql://")) as db:
        return db.execute(query, params).fetchall()


def first_full_syncs(database_url: str) -> dict[str, tuple[int, datetime | None]]:
    """Each property's first full sync that ended well: the requests spent by its full syncs up to
    it (a run cut short before it counts) and when it ended (wall clock; None until it has)."""
    rows = run_rows(
        database_url,
        "SELECT property_id, requests_spent, finished_at, result FROM sync_run "
        "WHERE kind = 'sync' ORDER BY property_id, started_at",
    )
    first: dict[str, tuple[int, datetime | None]] = {}
    for property_id, spent, finished, result in rows:
        so_far, ended = first.get(property_id, (0, None))
        if ended is None:
            first[property_id] = (so_far + int(spent or 0), finished if result in HEALTHY_RESULTS else None)
    return first


def engine_bursts(emulator: Emulator) -> list[tuple[str, datetime, datetime]]:
    """(replica, first, last request) of each burst of a replica's engine requests: its requests
    no more than ``BURST_GAP`` apart, whatever other replicas' requests come between them."""
    bursts: dict[str, list[list[datetime]]] = {}
    for entry in request_log(emulator):
        who = sender(entry)
        if who is None or who[1] != "sync":
            continue
        at = datetime.fromisoformat(entry["at"])
        spans = bursts.setdefault(who[0], [])
        if spans and at - spans[-1][1] <= BURST_GAP:
            spans[-1][1] = at
        else:
            spans.append([at, at])
    return sorted((name, a, b) for name, spans in bursts.items() for a, b in spans)


def overlapping_bursts(emulator: Emulator) -> list[tuple[Any, Any]]:
    found = []
    bursts = sorted(engine_bursts(emulator), key=lambda burst: burst[1])
    for i, (name, _, last) in enumerate(bursts):
        for other, first, _ in bursts[i + 1 :]:
            if first >= last:
                break
            if other != name:
                found.append(((name, last), (other, first)))
    return found


def overlapping_runs(database_url: str, kills: dict[str, datetime]) -> list[str]:
    """Run rows of one property that overlap in time. A run still open counts as running until
    now; a run the kill left open (closed as abandoned later, by another replica) ended when its
    process was killed."""
    rows = run_rows(
        database_url,
        "SELECT property_id, id, kind, started_at, finished_at, result FROM sync_run "
        "ORDER BY property_id, started_at, id",
    )
    never = datetime.max.replace(tzinfo=UTC)
    found: list[str] = []
    latest: dict[str, tuple[datetime, str]] = {}
    for property_id, run_id, kind, started, finished, result in rows:
        end = finished or never
        if result == "abandoned":
            killed = [at for at in kills.values() if at >= started]
            end = min(killed) if killed else end
        previous = latest.get(property_id)
        if previous is not None and started < previous[0]:
            found.append(f"{property_id}: {kind} run {run_id} started {started} before {previous[1]} ended")
        if previous is None or end > previous[0]:
            latest[property_id] = (end, f"{kind} run {run_id} ({result}, {started} .. {finished})")
    return found


def synced_since(
    database_url: str,
    property_ids: list[str],
    since: datetime,
    kinds: tuple[str, ...] = ("sync",),
    *,
    finished: bool = False,
) -> set[str]:
    """The properties of ``property_ids`` with a run of ``kinds`` started after ``since`` (and
    ended, with ``finished``)."""
    ended = " AND finished_at IS NOT NULL" if finished else ""
    rows = run_rows(
        database_url,
        "SELECT DISTINCT property_id FROM sync_run WHERE kind = ANY(%s) AND started_at > %s "
        "AND property_id = ANY(%s)" + ended,
        (list(kinds), since, property_ids),
    )
    return {row[0] for row in rows}


def guest_booking_counts(running: Deployment) -> dict[str, int]:
    counts: dict[str, int] = {}
    for domain, day in running.days.items():
        placed = Counter(
            r.booking_agency_reference_code for r in running.emulators[domain].state.pms.reservations.values()
        )
        for code in day.guest_codes:
            counts[code] = placed[code]
    return counts


def all_placed(running: Deployment) -> bool:
    return all(count >= 1 for count in guest_booking_counts(running).values())


def converge(running: Deployment, timeout: float, when: str) -> None:
    """Wait until every property's channel holds what its PMS implies; fail naming those that do not."""
    inactive = {p: inactive_listings(running.admin(f"/properties/{p}/status")) for p in running.ids}
    deadline = time.monotonic() + timeout
    while True:
        differing = {p: d for p in running.ids if (d := channel_differences(running.days[p], inactive[p]))}
        if not differing:
            return
        if time.monotonic() > deadline:
            shown = {
                p: {listing: dict(list(nights.items())[:3]) for listing, nights in d.items()}
                for p, d in differing.items()
            }
            raise AssertionError(f"{when}: {len(differing)} properties differ from their PMS: {shown}")
        time.sleep(1)


@dataclass(frozen=True)
class DayCounts:
    offset: float
    """Emulated hours from each property's first full sync to its compared stretch."""
    window: dict[str, tuple[int, Counter[str]]]
    """Per property: requests in its compared window, and per part and operation."""
    first_syncs: dict[str, int]
    """Per property: requests of its first full sync."""
    run_at_edge: int
    """The most one scheduled run (a poll or a detection, the median of each) costs: a window of
    a property's window can begin (and end) just before one run of the one day and just after it
    in the other."""


def compressed_day(running: Deployment, offset: float | None = None) -> DayCounts:
    """The compared phase: every property owned and its first full sync ended well; then, for each
    property, its stretch of ``COMPARED_HOURS`` from ``offset`` emulated hours after the end of its
    own first full sync (by default the spread of the first syncs' ends plus ``OFFSET_MARGIN``),
    the day's changes at their hours into it, and the requests in it. (The first full syncs are
    compared on their own, by their run rows.)"""
    wait_until(running.owned_once, 60, "the replicas to own every property once")

    def first_syncs_ended() -> bool:
        ended = first_full_syncs(running.database_url)
        return all(ended.get(domain, (0, None))[1] is not None for domain in running.ids)

    wait_until(first_syncs_ended, FIRST_SYNCS_LIMIT, "every property's first full sync to end well")
    first = first_full_syncs(running.database_url)
    ends = {
        domain: running.clock.emulated(ended) for domain, (_, ended) in first.items() if ended is not None
    }
    earliest, latest = (
        (at - running.clock.start).total_seconds() / 3600 for at in (min(ends.values()), max(ends.values()))
    )
    spread = latest - earliest
    if offset is None:
        offset = spread + OFFSET_MARGIN
    assert spread <= offset, (
        f"first full syncs {spread:.2f} emulated hours apart, the reference's offset {offset:.2f}"
    )
    print(
        f"first full syncs ended at emulated hours {earliest:.2f}..{latest:.2f}; "
        f"stretches from {offset:.2f} h later"
    )
    starts = {domain: at + timedelta(hours=offset) for domain, at in ends.items()}
    assert latest + offset + COMPARED_HOURS + 0.1 < LAST_HOUR, "the stretches end after the clock stops"
    rng = random.Random(5)
    draws = {domain: random.Random(rng.random()) for domain in running.ids}
    pending = {domain: list(CHANGES) for domain in running.ids}
    while any(pending.values()):
        now = running.clock.start + timedelta(hours=running.clock.hours())
        for domain, start in starts.items():
            while pending[domain] and start + timedelta(hours=pending[domain][0][0]) <= now:
                _, change = pending[domain].pop(0)
                change(running.days[domain], draws[domain])
        time.sleep(0.05)
    wait_until(lambda: all_placed(running), 60, "every guest booking in its PMS")
    running.clock.wait_for_hour(latest + offset + COMPARED_HOURS + 0.1)
    window = {domain: requests_in_window(running.emulators[domain], starts[domain]) for domain in running.ids}
    return DayCounts(
        offset,
        window,
        {domain: spent for domain, (spent, _) in first.items()},
        run_at_edge(running.database_url),
    )


def run_at_edge(database_url: str) -> int:
    rows = run_rows(
        database_url,
        "SELECT percentile_disc(0.5) WITHIN GROUP (ORDER BY requests_spent) FROM sync_run "
        "WHERE kind IN ('poll', 'detect') GROUP BY kind",
    )
    return max((int(row[0]) for row in rows), default=0)


@pytest.fixture(scope="module")
def one_replica_day(tmp_path_factory: pytest.TempPathFactory) -> DayCounts:
    """The reference: the same compressed day (same seeds, same changes at the same hours) served
    by one replica, up to the end of the compared window; it must converge too."""
    began = time.monotonic()
    with deployment(tmp_path_factory.mktemp("one-replica"), ("r1",)) as running:
        counts = compressed_day(running)
        converge(running, 60, "one replica, after the compressed day")
        assert overlapping_runs(running.database_url, {}) == []
    print(f"one-replica reference day: {time.monotonic() - began:.0f} s")
    return counts


def test_three_replicas_share_twenty_properties_through_a_kill_and_a_rolling_restart(
    tmp_path: Path, one_replica_day: DayCounts
) -> None:
    began = time.monotonic()
    with deployment(tmp_path, REPLICAS) as running:
        fair = math.ceil(DOMAINS / len(REPLICAS))

        def shared_fairly() -> bool:
            shares = {name: len(ps) for name, ps in running.owned().items()}
            return running.owned_once() and len(shares) == len(REPLICAS) and max(shares.values()) <= fair

        wait_until(running.owned_once, 60, "the replicas to own every property once")
        wait_until(shared_fairly, 60, f"no replica above {fair} properties")

        # --- the compressed day, compared with the same day on one replica -----------------------
        three = compressed_day(running, one_replica_day.offset)
        converge(running, 60, "after the compressed day")
        day_hours = running.clock.hours()

        # --- one replica is killed: the others take its properties ---------------------------
        victim = "r3"
        lost = running.owned()[victim]
        assert lost
        killed_at = datetime.now(UTC)
        started = time.monotonic()
        running.replicas[victim].process.send_signal(signal.SIGKILL)
        running.replicas[victim].process.wait(10)
        running.kills[victim] = killed_at
        running.old_logs.append(running.replicas[victim].log())
        survivors = [name for name in REPLICAS if name != victim]
        running.point_webhooks(skip=victim)
        wait_until(
            lambda: running.owned_once(survivors), TAKEOVER_LIMIT, "the survivors to own every property"
        )
        wait_until(
            # the new owner goes on with the schedule the store shows (app/daemon/resume.py): its
            # first run is a poll or a detection, or the full sync if one is due
            lambda: (
                synced_since(running.database_url, lost, killed_at, ("sync", "poll", "detect")) == set(lost)
            ),
            TAKEOVER_LIMIT - (time.monotonic() - started),
            "the killed replica's properties synced",
        )
        takeover_seconds = time.monotonic() - started
        # the killed replica is started again (its webhooks still go to the survivors) and boots
        # while the guests of its properties book
        running.spawn_replica(victim)
        for domain in lost:
            running.days[domain].guest_books("41000003")
        wait_until(lambda: all_placed(running), 60, "the guest bookings after the kill in their PMS")
        await_daemon(running.replicas[victim])

        # --- a rolling restart of all three ------------------------------------------------
        running.point_webhooks()
        for name in REPLICAS:
            running.point_webhooks(skip=name)  # drained first, as a load balancer does
            assert running.replicas[name].stop() == 0, running.replicas[name].log()[-3000:]
            running.old_logs.append(running.replicas[name].log())
            running.spawn_replica(name)  # boots while the guests book (its webhooks go elsewhere)
            # the guests pick their stays by what the PMS shows: the rooms roomsync still holds
            # for the last round's guests (not yet in the PMS) would make it answer them "no"
            wait_until(lambda: all_placed(running), 60, "the last round's guest bookings in their PMS")
            for domain in running.ids[::4]:
                running.days[domain].guest_books("41000004")
            await_daemon(running.replicas[name])
        running.point_webhooks()
        wait_until(running.owned_once, 60, "every property owned after the rolling restart")
        for emulator in running.emulators.values():
            assert emulator.post("/webhooks/wait", {"state": "settled", "timeout": 60})["done"]
        wait_until(
            lambda: all_placed(running), 90, "every guest booking in its PMS after the rolling restart"
        )
        counts = guest_booking_counts(running)
        assert len(counts) == DOMAINS + len(lost) + len(running.ids[::4]) * len(REPLICAS)
        assert set(counts.values()) == {1}, {code: n for code, n in counts.items() if n != 1}
        converge(running, 60, "after the kill and the rolling restart")

        # --- no domain was ever synced by two replicas at once -----------------------------
        assert overlapping_runs(running.database_url, running.kills) == []
        overlaps = {
            domain: found for domain, e in running.emulators.items() if (found := overlapping_bursts(e))
        }
        assert overlaps == {}, overlaps
        end_hours = running.clock.hours()

    # --- requests per property, three replicas against one --------------------------------------
    one, three_counts = one_replica_day.window, three.window
    edge = max(one_replica_day.run_at_edge, three.run_at_edge)
    lines = []
    worst = 0.0
    beyond = []
    for domain in sorted(three_counts):
        (n3, _), (n1, _) = three_counts[domain], one[domain]
        worst = max(worst, abs(n3 - n1) / n1)
        if abs(n3 - n1) > WITHIN * n1 + 2 * edge:
            beyond.append(domain)
        s1, s3 = one_replica_day.first_syncs[domain], three.first_syncs[domain]
        lines.append(f"{domain}: {n1} -> {n3} ({(n3 - n1) / n1:+.1%}); first full sync {s1} -> {s3}")
    by_part1 = sum((parts for _, parts in one.values()), Counter[str]())
    by_part3 = sum((parts for _, parts in three_counts.values()), Counter[str]())
    differing = {
        part: (by_part1[part], by_part3[part])
        for part in sorted(by_part1 | by_part3)
        if by_part1[part] != by_part3[part]
    }
    total1 = sum(n for n, _ in one.values())
    total3 = sum(n for n, _ in three_counts.values())
    first1, first3 = sum(one_replica_day.first_syncs.values()), sum(three.first_syncs.values())
    print(
        f"\nrequests in each property's {COMPARED_HOURS:g} emulated hours from "
        f"{one_replica_day.offset:.2f} h after its first full sync, one replica -> three:\n"
        + "\n".join(lines)
        + f"\ntotal {total1} -> {total3} ({(total3 - total1) / total1:+.1%}); worst property {worst:.1%}"
        + f"\nby part and operation where they differ: {differing}"
        + f"\nfirst full syncs: {first1} -> {first3} requests"
    )
    print(f"takeover after SIGKILL: {takeover_seconds:.1f} s for {len(lost)} properties")
    print(
        f"three-replica run: {time.monotonic() - began:.0f} s; emulated hour {day_hours:.1f} after the "
        f"compressed day, {end_hours:.1f} at the end"
    )
    assert takeover_seconds <= TAKEOVER_LIMIT
    # the whole of the properties within 5 %; each property within 5 % plus the runs that the
    # start and the end of its window may each cut off in one day and not in the other (measured:
    # 0 to 5 requests of about 85, a detection's cost, on the first three properties one replica
    # synced; in CI on a loaded machine, 2026-11-27, 4 of 41 with the end alone allowed for)
    assert abs(total3 - total1) <= WITHIN * total1, f"requests {total1} -> {total3}"
    assert beyond == [], f"beyond 5 % + a run at each edge ({edge} each): {beyond}; worst {worst:.1%}"
    assert abs(first3 - first1) <= WITHIN * first1, f"first full syncs: {first1} -> {first3} requests"
