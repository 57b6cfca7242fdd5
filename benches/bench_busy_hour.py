"""Benchmark: the front desk's busy hour, and how soon each of its changes reaches the channel.

Run: ``.venv/bin/python benches/bench_busy_hour.py [--seed 7] [--seeds 1] [--time-scale 0.05]
[--spend-share 0.6] [--settle-time-scale 0.002] [--warm-minutes 30] [--drain-minutes 30]``

Issue 25's outside test, in one process: the daemon (``roomsync.app.daemon``: its real schedule,
engine and client, as ``roomsync serve`` runs them) against the emulator's demo hotel served over
loopback, paid licence (1,500 requests a day), the emulator's clock as the daemon's clock, waits
scaled by ``--time-scale`` (0.05, as in the outside run) and the emulator's clock advanced
``1 / time_scale`` times faster than real time, so the quota's day passes at the daemon's pace.

The day: the daemon starts at 23:00 the evening before with its first full sync (the clock stands
still meanwhile, as in ``bench_freshness_week.py``), then runs its normal schedule through the
night and morning while the week bench's front desk works at its ordinary quiet pace (40 changes
a day by the hours of ``front_desk.HOURLY``: about ten before 10:00). A morning with changes,
rather than none, because the daemon learns the split of its budget between polls and detections
from the changes it sees, and because the day's quota spent before the busy hour is part of what
the hour may spend; the busy hour should find the daemon as a real morning leaves it. At 10:00
local (UTC here) the busy hour starts: one change in every 80 s for 80 minutes (60 changes,
each at a random moment of its 80 s; 24 bookings, 20 price edits, 9 closures and reopenings, 7
cancellations: issue 25's 40 / 33 / 15 / 12 % in whole numbers, shuffled), on the next 60 nights
(the demo's two-night property closure left out: the desk's expectations do not model it).
After 11:20 the desk stops and the bench goes on until every change of the hour is shown, or
``--drain-minutes`` have passed.

The night and the morning until ``--warm-minutes`` before 10:00 run compressed harder
(``--settle-time-scale``, 0.002: the night in about 75 s instead of half an hour per seed); then
the bench sets the daemon's ``time_scale`` to ``--time-scale`` and stretches the real wait of each
run then pending by the same factor, so each keeps its simulated due time. The ``--warm-minutes``
at the outside run's pace let any run the switch disturbs pass before the hour. What the harder
compression changes: a run's real duration counts ``1 / time_scale`` times more simulated seconds,
so the night's runs take longer in simulated time than they would (fewer of them, if anything).

Measured from outside, as the week bench does: after every poll, detection and full sync the
channel is read back through the emulator's control surface; a change reached the channel with the
first run after which the channel shows it, its latency the simulated wait from the change to that
run's start plus the run's REAL duration. How late each run began against the daemon's own plan
(its scheduler's due time, in simulated seconds) shows whether the daemon keeps up with the clock.

Reported per kind of the hour's changes: count, p50 / p95 / max, those not shown; beside the p95
the bound for the runs the schedule made in the hour (polls and full syncs for bookings and
cancellations, detections and full syncs for closures and prices: ``front_desk.window_p95``) and
their ratio; 429 answers; requests in the hour (the 80 minutes and per hour) and their share of the
day's quota; requests by operation; after the hour the daemon's plan (``status().schedule``) and
the requests left for the rest of the day. Targets (issue 25): bookings and cancellations p95
<= 120 s, closures <= 10 min, prices <= 15 min, every change shown, no 429, at most 15 % of the
day's quota an hour (the 80 minutes' requests x 60 / 80; the outside run reported requests per
hour). The exit status is 1 when a target is missed (in any seed).
"""

from __future__ import annotations

import argparse
import asyncio
import random
import statistics
import sys
import time
from collections import Counter
from dataclasses import dataclass, field
from datetime import UTC, date, datetime, timedelta
from pathlib import Path
from typing import Any

