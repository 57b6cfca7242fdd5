"""How long to wait before the next availability poll, from today's budget and the server's reset.

The core planner (:func:`roomsync.core.schedule.plan_schedule`) spends what is left of the quota
until the reset, after the guest reserve and the slower jobs. Two things are added here:

* the reset is the SERVER's (``X-RateLimit-Reset`` of the last answer, as the client's quota gate
  recorded it), not the daemon's own idea of midnight: the quota is the server's;
* ``poll_budget_share`` caps polling at that share of a whole day's quota, pro rata for the time
  left, so a quiet morning does not make roomsync spend the afternoon of every other application
  of the property, and a day ends with most of the quota unspent when nothing needs it.

A day on a free licence (100 requests) still gets a plan: polling every couple of hours, and the
plan says how stale the channel can get.
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from datetime import datetime

from roomsync.core.budget import BudgetSnapshot, Reserves
from roomsync.core.catalog.types import Priority
from roomsync.core.schedule import Cadence, JobCosts, SchedulePlan, plan_schedule
from roomsync.settings import Settings

DAY_SECONDS = 86_400.0
FREE_LICENCE_QUOTA = 100

POLL_COSTS = JobCosts(
    availability_poll=1,  # the daemon's poll: one PMS read (DaemonEngine.poll_availability)
    changed_listing_push=1,
    price_detection=4,  # a full sync: free rooms, closures, a price window, a Prices batch
    reconciliation_per_listing=1,
    connected_repush=1,
)


@dataclass(frozen=True)
class PollPlan:
    interval: float
    """Seconds of server time until the next poll (``math.inf``: none before the reset)."""
    staleness_bound: float
    """Longest a PMS change can wait before it reaches the channel (seconds, server time)."""
    seconds_to_reset: float
    polls_until_reset: int
    quota: int
    remaining: int
    capped_by_share: bool
    explanation: str

    @property
    def free_licence(self) -> bool:
        return self.quota <= FREE_LICENCE_QUOTA


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
    listings: int,
    expected_changed_listings: float,
) -> PollPlan:
    """The next poll's plan for a budget ``snapshot`` and the server's reset instant."""
    quota = snapshot.quota
    seconds_to_reset = max((resets_at - now).total_seconds(), 1.0)
    core: SchedulePlan = plan_schedule(
        quota=quota,
        used=snapshot.used,
        seconds_to_reset=seconds_to_reset,
        guest_reserve=reserves.count(Priority.AVAILABILITY, quota),
        listings=listings,
        expected_changed_listings=expected_changed_listings,
        costs=POLL_COSTS,
        cadence=cadence_of(settings),
    )
    interval = core.poll_interval
    polls = core.polls_until_reset
    explanation = core.explanation
    capped = False
    per_poll = POLL_COSTS.availability_poll + expected_changed_listings * POLL_COSTS.changed_listing_push
    share_budget = settings.poll_budget_share * quota * min(seconds_to_reset / DAY_SECONDS, 1.0)
    share_polls = int(share_budget // per_poll)
    if math.isfinite(interval) and share_polls < polls:
        capped = True
        polls = share_polls
        if share_polls == 0:
            interval = math.inf
        else:
            interval = min(
                max(seconds_to_reset / share_polls, settings.poll_min_seconds), settings.poll_max_seconds
            )
    staleness = interval + 30.0 if math.isfinite(interval) else math.inf
    if capped:
        explanation = (
            f"{snapshot.remaining} of {quota} requests left; polling may plan "
            f"{settings.poll_budget_share:.0%} of the day's quota: "
            + (
                f"every {interval / 60:.1f} min ({polls} polls until the reset); a PMS change reaches "
                f"the channel within {staleness / 60:.1f} min"
                if math.isfinite(interval)
                else "no polling until the quota resets"
            )
        )
    if quota <= FREE_LICENCE_QUOTA:
        bound = f"{staleness / 3600:.1f} h" if math.isfinite(staleness) else "until the quota resets"
        explanation = (
            f"free licence ({quota} requests a day): the channel can be {bound} stale; " + explanation
        )
    return PollPlan(
        interval=interval,
        staleness_bound=staleness,
        seconds_to_reset=seconds_to_reset,
        polls_until_reset=polls,
        quota=quota,
        remaining=snapshot.remaining,
        capped_by_share=capped,
        explanation=explanation,
    )
