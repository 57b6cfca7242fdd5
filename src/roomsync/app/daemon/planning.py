"""When to poll availability and when to detect closures and prices next, from today's budget,
the server's reset and the learned shape of the property's week.

What polling may spend until the reset (its *budget*) is what is left of the quota after the
guest reserve and the slower jobs (full syncs, reconciliation, re-push:
:func:`roomsync.core.schedule.other_jobs_cost`), and at most the part of a whole day's polling
(:func:`day_pace`) that the learned week places before the reset (:mod:`roomsync.core.pace`), so
a late start or a quiet morning does not make roomsync spend a day's share in an evening. The
budget is split between the two kinds of detection (``detect_budget_share`` for closures and
prices), and each kind spends its part in proportion to when its changes happen
(:func:`roomsync.core.schedule.shape_runs` over the learned week of :mod:`roomsync.core.activity`),
never waiting longer than its max gap while the budget can afford it.

The reset is the SERVER's (``X-RateLimit-Reset`` of the last answer, as the client's quota gate
recorded it), not the daemon's own idea of midnight. A day on a free licence (100 requests) still
gets a plan, and the plan says how stale the channel can get.
"""

from __future__ import annotations

import math
from dataclasses import dataclass, field, replace
from datetime import datetime
from zoneinfo import ZoneInfo

from roomsync.app.daemon.budget_split import gaps_kept, polls_kept_for
from roomsync.app.daemon.burst_budget import BurstRoom, RecentSpend
from roomsync.app.daemon.poll_plan import PollPlan, explained
from roomsync.core.activity import default_shape, hour_of_week
from roomsync.core.budget import FREE_LICENCE_QUOTA, BudgetSnapshot, Reserves
from roomsync.core.burst import BURST_SECONDS, Burst
from roomsync.core.catalog.types import Priority
from roomsync.core.pace import DAY_SECONDS, share_of_day_left
from roomsync.core.schedule import (
    Cadence,
    JobCosts,
    KindPlan,
    NextDue,
    detection_share,
    other_jobs_cost,
    shape_runs,
)
from roomsync.settings import Settings

PROCESSING_SECONDS = 30.0
"""What a run adds to the wait before its change shows on the channel (reads, then the write)."""

POLL_COSTS = JobCosts(
    availability_poll=1,  # the daemon's poll: one PMS read (the poll of run_kinds)
    changed_listing_push=1,
    price_detection=4,  # a full sync: free rooms, a closure check window or two, a Prices batch
    reconciliation_per_listing=1,
    connected_repush=1,
)


@dataclass(frozen=True)
class Shapes:
    """Share of changes per hour of the local week: availability, and closures with prices."""

    availability: tuple[float, ...]
    detection: tuple[float, ...]
    seen: tuple[float, float] | None = None
    """Changes seen lately (decayed counts) by the polls and by the detection, which set the split
    of the budget between them (:func:`roomsync.core.schedule.detection_share`); None: the split of
    ``detect_budget_share``."""

    @classmethod
    def default(cls) -> Shapes:
        shape = default_shape()
        return cls(shape, shape)


CEILING_MARGIN_SHARE = 0.05
"""The most of the quota the plan keeps under the day's ceiling for a detection costing more than
planned (the guest reserve's share: on a free licence the quota gate refuses beyond it anyway)."""


def seconds_until_reset(resets_at: datetime, now: datetime) -> float:
    """Seconds from ``now`` to the quota's reset, never under one: the plan divides the day's rest
    by it, and a reset the gate has not seen yet is a second away."""
    return max((resets_at - now).total_seconds(), 1.0)


def spend_share_of(settings: Settings, quota: int) -> float:
    """The day's ceiling as a share of ``quota``: ``free_licence_spend_share`` on a free licence,
    ``spend_share`` otherwise."""
    return settings.free_licence_spend_share if quota <= FREE_LICENCE_QUOTA else settings.spend_share


