"""How many uncached PMS prices a run may read: the cold price cache's fill, paid for from what
the day's ceiling leaves once the rest of the day's least schedule is kept (:mod:`.planning`).
"""

from __future__ import annotations

import math
from datetime import datetime

from roomsync.app.daemon.planning import (
    DAY_SECONDS,
    DayCosts,
    gap_floors,
    other_jobs_until,
    seconds_until_reset,
    spend_share_of,
)
from roomsync.core.budget import BudgetSnapshot
from roomsync.settings import Settings

DAEMON_PRICE_READ_SHARE = 0.05
"""The least of the quota one of the daemon's runs may spend reading uncached PMS prices, whatever
the day's plan: a cold cache always makes progress (5 reads a run on a free licence)."""


def price_read_allowance(
    settings: Settings, snapshot: BudgetSnapshot, costs: DayCosts, *, resets_at: datetime, now: datetime
) -> int:
    """The price reads a run may spend: all that the day's ceiling (``spend_share``) affords once
    the rest of the day's least schedule is kept (the slower jobs at ``costs.full_sync_cost``, their
    warm cost, and the polls and detections at their max gaps until the reset), and never fewer
    than ``DAEMON_PRICE_READ_SHARE`` of the quota.

    So a property's first full sync on a paid licence reads every night of a year's horizon (365
    reads of a 900-request ceiling, about 240 kept for the day's floors), nearest first, and the
    day's plan is made afterwards from what is left; a free licence, whose floors alone pass its
    quota, fills 5 nights a run."""
    seconds_to_reset = seconds_until_reset(resets_at, now)
    affordable = _affordable_reads(settings, snapshot.quota, snapshot.used_local, seconds_to_reset, costs)
    return max(least_price_reads(snapshot.quota), affordable)


def fill_reads_per_day(settings: Settings, quota: int, costs: DayCosts) -> int:
    """Price reads of uncached nights a whole quota day affords (:func:`price_read_allowance` for a
    day that starts with nothing spent, or the least share at each full sync of the day)."""
    every = costs.full_sync_every or settings.price_check_interval_seconds
    full_syncs = max(1, math.floor(DAY_SECONDS / max(every, 1.0)))
    affordable = _affordable_reads(settings, quota, 0, DAY_SECONDS, costs)
    return max(affordable, least_price_reads(quota) * full_syncs)


def least_price_reads(quota: int) -> int:
    """``DAEMON_PRICE_READ_SHARE`` of the quota: what a run may always spend on price reads."""
    return max(1, math.ceil(quota * DAEMON_PRICE_READ_SHARE))


def _affordable_reads(
    settings: Settings, quota: int, used: int, seconds_to_reset: float, costs: DayCosts
) -> int:
    """What the day's ceiling leaves after ``used``, the slower jobs and the polls' and detections'
    max-gap floors until the reset (negative when the floors alone pass it)."""
    poll_floor, detect_floor = gap_floors(settings, seconds_to_reset, costs)
    floors = other_jobs_until(settings, seconds_to_reset, costs) + poll_floor + detect_floor
    return math.floor(spend_share_of(settings, quota) * quota - used - floors)
