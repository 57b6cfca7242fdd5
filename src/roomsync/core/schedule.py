"""Planning the day's polling against the request quota (pure arithmetic, no clock).

The daemon asks this module, each time a job finishes, how long to wait before the next one.
The answer spends what is left of today's quota evenly over the time left until the quota
resets, after keeping back:

* the guest reserve (guest-facing checks and reservation writes are never starved),
* the cost of the other planned jobs until the reset (price change detection, reconciliation,
  the daily connected-channel re-push),

so polling gets faster when the day has been quiet and slower when other applications of the
property have been spending. The plan also says how stale the channel can get, which is what an
operator on a free licence (100 requests a day) needs to know.
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import dataclass


@dataclass(frozen=True)
class JobCosts:
    """Requests each job is expected to spend."""

    availability_poll: int = 3
    """An unchanged property: room availability, closures, one price-window total."""
    changed_listing_push: int = 1
    """Each listing that changed adds one PUT Inventory."""
    price_detection: int = 2
    """Extra CombinedExtended reads per price check when something changed."""
    reconciliation_per_listing: int = 1
    """One Inventory read per listing."""
    connected_repush: int = 1
    """One POST Prices with every element."""


@dataclass(frozen=True)
class Cadence:
    """How often the slower jobs run (seconds); the availability poll is planned from what is left."""

    price_detection: float = 3 * 3600
    reconciliation: float = 12 * 3600
    connected_repush: float = 24 * 3600
    min_poll: float = 60
    """Never poll more often than this, however much budget is left."""
    max_poll: float = 6 * 3600
    """Poll at least this often while any budget is left."""


@dataclass(frozen=True)
class SchedulePlan:
    poll_interval: float
    """Seconds until the next availability poll; ``math.inf`` when no budget is left for polling."""
    polls_until_reset: int
    requests_for_polling: int
    requests_for_other_jobs: int
    guest_reserve: int
    staleness_bound: float
    """Longest a PMS change can wait before it reaches the channel (one interval plus the poll)."""
    explanation: str


def other_jobs_cost(seconds_to_reset: float, listings: int, costs: JobCosts, cadence: Cadence) -> int:
    """Requests the slower jobs (full syncs, reconciliation, re-push) need until the reset."""

    def runs(every: float) -> int:
        return math.ceil(max(seconds_to_reset, 1.0) / every)

    return (
        runs(cadence.price_detection) * costs.price_detection
        + runs(cadence.reconciliation) * costs.reconciliation_per_listing * listings
        + runs(cadence.connected_repush) * costs.connected_repush
    )


def plan_schedule(
    *,
    quota: int,
    used: int,
    seconds_to_reset: float,
    guest_reserve: int,
    listings: int,
    expected_changed_listings: float = 0.5,
    costs: JobCosts = JobCosts(),
    cadence: Cadence = Cadence(),
) -> SchedulePlan:
    """The polling plan for the rest of the quota day."""
    seconds_to_reset = max(seconds_to_reset, 1.0)
    remaining = max(quota - used, 0)
    other_jobs = other_jobs_cost(seconds_to_reset, listings, costs, cadence)
    for_polling = remaining - guest_reserve - other_jobs
    if for_polling < 0:
        # Not even the slower jobs fit: drop them (the plan says so) and keep polling alive.
        other_jobs = 0
        for_polling = remaining - guest_reserve
    per_poll = costs.availability_poll + expected_changed_listings * costs.changed_listing_push
    polls = int(for_polling // per_poll) if for_polling > 0 else 0
    if polls == 0:
        return SchedulePlan(
            poll_interval=math.inf, polls_until_reset=0, requests_for_polling=0,
            requests_for_other_jobs=other_jobs, guest_reserve=guest_reserve,
            staleness_bound=math.inf,
            explanation=(
                f"{remaining} requests left today, {guest_reserve} kept for guests: "
                f"no polling until the quota resets in {seconds_to_reset / 3600:.1f} h"
            ),
        )
    interval = min(max(seconds_to_reset / polls, cadence.min_poll), cadence.max_poll)
    polls = min(polls, math.ceil(seconds_to_reset / interval))
    staleness = interval + 30.0
    return SchedulePlan(
        poll_interval=interval,
        polls_until_reset=polls,
        requests_for_polling=math.ceil(polls * per_poll),
        requests_for_other_jobs=other_jobs,
        guest_reserve=guest_reserve,
        staleness_bound=staleness,
        explanation=(
            f"{remaining} of {quota} requests left, {guest_reserve} kept for guests, {other_jobs} for "
            f"price checks/reconciliation/re-push: polling every {interval / 60:.1f} min "
            f"({polls} polls until the reset); a PMS change reaches the channel within "
            f"{staleness / 60:.1f} min"
        ),
    )


# --- each kind of change on its own cadence, shaped by when changes happen -------------------------

DEFAULT_MIX = (30.0, 29.0)
"""Changes the availability poll sees : changes the detection sees, before anything is learned:
the mix of a front desk watched from outside (issue 18: 23 bookings and 7 cancellations; 9
closures and reopenings and 20 price edits)."""


def detection_share(
    base_share: float, seen_by_polls: float, seen_by_detection: float, *, prior_mass: float = 20.0
) -> float:
    """The share of polling's budget the closure and price detection gets, given how many changes
    each kind of run has seen lately (decayed counts); ``base_share`` is its share for the
    :data:`DEFAULT_MIX`, which also counts as ``prior_mass`` changes seen.

    Why a square root: with runs of kind ``k`` costing ``c_k`` each and its changes coming at rate
    ``r_k``, the sum over changes of wait / target is least when kind ``k`` gets ``n_k`` runs with
    ``n_k`` proportional to ``sqrt(r_k / (target_k * c_k))``, i.e. a budget share proportional to
    ``sqrt(r_k * c_k / target_k)`` (Lagrange). Costs and targets are what ``base_share`` was set
    for; the rates are what changes: so each kind's weight is its base share times the square root
    of how much its part of the mix grew or shrank. A front desk that never edits a price moves
    most of the detection's budget to the polls, and back when it starts."""
    if not 0 < base_share < 1:
        raise ValueError(f"base_share={base_share!r}: must be between 0 and 1")
    polls0, detection0 = (part / sum(DEFAULT_MIX) for part in DEFAULT_MIX)
    polls = max(seen_by_polls, 0.0) + prior_mass * polls0
    detection = max(seen_by_detection, 0.0) + prior_mass * detection0
    total = polls + detection
    weight_detection = base_share * math.sqrt((detection / total) / detection0)
    weight_polls = (1 - base_share) * math.sqrt((polls / total) / polls0)
    return weight_detection / (weight_detection + weight_polls)



