"""Trace of the week bench: every plan the daemon made and every run it made, then, per day, where
the runs fell against where the plan made at midnight would have put as many.

Run: ``.venv/bin/python benches/trace_freshness_week.py TRACE.jsonl [the week bench's options]``

Runs :mod:`bench_freshness_week` unchanged, with the planner's ``replan`` and ``run_seen``
wrapped to record (JSON lines in ``TRACE.jsonl``) each plan (the budget used, the polls and
detections it planned until the reset, their intervals, the next detection's check windows and
its planned cost) and each run (kind, requests, check windows, whether a detection found a
change). Then prints, per day and kind: the runs, the schedule's own p95 for the desk's changes
(:func:`front_desk.schedule_p95`), the bound for as many runs (:func:`front_desk.best_p95_by_day`
for the day alone) and the p95 of as many runs placed as the plan places them from midnight (each
hour its max gap's floor, the rest by the cube root of the desk's share, evenly spaced in the
hour), which separates how many runs a day made from where they fell; and the runs by hour.
"""

from __future__ import annotations

import json
import sys
from datetime import datetime, timedelta
from pathlib import Path
from typing import Any

import bench_freshness_week
import front_desk

from roomsync.app.daemon import planner as planner_module
from roomsync.app.daemon.poll_plan import PollPlan
from roomsync.app.sync import SyncReport
from roomsync.core.schedule import run_weights

MAX_GAPS = {"poll": 900.0, "detect": 1800.0}
"""The max gaps the plan keeps (the settings' defaults)."""


def traced(rows: list[dict[str, Any]]) -> None:
    """Wrap the planner so each plan and each run is appended to ``rows``."""
    replan, run_seen = planner_module.Planner.replan, planner_module.Planner.run_seen

    def plan_recorded(self: planner_module.Planner) -> PollPlan:
        plan = replan(self)
        snapshot = self.gate.snapshot()
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
            }
        )
        return plan

    def run_recorded(self: planner_module.Planner, kind: str, report: SyncReport) -> None:
        found = bool(report.pms.closure_edits or report.pms.price_edits)
        at = self.clock().isoformat()
        rows.append({"t": "run", "kind": kind, "at": at, "requests": report.requests, "found": found})
        run_seen(self, kind, report)

    planner_module.Planner.replan = plan_recorded  # type: ignore[method-assign]
    planner_module.Planner.run_seen = run_recorded  # type: ignore[method-assign]


def midnight_plan_p95(runs: int, day: datetime, max_gap: float) -> float:
    """The p95 of ``runs`` placed as the plan places them from midnight, evenly within each hour."""
    shares = front_desk.hour_weights()
    floors = [3600 / max_gap] * 24
    weights = run_weights(shares)
    extra = max(runs - sum(floors), 0.0)
    per_hour = [round(floor + extra * w / sum(weights)) for floor, w in zip(floors, weights, strict=True)]
    in_hours = [day + timedelta(hours=hour) for hour, count in enumerate(per_hour) for _ in range(count)]
    starts = front_desk.evenly_within_hours(in_hours, day)
    return front_desk.schedule_p95([*starts, day + timedelta(days=1, seconds=max_gap)], day, [1])


def report(rows: list[dict[str, Any]]) -> None:
    runs = [r for r in rows if r["t"] == "run"]
    days = sorted({datetime.fromisoformat(r["at"]).date() for r in runs})[1:]  # the first: the evening before
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
            placed = midnight_plan_p95(len(of_day), day, max_gap)
            by_hour = [sum(1 for t in of_day if t.hour == hour) for hour in range(24)]
            print(
                f"{date} {kind}: {len(of_day)} runs; own p95 {own:.0f} s ({own / bound:.2f}x the bound "
                f"{bound:.0f} s); as the midnight plan places them {placed:.0f} s ({placed / bound:.2f}x)"
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
