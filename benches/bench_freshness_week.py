"""Benchmark: a week of the demo hotel's front desk, and how soon each change reaches the channel.

Run: ``.venv/bin/python benches/bench_freshness_week.py [--licence paid|free] [--day-seconds 120]
[--days 7] [--changes-per-day 40] [--seed 7]``

The daemon (``roomsync.app.daemon``: its real schedule, engine and client) runs in this process
against the emulator's demo hotel served over loopback, with the emulator's clock as its clock
and ``time_scale`` compressing each day into ``--day-seconds`` real seconds; the emulator's clock
is advanced in step with real time. The first full sync runs at 23:00 the day before, then the
week starts.

The front desk works as a hotel's does: 90 % of its changes between 07:00 and 23:00 local (the
hours of :data:`HOURLY`, UTC being local here), mixed like the outside test of issue 18: bookings
23, cancellations 7, closures and reopenings 9, price edits 20 in 59, on the next 44 nights of the
room types the channel sells. A change counts when it alters what the channel should show on a
night where the channel was in step before it (a change overtaken by a later one on the same
night is dropped: it can no longer be seen).

Measured from outside: after every run of the daemon (poll, detection, full sync), the channel is
read back through the emulator's control surface, and a change the channel now shows reached it
with that run. Its latency is the simulated wait from the change to that run's start, plus the
run's REAL duration (compressed time would otherwise stretch roomsync's own processing by the
compression factor). Requests are counted by the emulator, per day.

Reported per kind of change: count, p50 / p95 / max front-desk-to-channel time (simulated), those
not shown by the end; requests per day against the quota. Targets (issue 18): on a paid licence
(1,500 a day) within 60 % of the quota, bookings and cancellations p95 under 90 s, closures and
prices p95 under 10 minutes; on a free licence (100 a day) bookings p95 under 20 minutes, closures
and prices under 60 minutes. The exit status is 1 when a target is missed.

The same file runs against an older roomsync (``PYTHONPATH=<old checkout>/src``) to compare with
the schedule it had: it only uses what both have.
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
from roomsync.emulator.app import create_app
from roomsync.emulator.clock import EmulatorClock
from roomsync.emulator.scenario import DEMO_MAPPING_TOML, build_state
from roomsync.emulator.server import serve_in_thread
from roomsync.settings import Settings

TICK_SECONDS = 0.002
NIGHTS_CHANGED = 44
"""Changes fall on the next 44 nights (the demo's property closure starts on night 45)."""
LISTINGS = {1: [("41000003", False)], 2: [("41000004", False)], 4: [("41000001", True), ("41000002", True)]}
"""Room type -> (listing, single unit?) the demo mapping sells."""

HOURLY = (2.0, 1.0, 0.5, 0.3, 0.3, 0.9, 2.0, 4.0, 6.0, 7.0, 7.0, 6.5,
          5.5, 5.0, 6.0, 6.5, 6.5, 6.5, 6.0, 5.0, 4.0, 3.0, 1.5, 3.0)  # fmt: skip
"""Relative front-desk activity per local hour: 07-23 carry 91 of 101, scaled below to 90 %."""

MIX = (("booking", 23), ("cancellation", 7), ("closure", 9), ("price", 20))
TARGETS = {
    "paid": {"booking": 90.0, "cancellation": 90.0, "closure": 600.0, "price": 600.0},
    "free": {"booking": 1200.0, "cancellation": 1200.0, "closure": 3600.0, "price": 3600.0},
}
SPEND_TARGET = 0.60
Key = tuple[str, str, str]
"""(listing, night, what): what is ``availability`` or ``price``."""


def hour_weights() -> list[float]:
    busy = sum(HOURLY[7:23])
    quiet = sum(HOURLY) - busy
    return [w * (0.9 / busy if 7 <= h < 23 else 0.1 / quiet) for h, w in enumerate(HOURLY)]


@dataclass
class Change:
    kind: str
    at: datetime
    expected: dict[Key, Any]
    latency: float | None = None
    superseded: bool = False


@dataclass(frozen=True)
class RunTiming:
    started_at: datetime
    real_seconds: float


def timed(
    run: Callable[[Runs], Awaitable[Any]], clock: EmulatorClock, timings: list[RunTiming]
) -> Callable[[Runs], Awaitable[Any]]:
    async def measured(runs: Runs) -> Any:
        started_at, began = clock.now(), time.perf_counter()
        try:
            return await run(runs)
        finally:
            timings.append(RunTiming(started_at, time.perf_counter() - began))

    return measured


@dataclass
class FrontDesk:
    control: httpx.AsyncClient
    rng: random.Random
    bookings: list[tuple[int, int, list[date]]] = field(default_factory=list)
    closed: list[tuple[int, list[date]]] = field(default_factory=list)
    changes: list[Change] = field(default_factory=list)
    skipped: int = 0
    ended_at: datetime | None = None

    async def now(self) -> datetime:
        return datetime.fromisoformat((await self.control.get("/clock")).json()["now"])

    async def availability(self, room_type_id: int, nights: list[date]) -> dict[Key, Any]:
        params = {"from": min(nights).isoformat(), "to": max(nights).isoformat()}
        answer = (await self.control.get("/pms/availability", params=params)).json()
        free = answer["freeRooms"][str(room_type_id)]
        closed = {n for t, ns in self.closed if t == room_type_id for n in ns}
        wanted: dict[Key, Any] = {}
        for listing_id, single in LISTINGS[room_type_id]:
            for night in nights:
                rooms = free[night.isoformat()]
                if night in closed:
                    value: Any = ("unavailable", None if single else rooms)
                elif single:
                    value = ("available" if rooms else "unavailable", None)
                else:
                    value = ("available", rooms)
                wanted[(listing_id, night.isoformat(), "availability")] = value
        return wanted

    async def shown(self, keys: set[Key]) -> dict[Key, Any]:
        by_listing: dict[str, list[str]] = {}
        for listing_id, night, _ in keys:
            by_listing.setdefault(listing_id, []).append(night)
        shown: dict[Key, Any] = {}
        for listing_id, nights in by_listing.items():
            params = {"from": min(nights), "to": max(nights)}
            days = (await self.control.get(f"/channel/calendar/{listing_id}", params=params)).json()["days"]
            for day in days:
                single = day["availableCount"] is None
                availability = "unavailable" if day["reserved"] and single else day["availability"]
                shown[(listing_id, day["date"], "availability")] = (availability, day["availableCount"])
                shown[(listing_id, day["date"], "price")] = round(float(day["dailyPrice"]), 2)
        return {key: value for key, value in shown.items() if key in keys}

    def nights(self, today: date, length: int) -> list[date]:
        start = today + timedelta(days=self.rng.randint(1, NIGHTS_CHANGED - length + 1))
        return [start + timedelta(days=n) for n in range(length)]

    async def work(self, kind: str, today: date) -> None:
        at = await self.now()
        room_type_id = self.rng.choice(sorted(LISTINGS))
        before: dict[Key, Any]
        if kind == "cancellation" and self.bookings:
            reservation_id, room_type_id, nights = self.bookings.pop(self.rng.randrange(len(self.bookings)))
            before = await self.availability(room_type_id, nights)
            await self.control.post("/pms/cancel", json={"reservationId": reservation_id})
            after = await self.availability(room_type_id, nights)
        elif kind in ("booking", "cancellation"):
            kind = "booking"
            closed = {n for t, ns in self.closed if t == room_type_id for n in ns}
            for _ in range(20):
                nights = self.nights(today, self.rng.randint(1, 3))
                if closed.intersection(nights):
                    continue
                before = await self.availability(room_type_id, nights)
                body = {
                    "dateFrom": nights[0].isoformat(),
                    "dateTo": (nights[-1] + timedelta(days=1)).isoformat(),
                    "lastName": f"Desk{len(self.changes)}",
                    "roomTypeId": room_type_id,
                }
                answer = await self.control.post("/pms/book", json=body)
                if answer.status_code == 200:
                    self.bookings.append((answer.json()["reservationId"], room_type_id, nights))
                    break
            else:
                self.skipped += 1
                return
            after = await self.availability(room_type_id, nights)
        elif kind == "closure":
            if self.closed and self.rng.random() < 0.5:  # a reopening of an earlier stop-sell
                room_type_id, nights = self.closed.pop(self.rng.randrange(len(self.closed)))
                before = await self.availability(room_type_id, nights)
                body = {"dateFrom": nights[0].isoformat(), "dateTo": nights[-1].isoformat(),
                        "roomTypeId": room_type_id, "open": True}  # fmt: skip
            else:
                nights = self.nights(today, self.rng.randint(1, 3))
                before = await self.availability(room_type_id, nights)
                self.closed.append((room_type_id, nights))
                body = {"dateFrom": nights[0].isoformat(), "dateTo": nights[-1].isoformat(),
                        "roomTypeId": room_type_id}  # fmt: skip
            await self.control.post("/pms/close", json=body)
            after = await self.availability(room_type_id, nights)
        else:
            nights = self.nights(today, self.rng.randint(1, 7))
            price = float(self.rng.randint(60, 240))  # whole euros: the channel's dailyPrice is whole
            listings = [listing for listing, _ in LISTINGS[room_type_id]]
            keys = {(listing, n.isoformat(), "price") for listing in listings for n in nights}
            before = await self.shown(keys)
            body = {"roomTypeId": room_type_id, "dateFrom": nights[0].isoformat(),
                    "dateTo": nights[-1].isoformat(), "price": f"{price:.2f}"}  # fmt: skip
            await self.control.post("/pms/price", json=body)
            after = dict.fromkeys(keys, price)
        shown = await self.shown(set(after))
        must = {
            key: value
            for key, value in after.items()
            if value != before.get(key) and shown[key] == before[key]
        }
        for earlier in self.changes:  # a later change on the same night overtakes an earlier one
            if earlier.latency is None and not earlier.superseded:
                for key in set(earlier.expected) & set(after):
                    del earlier.expected[key]
                earlier.superseded = not earlier.expected
        if must:
            self.changes.append(Change(kind, at, must))

    async def check(self, run: RunTiming) -> None:
        pending = [c for c in self.changes if c.latency is None and not c.superseded]
        if not pending:
            return
        shown = await self.shown({key for change in pending for key in change.expected})
        for change in pending:
            if all(shown.get(key) == value for key, value in change.expected.items()):
                change.latency = max((run.started_at - change.at).total_seconds(), 0.0) + run.real_seconds


def busy_hours(share: float) -> float:
    """Hours of a day that carry ``share`` of the front desk's changes, busiest hours first (the
    last one counted in part). A schedule that leaves a change at most ``L`` seconds unseen needs a
    run every ``L`` seconds through those hours: with changes arriving uniformly within an hour, ``n``
    runs in an hour leave at most ``n * L`` of its 3,600 seconds within ``L`` of the next run, so no
    schedule gets ``share`` of the changes within ``L`` with fewer than ``3600 * busy_hours / L``
    runs a day (filling the busiest hours first is the cheapest way: a linear programme)."""
    left, hours = share, 0.0
    for weight in sorted(hour_weights(), reverse=True):
        if left <= 1e-12:
            break
        part = min(1.0, left / weight)
        hours += part
        left -= weight * part
    return hours


def best_p95(runs_per_day: float) -> float:
    """The lowest p95 wait any schedule of ``runs_per_day`` runs can give this front desk (s)."""
    return 3600 * busy_hours(0.95) / runs_per_day if runs_per_day > 0 else float("inf")


def percentile(values: list[float], share: float) -> float:
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, round(share * (len(ordered) - 1)))]


