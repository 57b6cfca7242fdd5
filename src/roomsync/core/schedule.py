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

    def runs(every: float) -> int:
        return math.ceil(seconds_to_reset / every)

    other_jobs = (
        runs(cadence.price_detection) * costs.price_detection
        + runs(cadence.reconciliation) * costs.reconciliation_per_listing * listings
        + runs(cadence.connected_repush) * costs.connected_repush
    )
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
