"""Model: how many days of a front desk the learned week needs before the plan it shapes is as
good as the desk's own hours, per prior mass.

Run: ``.venv/bin/python benches/model_learned_week.py [--seeds 16] [--cut]``

No daemon and no emulator: the week bench's front desk (:func:`front_desk.change_times`, 24
changes a day, a week starting on a Monday) is learned the way the daemon learns it
(:func:`roomsync.core.activity.week_shape` over :func:`roomsync.core.activity.observe`, each
change seen by the run after it, ``SEEN_AFTER`` seconds later on average), then one day of the
daemon's own allocation (:func:`roomsync.core.schedule.shape_runs` from midnight, 470 polls or
80 detections, their max gaps) is spread evenly within each hour and measured against the desk's
hours: the p95 wait and its ratio to the bound for as many runs (:func:`front_desk.best_p95`).
The first column is the allocation with the desk's shape known (no learning): the floor any
learning can reach.
"""

from __future__ import annotations

import argparse
import random
import statistics
from datetime import UTC, datetime, timedelta

from front_desk import best_p95, change_times, hour_weights
from model_run_weights import p95_wait

from roomsync.core.activity import HOURS_OF_WEEK, LearnedWeight, hour_of_week, observe, week_shape
from roomsync.core.schedule import shape_runs

MONDAY = datetime(2027, 3, 1, tzinfo=UTC)
HALF_LIFE = timedelta(days=14)
PRIOR_MASSES = (20.0, 60.0, 120.0, 240.0)
DAYS_LEARNED = (1, 3, 7, 28)
CASES = ((470, 900.0, 60.0, 0.5), (80, 1800.0, 120.0, 0.5))
"""(runs a day, max gap, min interval, share of the desk's changes the kind sees)."""
SEEN_AFTER = 240.0
"""The mean wait from a change to the run that sees it (a poll every 2-4 minutes by day)."""


def learned(rng: random.Random, days: int, seen_share: float) -> dict[int, LearnedWeight]:
    weights: dict[int, LearnedWeight] = {}
    for made, _ in change_times(rng, MONDAY - timedelta(days=days), days, 24):
        if rng.random() >= seen_share:
            continue
        at = made + timedelta(seconds=rng.uniform(0, 2 * SEEN_AFTER))
        hour = hour_of_week(at)
        weights[hour] = observe(weights.get(hour), at, HALF_LIFE)
    return weights


def p95_of(shape: tuple[float, ...], runs: int, gap: float, minimum: float, cut: bool = False) -> float:
    """The p95 of one Monday of ``shape_runs`` from midnight, as the desk makes its changes
    (``cut``: the polls' placement by the p95's cut, :mod:`roomsync.core.run_placement`)."""
    per_hour: list[float] = []
    for hour in range(24):  # the plan as made at each hour's start, the runs of that hour taken
        left = runs - sum(per_hour)
        plan = shape_runs(
            shape=shape,
            hour=hour,
            seconds_into_hour=0.0,
            seconds_to_reset=(24 - hour) * 3600.0,
            runs=left,
            min_interval=minimum,
            max_gap=gap,
            cut=cut,
        )
        per_hour.append(3600.0 / plan.interval if plan.interval > 0 else 0.0)
    raw = hour_weights()
    return p95_wait([w / sum(raw) for w in raw], per_hour)


def main() -> None:
    parser = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    parser.add_argument("--seeds", type=int, default=16)
    parser.add_argument("--cut", action="store_true", help="place the runs by the p95's cut (the polls')")
    args = parser.parse_args()
    raw = hour_weights()
    known = tuple(raw[h % 24] / sum(raw) / 7 for h in range(HOURS_OF_WEEK))
    for runs, gap, minimum, seen_share in CASES:
        bound = best_p95(runs)
        print(
            f"{runs} runs a day, max gap {gap:.0f} s (bound {bound:.0f} s); the desk's shape known: "
            f"{p95_of(known, runs, gap, minimum, args.cut) / bound:.2f}x"
        )
        for mass in PRIOR_MASSES:
            cells = []
            for days in DAYS_LEARNED:
                ratios = []
                for seed in range(args.seeds):
                    weights = learned(random.Random(seed), days, seen_share)
                    shape = week_shape(weights, MONDAY, half_life=HALF_LIFE, prior_mass=mass)
                    ratios.append(p95_of(shape, runs, gap, minimum, args.cut) / bound)
                cells.append(
                    f"{days} d {statistics.median(ratios):.2f}x ({min(ratios):.2f}-{max(ratios):.2f})"
                )
            print(f"  prior of {mass:.0f} changes: " + "; ".join(cells))


if __name__ == "__main__":
    main()
