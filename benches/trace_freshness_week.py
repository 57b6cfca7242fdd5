"""Trace of the week bench: every plan the daemon made and every run it made, then, per day, where
the runs fell against where the plan made at midnight would have put as many.

Run: ``.venv/bin/python benches/trace_freshness_week.py TRACE.jsonl [the week bench's options]``

Runs :mod:`bench_freshness_week` unchanged, with the planner's ``replan`` and ``run_seen`` wrapped
to record (JSON lines in ``TRACE.jsonl``) each plan (the budget used, the polls and detections it
planned until the reset, their intervals, the next detection's check windows, its planned cost and
the split of the budget between the two: kept for reading the trace, not in the report) and each
run (kind, its start and end, requests, whether a detection found a change; the report counts the
starts: before 2026-12-07 it counted the ends, which at a day in 300 s add each run's real duration
288 times over). Then prints, per day and kind: the runs, the schedule's own p95 for the desk's
changes (:func:`front_desk.schedule_p95`), the bound for as many runs
(:func:`front_desk.best_p95_by_day` for the day alone) and the p95 of as many runs placed as the
plan places them from midnight (each hour its max gap's floor, the rest as the daemon places them:
the polls by the p95's cut, the detections by the cube root of the desk's share; evenly spaced in
the hour), which separates how many runs a day made from where they fell; the same placed by the
week the daemon had learned when the day began (its first plan's shapes, recorded once a day),
which separates what the desk's hours being learned, not known, costs; and the runs by hour.

For the detections also the bound for the check windows they read (:func:`best_p95_for_windows`):
a detection costs one request per window, one more per edge of each closed run known then, so
the bound for as many runs counts a night's one-window detection as one of the afternoon's
seven; this one prices each hour's runs at its windows, the requests a schedule could have moved
(what locating a change costs is the same whatever the schedule).
"""

from __future__ import annotations

import bisect
import json
import sys
from datetime import datetime, timedelta
from pathlib import Path
from typing import Any

import bench_freshness_week
import front_desk

from roomsync.app.daemon import planner as planner_module
from roomsync.app.daemon.planning import Shapes
from roomsync.app.daemon.poll_plan import PollPlan
from roomsync.app.sync import SyncReport

MAX_GAPS = {"poll": 900.0, "detect": 1800.0}
"""The max gaps the plan keeps (the settings' defaults)."""


def traced(rows: list[dict[str, Any]]) -> None:
    """Wrap the planner so each plan and each run is appended to ``rows``."""
    replan, run_seen = planner_module.Planner.replan, planner_module.Planner.run_seen

    shape_days: set[str] = set()

    def plan_recorded(self: planner_module.Planner) -> PollPlan:
        plan = replan(self)
        snapshot = self.gate.snapshot()
        today = self.clock().date().isoformat()
        if today not in shape_days:  # the learned week as the day's first plan had it
            shape_days.add(today)
            shapes = self.shapes or Shapes.default()
            rows.append({"t": "shape", "day": today, "poll": shapes.availability, "detect": shapes.detection})
        rows.append(
            {
                "t": "plan",
                "at": self.clock().isoformat(),
                "used": snapshot.used_local,
                "polls": plan.polls_until_reset,
                "detections": plan.detections_until_reset,
                "poll_interval": plan.interval,
                "detect_interval": plan.detect_interval,
                "windows": self.costs.check_windows,
                "detect_cost": self.costs.planned_detect_cost(snapshot.quota),
                "split": plan.detect_share,
            }
        )
        return plan

    def run_recorded(self: planner_module.Planner, kind: str, report: SyncReport) -> None:
        found = bool(report.pms.closure_edits or report.pms.price_edits)
        # the run's start, as the bench counts a change's wait: its end, in compressed time, adds
        # the run's real duration times the compression (a poll of 50 ms: 14 s at a day in 300 s)
        at, ended = report.started_at.isoformat(), self.clock().isoformat()
        rows.append(
            {"t": "run", "kind": kind, "at": at, "ended": ended, "requests": report.requests, "found": found}
        )
        run_seen(self, kind, report)

    planner_module.Planner.replan = plan_recorded  # type: ignore[method-assign]
    planner_module.Planner.run_seen = run_recorded  # type: ignore[method-assign]


def midnight_plan_p95(
    runs: int, day: datetime, max_gap: float, kind: str, shares: list[float] | None = None
) -> float:
    """The p95 for this desk of ``runs`` placed as the plan places them from midnight
    (:func:`bench_freshness_week.aimed_by_hour`: the p95's cut for the polls, the cube root for
    the detections), evenly within each hour, by ``shares`` (each hour's share of the changes; the
    desk's own when None)."""
    shares = shares if shares is not None else front_desk.hour_weights()
    aimed = bench_freshness_week.aimed_by_hour(shares, runs, max_gap, cut=kind == "poll")
    per_hour = [round(count) for count in aimed]
    in_hours = [day + timedelta(hours=hour) for hour, count in enumerate(per_hour) for _ in range(count)]
    starts = front_desk.evenly_within_hours(in_hours, day)
    return front_desk.schedule_p95([*starts, day + timedelta(days=1, seconds=max_gap)], day, [1])


