"""When the front desk changes things: a learned shape of the week, per kind of change (pure).

The daemon cannot be told when the PMS changes (the PMS sends no notifications), so it polls; a
poll spent at 03:00 on a hotel whose desk is closed is a poll missing at 09:00. So each property
keeps, per kind of change (:class:`ChangeKind`), a weight for each of the 168 hours of its local
week: every run that *sees* changes adds the edits it saw (:func:`edits_in`) to the weight of
the hour it ran in, and every weight halves every ``half_life`` (decayed over weeks, so a new
season replaces the last). A prior shape, worth ``prior_mass`` observations and never decayed,
holds the planning steady before anything is learned: most front-desk work happens 07:00-23:00
local (:func:`default_shape`).

:func:`week_shape` turns the prior and what was learned into the share of changes per hour of the
week; :mod:`roomsync.core.schedule` spends each kind's requests in proportion to it.
"""

from __future__ import annotations

import math
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass
from datetime import date, datetime, timedelta
from enum import StrEnum

from roomsync.core.sync.desired import spans_of

HOURS_OF_WEEK = 168


class ChangeKind(StrEnum):
    """What the front desk changes, by the read that sees it."""

    AVAILABILITY = "availability"
    """Bookings, cancellations, room moves: the free-room read (the poll) sees them."""
    CLOSURES = "closures"
    """Stop-sells and reopenings of a room type or the property: the detection read."""
    PRICES = "prices"
    """Nightly price edits: the detection read (window totals)."""


@dataclass(frozen=True)
class LearnedWeight:
    """One hour of the week's learned weight, as of ``updated_at``."""

    weight: float
    updated_at: datetime


def edits_in(changed: Iterable[tuple[int, date]]) -> int:
    """The front-desk edits that the changed (room type, night) pairs ``changed`` make, counting
    each run of consecutive nights of one room type as one edit: a desk sets a price or closes a
    room type over a span of nights at once, and a run that finds a week's price edit has seen one
    change, not seven. Two edits that touch count as one (a run cannot tell them apart)."""
    nights: dict[int, set[date]] = {}
    for room_type_id, night in changed:
        nights.setdefault(room_type_id, set()).add(night)
    return sum(len(spans_of(days)) for days in nights.values())


def hour_of_week(local: datetime) -> int:
    """0 for Monday 00:00-00:59 local, 167 for Sunday 23:00-23:59."""
    return local.weekday() * 24 + local.hour


def decayed(weight: float, elapsed: timedelta, half_life: timedelta) -> float:
    """``weight`` after ``elapsed`` (halving every ``half_life``; never grows back)."""
    seconds = max(elapsed.total_seconds(), 0.0)
    return weight * 0.5 ** (seconds / half_life.total_seconds())


def observe(
    previous: LearnedWeight | None, at: datetime, half_life: timedelta, count: float = 1.0
) -> LearnedWeight:
    """The hour's weight after a run at ``at`` saw ``count`` changes."""
    base = 0.0 if previous is None else decayed(previous.weight, at - previous.updated_at, half_life)
    return LearnedWeight(base + count, at)


def default_shape(busy_from: int = 7, busy_until: int = 23, busy_share: float = 0.9) -> tuple[float, ...]:
    """Shares of the week's changes per hour: ``busy_share`` of them spread over the local hours
    ``busy_from..busy_until`` of every day, the rest over the night."""
    if not 0 <= busy_from < busy_until <= 24:
        raise ValueError(f"busy hours {busy_from}..{busy_until}: need 0 <= from < until <= 24")
    busy_hours = busy_until - busy_from
    quiet_hours = 24 - busy_hours
    busy = busy_share / (7 * busy_hours)
    quiet = (1 - busy_share) / (7 * quiet_hours) if quiet_hours else 0.0
    return tuple(busy if busy_from <= hour % 24 < busy_until else quiet for hour in range(HOURS_OF_WEEK))


