"""The changes the runs saw lately make a burst for the next half hour, and fall out of it."""

from __future__ import annotations

from datetime import UTC, datetime, timedelta

from roomsync.app.daemon.recent_changes import RecentChanges
from roomsync.core.activity import ChangeKind

START = datetime(2026, 11, 30, 23, 0, tzinfo=UTC)


def test_three_bookings_in_half_an_hour_make_a_burst_of_the_polls_only() -> None:
    recent = RecentChanges(START)
    ten = START + timedelta(hours=11)
    recent.heard(START + timedelta(hours=2), {ChangeKind.CLOSURES: 1})
    for minutes in (0, 5, 12):
        recent.heard(ten + timedelta(minutes=minutes), {ChangeKind.AVAILABILITY: 1})
    polls, detection = recent.bursts(ten + timedelta(minutes=13))
    assert detection is None  # one closure in the night
    assert polls is not None
    assert polls.share_per_hour == 6 / (3 / (11 * 3600 + 13 * 60) * 7 * 86_400)
    # half an hour after the second booking only the third is recent: no burst
    assert recent.bursts(ten + timedelta(minutes=36)) == (None, None)


def test_a_day_old_change_no_longer_counts() -> None:
    recent = RecentChanges(START)
    for minutes in range(0, 30, 5):  # six detections that saw closures and prices change
        recent.heard(START + timedelta(minutes=minutes), {ChangeKind.CLOSURES: 2, ChangeKind.PRICES: 1})
    _, first = recent.bursts(START + timedelta(minutes=29))
    assert first is not None
    later = START + timedelta(days=1, minutes=30)
    for minutes in (0, 1, 2):
        recent.heard(later + timedelta(minutes=minutes), {ChangeKind.PRICES: 1})
    _, second = recent.bursts(later + timedelta(minutes=3))
    # three of the last day's three: the last day's pace is the burst's own
    assert second is not None
    assert second.share_per_hour == 6 / (3 * 7)


def test_a_run_counts_once_however_many_listings_its_change_wrote() -> None:
    recent = RecentChanges(START)
    # two studio bookings seen by two polls, each writing both studio listings: not a burst
    recent.heard(START + timedelta(minutes=1), {ChangeKind.AVAILABILITY: 2})
    recent.heard(START + timedelta(minutes=3), {ChangeKind.AVAILABILITY: 2})
    assert recent.bursts(START + timedelta(minutes=4)) == (None, None)
    recent.heard(START + timedelta(minutes=5), {ChangeKind.AVAILABILITY: 1})
    polls, _ = recent.bursts(START + timedelta(minutes=6))
    assert polls is not None
