"""Requests counted before the server said when its day ends belong to the server's period: a
process started after UTC midnight but before the server's reset keeps one ledger, not two."""

from __future__ import annotations

from datetime import UTC, datetime, timedelta
from pathlib import Path

from roomsync.adapters.client.quota import QuotaGate, UsageHeaders
from roomsync.adapters.store import open_store
from roomsync.core.budget import Reserves
from roomsync.core.catalog.types import Priority

AFTER_UTC_MIDNIGHT = datetime(2026, 11, 25, 0, 30, tzinfo=UTC)


def test_counts_made_before_the_reset_was_heard_move_into_the_servers_period(tmp_path: Path) -> None:
    store = open_store(f"sqlite:///{tmp_path / 'budget.db'}", upgrade=True)
    try:
        gate = QuotaGate(
            store.budget,
            "p",
            quota=1500,
            reserves=Reserves(0.05, 0.15, 0.30),
            headers=UsageHeaders("X-RateLimit-Limit", "X-RateLimit-Remaining", "X-RateLimit-Reset"),
            clock=lambda: AFTER_UTC_MIDNIGHT,
        )
        gate.spend(Priority.GUEST, "token")  # nothing known of the server yet: keyed by UTC date
        assert gate.today() == AFTER_UTC_MIDNIGHT.date()
        # the server's day ends in 15 h: it is still the server's 24 November
        gate.observe_headers(
            {
                "X-RateLimit-Limit": "1500",
                "X-RateLimit-Remaining": "1400",
                "X-RateLimit-Reset": str(15 * 3600),
            }
        )
        gate.spend(Priority.PRICES, "rooms")
        assert gate.today() == AFTER_UTC_MIDNIGHT.date() - timedelta(days=1)
        snapshot = gate.snapshot()
        assert snapshot.used_local == 2
        assert snapshot.by_priority[Priority.GUEST] == 1 and snapshot.by_priority[Priority.PRICES] == 1
        assert store.budget.snapshot("p", AFTER_UTC_MIDNIGHT.date(), 1500).used_local == 0
    finally:
        store.close()
