"""Benchmark: whole syncs of the demo hotel and of a generated 1,000-listing property.

Run: ``.venv/bin/python benches/bench_sync.py [--listings 1000] [--horizon 365] [--skip-demo]``

The emulator runs in its own process (``python -m roomsync.emulator``), so the memory figures are
roomsync's alone; roomsync talks to it over loopback HTTP with the real client and a fresh SQLite
store. For each property three syncs are measured:

* full: the first sync (cold PMS price cache, every listing's channel calendar read once);
* incremental: after front-desk changes (bookings on random room types, a price change);
* quiet: nothing changed.

Reported per sync: requests by kind, against the floor (the reads the engine needs plus one PUT
per listing whose channel calendar actually changed, and one POST Prices when a connected price
changed; "changed" is judged from the emulator's own read-back of the calendars before and after,
not from the engine); inventory operations against the maximal-run count (the number of maximal
runs of consecutive days that need the same change, the fewest non-overlapping operations that can
do the work); wall time; and the process's peak RSS. The exit status is 1 when a sync sends more
writes than the floor or a quiet sync reads more than the free rooms and the closure check (one
window, plus two for each room-type closed run of the pushed types in the horizon).
"""

from __future__ import annotations

import argparse
import asyncio
import json
import random
import resource
import socket
import subprocess
import sys
import tempfile
import time
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from datetime import UTC, date, datetime, timedelta
from pathlib import Path
from typing import Any

import httpx

from roomsync.adapters.store import open_store
from roomsync.app.sync import SyncReport
from roomsync.app.sync.mapping_io import parse_mapping_toml
from roomsync.app.sync.runs.full_sync import sync_property
from roomsync.app.sync.session import open_session
from roomsync.property_context import PropertyContext
from roomsync.settings import Settings

FIELDS = (
    "availability",
    "availableCount",
    "dailyPrice",
    "minNights",
    "maxNights",
    "closedToArrival",
    "closedToDeparture",
)
WRITES = ("update_inventory", "push_prices")


@contextmanager
def emulator_process(scenario: str, listings: int) -> Iterator[str]:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        port = probe.getsockname()[1]
    process = subprocess.Popen(
        [sys.executable, "-m", "roomsync.emulator", "--scenario", scenario, "--port", str(port)],
        stdout=subprocess.DEVNULL,
        stderr=subprocess.DEVNULL,
    )
    url = f"http://127.0.0.1:{port}"
    try:
        deadline = time.monotonic() + 120
        while True:
            try:
                httpx.get(f"{url}/_emulator/", timeout=2).raise_for_status()
                break
            except httpx.HTTPError:
                if time.monotonic() > deadline or process.poll() is not None:
                    raise RuntimeError("the emulator did not start") from None
                time.sleep(0.2)
        control = httpx.Client(base_url=f"{url}/_emulator", timeout=120)
        if scenario == "generated":
            control.post(
                "/reset", json={"scenario": "generated", "listings": listings, "units": 1}
            ).raise_for_status()
        control.post("/quota", json={"dailyQuota": 1_000_000, "usedCalls": 0}).raise_for_status()
        yield url
    finally:
        process.terminate()
        process.wait(10)


def mapping_toml(hints: list[dict[str, Any]], connected: int) -> str:
    lines = ['currency = "EUR"']
    for hint in hints:
        kind = "room_type" if hint["inventory"] == "room-type" else "single"
        lines += [
            "[[listing]]",
            f"room_type_id = {hint['pmsRoomTypeId']}",
            f'account_id = "{hint["accountId"]}"',
            f'listing_id = "{hint["listingId"]}"',
            f'kind = "{kind}"',
            'currency = "EUR"',
        ]
    for room_type_id in sorted({hint["pmsRoomTypeId"] for hint in hints})[:connected]:
        lines += ["[[connected]]", f"room_type_id = {room_type_id}"]
    return "\n".join(lines) + "\n"


def calendars(
    control: httpx.Client, hints: list[dict[str, Any]], first: date, last: date
) -> dict[str, list[tuple[Any, ...]]]:
    """Each listing's days as compact tuples of FIELDS (the bench's own memory stays small)."""
    found = {}
    for hint in hints:
        answer = control.get(
            f"/channel/calendar/{hint['listingId']}", params={"from": str(first), "to": str(last)}
        )
        found[hint["listingId"]] = [tuple(day[name] for name in FIELDS) for day in answer.json()["days"]]
    return found


def changes(
    before: dict[str, list[tuple[Any, ...]]], after: dict[str, list[tuple[Any, ...]]]
) -> tuple[int, int]:
    """(listings whose calendar changed, maximal runs of consecutive days with the same change)."""
    listings = runs = 0
    for listing_id, old_days in before.items():
        previous: tuple[Any, ...] | None = None
        changed = False
        for old, new in zip(old_days, after[listing_id], strict=True):
            key = tuple((name, n) for name, o, n in zip(FIELDS, old, new, strict=True) if o != n)
            if key and key != previous:
                runs += 1
            changed = changed or bool(key)
            previous = key or None
        listings += changed
    return listings, runs


def connected_changed(control: httpx.Client, before: Any, first: date, last: date) -> tuple[bool, Any]:
    control.post("/channel-manager/process")
    now = control.get("/channel-manager/prices", params={"from": str(first), "to": str(last)}).json()[
        "channels"
    ]
    return now != before, now


