"""Benchmark: the emulator's large generated property and its Inventory read over loopback.

Run: ``.venv/bin/python benches/bench_emulator.py [--listings 1000] [--units 1] [--reads 200]``

1. Build time of the generated scenario: ``--listings`` listings (one PMS room type each, ``--units``
   rooms per type) with 731 calendar days each, the PMS included. Best of ``--repeat`` builds.
   Target: under 5 s.
2. Latency of ``POST .../Inventory`` reading one listing's whole window (today..today+730, 731
   days) over real HTTP on loopback, JSON and XML, ``--reads`` requests each after a warm-up;
   p50 and p95. Target: p50 under 50 ms (JSON).

The exit status is 1 when a target is missed.
"""

from __future__ import annotations

import argparse
import statistics
import sys
import time
from datetime import timedelta

import httpx

from roomsync.emulator.app import create_app
from roomsync.emulator.clock import EmulatorClock
from roomsync.emulator.scenario import Sizes, build_state
from roomsync.emulator.server import serve_in_thread

BUILD_TARGET_SECONDS = 5.0
READ_TARGET_MS = 50.0


def percentile(values: list[float], share: float) -> float:
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, round(share * (len(ordered) - 1)))]


def main() -> int:
    parser = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    parser.add_argument("--listings", type=int, default=1000)
    parser.add_argument("--units", type=int, default=1)
    parser.add_argument("--reads", type=int, default=200)
    parser.add_argument("--repeat", type=int, default=3)
    parser.add_argument("--seed", type=int, default=7)
    args = parser.parse_args()

    clock = EmulatorClock(frozen=True)
    sizes = Sizes(listings=args.listings, units=args.units)
    builds = []
    state = None
    for _ in range(args.repeat):
        started = time.perf_counter()
        state = build_state("generated", args.seed, clock=clock, sizes=sizes)
        builds.append(time.perf_counter() - started)
    assert state is not None
    build_seconds = min(builds)
    listing = next(iter(state.channel.listings.values()))
    state.quota.paid_quota = 10**9  # the benchmark measures latency, not the quota
    today = clock.today()
    body = {
        "accountId": listing.account_id,
        "listingId": listing.listing_id,
        "dateFrom": today.isoformat(),
        "dateTo": (today + timedelta(days=730)).isoformat(),
    }
    latencies: dict[str, list[float]] = {}
    with serve_in_thread(create_app(state)) as base_url, httpx.Client(base_url=base_url) as client:
        token = client.post(
            "/v1/Token",
            data={"grant_type": "password", "username": "demo", "password": "demo", "domain": "demo-hotel"},
        ).json()["access_token"]
        for fmt, accept in (("json", "application/json"), ("xml", "application/xml")):
            headers = {"Authorization": f"Bearer {token}", "Accept": accept}
            path = f"/v1/ChannelManager/{state.channel_name}/Inventory"
            for _ in range(10):  # warm-up: connection, caches
                client.post(path, json=body, headers=headers)
            samples = []
            for _ in range(args.reads):
                started = time.perf_counter()
                response = client.post(path, json=body, headers=headers)
                samples.append((time.perf_counter() - started) * 1000)
                if response.status_code != 200:
                    print(f"read failed: {response.status_code} {response.text[:200]}", file=sys.stderr)
                    return 1
            latencies[fmt] = samples
        days = len(client.post(path, json=body, headers={"Authorization": f"Bearer {token}"}).json())

    rows = [
        (
            "build: listings x days",
            f"{args.listings} x {sizes.days}",
            f"{build_seconds:.2f} s",
            f"< {BUILD_TARGET_SECONDS:.0f} s",
        ),
        (
            "build: PMS rooms / reservations",
            f"{len(state.pms.rooms)} / {len(state.pms.reservations)}",
            "",
            "",
        ),
    ]
    for fmt, samples in latencies.items():
        target = f"< {READ_TARGET_MS:.0f} ms" if fmt == "json" else ""
        rows.append(
            (
                f"Inventory read {days} days ({fmt})",
                f"p50 {statistics.median(samples):.1f} ms",
                f"p95 {percentile(samples, 0.95):.1f} ms",
                target,
            )
        )
    widths = [max(len(row[i]) for row in rows) for i in range(4)]
    print(
        "  ".join(
            h.ljust(w) for h, w in zip(("what", "size / p50", "time / p95", "target"), widths, strict=True)
        )
    )
    for row in rows:
        print("  ".join(cell.ljust(w) for cell, w in zip(row, widths, strict=True)))
    ok = build_seconds < BUILD_TARGET_SECONDS and statistics.median(latencies["json"]) < READ_TARGET_MS
    print("targets met" if ok else "TARGET MISSED")
    return 0 if ok else 1


if __name__ == "__main__":
    sys.exit(main())
