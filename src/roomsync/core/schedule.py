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

from roomsync.core.burst import Burst
from roomsync.core.run_placement import burst_weight, day_placement


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
class NextDue:
    """Seconds until the next run of each slower job; None where it is not known (counted as due
    at once, and again every interval)."""

    price_detection: float | None = None
    reconciliation: float | None = None
    connected_repush: float | None = None


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


def other_jobs_cost(
    seconds_to_reset: float, listings: int, costs: JobCosts, cadence: Cadence, due: NextDue = NextDue()
) -> int:
    """Requests the slower jobs (full syncs, reconciliation, re-push) need until the reset: the
    runs ``due`` falls before it (a job due after the reset costs nothing today: a reconciliation
    every few days on a free licence is not held back from every day's polls)."""
    until = max(seconds_to_reset, 1.0)

    def runs(every: float, first: float | None) -> int:
        if first is None:
            return math.ceil(until / every)
        return 0 if first >= until else 1 + math.floor((until - first) / every)

    return (
        runs(cadence.price_detection, due.price_detection) * costs.price_detection
        + runs(cadence.reconciliation, due.reconciliation) * costs.reconciliation_per_listing * listings
        + runs(cadence.connected_repush, due.connected_repush) * costs.connected_repush
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
            poll_interval=math.inf,
            polls_until_reset=0,
            requests_for_polling=0,
            requests_for_other_jobs=other_jobs,
            guest_reserve=guest_reserve,
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
    base_share: float, seen_by_polls: float, seen_by_detection: float, *, mix_prior_changes: float = 20.0
) -> float:
    """The share of polling's budget the closure and price detection gets, given how many changes
    each kind of run has seen lately (decayed counts); ``base_share`` is its share for the
    :data:`DEFAULT_MIX`, which also counts as ``mix_prior_changes`` changes seen (not the learned
    week's prior, :data:`roomsync.core.activity.PRIOR_MASS`: that one says when, this one how many
    of each kind).

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
    polls = max(seen_by_polls, 0.0) + mix_prior_changes * polls0
    detection = max(seen_by_detection, 0.0) + mix_prior_changes * detection0
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
    """False when the budget cannot keep ``max_gap`` (the plan then places its runs by the shape
    alone, with no floor)."""
    p95_wait: float = math.inf
    """The wait until the next run that 95 % of the changes made between now and the reset stay
    within, the changes coming as the shape says (:func:`wait_percentile`): what the plan promises."""


def shape_runs(
    *,
    shape: Sequence[float],
    hour: int,
    seconds_into_hour: float,
    seconds_to_reset: float,
    runs: float,
    min_interval: float,
    max_gap: float,
    burst: Burst | None = None,
    cut: bool = False,
) -> KindPlan:
    """Spend ``runs`` until the reset where ``shape`` (share of changes per hour of the week,
    ``hour`` the current one) says the changes come, never waiting longer than ``max_gap`` nor
    less than ``min_interval`` between two runs; when even ``max_gap`` does not fit the budget,
    the budget wins (``gap_kept`` says so) and the shape alone places the runs: spread evenly over
    the day, a third of them would wait for changes in the night, and the p95 would be 1.28x its
    bound for as many runs instead of 1.16x (``benches/model_run_weights.py``, 20-90 runs). A
    ``burst`` raises the share of the time it covers to its own where the shape's is lower, and
    its runs come at most its ``gap`` apart where the budget affords that beside every ``max_gap``
    (else as if no burst), and never more than its ``most_runs`` (an hour's cap on the spend).

    Why a floor and not the share alone: the cube-root weights below spread the day's runs for its
    95th percentile, so half an hour with ten times the rate of the evening gets only 2.2 times
    its runs; a front desk's busy hour, whose changes should each show within minutes, is
    served by keeping its gap, paid for by the quiet hours.

    The allocation is a water-filling: every slot of time (an hour, or the part of one that a
    burst covers) first gets the runs its ``max_gap`` needs, the rest goes to the slots in
    proportion to :func:`run_weights` (the cube root of their share of changes), a slot never
    above one run per ``min_interval``.

    With ``cut`` and the max gap kept, the rest goes instead by the p95's cut
    (:mod:`.run_placement`): the hours above it at one gap, those below at their max gap only, a
    burst's slot as densely as the hours above the cut and more by the cube root of how much
    busier it is than the week expected of its hour. Not where the max gap cannot be kept: the
    hours below the cut would get no run at all.
    """
    if len(shape) == 0:
        raise ValueError("shape_runs needs a shape with at least one hour")
    seconds_to_reset = max(seconds_to_reset, 1.0)
    if runs < 1:
        return KindPlan(math.inf, 0.0, math.inf, False)
    slots: list[tuple[float, float]] = []  # (seconds, weight of the slot)
    changes: list[float] = []  # the share of the changes each slot is expected to bring
    edges = slot_edges(seconds_into_hour, seconds_to_reset, burst)
    placement = day_placement(shape, hour, seconds_to_reset, runs, min_interval, max_gap) if cut else None
    cut_weights: list[float] = []
    for start, end, hours in edges:
        at = (hour + hours) % len(shape)
        own = share = max(shape[at], 0.0)
        if burst is not None and start < burst.seconds:
            share = max(share, burst.share_per_hour)
        slots.append((end - start, run_weights([share])[0]))
        if placement is not None:
            weight = placement.weights[hours % len(placement.weights)]
            if share > own:  # a burst above its hour's share
                weight = max(weight, 1.0) * burst_weight(share, own or placement.cut_share)
            cut_weights.append(weight)
        changes.append((end - start) / 3600.0 * share)
    if sum(changes) <= 0:  # nothing expected before the reset: a change is as likely at any time
        changes = [length for length, _ in slots]
    # each slot's runs at the max gap (a burst's cap never takes a slot below them); the floors
    # actually given are these, a burst's tighter ones, or none when no gap can be kept
    max_gap_floors = [length / max_gap for length, _ in slots]
    floors = max_gap_floors
    if burst is not None and burst.gap < max_gap:
        tighter = [
            length / max(burst.gap, min_interval) if start < burst.seconds else floor
            for (length, _), floor, (start, _, _) in zip(slots, floors, edges, strict=True)
        ]
        if sum(tighter) < runs:
            floors = tighter
    kept = sum(floors) < runs
    if not kept:  # no gap can be kept: the shape alone places the runs
        floors = [0.0] * len(slots)
    elif placement is not None:
        slots = [(length, weight) for (length, _), weight in zip(slots, cut_weights, strict=True)]
    caps = [length / min_interval for length, _ in slots]
    if burst is not None and math.isfinite(burst.most_runs):
        caps = [
            min(cap, max(burst.most_runs * length / burst.seconds, floor)) if start < burst.seconds else cap
            for cap, (length, _), (start, _, _), floor in zip(caps, slots, edges, max_gap_floors, strict=True)
        ]
    given = [min(floor, cap) for floor, cap in zip(floors, caps, strict=True)]
    open_slots = {i for i in range(len(slots)) if given[i] < caps[i]}
    extra = runs - sum(given)
    while extra > 1e-9 and open_slots:
        weight = sum(slots[i][0] * slots[i][1] for i in open_slots)
        if weight <= 0:  # no change expected in any open slot: spread by time
            weight = sum(slots[i][0] for i in open_slots)
            portions = {i: extra * slots[i][0] / weight for i in open_slots}
        else:
            portions = {i: extra * slots[i][0] * slots[i][1] / weight for i in open_slots}
        extra = 0.0
        for i, portion in portions.items():
            room = caps[i] - given[i]
            if portion >= room:
                given[i] = caps[i]
                extra += portion - room
                open_slots.discard(i)
            else:
                given[i] += portion
    gaps = [length / n if n > 0 else math.inf for (length, _), n in zip(slots, given, strict=True)]
    if kept:
        interval = min(max(gaps[0], min_interval), max_gap)
    else:  # a slot may hold a fraction of a run: the next one is where the first whole run falls
        interval = max(_first_run(slot_lengths=[length for length, _ in slots], runs=given), min_interval)
    promised = wait_percentile(list(zip(changes, gaps, strict=True)), PROMISED_SHARE)
    return KindPlan(interval, sum(given), max(g for g in gaps if math.isfinite(g)), kept, promised)


def _first_run(*, slot_lengths: Sequence[float], runs: Sequence[float]) -> float:
    """Seconds from now until the plan's runs add up to one (each slot's spread evenly over it)."""
    elapsed, needed = 0.0, 1.0
    for length, count in zip(slot_lengths, runs, strict=True):
        if count >= needed:
            return elapsed + length * needed / count
        needed -= count
        elapsed += length
    return elapsed


def slot_edges(
    seconds_into_hour: float, seconds_to_reset: float, burst: Burst | None
) -> list[tuple[float, float, int]]:
    """The slots of time from now (0) to the reset, as (start, end, whole hours from the current
    hour's start): one per hour, the hour a burst ends in cut at its end. Each hour's edges are
    computed from its own count, never summed, so a slot is never taken for the hour before."""
    slots: list[tuple[float, float, int]] = []
    hours = 0
    while (start := max(3600.0 * hours - seconds_into_hour, 0.0)) < seconds_to_reset - 1e-9:
        end = min(3600.0 * (hours + 1) - seconds_into_hour, seconds_to_reset)
        cut = burst.seconds if burst is not None else math.inf
        if start + 1e-9 < cut < end - 1e-9:
            slots += [(start, cut, hours), (cut, end, hours)]
        elif end - start > 1e-9:
            slots.append((start, end, hours))
        hours += 1
    return slots


PROMISED_SHARE = 0.95
"""The share of changes a plan's promise covers: its 95th percentile."""


def wait_percentile(slots: Sequence[tuple[float, float]], share: float) -> float:
    """The wait ``L`` that ``share`` of the changes stay within, for slots of time given as
    (weight of the changes it brings, gap between its runs): a change arriving at a uniformly
    random moment of a slot whose runs are ``gap`` apart waits more than ``L`` with probability
    ``1 - L / gap``, so ``L`` solves ``sum(p * max(0, 1 - L / gap)) = 1 - share``, ``p`` being each
    slot's part of the weights. That sum falls piecewise linearly in ``L``: the slots are taken
    from the longest gap down, each line solved on its own stretch."""
    total = sum(weight for weight, _ in slots if weight > 0)
    if total <= 0 or not 0 < share < 1:
        raise ValueError(f"wait_percentile needs a positive weight and a share in (0, 1), got {share!r}")
    tail = 1 - share
    never = sum(weight for weight, gap in slots if weight > 0 and gap == math.inf) / total
    if never > tail:  # more than the tail waits past any L (no run before the reset)
        return math.inf
    ordered = sorted(((gap, weight / total) for weight, gap in slots if weight > 0), reverse=True)
    mass = slope = 0.0  # over the slots whose gap passes L: sum(p), sum(p / gap)
    for i, (gap, part) in enumerate(ordered):
        mass += part
        if gap == math.inf:  # waits past any L: within the tail, by the check above
            continue
        slope += part / gap
        below = ordered[i + 1][0] if i + 1 < len(ordered) else 0.0
        wait = (mass - tail) / slope
        if below <= wait <= gap:
            return wait
    return 0.0


RUN_WEIGHT_EXPONENT = 1 / 3
"""The power of an hour's share of changes that weighs its runs (:func:`run_weights`)."""


def run_weights(shape: Sequence[float]) -> list[float]:
    """How densely :func:`shape_runs` runs each hour beyond its max gap: the cube root of the
    hour's share of changes (:data:`RUN_WEIGHT_EXPONENT`).

    Runs in proportion to the share itself starve the hours at the margin of the busy day (07:00,
    22:00), whose changes then make the 95th percentile. The square root minimises the MEAN wait
    (for ``n_h`` runs in an hour with ``r_h`` changes, the mean wait is ``sum(r_h / n_h) / 2`` per
    hour's changes, least for ``n_h`` proportional to ``sqrt(r_h)``); the targets are 95th
    percentiles, which a flatter spread serves better. On the week benchmark's front desk, its
    shape known, the p95 over the bound for as many runs (``benches/front_desk.best_p95``):
    proportional 1.58-1.73x, square root 1.22-1.24x, cube root 1.16x, fourth root 1.15x, a tenth
    root 1.22x (470 and 300 polls a day at a 15-minute max gap, 99 detections at 30 minutes;
    ``benches/model_run_weights.py``). The cube root keeps most of the gain and weighs a learned
    week's noise less than the square root."""
    return [max(share, 0.0) ** RUN_WEIGHT_EXPONENT for share in shape]