def peak_rss_mb() -> float:
    return resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024


@dataclass
class Line:
    property: str
    sync: str
    report: SyncReport
    seconds: float
    floor_writes: int
    changed_listings: int
    max_runs: int
    rss: float

    def row(self) -> dict[str, Any]:
        by_op = dict(self.report.requests_by_operation)
        writes = sum(by_op.get(op, 0) for op in WRITES)
        return {
            "property": self.property,
            "sync": self.sync,
            "requests": self.report.requests,
            "reads": self.report.requests - writes,
            "writes": writes,
            "floor writes": self.floor_writes,
            "changed listings": self.changed_listings,
            "operations": self.report.operations,
            "maximal runs": self.max_runs,
            "price elements": self.report.price_elements_sent,
            "seconds": round(self.seconds, 2),
            "peak RSS MB": round(self.rss, 1),
            "by operation": by_op,
        }


async def bench_property(
    name: str, scenario: str, listings: int, horizon: int, connected: int, seed: int
) -> list[Line]:
    lines: list[Line] = []
    with emulator_process(scenario, listings) as url, tempfile.TemporaryDirectory() as tmp:
        control = httpx.Client(base_url=f"{url}/_emulator", timeout=120)
        hints = control.get("/scenario").json()["listings"]
        settings = Settings(
            base_url=url,
            username="demo",
            password="demo",
            domain="demo-hotel",
            data_dir=Path(tmp),
            horizon_days=horizon,
            daily_quota=1_000_000,
        )
        today = datetime.now(UTC).date()
        first, last = today, today + timedelta(days=horizon - 1)
        managed = [h for h in hints if h["connected"] in ("Full", "Limited")]
        open_store(settings, upgrade=True).close()
        async with open_session(PropertyContext.of(settings)) as session:
            session.store.mappings.replace_mapping(
                settings.effective_property_id, parse_mapping_toml(mapping_toml(hints, connected), "bench")
            )
            prices_before: Any = None
            rng = random.Random(seed)
            for label in ("full", "incremental", "quiet"):
                if label == "incremental":
                    front_desk(control, rng, hints, today)
                before = calendars(control, managed, first, last)
                _, prices_before = connected_changed(control, prices_before, first, last)
                started = time.perf_counter()
                report = await sync_property(session.sync)
                seconds = time.perf_counter() - started
                rss = peak_rss_mb()  # before the bench reads the calendars back
                after = calendars(control, managed, first, last)
                changed_prices, prices_before = connected_changed(control, prices_before, first, last)
                changed, runs = changes(before, after)
                lines.append(
                    Line(
                        name,
                        label,
                        report,
                        seconds,
                        changed + int(changed_prices),
                        changed,
                        runs,
                        rss,
                    )
                )
                print(json.dumps(lines[-1].row()), flush=True)
    return lines


def front_desk(control: httpx.Client, rng: random.Random, hints: list[dict[str, Any]], today: date) -> None:
    """Bookings on 2 % of the room types (at least 2) and a price change of 3 nights on 1 %."""
    types = sorted({h["pmsRoomTypeId"] for h in hints})
    for room_type_id in rng.sample(types, max(2, len(types) // 50)):
        start = today + timedelta(days=rng.randrange(1, 60))
        control.post(
            "/pms/book",
            json={
                "dateFrom": str(start),
                "dateTo": str(start + timedelta(days=rng.randint(1, 4))),
                "lastName": "Bench",
                "roomTypeId": room_type_id,
            },
        )  # a type that is full those nights refuses the booking: fine, fewer changes
    for room_type_id in rng.sample(types, max(1, len(types) // 100)):
        start = today + timedelta(days=rng.randrange(1, 200))
        control.post(
            "/pms/price",
            json={
                "roomTypeId": room_type_id,
                "dateFrom": str(start),
                "dateTo": str(start + timedelta(days=2)),
                "price": "321",
            },
        ).raise_for_status()


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--listings", type=int, default=1000)
    parser.add_argument("--horizon", type=int, default=365)
    parser.add_argument("--connected", type=int, default=100, help="room types pushed to connected channels")
    parser.add_argument("--seed", type=int, default=11)
    parser.add_argument("--skip-demo", action="store_true")
    args = parser.parse_args()
    lines: list[Line] = []
    if not args.skip_demo:
        lines += asyncio.run(bench_property("demo hotel", "demo", 6, args.horizon, 4, args.seed))
    lines += asyncio.run(
        bench_property(
            f"{args.listings} listings", "generated", args.listings, args.horizon, args.connected, args.seed
        )
    )
    failed = False
    print()
    header = (
        "property",
        "sync",
        "requests",
        "reads",
        "writes",
        "floor writes",
        "operations",
        "maximal runs",
        "seconds",
        "peak RSS MB",
    )
    print(" | ".join(header))
    for line in lines:
        row = line.row()
        print(" | ".join(str(row[name]) for name in header))
        if row["writes"] > row["floor writes"]:
            failed = True
            print(f"  more writes than the floor: {row['by operation']}")
        if line.sync == "quiet":
            check = line.report.pms.closure_reads
            print(f"  quiet: {row['requests']} requests = the free rooms + {check} closure check window(s)")
            if row["requests"] > 1 + check or line.report.pms.closures_located:
                failed = True
                print(f"  a quiet sync read more than that: {row['by operation']}")
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
