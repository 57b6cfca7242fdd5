"""Requests counted before the server said when its day ends belong to the server's period: a
process started after UTC midnight but before the server's reset keeps one ledger, not two."""

from __future__ import annotations

from datetime import UTC, date, datetime, timedelta
from pathlib import Path

from roomsync.adapters.client.quota import QuotaGate, UsageHeaders
from roomsync.adapters.store import Store, open_store
from roomsync.core.budget import Reserves
from roomsync.core.catalog.types import Priority

AFTER_UTC_MIDNIGHT = datetime(2026, 11, 25, 0, 30, tzinfo=UTC)


def _gate(store_path: Path, now: list[datetime]) -> tuple[QuotaGate, Store]:
    store = open_store(f"sqlite:///{store_path}", upgrade=True)
    gate = QuotaGate(
        store.budget,
        "p",
        quota=1500,
        reserves=Reserves(0.05, 0.15, 0.30),
        headers=UsageHeaders("X-RateLimit-Limit", "X-RateLimit-Remaining", "X-RateLimit-Reset"),
        clock=lambda: now[0],
    )
    return gate, store


def _headers(used: int, reset_in: timedelta) -> dict[str, str]:
    return {
        "X-RateLimit-Limit": "1500",
        "X-RateLimit-Remaining": str(1500 - used),
        "X-RateLimit-Reset": str(int(reset_in.total_seconds())),
    }


def test_counts_made_before_the_reset_was_heard_move_into_the_servers_period(tmp_path: Path) -> None:
    gate, store = _gate(tmp_path / "budget.db", [AFTER_UTC_MIDNIGHT])
    try:
        gate.spend(Priority.GUEST, "token")  # nothing known of the server yet: keyed by UTC date
        assert gate.today() == AFTER_UTC_MIDNIGHT.date()
        # the server's day ends in 15 h: it is still the server's 24 November
        gate.observe_headers(_headers(100, timedelta(hours=15)))
        gate.spend(Priority.PRICES, "rooms")
        assert gate.today() == AFTER_UTC_MIDNIGHT.date() - timedelta(days=1)
        snapshot = gate.snapshot()
        assert snapshot.used_local == 2
        assert snapshot.by_priority[Priority.GUEST] == 1 and snapshot.by_priority[Priority.PRICES] == 1
        assert store.budget.snapshot("p", AFTER_UTC_MIDNIGHT.date(), 1500).used_local == 0
    finally:
        store.close()


def test_a_reset_instant_that_moves_within_the_servers_day_keeps_its_counts(tmp_path: Path) -> None:
    """The reset instant is this clock plus the seconds the server says are left; where the two
    clocks run at different rates (a server's compressed day) it moves, and a key computed from it
    crosses a date inside one server day: the counts go with it, they are not forgotten."""
    now = [datetime(2026, 12, 7, 0, 56, tzinfo=UTC)]
    gate, store = _gate(tmp_path / "budget.db", now)
    try:
        gate.observe_headers(_headers(0, timedelta(hours=23, minutes=59)))  # 8 Dec 00:55: key 7 Dec
        for _ in range(3):
            gate.spend(Priority.PRICES, "rooms")
        gate.observe_headers(_headers(3, timedelta(hours=23, minutes=59)))
        assert gate.today() == date(2026, 12, 7)
        # a second later the server's day is four hours on: its reset is 7 Dec 20:56 by this
        # clock, the key 6 Dec; its count went up, so it is the same server day
        now[0] += timedelta(seconds=1)
        gate.observe_headers(_headers(3, timedelta(hours=20)))
        gate.spend(Priority.PRICES, "rooms")
        assert gate.today() == date(2026, 12, 6)
        assert gate.snapshot().used_local == 4
        assert gate.snapshot().by_priority[Priority.PRICES] == 4

        # the server's day turns (its count starts again): a new period, nothing carried
        now[0] += timedelta(seconds=1)
        gate.observe_headers(_headers(1, timedelta(hours=23, minutes=59, seconds=59)))
        assert gate.today() == date(2026, 12, 7)
        assert gate.snapshot().used_local == 0
    finally:
        store.close()