import httpx
from front_desk import (
    KINDS,
    FrontDesk,
    RunTiming,
    change_times,
    each_seed,
    latencies_of,
    measured_runs,
    on_time_line,
    percentile,
    promise_line,
    promise_of,
    spread,
    window_p95,
)
from pydantic import SecretStr

from roomsync.app.daemon import run_kinds
from roomsync.app.daemon.replica import Replica
from roomsync.emulator.clock import EmulatorClock
from roomsync.emulator.scenario import DEMO_MAPPING_TOML
from roomsync.settings import Settings

TICK_SECONDS = 0.002
QUOTA = 1500
HOUR_START = timedelta(hours=10)
HOUR_LENGTH = timedelta(minutes=80)
EVERY = 80.0
"""Seconds between two of the busy hour's changes (one at a random moment of each 80 s)."""
HORIZON = 60
MIX = (("booking", 0.40), ("price", 0.33), ("closure", 0.15), ("cancellation", 0.12))
QUIET_PER_DAY = 40
"""The week bench's front desk, before the hour."""
TARGETS = {"booking": 120.0, "cancellation": 120.0, "closure": 600.0, "price": 900.0}
HOUR_SHARE = 0.15
"""Most of the day's quota an hour of the busy hour may spend."""
FAR = 1.25


def hour_mix(rng: random.Random, count: int) -> list[str]:
    """``count`` kinds in :data:`MIX`'s shares, whole numbers by the largest remainders, shuffled."""
    exact = [(kind, share * count) for kind, share in MIX]
    whole = {kind: int(x) for kind, x in exact}
    by_remainder = sorted(exact, key=lambda item: item[1] - int(item[1]), reverse=True)
    for kind, _ in by_remainder[: count - sum(whole.values())]:
        whole[kind] += 1
    kinds = [kind for kind, n in whole.items() for _ in range(n)]
    rng.shuffle(kinds)
    return kinds


def busy_hour_times(rng: random.Random, start: datetime) -> list[tuple[datetime, str]]:
    count = round(HOUR_LENGTH.total_seconds() / EVERY)
    kinds = hour_mix(rng, count)
    return [(start + timedelta(seconds=EVERY * i + rng.uniform(0, EVERY)), kinds[i]) for i in range(count)]


@dataclass
class Outcome:
    """One seed's figures."""

    seed: int
    ok: bool = True
    p50: dict[str, float] = field(default_factory=dict)
    p95: dict[str, float] = field(default_factory=dict)
    bound: dict[str, float] = field(default_factory=dict)
    count: dict[str, int] = field(default_factory=dict)
    unseen: dict[str, int] = field(default_factory=dict)
    hour_requests: int = 0
    before_hour: int = 0
    left: int = 0
    throttled: int = 0
    late_p95: float = 0.0
    poll_after: float | None = None
    detect_after: float | None = None


def stretch_schedule(daemon: Any, old: float, new: float) -> None:
    """Set the daemon's ``time_scale`` to ``new`` and stretch the real wait of each run pending by
    ``new / old``, so each keeps its simulated due time (reaches into the schedule: bench only)."""
    schedule = daemon.schedule
    for settings in {
        id(s): s for s in (daemon.settings, schedule.settings, daemon.planner.settings)
    }.values():
        settings.time_scale = new
    now = datetime.now(UTC)
    firing = getattr(schedule, "_firing", set())
    for kind in run_kinds.SCHEDULED:
        at = schedule.next_run(kind)
        if at is None or kind in firing:
            continue
        schedule._schedule(kind, max((at - now).total_seconds(), 0.0) * new / old)


class Pace:
    """The emulator's clock, advanced ``1 / scale`` times faster than real time from a mark."""

    def __init__(self, at: datetime, scale: float) -> None:
        self.at, self.scale, self.real = at, scale, time.perf_counter()

    def target(self) -> datetime:
        return self.at + timedelta(seconds=(time.perf_counter() - self.real) / self.scale)


