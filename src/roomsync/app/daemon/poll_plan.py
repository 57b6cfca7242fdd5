"""The plan of one property's polls and detections until the quota's reset, as a value
(:class:`PollPlan`, made by :func:`.planning.plan_polling`), and what it says to an operator
(:func:`explained`: the ``schedule:`` log line, ``status``).
"""

from __future__ import annotations

import math
from dataclasses import dataclass

from roomsync.core.budget import FREE_LICENCE_QUOTA
from roomsync.core.schedule import KindPlan


@dataclass(frozen=True)
class PollPlan:
    interval: float
    """Seconds of server time until the next availability poll (``math.inf``: none before the reset)."""
    staleness_bound: float
    """Longest a booking or cancellation can wait before it reaches the channel (seconds)."""
    detect_interval: float
    """Seconds until the next closure and price detection (``math.inf``: none before the reset)."""
    detect_staleness_bound: float
    """Longest a closure or price change can wait before it reaches the channel (seconds)."""
    seconds_to_reset: float
    polls_until_reset: int
    detections_until_reset: int
    quota: int
    remaining: int
    capped_by_share: bool
    explanation: str
    detect_share: float = 0.0
    """The share of the polling budget that goes to closure and price detection."""
    promised_p95: float = math.inf
    """What the plan promises bookings and cancellations: 95 % of those made before the reset
    reach the channel within this (seconds), if they come as the learned week says."""
    detect_promised_p95: float = math.inf
    """The same for closures, reopenings and price edits."""

    @property
    def free_licence(self) -> bool:
        return self.quota <= FREE_LICENCE_QUOTA


def _every(seconds: float) -> str:
    return f"every {seconds / 60:.1f} min now" if math.isfinite(seconds) else "none before the reset"


def _minutes(seconds: float) -> str:
    return f"{seconds / 60:.1f} min" if math.isfinite(seconds) else "never before the reset"


def explained(
    plan: PollPlan,
    pace: float,
    spend: float,
    guest_reserve: int,
    other: int,
    budget: float,
    detect_cost: float,
    poll: KindPlan,
    detect: KindPlan,
) -> str:
    """What ``plan`` says to an operator: the budget, each kind's runs and how stale it can get
    (``pace``: the requests polling plans for a whole day; ``spend``: the day's ceiling as a share
    of the quota)."""
    if not math.isfinite(plan.interval) and not math.isfinite(plan.detect_interval):
        text = (
            f"{plan.remaining} requests left today, {guest_reserve} kept for guests: no polling until "
            f"the quota resets in {plan.seconds_to_reset / 3600:.1f} h"
        )
    else:
        most = (
            f" (at most the learned week's part of a day's {pace:.0f}, and what {spend:.0%} of the "
            "quota leaves in all)"
        )
        share = most if plan.capped_by_share else ""
        text = (
            f"{plan.remaining} of {plan.quota} requests left, {guest_reserve} kept for guests, {other} for "
            f"full syncs, reconciliation and re-push; {budget:.0f} planned for polling{share}"
            + f": availability {_every(plan.interval)} ({plan.polls_until_reset} polls until "
            f"the reset; a booking reaches the channel within {_minutes(plan.staleness_bound)}, 95 % "
            f"within {_minutes(plan.promised_p95)}"
            + ("" if poll.gap_kept else ", the budget cannot keep the max gap")
            + f"), closures and prices ({plan.detect_share:.0%} of it, by the changes seen lately) "
            f"{_every(plan.detect_interval)} "
            f"({plan.detections_until_reset} detections of {detect_cost:.0f} request(s); within "
            f"{_minutes(plan.detect_staleness_bound)}, 95 % within {_minutes(plan.detect_promised_p95)}"
            + ("" if detect.gap_kept else ", the budget cannot keep the max gap")
            + ")"
        )
    if plan.free_licence:
        stale = plan.staleness_bound
        bound = f"{stale / 3600:.1f} h" if math.isfinite(stale) else "until the quota resets"
        text = f"free licence ({plan.quota} requests a day): the channel can be {bound} stale; " + text
    return text
