"""The reserves keep back no more than the day's spend share leaves (core.budget.Reserves)."""

from __future__ import annotations

from roomsync.core.budget import Reserves
from roomsync.core.catalog.types import Priority


def test_the_reserves_keep_their_shares_where_the_spend_share_leaves_more() -> None:
    reserves = Reserves(spend_shares=(0.6, 1.0))
    assert reserves.count(Priority.GUEST, 1500) == 0
    assert reserves.count(Priority.AVAILABILITY, 1500) == 75
    assert reserves.count(Priority.PRICES, 1500) == 225  # 15 %: 40 % is left to other applications
    assert reserves.count(Priority.RECONCILE, 1500) == 450  # 30 %
    assert Reserves().count(Priority.RECONCILE, 1500) == 450  # no spend shares: no limit


def test_a_spend_share_of_nine_tenths_lets_prices_and_the_reconciliation_spend_to_it() -> None:
    reserves = Reserves(spend_shares=(0.9, 1.0))
    assert reserves.count(Priority.PRICES, 1500) == 150  # 10 %, not 15 %
    assert reserves.count(Priority.RECONCILE, 1500) == 150  # 10 %, not 30 %
    assert reserves.count(Priority.AVAILABILITY, 1500) == 75  # the guest reserve is kept whole


def test_a_free_licence_keeps_back_only_the_guest_reserve_at_its_default_spend_share() -> None:
    reserves = Reserves(spend_shares=(0.6, 1.0))
    assert [reserves.count(p, 100) for p in (Priority.AVAILABILITY, Priority.PRICES, Priority.RECONCILE)] == [
        5,
        5,
        5,
    ]