def day_of_week_shape(week: list[float], weekday: int) -> list[float]:
    """The 24 hours of ``weekday`` (0: Monday) of a learned week's 168 shares."""
    return list(week[weekday * 24 : weekday * 24 + 24])


def best_p95_for_windows(budget: float, window_cost: list[float]) -> float:
    """The lowest p95 any schedule gets from ``budget`` requests of check windows when a detection
    in hour ``h`` reads ``window_cost[h]`` windows (the closures known then): for a p95 of ``L``, a
    run covers ``L`` seconds of its hour, worth that hour's share of the desk's changes, so the
    best schedule buys the hours by share per window first (a fractional knapsack), and ``L`` is
    the least that reaches 95 %. What locating a change costs (the same whatever the schedule) is
    not in ``budget``; one run is added, as in :func:`front_desk.best_p95_by_day`."""
    weights = front_desk.hour_weights()
    order = sorted(range(24), key=lambda h: weights[h] / window_cost[h], reverse=True)
    budget += sum(window_cost) / 24

    def covered(wait: float) -> float:
        left, share = budget, 0.0
        for hour in order:
            runs = min(3600 / wait, left / window_cost[hour])
            share += weights[hour] * runs * wait / 3600
            left -= runs * window_cost[hour]
            if left <= 0:
                break
        return share

    return front_desk.least_wait(lambda wait: covered(wait) >= 0.95, low=1.0)


PlannedWindows = list[tuple[datetime, int]]
"""Each plan's instant and the next detection's check windows, in the order they were made."""


def windows_by_hour(plans: PlannedWindows, day: datetime) -> list[float]:
    """Each hour's check windows on ``day``: the mean of its plans' (the hour before's when none)."""
    costs: list[float] = []
    for hour in range(24):
        start, end = day + timedelta(hours=hour), day + timedelta(hours=hour + 1)
        seen = [windows for at, windows in plans if start <= at < end]
        costs.append(sum(seen) / len(seen) if seen else (costs[-1] if costs else 1.0))
    return [max(cost, 1.0) for cost in costs]


def windows_read(plans: PlannedWindows, run_starts: list[datetime]) -> float:
    """The check windows the detections starting at ``run_starts`` read (the last plan's before each)."""
    total = 0.0
    for start in run_starts:
        index = bisect.bisect_right(plans, start, key=lambda plan: plan[0]) - 1
        total += max(plans[index][1], 1) if index >= 0 else 1
    return total


def report(rows: list[dict[str, Any]]) -> None:
    runs = [r for r in rows if r["t"] == "run"]
    plans = [(datetime.fromisoformat(r["at"]), r["windows"]) for r in rows if r["t"] == "plan"]
    days = sorted({datetime.fromisoformat(r["at"]).date() for r in runs})[1:]  # the first: the evening before
    shapes = {
        (r["day"], kind): day_of_week_shape(r[kind], datetime.fromisoformat(r["day"]).weekday())
        for r in rows
        if r["t"] == "shape"
        for kind in ("poll", "detect")
    }
    for kind, max_gap in MAX_GAPS.items():
        starts = sorted(datetime.fromisoformat(r["at"]) for r in runs if r["kind"] == kind)
        for date in days:
            day = datetime.fromisoformat(f"{date.isoformat()}T00:00:00+00:00")
            of_day = [t for t in starts if day <= t < day + timedelta(days=1)]
            if not of_day:
                continue
            following = [t for t in starts if t >= day + timedelta(days=1)][:1]
            own = front_desk.schedule_p95(of_day + following, day, [1])
            bound = front_desk.best_p95_by_day([len(of_day)], [1])
            placed = midnight_plan_p95(len(of_day), day, max_gap, kind)
            shape = shapes.get((date.isoformat(), kind))
            learned = midnight_plan_p95(len(of_day), day, max_gap, kind, shape) if shape else float("nan")
            by_hour = [sum(1 for t in of_day if t.hour == hour) for hour in range(24)]
            print(
                f"{date} {kind}: {len(of_day)} runs; own p95 {own:.0f} s ({own / bound:.2f}x the bound "
                f"{bound:.0f} s); as the midnight plan places them {placed:.0f} s ({placed / bound:.2f}x); "
                f"so placed by the week it had learned by midnight {learned:.0f} s ({learned / bound:.2f}x)"
            )
            if kind == "detect":
                spent = windows_read(plans, of_day)
                by_windows = best_p95_for_windows(spent, windows_by_hour(plans, day))
                print(
                    f"    for the {spent:.0f} check windows they read, at each hour's windows: the bound "
                    f"{by_windows:.0f} s; own p95 {own / by_windows:.2f}x it"
                )
            print(f"    by hour {by_hour}")


def main() -> int:
    if len(sys.argv) < 2 or not sys.argv[1].endswith(".jsonl"):
        print("usage: trace_freshness_week.py TRACE.jsonl [the week bench's options]", file=sys.stderr)
        return 2
    path = Path(sys.argv.pop(1))
    rows: list[dict[str, Any]] = []
    traced(rows)
    try:
        code = bench_freshness_week.main()
    finally:
        path.write_text("".join(json.dumps(row) + "\n" for row in rows))
    report(rows)
    return code


if __name__ == "__main__":
    sys.exit(main())
