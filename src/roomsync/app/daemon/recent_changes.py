"""The changes one property's runs saw in the last day, kept for the plan's bursts.

The learned week (:mod:`roomsync.core.activity`) says at which hours a front desk works; it learns
over weeks, so a busy hour today raises the plan only for the hour the changes were seen in, and
at the next hour the plan falls back to the week while the desk is still busy. The plan therefore
also looks at the last half hour (:func:`roomsync.core.schedule.burst_of`): kept here, in memory,
because a restart forgets at most a burst (the next half hour of changes makes it again) and a
store write for each run that saw a change would cost every run of every property.
"""

from __future__ import annotations

from collections import deque
from dataclasses import dataclass
from datetime import datetime, timedelta

from roomsync.core.activity import ChangeKind
from roomsync.core.schedule import BURST_SECONDS, Burst, burst_of

DAY = timedelta(days=1)


@dataclass(frozen=True)
class _Heard:
    at: datetime
    polls: float
    """1 when the run saw availability change (the polls' kind), else 0."""
    detection: float
    """1 when the run saw closures or prices change (the detection's kind), else 0."""
    edits: float
    """The closure and price edits it saw."""


class RecentChanges:
    """The runs that saw a change since ``since`` (a day at most): those that saw availability
    change (the polls' kind) and those that saw closures or prices change (the detection's).

    Runs, not the counts they saw: a booking on the demo's studios changes two listings, a
    closure's edges can count twice; a run that saw something is a change of the desk's, give or
    take one, and three of them in half an hour are not two changes counted over.

    But a detection that runs every two or three hours (a day whose budget is short) never makes
    three runs in half an hour, however busy the desk: in the busy-hour bench (seed 8) one
    detection found the hour's first 10 closure and price edits, and the next came 146 minutes
    later. So while the polls are in a burst, the detection's burst counts the edits its runs of
    the last half hour found: alone, those edits may have been made at any time since the run
    before; with the front desk busy now, they are taken as this half hour's."""

    def __init__(self, since: datetime) -> None:
        self.since = since
        self._seen: deque[_Heard] = deque()

    def heard(self, at: datetime, seen: dict[ChangeKind, int]) -> None:
        polls = float(ChangeKind.AVAILABILITY in seen)
        edits = float(seen.get(ChangeKind.CLOSURES, 0) + seen.get(ChangeKind.PRICES, 0))
        if polls or edits:
            self._seen.append(_Heard(at, polls, float(edits > 0), edits))
        while self._seen and self._seen[0].at < at - DAY:
            self._seen.popleft()

    def bursts(self, now: datetime) -> tuple[Burst | None, Burst | None]:
        """The polls' burst and the detection's, as of ``now`` (None: no burst)."""
        window = now - timedelta(seconds=BURST_SECONDS)
        day = [entry for entry in self._seen if entry.at >= now - DAY]
        recent = [entry for entry in day if entry.at >= window]
        watched = (now - max(self.since, now - DAY)).total_seconds()
        polls = burst_of(sum(e.polls for e in recent), sum(e.polls for e in day), watched)
        detection = burst_of(sum(e.detection for e in recent), sum(e.detection for e in day), watched)
        if detection is None and polls is not None:
            detection = burst_of(sum(e.edits for e in recent), sum(e.edits for e in day), watched)
        return polls, detection