async def run(args: argparse.Namespace, seed: int, state: Any, base_url: str, clock: EmulatorClock,
              data_dir: Path) -> Outcome:  # fmt: skip
    mapping = data_dir / "mapping.toml"
    mapping.write_text(DEMO_MAPPING_TOML)
    settings = Settings(
        base_url=base_url,
        username="demo",
        password=SecretStr("demo"),
        domain="demo-hotel",
        data_dir=data_dir,
        mapping_file=mapping,
        time_scale=args.settle_time_scale,
        schedule_jitter_seconds=0,
        daily_quota=QUOTA,
        spend_share=args.spend_share,
    )
    replica = Replica(settings, clock=clock.now, rng=random.Random(seed))
    await replica.open(migrate=True)
    daemon = replica.daemons[settings.effective_property_id]
    timings: list[RunTiming] = []
    avoid = frozenset(d for d in state.pms.property_closures if isinstance(d, date))
    with measured_runs(clock, timings, daemon):
        async with httpx.AsyncClient(base_url=f"{base_url}/_emulator", timeout=30) as control:
            await control.post("/quota", json={"dailyQuota": QUOTA, "freeLicence": False})
            rng = random.Random(seed)
            desk = FrontDesk(control, rng, horizon=HORIZON, avoid=avoid)
            replica.start()
            while daemon.jobs["prices"].last_result is None:  # the first full sync, the evening before
                await asyncio.sleep(0.05)
            midnight = datetime.combine(clock.today() + timedelta(days=1), datetime.min.time(), UTC)
            hour_start = midnight + HOUR_START
            hour_end = hour_start + HOUR_LENGTH
            switch_at = hour_start - timedelta(minutes=args.warm_minutes)
            end = hour_end + timedelta(minutes=args.drain_minutes)
            quiet = [
                (at, kind) for at, kind in change_times(rng, midnight, 1, QUIET_PER_DAY) if at < hour_start
            ]
            planned = quiet + busy_hour_times(rng, hour_start)
            pace = Pace(clock.now(), args.settle_time_scale)
            marks = [switch_at, hour_start, hour_end, end]
            snapshots: dict[datetime, tuple[int, dict[str, int], dict[str, int]]] = {}
            seen = 0
            status: Any = None
            now = clock.now()
            while True:
                target = min(pace.target(), marks[0])
                if (target - now).total_seconds() > 0:
                    answer = await control.post(
                        "/clock/advance", json={"seconds": (target - now).total_seconds()}
                    )
                    now = datetime.fromisoformat(answer.json()["now"])
                while len(timings) > seen:
                    seen += 1
                    await desk.check(timings[seen - 1])
                while planned and planned[0][0] <= now:
                    _, kind = planned.pop(0)
                    made = len(desk.changes)
                    await desk.work(kind, now.date())
                    if len(desk.changes) > made:
                        desk.changes[-1].promised = promise_of(daemon.planner.plan, kind)
                if now >= marks[0]:
                    mark = marks.pop(0)
                    if mark == switch_at and args.time_scale != args.settle_time_scale:
                        stretch_schedule(daemon, args.settle_time_scale, args.time_scale)
                        pace = Pace(now, args.time_scale)
                    if mark in (hour_start, hour_end):
                        used = (await control.get("/quota")).json()["usedCalls"]
                        log = (await control.get("/requests", params={"limit": 1})).json()
                        snapshots[mark] = (used, log["counts"], log["byStatus"])
                    if mark == hour_end:
                        status = daemon.status()
                    if mark in (hour_end, end):
                        hour = [c for c in desk.changes if hour_start <= c.at < hour_end]
                        if mark == end or all(c.latency is not None or c.superseded for c in hour):
                            break
                        continue  # draining: no more changes, until the hour's are all shown
                await asyncio.sleep(TICK_SECONDS)
            desk.ended_at = now
            log = (await control.get("/requests", params={"limit": 1})).json()
            by_kind: dict[str, list[int]] = {}
            morning: dict[str, list[int]] = {}
            for past in daemon.store.sync_runs.recent_runs(daemon.property_id, limit=1_000_000):
                if hour_start <= past.started_at < hour_end:
                    by_kind.setdefault(past.kind, []).append(past.requests_spent)
                elif midnight <= past.started_at < hour_start:
                    morning.setdefault(past.kind, []).append(past.requests_spent)
        await replica.stop()
        await replica.close()
    hour_desk = [c for c in desk.changes if hour_start <= c.at < hour_end]
    return report(
        args, seed, hour_desk, desk, timings, snapshots, hour_start, hour_end, status, by_kind, morning, log
    )