@dataclass(frozen=True)
class KindPlan:
    """When to run one kind's detection next, and what the rest of the quota day looks like."""

    interval: float
    """Seconds until the next run (``math.inf``: no run before the reset)."""
    runs_until_reset: float
    longest_gap: float
    """The longest wait between two runs in the rest of the day's plan: how stale it can get."""
    gap_kept: bool
    """False when the budget cannot keep ``max_gap`` (the plan then spreads what it has evenly)."""


def shape_runs(
    *,
    shape: Sequence[float],
    hour: int,
    seconds_into_hour: float,
    seconds_to_reset: float,
    runs: float,
    min_interval: float,
    max_gap: float,
    covered_share: float = 0.95,
) -> KindPlan:
    """Spend ``runs`` until the reset where ``shape`` (share of changes per hour of the week,
    ``hour`` the current one) says the changes come, never waiting longer than ``max_gap`` nor
    less than ``min_interval`` between two runs; when even ``max_gap`` does not fit the budget,
    the runs are spread evenly (the budget wins, and ``gap_kept`` says so).

    The allocation makes the ``covered_share`` percentile of the wait (the 95th by default) as
    short as the budget allows. A change waits at most one interval, so an hour run at interval
    ``T`` has the share ``L / T`` of its changes within ``L``: having ``covered_share`` of the week's
    changes within ``L`` at the fewest runs is a linear programme whose answer fills the busiest
    hours of the week first (:func:`hour_coverage`: 1 for those, a part for the hours at the
    margin, 0 for the quietest). Each hour then gets the run density ``coverage * d`` (at least
    its ``max_gap``'s, at most ``min_interval``'s), ``d`` as high as the budget until the reset
    allows; what the covered hours cannot take goes evenly to the others. The coverage is a
    property of the hour (decided on the day's profile, :func:`daily_profile`), not of the time
    left, so the plan made again after every run keeps the same shape.
    """
    if len(shape) == 0:
        raise ValueError("shape_runs needs a shape with at least one hour")
    if not 0 < covered_share <= 1:
        raise ValueError(f"covered_share={covered_share!r}: must be in (0, 1]")
    seconds_to_reset = max(seconds_to_reset, 1.0)
    if runs < 1:
        return KindPlan(math.inf, 0.0, math.inf, False)
    coverage = run_weights(shape, covered_share)
    slots: list[tuple[float, float]] = []  # (seconds, coverage of the hour)
    left, offset, first = seconds_to_reset, 0, True
    while left > 1e-9:
        length = min(3600.0 - seconds_into_hour if first else 3600.0, left)
        slots.append((length, coverage[(hour + offset) % len(shape)]))
        left -= length
        offset += 1
        first = False
    floor, ceiling = 1.0 / max_gap, max(1.0 / min_interval, 1.0 / max_gap)
    if sum(length * floor for length, _ in slots) >= runs:
        interval = max(seconds_to_reset / runs, min_interval)
        return KindPlan(interval, runs, interval, False)

    def density(part: float, d: float) -> float:
        return min(ceiling, max(floor, part * d))

    def spent(d: float) -> float:
        return sum(length * density(part, d) for length, part in slots)

    low, high = 0.0, ceiling / max(min((p for _, p in slots if p > 0), default=1.0), 1e-9)
    if spent(high) <= runs:  # the covered hours at their fastest: the rest to the others, evenly
        low = high
    else:
        for _ in range(100):
            middle = (low + high) / 2
            if spent(middle) <= runs:
                low = middle
            else:
                high = middle
    densities = [density(part, low) for _, part in slots]
    open_seconds = sum(length for (length, _), d in zip(slots, densities, strict=True) if d < ceiling)
    rest = runs - spent(low)
    if rest > 1e-9 and open_seconds > 0:
        densities = [min(ceiling, d + rest / open_seconds) if d < ceiling else d for d in densities]
    given = sum(length * d for (length, _), d in zip(slots, densities, strict=True))
    if abs(given - runs) < 1e-6:  # the budget spent to the last run, up to rounding
        given = runs
    interval = min(max(1.0 / densities[0], min_interval), max_gap)
    return KindPlan(interval, given, max(1.0 / d for d in densities), True)


