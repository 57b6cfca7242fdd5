"""The changes one property's runs saw in the last day, kept for the plan's bursts.

The learned week (:mod:`roomsync.core.activity`) says at which hours a front desk works; it learns
over weeks, so a busy hour today raises the plan only for the hour the changes were seen in, and
at the next hour the plan falls back to the week while the desk is still busy. The plan therefore
also looks at the last half hour (:func:`roomsync.core.burst.burst_of`): kept here, in memory,
because a restart forgets at most a burst (the next half hour of changes makes it again) and a
store write for each run that saw a change would cost every run of every property.
"""

from __future__ import annotations

from collections import deque
from datetime import datetime, timedelta

from roomsync.core.activity import ChangeKind
from roomsync.core.burst import BURST_SECONDS, Burst, burst_of

DAY = timedelta(days=1)


class RecentChanges:
    """The runs that saw a change since ``since`` (a day at most): those that saw availability
    change (the polls' kind) and those that saw closures or prices change (the detection's).

    Runs, not the counts they saw: a booking on the demo's studios changes two listings, a
    closure's edges can count twice; a run that saw something is a change of the desk's, give or
    take one, and three of them in half an hour are not two changes counted over."""

    def __init__(self, since: datetime) -> None:
        self.since = since
        self._seen: deque[tuple[datetime, float, float]] = deque()

    def heard(self, at: datetime, seen: dict[ChangeKind, int]) -> None:
        polls = float(ChangeKind.AVAILABILITY in seen)
        detection = float(ChangeKind.CLOSURES in seen or ChangeKind.PRICES in seen)
        if polls or detection:
            self._seen.append((at, polls, detection))
        while self._seen and self._seen[0][0] < at - DAY:
            self._seen.popleft()

    def bursts(self, now: datetime) -> tuple[Burst | None, Burst | None]:
        """The polls' burst and the detection's, as of ``now`` (None: no burst)."""
        window = now - timedelta(seconds=BURST_SECONDS)
        day = [entry for entry in self._seen if entry[0] >= now - DAY]
        recent = [entry for entry in day if entry[0] >= window]
        watched = (now - max(self.since, now - DAY)).total_seconds()
        return (
            burst_of(sum(e[1] for e in recent), sum(e[1] for e in day), watched),
            burst_of(sum(e[2] for e in recent), sum(e[2] for e in day), watched),
        )