def report(
    args: argparse.Namespace,
    seed: int,
    changes: list[Any],
    desk: FrontDesk,
    timings: list[RunTiming],
    snapshots: dict[datetime, tuple[int, dict[str, int], dict[str, int]]],
    hour_start: datetime,
    hour_end: datetime,
    status: Any,
    by_kind: dict[str, list[int]],
    morning: dict[str, list[int]],
    log: dict[str, Any],
) -> Outcome:
    outcome = Outcome(seed)
    (used0, counts0, statuses0), (used1, counts1, statuses1) = snapshots[hour_start], snapshots[hour_end]
    minutes = (hour_end - hour_start).total_seconds() / 60
    outcome.before_hour, outcome.hour_requests, outcome.left = used0, used1 - used0, QUOTA - used1
    per_hour = outcome.hour_requests * 60 / minutes
    print(
        f"seed {seed}: busy hour {hour_start:%H:%M}-{hour_end:%H:%M}, time_scale {args.time_scale:g} "
        f"(before {hour_start - timedelta(minutes=args.warm_minutes):%H:%M}: {args.settle_time_scale:g}), "
        f"spend_share {args.spend_share:g}; {len(changes)} changes in the hour, "
        f"{sum(1 for c in desk.changes if c.at < hour_start)} before it"
    )
    before = ", ".join(f"{kind} {len(spent)} / {sum(spent)}" for kind, spent in sorted(morning.items()))
    print(f"runs today before the hour (count / requests): {before}")
    hour_runs = ", ".join(f"{kind} {len(spent)} / {sum(spent)}" for kind, spent in sorted(by_kind.items()))
    print(f"runs in the hour (count / requests): {hour_runs}")
    late = [
        t.late_seconds
        for t in timings
        if hour_start <= t.started_at < hour_end and t.late_seconds is not None
    ]
    if late:
        outcome.late_p95 = percentile(late, 0.95)
        print(
            f"runs' start after the plan had them due (simulated): p50 {statistics.median(late):.0f} s, "
            f"p95 {outcome.late_p95:.0f} s, max {max(late):.0f} s over {len(late)} runs"
        )
    full_syncs = len(by_kind.get("sync", [])) + len(by_kind.get("prices", []))  # the store says sync
    availability_runs = len(by_kind.get("poll", [])) + full_syncs
    detection_runs = len(by_kind.get("detect", [])) + full_syncs
    window = (hour_end - hour_start).total_seconds()
    bounds = {
        "booking": window_p95(availability_runs, window),
        "cancellation": window_p95(availability_runs, window),
        "closure": window_p95(detection_runs, window),
        "price": window_p95(detection_runs, window),
    }
    detections = by_kind.get("detect", [])
    check = statistics.median(detections) if detections else 3.0
    need_polls = 0.95 * window / min(TARGETS["booking"], TARGETS["cancellation"])
    need_detections = 0.95 * window / min(TARGETS["closure"], TARGETS["price"])
    need = need_polls + need_detections * check
    allowed = HOUR_SHARE * QUOTA * minutes / 60
    fallback = need > allowed
    print(
        f"fewest runs for the targets over the {minutes:.0f} minutes: {need_polls:.0f} polls + "
        f"{need_detections:.0f} detections x {check:.0f} (the hour's median detection) = {need:.0f} "
        f"requests, {'over' if fallback else 'within'} the {allowed:.0f} that {HOUR_SHARE:.0%} of the "
        f"quota an hour allows"
        + (f": each kind's target is also met within {FAR}x of its bound" if fallback else "")
    )
    ok = True
    for kind in KINDS:
        latencies, unseen = latencies_of(changes, kind)
        outcome.count[kind], outcome.unseen[kind] = len(latencies) + unseen, unseen
        if not latencies:
            print(f"{kind:>12}: none measured ({unseen} not shown)")
            ok = ok and unseen == 0
            continue
        p50, p95 = statistics.median(latencies), percentile(latencies, 0.95)
        outcome.p50[kind], outcome.p95[kind], outcome.bound[kind] = p50, p95, bounds[kind]
        ratio = p95 / bounds[kind] if bounds[kind] > 0 else float("inf")
        met = (p95 <= TARGETS[kind] or (fallback and ratio <= FAR)) and unseen == 0
        ok = ok and met
        print(
            f"{kind:>12}: {len(latencies)} shown, {unseen} not shown; p50 {p50:.0f} s, p95 {p95:.0f} s, "
            f"max {max(latencies):.0f} s; bound for the hour's runs {bounds[kind]:.0f} s, p95 {ratio:.2f}x it"
            f"{'' if ratio <= FAR else ' (far from it)'} (target p95 <= {TARGETS[kind]:.0f} s: "
            f"{'met' if met else 'NOT met'})"
        )
        print(on_time_line(changes, kind))
        promised = promise_line(changes, kind, p95)
        if promised:
            print(promised)
        if kind in ("booking", "cancellation"):  # few and seen by every poll: say which were slow
            for c in changes:
                if c.kind == kind and c.latency is not None and c.latency > TARGETS[kind]:
                    shown = ", ".join(f"{k[0]} {k[1]} {v}" for k, v in sorted(c.expected.items()))
                    closed = "; on a night the desk had closed" if c.on_closed else ""
                    print(f"{'':>12}  {c.latency:.0f} s: made at {c.at:%H:%M:%S}, to show {shown}{closed}")
        for change in changes:
            if change.kind == kind and change.latency is None and not change.superseded and desk.ended_at:
                left = (desk.ended_at - change.at).total_seconds()
                print(f"{'':>12}  not shown: made at {change.at:%H:%M:%S}, {left:.0f} s before the end")
    overtaken = sum(1 for c in changes if c.superseded)
    print(
        f"the hour's changes overtaken by a later one on the same night: {overtaken}; "
        f"not made: {desk.skipped}"
    )
    throttled_hour = statuses1.get("429", 0) - statuses0.get("429", 0)
    outcome.throttled = throttled_hour
    throttled_all = log["byStatus"].get("429", 0)
    print(
        f"429 answers: {throttled_hour} in the hour, {throttled_all} in the whole run "
        "(target: none in the hour)"
    )
    ok = ok and throttled_hour == 0
    share = per_hour / QUOTA
    met_share = share <= HOUR_SHARE + 1e-9
    ok = ok and met_share
    print(
        f"requests: {used0} today before the hour; {outcome.hour_requests} in the {minutes:.0f} minutes "
        f"({outcome.hour_requests / QUOTA:.1%} of the day's quota), {per_hour:.0f} an hour ({share:.1%}; "
        f"target <= {HOUR_SHARE:.0%}: {'met' if met_share else 'NOT met'})"
    )
    diff = Counter(counts1)
    diff.subtract(Counter(counts0))
    operations = ", ".join(f"{name} {n}" for name, n in sorted(diff.items()) if n)
    print(f"requests in the hour by operation: {operations}")
    schedule = status.schedule
    outcome.poll_after = getattr(schedule, "poll_interval_seconds", None)
    outcome.detect_after = getattr(schedule, "detect_interval_seconds", None)
    ceiling = args.spend_share * QUOTA - used1
    print(
        f"after the hour ({hour_end:%H:%M}): {outcome.left} requests left of the day's quota, "
        f"{ceiling:.0f} under the day's ceiling (spend_share {args.spend_share:g}); the plan: poll every "
        f"{fmt_seconds(outcome.poll_after)}, detect every {fmt_seconds(outcome.detect_after)}, "
        f"{getattr(schedule, 'polls_until_reset', '?')} polls until the reset"
    )
    print(f"the daemon's plan after the hour: {schedule.explanation}")
    outcome.ok = ok
    return outcome