def change_times(rng: random.Random, start: datetime, days: int, per_day: int) -> list[tuple[datetime, str]]:
    weights = hour_weights()
    kinds = [kind for kind, share in MIX for _ in range(share)]
    planned = []
    for day in range(days):
        for _ in range(per_day):
            hour = rng.choices(range(24), weights)[0]
            at = start + timedelta(days=day, hours=hour, seconds=rng.uniform(0, 3600))
            planned.append((at, rng.choice(kinds)))
    return sorted(planned)


async def run(args: argparse.Namespace, base_url: str, clock: EmulatorClock, data_dir: Path) -> int:
    mapping = data_dir / "mapping.toml"
    mapping.write_text(DEMO_MAPPING_TOML)
    scale = args.day_seconds / 86_400
    quota = 1500 if args.licence == "paid" else 100
    settings = Settings(
        base_url=base_url,
        username="demo",
        password=SecretStr("demo"),
        domain="demo-hotel",
        data_dir=data_dir,
        mapping_file=mapping,
        time_scale=scale,
        schedule_jitter_seconds=0,
        daily_quota=quota,
    )
    replica = Replica(settings, clock=clock.now, rng=random.Random(args.seed))
    await replica.open(migrate=True)
    daemon = replica.daemons[settings.effective_property_id]
    timings: list[RunTiming] = []
    for kind in (run_kinds.POLL, run_kinds.DETECT, run_kinds.PRICES):  # the daemon looks them up per run
        run_kinds.SCHEDULED_RUNS[kind] = timed(run_kinds.SCHEDULED_RUNS[kind], clock, timings)
    async with httpx.AsyncClient(base_url=f"{base_url}/_emulator", timeout=30) as control:
        await control.post("/quota", json={"dailyQuota": 1500, "freeLicence": args.licence == "free"})
        desk = FrontDesk(control, random.Random(args.seed))
        replica.start()
        while daemon.jobs["prices"].last_result is None:  # the first full sync, the evening before
            await asyncio.sleep(0.05)
        start = datetime.combine(clock.today() + timedelta(days=1), datetime.min.time(), UTC)
        await control.post("/clock", json={"now": start.isoformat()})
        planned = change_times(desk.rng, start, args.days, args.changes_per_day)
        end = start + timedelta(days=args.days) - timedelta(seconds=1)
        used: list[int] = []
        seen = 0
        began = time.perf_counter()
        day_end = start + timedelta(days=1)
        while True:
            target = min(start + timedelta(seconds=(time.perf_counter() - began) / scale), end)
            now = await desk.now()
            if target >= day_end > now:  # read the day's usage before the quota resets
                step = (day_end - now).total_seconds() - 1
                if step > 0:
                    await control.post("/clock/advance", json={"seconds": step})
                used.append((await control.get("/quota")).json()["usedCalls"])
                day_end += timedelta(days=1)
                continue
            if (target - now).total_seconds() > 0:
                step = (target - now).total_seconds()
                answer = await control.post("/clock/advance", json={"seconds": step})
                now = datetime.fromisoformat(answer.json()["now"])
            if len(timings) > seen:
                seen = len(timings)
                await desk.check(timings[-1])
            while planned and planned[0][0] <= now:
                _, kind = planned.pop(0)
                await desk.work(kind, now.date())
            if now >= end:
                break
            await asyncio.sleep(TICK_SECONDS)
        desk.ended_at = now
        used.append((await control.get("/quota")).json()["usedCalls"])
        by_operation = (await control.get("/requests", params={"limit": 1})).json()["counts"]
        status = daemon.status()
        by_kind: dict[str, list[int]] = {}
        for past in daemon.store.sync_runs.recent_runs(daemon.property_id, limit=1_000_000):
            if past.started_at >= start:
                by_kind.setdefault(past.kind, []).append(past.requests_spent)
    await replica.stop()
    await replica.close()
    counted = ", ".join(f"{name} {count}" for name, count in sorted(by_operation.items()))
    print(f"requests of the week by operation: {counted}")
    runs = ", ".join(f"{kind} {len(spent)} / {sum(spent)}" for kind, spent in sorted(by_kind.items()))
    print(f"runs of the week (count / requests): {runs}")
    ok = report(args, desk, used, quota, status.schedule.explanation)
    bound(args, by_kind, quota)
    return ok


