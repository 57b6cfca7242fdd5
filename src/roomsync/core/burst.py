"""A burst of the front desk's changes: changes coming faster lately than the learned week says
(pure arithmetic, no clock). :func:`burst_of` names one from the changes the runs of the last
``BURST_SECONDS`` saw; :func:`roomsync.core.schedule.shape_runs` plans the burst's time at its
pace, and ``app/daemon/burst_budget.py`` says what it may spend.
"""

from __future__ import annotations

import math
from dataclasses import dataclass


@dataclass(frozen=True)
class Burst:
    """Changes coming faster lately than the learned week says: the next ``seconds`` are planned
    as bringing ``share_per_hour`` of a week's changes an hour, where the week expects fewer
    (:func:`burst_of`)."""

    seconds: float
    share_per_hour: float
    gap: float = math.inf
    """The longest wait between two runs while the burst lasts, where the budget affords it on top
    of every slot's ``max_gap`` (its floor, as ``max_gap`` is everywhere else)."""
    most_runs: float = math.inf
    """The most runs the burst's time may have (what an hour's cap on the spend leaves them), its
    ``max_gap`` kept whatever this says."""


BURST_SECONDS = 1800.0
"""How far back a burst is counted, and how far ahead it is expected to last."""
BURST_MIN_CHANGES = 3
"""The changes of a kind in the last ``BURST_SECONDS`` that make a burst (counted as the runs that
saw one). A front desk of 24 changes a day (16 busy hours) makes 3 in half an hour by chance about
one half-hour in 25; the busy hour of issue 25 (a change every 80 s) within its first ten minutes."""


def burst_of(recent: float, last_day: float, observed_seconds: float, gap: float = math.inf) -> Burst | None:
    """The burst that ``recent`` changes seen in the last ``BURST_SECONDS`` make, against
    ``last_day`` changes seen in the last day (``observed_seconds`` of it watched, at most a day;
    ``last_day`` counts the recent ones too), its runs at most ``gap`` apart; None below
    ``BURST_MIN_CHANGES``.

    Why the last day and not the learned week: the week's shares say when changes come, not how
    many; a share of a week's changes per hour needs the week's count, and the last day's pace
    (times seven) is the count the plan can trust on a property watched for hours only (the
    first six hours count as six, so a quiet first hour does not make every change a burst)."""
    if recent < BURST_MIN_CHANGES:
        return None
    watched = min(max(observed_seconds, 6 * 3600.0), 86_400.0)
    weekly = max(last_day, recent) / watched * 7 * 86_400.0
    return Burst(BURST_SECONDS, recent / (BURST_SECONDS / 3600.0) / weekly, gap)