def fmt_seconds(value: float | None) -> str:
    return "-" if value is None else f"{value:.0f} s"


def print_spread(outcomes: list[Outcome]) -> None:
    print(f"\nspread over {len(outcomes)} seeds ({', '.join(str(o.seed) for o in outcomes)}):")
    for kind in KINDS:
        counts = [o.count.get(kind, 0) for o in outcomes]
        ratios = [o.p95[kind] / o.bound[kind] for o in outcomes if kind in o.p95 and o.bound[kind] > 0]
        print(
            f"{kind:>12}: {sum(counts)} changes, {sum(o.unseen.get(kind, 0) for o in outcomes)} not shown; "
            f"p50 {spread([o.p50[kind] for o in outcomes if kind in o.p50], ' s')}; "
            f"p95 {spread([o.p95[kind] for o in outcomes if kind in o.p95], ' s')}; "
            f"p95 / bound {spread(ratios, 'x', 2)}"
        )
    print(f"requests in the 80 minutes: {spread([o.hour_requests for o in outcomes])}")
    print(f"requests an hour: {spread([o.hour_requests * 60 / 80 for o in outcomes])}")
    print(f"429 in the hour: {spread([o.throttled for o in outcomes])}")
    print(f"requests today before the hour: {spread([o.before_hour for o in outcomes])}")
    print(f"requests left for the rest of the day: {spread([o.left for o in outcomes])}")
    polls = [o.poll_after for o in outcomes if o.poll_after is not None]
    detects = [o.detect_after for o in outcomes if o.detect_after is not None]
    print(f"plan after the hour: poll every {spread(polls, ' s')}, detect every {spread(detects, ' s')}")
    print(f"runs' lateness against the plan, p95: {spread([o.late_p95 for o in outcomes], ' s')}")
    failed = [o.seed for o in outcomes if not o.ok]
    print(f"targets: {'met in every seed' if not failed else f'missed in seed(s) {failed}'}")


def main() -> int:
    parser = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    parser.add_argument("--seed", type=int, default=7)
    parser.add_argument("--seeds", type=int, default=1, help="run seeds seed .. seed+N-1, print the spread")
    parser.add_argument(
        "--time-scale", type=float, default=0.05, help="the daemon's time_scale from the warm-up on"
    )
    parser.add_argument("--spend-share", type=float, default=0.6, help="the daemon's spend_share")
    parser.add_argument(
        "--settle-time-scale", type=float, default=0.002, help="time_scale of the night and the early morning"
    )
    parser.add_argument(
        "--warm-minutes", type=float, default=30.0, help="minutes before the hour at --time-scale"
    )
    parser.add_argument(
        "--drain-minutes", type=float, default=30.0, help="most minutes after the hour to wait"
    )
    args = parser.parse_args()
    outcomes = each_seed(
        args.seed, args.seeds, lambda seed, state, url, clock, tmp: run(args, seed, state, url, clock, tmp)
    )
    if len(outcomes) > 1:
        print_spread(outcomes)
    return 0 if all(o.ok for o in outcomes) else 1


if __name__ == "__main__":
    sys.exit(main())