def run_weights(shape: Sequence[float], covered_share: float = 0.95) -> list[float]:
    """How densely :func:`shape_runs` runs each hour of ``shape``, relative to its busiest: the
    coverage of the hour. A day's pace spent in proportion to these weights still ahead
    (:func:`share_ahead`) gives every hour the density the plan made for it."""
    return hour_coverage(daily_profile(shape), covered_share)


def daily_profile(shape: Sequence[float]) -> list[float]:
    """A week's shape (168 hours) with each hour replaced by the mean of its hour of the day over
    the seven days; other lengths as they are. A week holds few changes per hour of the week, so
    which hours count as the busiest is decided on the day's profile, seven times the evidence;
    the week's own shape still sets how much of the day's pace each day gets."""
    if len(shape) != 168:
        return list(shape)
    return [sum(shape[day * 24 + hour % 24] for day in range(7)) / 7 for hour in range(168)]


def hour_coverage(shape: Sequence[float], covered_share: float) -> list[float]:
    """Per hour of ``shape``, the share of its changes a schedule aiming at ``covered_share`` of all
    changes within one interval covers: 1 for the busiest hours, which together carry less than
    ``covered_share``; then the hours of the next share all get the same part, enough to reach
    ``covered_share``; 0 for the quieter ones. A shape that expects nothing covers every hour."""
    total = sum(max(share, 0.0) for share in shape)
    if total <= 0:
        return [1.0] * len(shape)
    coverage = [0.0] * len(shape)
    needed = covered_share * total
    for share in sorted({max(value, 0.0) for value in shape}, reverse=True):
        group = [i for i, value in enumerate(shape) if max(value, 0.0) == share]
        mass = share * len(group)
        if needed <= 1e-12 or mass <= 0:
            break
        part = min(1.0, needed / mass)
        for i in group:
            coverage[i] = part
        needed -= mass * part
    return coverage


def share_ahead(
    shape: Sequence[float], hour: int, seconds_into_hour: float, seconds_to_reset: float
) -> float:
    """The share of a quota day's expected changes still ahead: those of ``shape`` (per hour of the
    week, ``hour`` the current one) until the reset, over those of the 24 hours ending at it. A
    day's pace spent in this proportion follows the changes instead of the clock: a quiet night
    does not hand the busy afternoon less than it needs. 1 when the reset is a day or more away;
    the share of the time left when the shape expects nothing."""
    day = 86_400.0
    if seconds_to_reset >= day:
        return 1.0
    size = len(shape)

    def mass(start_hour: int, start_into: float, seconds: float) -> float:
        total, position, into = 0.0, start_hour, start_into
        while seconds > 1e-9:
            length = min(3600.0 - into, seconds)
            total += length * max(shape[position % size], 0.0)
            seconds -= length
            position, into = position + 1, 0.0
        return total

    ahead = mass(hour, seconds_into_hour, seconds_to_reset)
    behind_seconds = day - seconds_to_reset
    start = hour * 3600.0 + seconds_into_hour - behind_seconds
    start_hour = math.floor(start / 3600.0)
    behind = mass(start_hour, start - start_hour * 3600.0, behind_seconds)
    if ahead + behind <= 0:
        return seconds_to_reset / day
    return ahead / (ahead + behind)


def _busiest_slots(slots: Sequence[tuple[float, float]], covered_share: float) -> set[int]:
    """The slots with the most changes per second, latest first among equals, until together they
    carry ``covered_share`` of the changes expected in all the slots (all of them when none is)."""
    mass = [length * share for length, share in slots]
    total = sum(mass)
    if total <= 0:
        return set(range(len(slots)))
    chosen: set[int] = set()
    carried = 0.0
    for i in sorted(range(len(slots)), key=lambda i: (-slots[i][1], -i)):
        if carried >= covered_share * total - 1e-12:
            break
        chosen.add(i)
        carried += mass[i]
    return chosen