def full_sync_delay(settings: Settings, *, quota: int, last_cost: int, failures: int) -> float:
    """Seconds until the next full sync: ``price_check_interval_seconds``, or longer when the
    last one cost more than ``full_sync_budget_share`` of the day's quota affords at that rate (a
    free licence); after ``failures`` full syncs in a row that ended failed or partial, sooner:
    ``full_sync_retry_seconds``, doubled for each further failure, never later than the regular
    interval. (A listing never synced is written only by a full sync, so a failed one must not
    leave it for hours; what a failed one read is kept, so each try goes further.)"""
    regular = _affordable_every(
        settings.price_check_interval_seconds, last_cost, quota, settings.full_sync_budget_share
    )
    if failures <= 0:
        return regular
    return min(regular, settings.full_sync_retry_seconds * 2 ** (failures - 1))


def reconcile_delay(settings: Settings, *, quota: int, last_cost: int) -> float:
    """Seconds until the next reconciliation: ``reconcile_interval_seconds``, or longer when the
    last one cost more than ``reconcile_budget_share`` of the day's quota affords at that rate. A
    daily reconciliation of the demo hotel (24 requests) took a quarter of a free licence's day and
    halved its polls (the week bench, 2026-11-28)."""
    return _affordable_every(
        settings.reconcile_interval_seconds, last_cost, quota, settings.reconcile_budget_share
    )


def _affordable_every(interval: float, cost: int, quota: int, share: float) -> float:
    """``interval``, or the seconds between runs of ``cost`` that spend ``share`` of a day's ``quota``."""
    return max(interval, DAY_SECONDS * cost / (max(quota, 1) * share))


@dataclass(frozen=True)
class DayCosts:
    """What each kind of run of a property costs, as the daemon knows it, for planning its day."""

    listings: int
    poll_cost: float = 1.5
    detect_cost: float = 1.0
    full_sync_cost: int = POLL_COSTS.price_detection
    full_sync_every: float | None = None
    """Seconds between full syncs (the settings' cadence when None)."""
    reconcile_cost: int | None = None
    """One read per listing when None."""
    reconcile_every: float | None = None
    """Seconds between reconciliations (the settings' cadence when None)."""
    next_due: NextDue = field(default_factory=NextDue)
    """When the slower jobs run next, as the daemon's schedule has them."""


def other_jobs_until(settings: Settings, seconds_to_reset: float, costs: DayCosts) -> int:
    """Requests the slower jobs (full syncs, reconciliation, re-push) need until the reset."""
    cadence = cadence_of(settings)
    if costs.full_sync_every is not None:
        cadence = replace(cadence, price_detection=costs.full_sync_every)
    if costs.reconcile_every is not None:
        cadence = replace(cadence, reconciliation=costs.reconcile_every)
    jobs = replace(POLL_COSTS, price_detection=costs.full_sync_cost)
    if costs.reconcile_cost is not None:
        per_listing = math.ceil(costs.reconcile_cost / max(costs.listings, 1))
        jobs = replace(jobs, reconciliation_per_listing=per_listing)
    return other_jobs_cost(seconds_to_reset, costs.listings, jobs, cadence, costs.next_due)


def _poll_gap(settings: Settings) -> float:
    return min(settings.availability_max_gap_seconds, settings.poll_max_seconds)


def gap_floors(settings: Settings, seconds_to_reset: float, costs: DayCosts) -> tuple[float, float]:
    """The requests until the reset of the polls and of the detections at their max gaps."""
    poll_floor = seconds_to_reset / _poll_gap(settings) * max(costs.poll_cost, 1.0)
    detect_floor = seconds_to_reset / settings.detect_max_gap_seconds * max(costs.detect_cost, 1.0)
    return poll_floor, detect_floor


def cadence_of(settings: Settings) -> Cadence:
    return Cadence(
        price_detection=settings.price_check_interval_seconds,
        reconciliation=settings.reconcile_interval_seconds,
        connected_repush=settings.repush_interval_seconds,
        min_poll=settings.poll_min_seconds,
        max_poll=settings.poll_max_seconds,
    )


