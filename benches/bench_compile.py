"""Benchmark: diff + compile of 1,000 listings x 365 days with realistic changes.

Run: ``.venv/bin/python benches/bench_compile.py [--listings N] [--days D] [--changed 0.10]``

Half the listings are single-unit, half room-type. The current calendars hold a weekly price
pattern, counts and fixed restrictions; the desired calendars change about ``--changed`` of the
days, in runs of 1 to 14 days (a booking, a closure, a price change, a new minimum stay), which is
what a sync sees after a busy day. Wall time is the best of ``--repeat`` runs without tracing;
peak memory is measured on a separate run under ``tracemalloc`` (it slows the code down) and as
the process's maximum resident set size. Targets: under 2 s and under 300 MB; the exit status is
1 when one is missed.
"""

from __future__ import annotations

import argparse
import random
import resource
import sys
import time
import tracemalloc
from dataclasses import replace
from datetime import date, timedelta
from decimal import Decimal

from roomsync.core.sync import (
    Availability,
    DayState,
    InventoryRequestPlan,
    ListingKind,
    PriceKey,
    RoomRateType,
    compile_operations,
    compile_price_ranges,
)

TARGET_SECONDS = 2.0
TARGET_MEGABYTES = 300.0
FIRST_DAY = date(2027, 1, 1)

Listing = tuple[ListingKind, dict[date, DayState], dict[date, DayState]]


def build_listings(count: int, days: int, changed_share: float, seed: int) -> list[Listing]:
    rng = random.Random(seed)
    nights = [FIRST_DAY + timedelta(days=offset) for offset in range(days)]
    listings: list[Listing] = []
    for index in range(count):
        kind = ListingKind.SINGLE if index % 2 == 0 else ListingKind.ROOM_TYPE
        base_price = rng.randrange(60, 250)
        rooms = rng.randrange(1, 12)
        current: dict[date, DayState] = {}
        for night in nights:
            weekend = night.weekday() >= 4
            current[night] = DayState(
                Availability.AVAILABLE if rng.random() > 0.2 else Availability.UNAVAILABLE,
                rng.randrange(0, rooms + 1) if kind is ListingKind.ROOM_TYPE else None,
                base_price + (30 if weekend else 0),
                2 if weekend else 1,
                28,
                False,
                night.weekday() == 6,
            )
        desired = dict(current)
        target = int(days * changed_share)
        touched: set[int] = set()  # ordinals of the nights that now differ
        while len(touched) < target:
            start = rng.randrange(days)
            length = min(rng.randrange(1, 15), target - len(touched), days - start)
            change = rng.choice(("availability", "count", "price", "restrictions", "price+availability"))
            if change == "count" and kind is ListingKind.SINGLE:
                change = "availability"
            new_price = base_price + rng.randrange(-20, 40)
            new_available = Availability.UNAVAILABLE if rng.random() < 0.7 else Availability.AVAILABLE
            new_count = rng.randrange(0, rooms + 1)
            for night in nights[start : start + length]:
                day = desired[night]
                if change == "availability":
                    day = replace(day, available=new_available)
                elif change == "count":
                    day = replace(day, count=new_count)
                elif change == "restrictions":
                    day = replace(day, min_nights=3, closed_to_arrival=True)
                elif change == "price+availability":
                    day = replace(day, price=new_price, available=new_available)
                else:
                    day = replace(day, price=new_price)
                desired[night] = day
                if day != current[night]:
                    touched.add(night.toordinal())
        listings.append((kind, desired, current))
    return listings


def build_prices(room_types: int, days: int, changed_share: float, seed: int) -> tuple[dict, dict]:
    rng = random.Random(seed)
    desired: dict[PriceKey, Decimal] = {}
    for room_type_id in range(1, room_types + 1):
        base = Decimal(rng.randrange(6_000, 25_000)) / 100
        for offset in range(days):
            night = FIRST_DAY + timedelta(days=offset)
            desired[PriceKey(room_type_id, RoomRateType.STANDARD, night)] = base
            desired[PriceKey(room_type_id, RoomRateType.NON_REFUNDABLE, night)] = (
                base * Decimal("0.9")
            ).quantize(Decimal("0.01"))
    ledger = dict(desired)
    for key in rng.sample(sorted(desired), int(len(desired) * changed_share)):
        ledger[key] = desired[key] + 1
    return desired, ledger


def sync_all(listings: list[Listing]) -> list[list[InventoryRequestPlan]]:
    """Diff and compile every listing, keeping every plan (as a sync does until it has sent them)."""
    return [compile_operations(kind, desired, current) for kind, desired, current in listings]


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--listings", type=int, default=1_000)
    parser.add_argument("--days", type=int, default=365)
    parser.add_argument("--changed", type=float, default=0.10, help="share of days changed (0..1)")
    parser.add_argument("--repeat", type=int, default=3)
    parser.add_argument("--seed", type=int, default=20270101)
    args = parser.parse_args()

    listings = build_listings(args.listings, args.days, args.changed, args.seed)
    changed_days = sum(
        1 for _, desired, current in listings for night, day in desired.items() if current[night] != day
    )

    best = float("inf")
    for _ in range(args.repeat):
        started = time.perf_counter()
        plans = sync_all(listings)
        best = min(best, time.perf_counter() - started)
    requests = sum(len(listing_plans) for listing_plans in plans)
    operations = sum(len(plan.operations) for listing_plans in plans for plan in listing_plans)
    del plans

    tracemalloc.start()
    sync_all(listings)
    _, traced_peak = tracemalloc.get_traced_memory()
    tracemalloc.stop()
    max_rss_mb = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024  # KiB on Linux

    desired_prices, ledger = build_prices(50, args.days, args.changed, args.seed)
    started = time.perf_counter()
    price_plan = compile_price_ranges(desired_prices, ledger)
    price_seconds = time.perf_counter() - started

    rows = [
        ("listings x days", f"{args.listings:,} x {args.days}"),
        ("days that differ", f"{changed_days:,} ({changed_days / (args.listings * args.days):.1%})"),
        ("operations / PUT requests", f"{operations:,} / {requests:,}"),
        ("diff + compile wall time (best)", f"{best:.3f} s   (target < {TARGET_SECONDS:.0f} s)"),
        ("peak traced memory (diff + compile)", f"{traced_peak / 2**20:.1f} MB"),
        (
            "max RSS of the process (with inputs)",
            f"{max_rss_mb:.1f} MB   (target < {TARGET_MEGABYTES:.0f} MB)",
        ),
        ("prices: 50 types x 2 rates, elements", f"{len(price_plan.elements):,} in {price_seconds:.3f} s"),
    ]
    width = max(len(name) for name, _ in rows)
    for name, value in rows:
        print(f"{name:<{width}}  {value}")

    ok = best < TARGET_SECONDS and max_rss_mb < TARGET_MEGABYTES
    print("PASS" if ok else "FAIL: a target was missed")
    return 0 if ok else 1


if __name__ == "__main__":
    sys.exit(main())
