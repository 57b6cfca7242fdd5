"""The daily budget: asked before every request, fed by every answer, refusing low priorities first."""

from __future__ import annotations

import math
import socket
from datetime import UTC, datetime, timedelta
from pathlib import Path

import pytest
from client_harness import FAST_RETRIES, FIXED_NOW, TOKEN_PATH, ClientFactory, Control, settings_for
from rich.console import Console

from roomsync.adapters.client import (
    QuotaExhausted,
    RetriableError,
    ServiceClient,
    budget_for_today,
    budget_view,
    render_budget,
)
from roomsync.adapters.store import Store
from roomsync.core.catalog import Priority
from roomsync.property_context import PropertyContext

ROOMS = "GET /v1/Rooms"
SHARES = {Priority.GUEST: 0.0, Priority.AVAILABILITY: 0.05, Priority.PRICES: 0.15, Priority.RECONCILE: 0.30}
"""The default reserves of the settings, as shares of the daily quota."""
SHARED_FREE_LICENCE = {"free_licence_spend_share": 0.6}
"""The small quotas here are free licences, whose default spend share (all of the quota) leaves
the prices' and the reconciliation's reserves at the guest reserve (core.budget.Reserves); at
0.6, 40 % is left to other applications and each reserve keeps its share."""
SECONDS_TO_EMULATOR_MIDNIGHT = (
    datetime.combine(FIXED_NOW.date() + timedelta(days=1), datetime.min.time(), tzinfo=UTC) - FIXED_NOW
).total_seconds()


async def spend_until_refused(client: ServiceClient, priority: Priority, limit: int = 50) -> QuotaExhausted:
    for _ in range(limit):
        try:
            await client.list_rooms(priority=priority)
        except QuotaExhausted as refused:
            return refused
    raise AssertionError(f"{priority.name} was never refused")


async def test_low_priorities_are_refused_first_and_nothing_passes_the_quota(
    make_client: ClientFactory, control: Control
) -> None:
    quota = 20
    control.quota(dailyQuota=quota)
    client = make_client(daily_quota=quota, **SHARED_FREE_LICENCE)

    for priority in (Priority.RECONCILE, Priority.PRICES, Priority.AVAILABILITY, Priority.GUEST):
        refused = await spend_until_refused(client, priority)
        reserve = math.ceil(SHARES[priority] * quota)
        assert refused.priority is priority
        assert refused.reserve == reserve
        assert refused.remaining == reserve  # refused exactly when the next request would eat the reserve
        assert control.total() == quota - reserve  # and nothing was sent for it
        assert priority.name in str(refused) and "resets at" in str(refused)

    log = control.log()
    assert log["total"] == quota
    assert set(log["byStatus"]) == {f"{ROOMS} 200", f"{TOKEN_PATH} 200"}  # never a 429
    snapshot = client.budget()
    assert snapshot.refused_by_priority == {p: 1 for p in Priority}


async def test_other_applications_use_of_the_quota_is_counted(
    make_client: ClientFactory, control: Control
) -> None:
    control.quota(usedCalls=1490)  # someone else's sync ran today
    client = make_client()
    with pytest.raises(QuotaExhausted) as refused:
        await client.list_rooms()  # a reconciliation read
    # Only the token went out; its usage headers showed 9 left, far below the reconcile reserve.
    assert control.count(TOKEN_PATH) == 1
    assert control.count(ROOMS) == 0
    assert refused.value.remaining == 1500 - 1491
    assert client.budget().used_server == 1491

    assert await client.list_rooms(priority=Priority.GUEST)  # a guest-facing check still goes out


async def test_a_429_until_the_reset_is_reported_not_slept_through(
    make_client: ClientFactory, control: Control
) -> None:
    waits: list[float] = []

    async def sleep(seconds: float) -> None:
        waits.append(seconds)

    client = make_client(sleep=sleep)
    await client.list_rooms()
    control.quota(usedCalls=1500)  # the day is spent, unknown to the client's own count
    with pytest.raises(QuotaExhausted, match="does not sleep") as refused:
        await client.list_rooms()
    assert waits == []
    assert refused.value.status == 429
    assert refused.value.remaining == 0
    # The reset comes from the server's clock (15 h to its midnight), not from the client's.
    expected = datetime.now(UTC) + timedelta(seconds=SECONDS_TO_EMULATOR_MIDNIGHT)
    assert abs(refused.value.resets_at - expected) < timedelta(minutes=1)
    assert control.log()["byStatus"][f"{ROOMS} 429"] == 1


async def test_refresh_usage_records_the_servers_count(make_client: ClientFactory, control: Control) -> None:
    control.quota(usedCalls=100)
    client = make_client()
    usage = await client.refresh_usage()
    assert usage.daily_quota == 1500
    assert usage.used_calls == 102  # the 100, the token and the usage request itself
    assert client.budget().used_server == 102
    assert client.budget().used_local == 2