def bound(args: argparse.Namespace, by_kind: dict[str, list[int]], quota: int) -> None:
    """What any schedule would need: the lower bounds of :func:`busy_hours`, next to what ran."""
    targets = TARGETS[args.licence]
    polls = len(by_kind.get("poll", [])) / args.days
    detections = by_kind.get("detect", [])
    per_day = len(detections) / args.days
    check = statistics.median(detections) if detections else 1.0
    print(
        f"hours carrying 95 % of the changes: {busy_hours(0.95):.1f}; polls {polls:.0f} a day, the best p95 "
        f"any schedule of as many polls gives: {best_p95(polls):.0f} s; detections {per_day:.0f} a day: "
        f"{best_p95(per_day):.0f} s"
    )
    need_polls = 3600 * busy_hours(0.95) / targets["booking"]
    need_detections = 3600 * busy_hours(0.95) / targets["closure"]
    print(
        f"fewest requests a day for the {args.licence} targets on this front desk: {need_polls:.0f} polls + "
        f"{need_detections:.0f} detections x {check:.0f} (the median detection this week) = "
        f"{need_polls + need_detections * check:.0f}, before any write, narrowing read or full sync "
        f"({(need_polls + need_detections * check) / quota:.0%} of the quota)"
    )


def report(args: argparse.Namespace, desk: FrontDesk, used: list[int], quota: int, plan: str) -> int:
    targets = TARGETS[args.licence]
    ok = True
    print(f"licence {args.licence} ({quota} a day), {args.days} days, {args.changes_per_day} changes a day")
    share = max(used) / quota if used else 0.0
    print(f"requests per day: {', '.join(map(str, used))} (most {share:.0%} of the quota)")
    if args.licence == "paid" and share > SPEND_TARGET:
        ok = False
    for kind, _ in MIX:
        changes = [c for c in desk.changes if c.kind == kind and not c.superseded]
        latencies = [c.latency for c in changes if c.latency is not None]
        unseen = len(changes) - len(latencies)
        if not latencies:
            print(f"{kind:>12}: none measured ({unseen} not shown)")
            ok = False
            continue
        p50, p95 = statistics.median(latencies), percentile(latencies, 0.95)
        met = p95 < targets[kind] and unseen == 0
        ok = ok and met
        print(
            f"{kind:>12}: {len(latencies)} shown, {unseen} not shown; p50 {p50:.0f} s, p95 {p95:.0f} s, "
            f"max {max(latencies):.0f} s (target p95 < {targets[kind]:.0f} s: {'met' if met else 'NOT met'})"
        )
        for change in changes:
            if change.latency is None and desk.ended_at is not None:
                left = (desk.ended_at - change.at).total_seconds()
                print(f"{'':>12}  not shown: made at {change.at:%a %H:%M:%S}, {left:.0f} s before the end")
    superseded = sum(1 for c in desk.changes if c.superseded)
    print(f"changes overtaken by a later one on the same night: {superseded}; not made: {desk.skipped}")
    print(f"the daemon's plan at the end: {plan}")
    return 0 if ok else 1


def main() -> int:
    parser = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    parser.add_argument("--licence", choices=("paid", "free"), default="paid")
    parser.add_argument("--day-seconds", type=float, default=120.0, help="real seconds per simulated day")
    parser.add_argument("--days", type=int, default=7)
    parser.add_argument("--changes-per-day", type=int, default=40)
    parser.add_argument("--seed", type=int, default=7)
    args = parser.parse_args()
    start = datetime.combine(datetime.now(UTC).date(), datetime.min.time(), UTC) + timedelta(hours=23)
    clock = EmulatorClock(start, frozen=True)
    state = build_state("demo", args.seed, clock=clock)
    with serve_in_thread(create_app(state)) as base_url, tempfile.TemporaryDirectory() as tmp:
        return asyncio.run(run(args, base_url, clock, Path(tmp)))


if __name__ == "__main__":
    sys.exit(main())