PRIOR_MASS = 120.0
"""How many changes the prior shape counts for. A prior of 20 let one change outweigh its hour's
prior about 7 to 1 (a quiet hour's far more): the change just seen made the rest of its hour look
busy, and the plan moved runs there, after the change. At 120 the week bench's polls sat 1.23-1.33x
the bound for as many (three seeds, three days each, 2026-12-07) where 20 gave 1.32-1.64x; the
model of the learned week (``benches/model_learned_week.py``) had 1.19x against 1.24-1.27x. The
busy hour, which a burst of changes must lift at once, kept its bookings target (p95 92-106 s,
three seeds; 63-169 s with 20, both the same hour on one machine)."""


def week_shape(
    learned: Mapping[int, LearnedWeight],
    now: datetime,
    *,
    half_life: timedelta,
    prior: tuple[float, ...] | None = None,
    prior_mass: float = PRIOR_MASS,
) -> tuple[float, ...]:
    """Share of the changes per hour of the week (sums to 1): the prior, worth ``prior_mass``
    observations, plus every learned weight decayed to ``now`` and pooled with the same hour of
    the other days (:func:`pooled_by_hour_of_day`)."""
    base = prior if prior is not None else default_shape()
    if len(base) != HOURS_OF_WEEK:
        raise ValueError(f"a week shape has {HOURS_OF_WEEK} hours, not {len(base)}")
    prior_total = sum(base) or 1.0
    weights = [prior_mass * share / prior_total for share in base]
    seen = [0.0] * HOURS_OF_WEEK
    for hour, entry in learned.items():
        if 0 <= hour < HOURS_OF_WEEK:
            seen[hour] += decayed(entry.weight, now - entry.updated_at, half_life)
    for hour, weight in enumerate(pooled_by_hour_of_day(seen)):
        weights[hour] += weight
    total = sum(weights)
    if total <= 0 or not math.isfinite(total):
        return tuple(1.0 / HOURS_OF_WEEK for _ in range(HOURS_OF_WEEK))
    return tuple(weight / total for weight in weights)


DAY_POOL = 0.75
"""The part of an hour's learned weight taken from the same hour of every day of the week (the
rest is the hour of the week's own). A front desk's week is learned from a few dozen changes a
day: per hour of the week that is a spiky count, and a plan that follows it crowds the hour a change
was just seen in (one observation outweighed that hour's prior 7 to 1) and starves the hours whose
changes make the 95th percentile. The hours of the day repeat seven times a week, so their pooled
count is seven times steadier; a quarter of the hour of the week's own count keeps a weekend
unlike a Monday. Simulated on the week bench's front desk with the daemon's shape_runs (423 polls
a day, 12 availability changes a day, four weeks learned, 16 seeds): the polls' p95 went from 261 s
(193-362) to 175 s (161-213), the bound for as many polls being 151 s; on a desk working 09:00-17:00
only, from 133 s to 109 s."""


def pooled_by_hour_of_day(seen: Sequence[float]) -> list[float]:
    """Each hour of the week's learned weight, ``DAY_POOL`` of it from its hour of the day (the
    mean over the seven days) and the rest its own; the total is kept."""
    days = len(seen) // 24
    by_hour = [sum(seen[day * 24 + hour] for day in range(days)) / days for hour in range(24)]
    return [(1 - DAY_POOL) * own + DAY_POOL * by_hour[hour % 24] for hour, own in enumerate(seen)]


def learned_mass(learned: Mapping[int, LearnedWeight], now: datetime, *, half_life: timedelta) -> float:
    """How many changes of a kind were seen, every one decayed to ``now`` (the kind's recent rate)."""
    return sum(decayed(entry.weight, now - entry.updated_at, half_life) for entry in learned.values())


def combined_shape(*shapes: tuple[float, ...]) -> tuple[float, ...]:
    """The shape of a run that sees several kinds (the detection sees closures and prices)."""
    if not shapes:
        raise ValueError("no shape to combine")
    total = [sum(values) for values in zip(*shapes, strict=True)]
    scale = sum(total) or 1.0
    return tuple(value / scale for value in total)
