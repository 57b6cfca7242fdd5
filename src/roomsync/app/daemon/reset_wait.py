"""When a full sync or reconciliation that came due waits for the quota's reset instead of
running now: the slower jobs run at a fixed cadence, and where one costs a large share of the
day, when in the day it runs decides who pays for it.

On a free licence a full sync costs a third to a half of the day (31-47 of 100 requests, the week
bench, 2026-12-06). Run at its cadence it came due in the afternoon or evening, took what the
plan had left for the day's last polls, and the bookings of those hours waited for the next
morning (8-10 h); it often ended cut short, having spent its requests for nothing, and the
reconciliation came due when nothing was left and was refused every time. Run just after the
reset, the day's plan counts it from the start, and the polls of the whole day are spread over
what it leaves.
"""

from __future__ import annotations

import math

from roomsync.app.daemon.planning import DAY_SECONDS, spend_share_of
from roomsync.core.budget import BudgetSnapshot, Reserves
from roomsync.core.catalog.types import Priority
from roomsync.settings import Settings

LARGE_JOB_SHARE = 0.10
"""A slower job costing more than this share of the quota runs only early in the quota's day (a
paid licence's full syncs cost 1-3 % of its quota and keep their cadence)."""

EARLY_IN_THE_DAY_SECONDS = 3_600.0
"""How long after the reset a large job still runs when it comes due (a deferred one comes due
just after the reset, jittered)."""


def is_large(cost: float, quota: int) -> bool:
    return cost > LARGE_JOB_SHARE * quota


RESET_SLACK_SECONDS = 120.0
"""A job due this close to the reset is due after it: one put off until the reset is due a
jitter after it by the scheduler's clock, and the plan reads the server's a moment later. Counted
as due before it, a deferred job held its whole cost out of the day's polls for one plan (28-35
requests of a free licence's 100: 16 polls planned instead of 25, the week bench's traces)."""


def planned_due(due: float | None, *, cost: float, quota: int, seconds_to_reset: float) -> float | None:
    """When the day's plan counts a slower job due in ``due`` seconds (``math.inf``: not before
    the reset): a large one that comes due later in the day waits for the reset
    (:func:`waits_for_reset`), so today's plan keeps nothing for it (it kept 20-35 requests out of
    a free licence's day, and they were left unspent)."""
    if due is None:
        return None
    if due >= seconds_to_reset - RESET_SLACK_SECONDS:
        return math.inf
    if not is_large(cost, quota):
        return due
    under_way_then = DAY_SECONDS - seconds_to_reset + due
    return math.inf if under_way_then > EARLY_IN_THE_DAY_SECONDS else due


def waits_for_reset(
    settings: Settings,
    snapshot: BudgetSnapshot,
    reserves: Reserves,
    *,
    cost: float,
    seconds_to_reset: float,
    another_runs: bool = False,
) -> str | None:
    """Why a slower job of ``cost`` requests that came due now waits for the reset, or None when
    it runs now: it would pass what the day has left (the guest reserve kept, under the day's
    ceiling), or it costs more than ``LARGE_JOB_SHARE`` of the quota and the day is more than
    ``EARLY_IN_THE_DAY_SECONDS`` under way or has spent that share already, or ``another_runs``
    (the other slower job is running or waiting for the property's lock): one large job a day
    (a free licence's full sync and reconciliation both waited for the same reset and took 94 of
    its 100 requests by 07:30, the week bench's seed 7)."""
    quota = snapshot.quota
    guest_reserve = reserves.count(Priority.AVAILABILITY, quota)
    under_ceiling = spend_share_of(settings, quota) * quota - snapshot.used_local
    left = min(snapshot.remaining - guest_reserve, under_ceiling)
    if cost > left:
        return f"it costs about {cost:.0f} requests and the day has {max(left, 0):.0f} left for it"
    under_way = DAY_SECONDS - seconds_to_reset
    spent = another_runs or snapshot.used_local > LARGE_JOB_SHARE * quota
    if is_large(cost, quota) and (under_way > EARLY_IN_THE_DAY_SECONDS or spent):
        return (
            f"it costs about {cost:.0f} requests, more than {LARGE_JOB_SHARE:.0%} of the day's "
            f"{quota}: run just after the reset, the day's plan counts it from the start"
        )
    return None