def plan_polling(
    settings: Settings,
    snapshot: BudgetSnapshot,
    reserves: Reserves,
    *,
    resets_at: datetime,
    now: datetime,
    costs: DayCosts,
    shapes: Shapes | None = None,
    bursts: tuple[Burst | None, Burst | None] = (None, None),
    recent: RecentSpend | None = None,
) -> PollPlan:
    """The plan of both detections for a budget ``snapshot`` and the server's reset instant;
    ``costs``: what each kind of run of the property costs and how often the slower ones run
    (:class:`DayCosts`; the slower jobs' requests are kept out of polling's budget);
    ``bursts``: the polls' and the detection's changes coming faster lately than the learned
    week says (:func:`roomsync.core.burst.burst_of`).

    Polling's budget is the least of: what the quota leaves after the guest reserve and those
    jobs; the pace (:func:`day_pace` for each kind's part of the day's runs that the learned
    week places before the reset, so a late start does not spend a day's share in an evening,
    :func:`roomsync.core.pace.share_of_day_left`); and what
    ``spend_share`` of the day leaves after roomsync's own requests so far and those jobs (the
    day's ceiling, which the pushes and fills of a busy day would otherwise break). Whatever
    those say, the polls keep the runs their max gap needs while the quota affords them, and the
    detections theirs while the ceiling does (:func:`.budget_split.gaps_kept`). In a burst the polls keep its
    gap first, and its runs are held to ``busy_hour_share`` of the quota an hour, ``recent``
    saying what the last half hour's runs spent (:mod:`.burst_budget`)."""
    quota = snapshot.quota
    seconds_to_reset = seconds_until_reset(resets_at, now)
    guest_reserve = reserves.count(Priority.AVAILABILITY, quota)
    poll_cost, detect_cost = costs.poll_cost, costs.detect_cost
    other = other_jobs_until(settings, seconds_to_reset, costs)
    for_polling = snapshot.remaining - guest_reserve - other
    if for_polling < 0:  # not even the slower jobs fit: polling comes first, they wait
        other = 0
        for_polling = snapshot.remaining - guest_reserve
    chosen = shapes or Shapes.default()
    split = settings.detect_budget_share
    if chosen.seen is not None:
        split = detection_share(settings.detect_budget_share, *chosen.seen)
    local = now.astimezone(ZoneInfo(settings.timezone))
    hour = hour_of_week(local)
    into_hour = local.minute * 60 + local.second + local.microsecond / 1e6
    # aimed one detection under the ceiling: a run's cost is known only once it has run, and a
    # plan aimed at the ceiling itself passed it by 2-8 requests on the week bench's busiest days;
    # no more than CEILING_MARGIN_SHARE of the quota under it: a free licence's detections cost a
    # third of its day, and a margin of one left them none
    margin = min(max(detect_cost, 1.0), CEILING_MARGIN_SHARE * quota)
    # the pace: a whole day's polling, for the share of its runs the learned week places until the
    # reset; the day's ceiling below (what spend_share leaves after what was spent) takes back
    # what a busy hour overspent. What runs cheaper than planned saved is carried over only as far
    # as the pace allows (at 0.6 a day of cheap detections ended at 788 of 900 on the week bench)
    day = day_pace(settings, quota, costs, margin)
    into_day = (hour, into_hour, seconds_to_reset)
    poll_pace = _paced(day * (1 - split), chosen.availability, into_day, poll_cost, _poll_gap(settings))
    detect_gap = settings.detect_max_gap_seconds
    detect_pace = _paced(day * split, chosen.detection, into_day, detect_cost, detect_gap)
    ceiling = spend_share_of(settings, quota) * quota - snapshot.used_local - other - margin
    limit = max(min(for_polling, ceiling), 0.0)
    capped = min(poll_pace + detect_pace, ceiling) < for_polling
    scale = min(1.0, limit / (poll_pace + detect_pace)) if poll_pace + detect_pace > 0 else 0.0
    poll_budget, detect_budget = poll_pace * scale, detect_pace * scale
    budget = poll_budget + detect_budget
    poll_gap = _poll_gap(settings)
    poll_floor, detect_floor = gap_floors(settings, seconds_to_reset, costs)
    if capped and (poll_budget < poll_floor or detect_budget < detect_floor):
        poll_budget, detect_budget = gaps_kept(
            (poll_budget, detect_budget), (poll_floor, detect_floor), limit, max(for_polling, 0.0), split
        )
        budget = poll_budget + detect_budget
    poll_burst = _with_gap(bursts[0], settings.burst_poll_gap_seconds)
    detect_burst = _with_gap(bursts[1], settings.burst_detect_gap_seconds)
    room = BurstRoom.of(
        settings,
        quota,
        recent,
        other_jobs=other * BURST_SECONDS / seconds_to_reset,
        poll_cost=poll_cost,
        detect_cost=detect_cost,
    )
    if poll_burst is not None:
        poll_budget, detect_budget = polls_kept_for(
            poll_burst,
            (poll_budget, detect_budget),
            seconds_to_reset=seconds_to_reset,
            poll_gap=poll_gap,
            poll_cost=poll_cost,
            detect_floor=detect_floor,
            limit=limit,
        )
        budget = poll_budget + detect_budget
        poll_burst = room.held_polls(poll_burst, detect_burst)
    poll = shape_runs(
        shape=chosen.availability,
        hour=hour,
        seconds_into_hour=into_hour,
        seconds_to_reset=seconds_to_reset,
        runs=poll_budget / max(poll_cost, 1.0),
        min_interval=settings.poll_min_seconds,
        max_gap=poll_gap,
        burst=poll_burst,
        cut=True,  # not the detections': their day is often short of their max gap (see shape_runs)
    )
    if detect_burst is not None:
        detect_burst = room.held_detections(detect_burst, poll.interval, seconds_to_reset)
    detect = shape_runs(
        shape=chosen.detection,
        hour=hour,
        seconds_into_hour=into_hour,
        seconds_to_reset=seconds_to_reset,
        runs=detect_budget / max(detect_cost, 1.0),
        min_interval=settings.detect_min_seconds,
        max_gap=settings.detect_max_gap_seconds,
        burst=detect_burst,
    )
    interval = min(poll.interval, settings.poll_max_seconds) if math.isfinite(poll.interval) else math.inf
    plan = PollPlan(
        interval=interval,
        staleness_bound=_bound(poll),
        detect_interval=detect.interval,
        detect_staleness_bound=_bound(detect),
        seconds_to_reset=seconds_to_reset,
        polls_until_reset=_whole(poll.runs_until_reset),
        detections_until_reset=_whole(detect.runs_until_reset),
        quota=quota,
        remaining=snapshot.remaining,
        capped_by_share=capped,
        explanation="",
        detect_share=split,
        promised_p95=_promised(poll),
        detect_promised_p95=_promised(detect),
    )
    spend = spend_share_of(settings, quota)
    text = explained(plan, day, spend, guest_reserve, other, budget, detect_cost, poll, detect)
    return replace(plan, explanation=text)