async def test_the_latest_budget_is_the_stores_row_after_the_last_request(
    make_client: ClientFactory, control: Control
) -> None:
    """A run's end takes the budget from its last spend instead of reading the store (issue 26):
    it must be the row the store holds, the server's count of the answer included."""
    quota = 20
    control.quota(dailyQuota=quota, usedCalls=5)  # another application's requests
    client = make_client(daily_quota=quota, **SHARED_FREE_LICENCE)
    assert client.latest_budget() is None  # nothing spent in this process yet

    await client.list_rooms()
    latest = client.latest_budget()
    assert latest == client.budget()
    assert latest is not None and (latest.used_local, latest.used_server) == (2, 7)  # token, request

    await spend_until_refused(client, Priority.RECONCILE)
    assert client.latest_budget() is None  # the refusal was counted behind the last spend's back
    await client.list_rooms(priority=Priority.GUEST)
    latest = client.latest_budget()
    assert latest == client.budget() and latest is not None
    assert latest.refused_by_priority[Priority.RECONCILE] == 1

    await make_client(daily_quota=quota, **SHARED_FREE_LICENCE).list_rooms(
        priority=Priority.GUEST
    )  # another process
    stale = client.latest_budget()
    assert stale is not None and stale.used_local == client.budget().used_local - 1  # it reads no store


async def test_the_budget_view_shows_each_priority(
    make_client: ClientFactory, control: Control, store: Store
) -> None:
    quota = 100
    control.quota(dailyQuota=quota)
    client = make_client(daily_quota=quota, **SHARED_FREE_LICENCE)
    await client.list_rooms(priority=Priority.GUEST)  # and the token, spent at the same priority
    await client.list_rooms(priority=Priority.PRICES)
    await client.list_rooms()  # RECONCILE, the operation's catalog priority

    view = budget_view(client.budget(), client.gate.reserves, resets_at=client.gate.resets_at())
    lines = {line.priority: line for line in view.lines}
    assert {p: lines[p].used for p in Priority} == {
        Priority.GUEST: 2,
        Priority.AVAILABILITY: 0,
        Priority.PRICES: 1,
        Priority.RECONCILE: 1,
    }
    assert (view.used, view.remaining) == (4, quota - 4)
    assert {p: lines[p].reserved for p in Priority} == {p: math.ceil(s * quota) for p, s in SHARES.items()}
    assert lines[Priority.RECONCILE].available == quota - 4 - 30
    # at a free licence's default spend share (all of the quota) they keep back the guest reserve
    default = make_client(daily_quota=quota).gate.reserves
    assert [default.count(p, quota) for p in (Priority.PRICES, Priority.RECONCILE)] == [5, 5]

    # What `roomsync budget` shows: the same numbers from the store alone, no request sent.
    sent = control.total()
    assert budget_for_today(store.budget, client.context).lines == view.lines
    assert control.total() == sent

    console = Console(record=True, width=120)
    console.print(render_budget(view))
    text = console.export_text()
    assert "reconcile" in text and "guest" in text
    assert "4 of 100 used" in text and "96 remaining" in text


async def test_a_request_that_was_never_sent_costs_nothing(
    make_client: ClientFactory, control: Control, store: Store, tmp_path: Path
) -> None:
    """A connection refused (``ConnectError: the request was not sent``) never reached the
    service: the budget gives the request back, for the token as for any other request. Issue 23:
    1,075 -> 1,070 left after a sync against an address nobody listens on."""
    client = make_client()
    await client.list_rooms()  # the token and the rooms, both counted by the service
    assert client.budget().used_local == control.total() == 2

    with socket.socket() as nobody:  # bound, never listening: every connection is refused
        nobody.bind(("127.0.0.1", 0))
        address = f"http://127.0.0.1:{nobody.getsockname()[1]}"
        for property_id in ("demo-hotel", "never-reached"):  # a stored token / a token to request
            context = PropertyContext.of(settings_for(address, tmp_path, property_id=property_id))
            async with ServiceClient(
                context, budget_store=store.budget, token_store=store.tokens, retry=FAST_RETRIES
            ) as unreachable:
                with pytest.raises(RetriableError, match="ConnectError: the request was not sent"):
                    await unreachable.list_rooms()
                assert unreachable.requests_sent.total == 0
                after = unreachable.budget()
                assert after.used_local == (0 if property_id == "never-reached" else 2)
                assert sum(after.refused_by_priority.values()) == 0
                assert sum(after.by_priority.values()) == after.used_local

    assert client.budget().used_local == control.total() == 2
    await client.list_rooms()  # and the budget still counts what is sent
    assert client.budget().used_local == control.total() == 3
