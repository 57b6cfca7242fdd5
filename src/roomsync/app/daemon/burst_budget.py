"""What a burst of the front desk's changes may spend (:func:`roomsync.core.burst.burst_of`):
the polls' burst gap is kept first, within the day's ceiling
(:func:`.budget_split.polls_kept_for`), and the burst's runs are held to ``busy_hour_share`` of
the quota an hour (:class:`BurstRoom`).

The day's budget and ceiling (:mod:`.planning`) say nothing about an hour: at about 30 requests
a detection in a busy hour (a free-rooms read, the check windows, the narrowing reads, a write per
listing), the bursts' gaps spent 15.6-16.0 % of the quota in the busy-hour bench's hour, against
the 15 % that issue 25 leaves roomsync there.
"""

from __future__ import annotations

from dataclasses import dataclass, replace

from roomsync.core.burst import BURST_SECONDS, Burst
from roomsync.settings import Settings


@dataclass(frozen=True)
class RecentSpend:
    """What the property's runs spent in the last ``BURST_SECONDS`` (those that ended), and what a
    poll and a detection cost in it on average (None: none ended in it)."""

    requests: int = 0
    poll_cost: float | None = None
    detect_cost: float | None = None


@dataclass(frozen=True)
class BurstRoom:
    """The requests a burst's polls and detections may spend in the next ``BURST_SECONDS``, and
    what a poll and a detection cost in the last half hour (the plan's estimate where none ran)."""

    requests: float
    poll_cost: float
    detect_cost: float

    @classmethod
    def of(
        cls,
        settings: Settings,
        quota: int,
        recent: RecentSpend | None,
        *,
        other_jobs: float,
        poll_cost: float,
        detect_cost: float,
    ) -> BurstRoom:
        """Half of ``busy_hour_share`` of the quota, and no more than the last half hour's runs
        (``recent``) left of a whole hour's, so no hour that ends within the next half passes it;
        less ``other_jobs`` (the slower jobs' requests due in that time, pro rata)."""
        spent = recent or RecentSpend()
        hour_cap = settings.busy_hour_share * quota
        half = hour_cap * BURST_SECONDS / 3600.0
        return cls(
            max(min(half, hour_cap - spent.requests) - other_jobs, 0.0),
            poll_cost=max(spent.poll_cost or poll_cost, 1.0),
            detect_cost=max(spent.detect_cost or detect_cost, 1.0),
        )

    def held_polls(self, polls: Burst, detections: Burst | None) -> Burst:
        """The polls' burst, its runs held to what the room leaves once the detections' burst gap
        is paid for, and never under the polls' own burst gap (bookings first)."""
        detections_want = detections.seconds / detections.gap * self.detect_cost if detections else 0.0
        most = max((self.requests - detections_want) / self.poll_cost, polls.seconds / polls.gap)
        return replace(polls, most_runs=most)

    def held_detections(self, detections: Burst, poll_interval: float, seconds_to_reset: float) -> Burst:
        """The detections' burst, its runs held to what the polls (one every ``poll_interval``)
        leave of the room."""
        polls_spend = min(BURST_SECONDS, seconds_to_reset) / poll_interval * self.poll_cost
        return replace(detections, most_runs=max(self.requests - polls_spend, 0.0) / self.detect_cost)
