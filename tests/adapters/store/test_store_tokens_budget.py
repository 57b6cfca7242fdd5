"""Tokens and the daily request budget, on both databases."""

from __future__ import annotations

import threading
from datetime import UTC, date, datetime, timedelta, timezone

import pytest

from roomsync.adapters.store import Store
from roomsync.core.budget import Reserves
from roomsync.core.catalog.types import Priority
from roomsync.core.ports import StoredToken

DAY = date(2027, 3, 1)
NO_RESERVES = Reserves(availability=0.0, prices=0.0, reconcile=0.0)


def test_token_save_load_replace_clear(store: Store, property_id: str, other_property_id: str) -> None:
    assert store.tokens.load_token(property_id) is None
    first = StoredToken("first-token", datetime(2027, 3, 1, 12, 0, tzinfo=UTC))
    store.tokens.save_token(property_id, first)
    assert store.tokens.load_token(property_id) == first

    # an aware time in another zone is kept as the same instant, handed back in UTC
    cet = timezone(timedelta(hours=1))
    second = StoredToken("second-token", datetime(2027, 3, 2, 13, 30, tzinfo=cet))
    store.tokens.save_token(property_id, second)
    loaded = store.tokens.load_token(property_id)
    assert loaded is not None
    assert loaded.access_token == "second-token"
    assert loaded.expires_at == datetime(2027, 3, 2, 12, 30, tzinfo=UTC)
    assert loaded.expires_at.tzinfo is not None and loaded.expires_at.utcoffset() == timedelta(0)
    assert store.tokens.load_token(other_property_id) is None

    store.tokens.clear_token(property_id)
    assert store.tokens.load_token(property_id) is None


def test_naive_timestamp_is_refused(store: Store, property_id: str) -> None:
    with pytest.raises(ValueError, match="naive datetime"):
        store.tokens.save_token(property_id, StoredToken("t", datetime(2027, 3, 1, 12, 0)))
    assert store.tokens.load_token(property_id) is None


def spend_until_refused(store: Store, property_id: str, priority: Priority, quota: int) -> int:
    granted = 0
    while store.budget.try_spend(property_id, DAY, priority, quota, Reserves()) is not None:
        granted += 1
    return granted


def test_try_spend_keeps_each_priority_reserve(store: Store, property_id: str) -> None:
    # default reserves of a quota of 100: reconcile keeps 30, prices 15, availability 5, guest 0
    assert spend_until_refused(store, property_id, Priority.RECONCILE, 100) == 70
    assert spend_until_refused(store, property_id, Priority.PRICES, 100) == 15
    assert spend_until_refused(store, property_id, Priority.AVAILABILITY, 100) == 10
    assert spend_until_refused(store, property_id, Priority.GUEST, 100) == 5

    snapshot = store.budget.snapshot(property_id, DAY, 100)
    assert snapshot.used_local == 100
    assert snapshot.remaining == 0
    assert snapshot.by_priority == {
        Priority.GUEST: 5,
        Priority.AVAILABILITY: 10,
        Priority.PRICES: 15,
        Priority.RECONCILE: 70,
    }
    assert snapshot.refused_by_priority == dict.fromkeys(Priority, 1)


def test_refusals_are_counted_and_spend_nothing(store: Store, property_id: str) -> None:
    for _ in range(3):
        assert store.budget.try_spend(property_id, DAY, Priority.GUEST, 10, NO_RESERVES, cost=11) is None
    snapshot = store.budget.snapshot(property_id, DAY, 10)
    assert snapshot.used_local == 0
    assert snapshot.refused_by_priority[Priority.GUEST] == 3


def test_cost_counts_whole_and_snapshot_after_spending_is_returned(store: Store, property_id: str) -> None:
    after = store.budget.try_spend(property_id, DAY, Priority.PRICES, 50, NO_RESERVES, cost=20)
    assert after is not None
    assert (after.used_local, after.by_priority[Priority.PRICES], after.quota) == (20, 20, 50)
    assert store.budget.try_spend(property_id, DAY, Priority.PRICES, 50, NO_RESERVES, cost=31) is None
    assert store.budget.try_spend(property_id, DAY, Priority.PRICES, 50, NO_RESERVES, cost=30) is not None
    with pytest.raises(ValueError, match="cost must be at least 1"):
        store.budget.try_spend(property_id, DAY, Priority.PRICES, 50, NO_RESERVES, cost=0)


def test_server_usage_counts_and_never_lowers(store: Store, property_id: str) -> None:
    store.budget.observe_server(property_id, DAY, 100, 40)
    store.budget.observe_server(property_id, DAY, 100, 30)  # late report: ignored
    snapshot = store.budget.snapshot(property_id, DAY, 100)
    assert (snapshot.used_server, snapshot.used_local, snapshot.used) == (40, 0, 40)

    # the server's count covers every application of the property: 97 used leaves 3
    store.budget.observe_server(property_id, DAY, 100, 97)
    assert store.budget.try_spend(property_id, DAY, Priority.GUEST, 100, NO_RESERVES, cost=4) is None
    assert store.budget.try_spend(property_id, DAY, Priority.GUEST, 100, NO_RESERVES, cost=3) is not None
    store.budget.observe_server(property_id, DAY, 100, 100)  # the next response's usage header
    assert store.budget.try_spend(property_id, DAY, Priority.GUEST, 100, NO_RESERVES) is None
    assert store.budget.snapshot(property_id, DAY, 100).used_server == 100


def test_days_and_properties_have_their_own_budgets(
    store: Store, property_id: str, other_property_id: str
) -> None:
    assert store.budget.try_spend(property_id, DAY, Priority.GUEST, 5, NO_RESERVES, cost=5) is not None
    assert store.budget.try_spend(property_id, DAY, Priority.GUEST, 5, NO_RESERVES) is None
    next_day = DAY + timedelta(days=1)
    assert store.budget.try_spend(property_id, next_day, Priority.GUEST, 5, NO_RESERVES) is not None
    assert store.budget.try_spend(other_property_id, DAY, Priority.GUEST, 5, NO_RESERVES) is not None
    assert store.budget.snapshot(other_property_id, DAY, 5).used_local == 1
    assert store.budget.snapshot(property_id, DAY + timedelta(days=2), 5).used_local == 0


def test_concurrent_spenders_never_exceed_the_quota(
    store: Store, second_store: Store, property_id: str
) -> None:
    """Sixteen threads on two stores (two replicas) spend as fast as they can: exactly Q granted."""
    quota, threads = 120, 16
    start = threading.Barrier(threads)
    granted = [0] * threads
    refused = [0] * threads
    errors: list[BaseException] = []

    def spender(index: int) -> None:
        replica = store if index % 2 else second_store
        try:
            start.wait()
            while replica.budget.try_spend(property_id, DAY, Priority.GUEST, quota, NO_RESERVES) is not None:
                granted[index] += 1
            refused[index] += 1
        except BaseException as error:  # surfaced below, not lost in the thread
            errors.append(error)

    workers = [threading.Thread(target=spender, args=(i,)) for i in range(threads)]
    for worker in workers:
        worker.start()
    for worker in workers:
        worker.join()

    assert errors == []
    assert sum(granted) == quota
    snapshot = store.budget.snapshot(property_id, DAY, quota)
    assert snapshot.used_local == quota
    assert snapshot.by_priority[Priority.GUEST] == quota
    assert snapshot.refused_by_priority[Priority.GUEST] == sum(refused) == threads