def day_pace(settings: Settings, quota: int, costs: DayCosts, margin: float) -> float:
    """The requests polling (availability, closures and prices) plans for a whole quota day: what
    the day's ceiling (``spend_share`` of ``quota``) leaves after a day of the slower jobs and
    ``margin``, and at most ``poll_budget_share`` of the quota where it is set."""
    whole_day = other_jobs_until(settings, DAY_SECONDS, replace(costs, next_due=NextDue()))
    pace = spend_share_of(settings, quota) * quota - whole_day - margin
    if settings.poll_budget_share is not None:
        pace = min(pace, settings.poll_budget_share * quota)
    return max(pace, 0.0)


def _paced(
    requests_a_day: float,
    shape: tuple[float, ...],
    into_day: tuple[int, float, float],
    cost: float,
    max_gap: float,
) -> float:
    """The part of a kind's ``requests_a_day`` that its runs, placed by ``shape``, spend until the reset."""
    hour, into_hour, seconds_to_reset = into_day
    left = share_of_day_left(
        shape,
        hour=hour,
        seconds_into_hour=into_hour,
        seconds_to_reset=seconds_to_reset,
        runs_a_day=requests_a_day / max(cost, 1.0),
        max_gap=max_gap,
    )
    return requests_a_day * left


def _whole(runs: float) -> int:
    """The whole runs in ``runs``, a sum of the slots' parts: 74.99999999999999 is 75."""
    return int(runs + 1e-9)


def _with_gap(burst: Burst | None, gap: float) -> Burst | None:
    return None if burst is None else replace(burst, gap=gap)


def _bound(plan: KindPlan) -> float:
    return plan.longest_gap + PROCESSING_SECONDS if math.isfinite(plan.longest_gap) else math.inf


def _promised(plan: KindPlan) -> float:
    return plan.p95_wait + PROCESSING_SECONDS if math.isfinite(plan.p95_wait) else math.inf
