"""What the polls and detections have cost so far: the plan's price of the next ones."""

from __future__ import annotations

from dataclasses import dataclass
from datetime import datetime

from roomsync.core.budget import FREE_LICENCE_QUOTA


@dataclass
class RunCosts:
    """What polls and detections have cost so far, for planning the next ones: a running average
    that starts from a prior worth ``PRIOR_RUNS`` polls (one busy poll does not halve the rate) or
    ``DETECTION_PRIOR_RUNS`` detections.

    A poll costs its read plus one write per listing that changed; a detection its check windows
    (known before it runs: they grow with the closures it must read around) plus what a change
    costs it (locating a closure, narrowing a price, the free rooms read and the writes)."""

    PRIOR_RUNS = 10
    RECENT_HALF_LIFE_SECONDS = 12 * 3600.0
    """How fast :attr:`recent_detect_cost` forgets: a day's busy hours still count at the next
    night's reset, a week-old pattern no longer."""
    DETECTION_PRIOR_RUNS = 2
    """A free licence makes one or two detections a day at 13-30 requests each: a prior of ten
    runs planned them at 1.5-3.9 requests through the week bench's first day (2026-12-06), and the
    difference came out of the evening's polls."""
    polls: int = 0
    poll_requests: int = 0
    detections: int = 0
    detection_extra: int = 0
    """Requests of the detections beyond their check windows."""
    check_windows: int = 1
    """The check windows of the next detection."""
    recent_detection_requests: float = 0.0
    recent_detection_seconds: float = 0.0
    """What the detections cost lately, each weighted by the time since the one before it and
    halved every ``RECENT_HALF_LIFE_SECONDS`` (:attr:`recent_detect_cost`)."""
    last_detection_at: datetime | None = None
    full_sync: int = 10
    """Requests the last full sync cost (a prior before the first)."""
    reconcile: int | None = None
    """Requests the last reconciliation cost (None before the first: one read per listing)."""

    def poll_seen(self, requests: int) -> None:
        self.polls += 1
        self.poll_requests += requests

    def detection_seen(self, requests: int, windows: int, at: datetime | None = None) -> None:
        self.detections += 1
        self.detection_extra += max(requests - windows, 0)
        if at is None:
            return
        if self.last_detection_at is not None:
            gap = max((at - self.last_detection_at).total_seconds(), 0.0)
            kept = 0.5 ** (gap / self.RECENT_HALF_LIFE_SECONDS)
            self.recent_detection_requests = self.recent_detection_requests * kept + requests * gap
            self.recent_detection_seconds = self.recent_detection_seconds * kept + gap
        self.last_detection_at = at

    @property
    def recent_detect_cost(self) -> float | None:
        """What a detection has cost lately, averaged over time (None before two were seen): a
        detection costs one check window per edge of a closed run it knows, and the desk closes
        room types in its busy hours while the night's closures pass out of the horizon, so the
        night's detections cost 1 to 5 requests and the day's 5 to 27 (the week bench's traces,
        2026-12-06). Planned at the night's cost, the night spent the day's detections: 6 to 12 an
        hour at night, 2 to 5 an hour through the busy afternoon."""
        if self.recent_detection_seconds <= 0:
            return None
        return self.recent_detection_requests / self.recent_detection_seconds

    @property
    def poll_cost(self) -> float:
        return (1.5 * self.PRIOR_RUNS + self.poll_requests) / (self.PRIOR_RUNS + self.polls)

    @property
    def detect_cost(self) -> float:
        """The next detection's check windows plus the average extra."""
        return self.check_windows + self.extra_per_detection

    def planned_detect_cost(self, quota: int) -> float:
        """What the plan counts a detection at: :attr:`detect_cost`, or on a paid licence what
        detections have cost lately (:attr:`recent_detect_cost`) when that is more, so the day's
        detections are planned at what they cost through the day and not at a quiet hour's. Not
        on a free licence: its one or two detections a day each pay for a day's changes, the
        last one's cost says nothing of an hour's, and planned at it the free week made 3 and 2
        detections where it made 5 and 3 (seeds 7 and 9, 2026-12-06)."""
        recent = self.recent_detect_cost
        if quota <= FREE_LICENCE_QUOTA or recent is None:
            return self.detect_cost
        return max(self.detect_cost, recent)

    @property
    def extra_per_detection(self) -> float:
        """What a detection has cost beyond its check windows, on average (a prior of half a
        request for ``DETECTION_PRIOR_RUNS``)."""
        prior = self.DETECTION_PRIOR_RUNS
        return (0.5 * prior + self.detection_extra) / (prior + self.detections)
