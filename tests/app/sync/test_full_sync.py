"""The full sync (``roomsync.app.sync.runs.full_sync``) against the emulator over loopback HTTP,
with the real store.

Convergence is judged against the emulator's own PMS state and channel read-backs
(sync_harness), never against the engine's computation.
"""

from __future__ import annotations

from dataclasses import replace
from datetime import timedelta
from typing import Any

import pytest
from sync_harness import (
    DOUBLES,
    FIRST,
    HORIZON,
    LAST,
    POST_PRICES,
    PUT_INVENTORY,
    READ_INVENTORY,
    Control,
    Emulator,
    SyncFactory,
    assert_converged,
    channel_mismatches,
    closure_check_reads,
    imported_booking,
    load_demo_mapping,
    pushed_types,
)

from roomsync.adapters.store import Store
from roomsync.app.daemon.observe import set_listing_gauges
from roomsync.app.sync import ListingStatus, PricesResult
from roomsync.app.sync.runs.full_sync import sync_property
from roomsync.app.sync.runs.property_sync import SyncOptions
from roomsync.core.ports import ListingKey
from roomsync.metrics import Metrics


async def test_demo_property_converges_and_a_quiet_sync_costs_its_closure_check(
    emulator: Emulator, control: Control, make_sync: SyncFactory, store_on: Store
) -> None:
    sync = make_sync(store_on)
    load_demo_mapping(store_on, sync.settings, emulator.state)
    assert channel_mismatches(emulator.state, control, FIRST, LAST), "the demo channel starts stale"

    first = await sync_property(sync)

    assert first.result == "ok", first.error
    assert_converged(emulator, control)
    counts = control.counts()
    # the cold start at its floor: no channel read; one PUT per connected listing (its calendar
    # written whole), one POST Prices, beside the PMS reads, the token and GET Listings
    hints = emulator.state.scenario.hints["listings"]
    connected = [h for h in hints if h["connected"] in ("Full", "Limited")]
    pms_reads = first.pms.availability_reads + first.pms.closure_reads + first.pms.price_reads
    floor = 1 + 1 + pms_reads + len(connected) + 1
    assert counts.get(READ_INVENTORY, 0) == 0
    assert counts[PUT_INVENTORY] == len(connected) and counts[POST_PRICES] == 1
    assert control.total() == floor, (control.total(), floor, counts)

    # a new engine and client, as after a restart: only the store remains
    control.clear_log()
    second = await sync_property(make_sync(store_on))

    assert second.result == "ok"
    assert control.writes() == 0
    # the free rooms, and the closure check (whose windows also settle every price): nothing else
    check = closure_check_reads(emulator.state, pushed_types(emulator), FIRST, LAST)
    assert check > 1  # the demo has room-type closures: the check reads around them
    assert control.total() == 1 + check, control.counts()
    assert all(o.status in (ListingStatus.UNCHANGED, ListingStatus.PAUSED) for o in second.listings)
    runs = store_on.sync_runs.recent_runs(sync.property_id)
    assert [run.kind for run in runs] == ["sync", "sync"]
    assert runs[0].requests_spent == control.total() and runs[0].operations == 0
    assert runs[1].operations == first.operations > 0 and runs[1].price_elements == len(first.prices.elements)


async def test_front_desk_changes_reach_the_channel_on_the_next_sync(
    emulator: Emulator, control: Control, make_sync: SyncFactory, sqlite_store: Store
) -> None:
    sync = make_sync(sqlite_store)
    load_demo_mapping(sqlite_store, sync.settings, emulator.state)
    await sync_property(sync)
    free = control.free_rooms(FIRST, LAST)[1]
    start = next(n for n in sorted(free) if n > FIRST and free[n] > 0 and free[n + timedelta(days=1)] > 0)
    control.call(
        "POST",
        "/pms/book",
        {
            "dateFrom": start.isoformat(),
            "dateTo": (start + timedelta(days=2)).isoformat(),
            "lastName": "Test",
            "roomTypeId": 1,
        },
    )
    control.call(
        "POST",
        "/pms/price",
        {
            "roomTypeId": 2,
            "dateFrom": str(FIRST + timedelta(days=30)),
            "dateTo": str(FIRST + timedelta(days=33)),
            "price": "123.45",
        },
    )
    control.call(
        "POST",
        "/pms/close",
        {
            "dateFrom": str(FIRST + timedelta(days=60)),
            "dateTo": str(FIRST + timedelta(days=61)),
            "roomTypeId": 1,
        },
    )
    control.call(
        "POST",
        "/pms/close",
        {"dateFrom": str(FIRST + timedelta(days=70)), "dateTo": str(FIRST + timedelta(days=70))},
    )
    control.clear_log()

    report = await sync_property(sync)

    assert report.result == "ok"
    assert_converged(emulator, control)
    written = {o.listing_id for o in report.listings if o.status is ListingStatus.WRITTEN}
    # the booking and closure touch room type 1, the price type 2, the property closure every listing
    assert written == {"41000001", "41000002", "41000003", "41000004"}
    assert control.counts()[PUT_INVENTORY] == 4 and control.counts()[POST_PRICES] == 1
    assert report.pms.closures_located == (1,)


@pytest.mark.parametrize("broken", ["calendar", "channel_prices"])
async def test_a_crash_between_the_write_and_the_ledger_converges_on_the_next_sync(
    emulator: Emulator, control: Control, make_sync: SyncFactory, store_on: Store, broken: str
) -> None:
    sync = make_sync(store_on)
    load_demo_mapping(store_on, sync.settings, emulator.state)
    await sync_property(sync)
    control.call(
        "POST",
        "/pms/book",
        {
            "dateFrom": str(FIRST + timedelta(days=5)),
            "dateTo": str(FIRST + timedelta(days=7)),
            "lastName": "Crash",
            "roomTypeId": 2,
        },
    )
    control.call(
        "POST",
        "/pms/price",
        {
            "roomTypeId": 2,
            "dateFrom": str(FIRST + timedelta(days=9)),
            "dateTo": str(FIRST + timedelta(days=9)),
            "price": "77",
        },
    )
    port = getattr(store_on, broken)
    store_on.__dict__[broken] = FailsOnce(
        port, "record_confirmed" if broken == "calendar" else "record_pushed_prices"
    )
    control.clear_log()

    with pytest.raises(RuntimeError, match="the process died"):
        await sync_property(sync)

    assert control.counts()[PUT_INVENTORY] == 1  # the write reached the channel, the ledger missed it
    store_on.__dict__[broken] = port
    control.clear_log()
    repaired = await sync_property(make_sync(store_on))

    assert repaired.result == "ok"
    assert_converged(emulator, control)
    if broken == "calendar":  # the stale ledger made the same operations go out once more
        assert control.counts()[PUT_INVENTORY] == 1
    else:
        assert control.counts()[POST_PRICES] == 1 and control.counts().get(PUT_INVENTORY, 0) == 0
    control.clear_log()
    assert (await sync_property(sync)).result == "ok" and control.writes() == 0


class FailsOnce:
    """A store port whose ``method`` raises once, as if the process died right there."""

    def __init__(self, port: Any, method: str) -> None:
        self._port, self._method, self.failed = port, method, False

    def __getattr__(self, name: str) -> Any:
        attribute = getattr(self._port, name)
        if name != self._method or self.failed:
            return attribute

        def fail(*args: Any, **kwargs: Any) -> None:
            self.failed = True
            raise RuntimeError("the process died between the write and the ledger")

        return fail


async def test_paused_and_unconnected_listings_are_skipped_and_said_so(
    emulator: Emulator, control: Control, make_sync: SyncFactory, sqlite_store: Store
) -> None:
    metrics = Metrics()
    sync = make_sync(sqlite_store, metrics=metrics)
    load_demo_mapping(sqlite_store, sync.settings, emulator.state)
    sqlite_store.listing_states.set_paused(
        ListingKey(sync.property_id, *DOUBLES), True, "unlinked by the host"
    )
    untouched = {lid: control.calendar(lid, FIRST, LAST) for lid in ("41000003", "41000005", "41000006")}

    report = await sync_property(sync)

    reasons = {o.listing_id: o.reason for o in report.listings if o.status is ListingStatus.PAUSED}
    assert reasons["41000003"] == "unlinked by the host"
    assert "not connected" in (reasons["41000005"] or "") and "not connected" in (reasons["41000006"] or "")
    for listing_id, before in untouched.items():
        assert control.calendar(listing_id, FIRST, LAST) == before
    assert control.counts()[PUT_INVENTORY] == 3  # the two studios and the twins
    set_listing_gauges(metrics, sqlite_store, sync.context)  # as the daemon does after each job
    paused = {"property": sync.property_id}
    sample = metrics.registry.get_sample_value
    assert sample("roomsync_paused_listings", paused | {"reason": "not_connected"}) == 2
    assert sample("roomsync_paused_listings", paused | {"reason": "unlinked"}) == 1
    assert sample("roomsync_sync_runs_total", paused | {"kind": "sync", "result": "ok"}) == 1


async def test_a_full_sync_fills_the_guests_availability_view(
    emulator: Emulator, control: Control, make_sync: SyncFactory, sqlite_store: Store
) -> None:
    """The full sync reads which rooms are free over the horizon anyway: the webhook receiver's
    view takes that read, so a guest's check right after a first sync answers from it instead of
    reading the PMS while the guest waits (before, only a poll filled it, and a check between the
    first sync and the first poll found no availability at all)."""
    sync = make_sync(sqlite_store)
    load_demo_mapping(sqlite_store, sync.settings, emulator.state)
    view = sqlite_store.availability_view
    assert view.read_nights(sync.property_id, 1, [FIRST, LAST]) == {}
    assert (await sync_property(sync)).result == "ok"
    free = control.free_rooms(FIRST, LAST)
    for room_type_id, per_night in free.items():
        rows = view.read_nights(sync.property_id, room_type_id, per_night)
        assert {night: row.free_rooms for night, row in rows.items()} == per_night, room_type_id
        assert not any(row.stale for row in rows.values())


async def test_the_budget_stops_price_reads_first_and_the_cache_fills_over_syncs(
    emulator: Emulator, control: Control, make_sync: SyncFactory, sqlite_store: Store
) -> None:
    control.call("POST", "/quota", {"dailyQuota": 150})  # the server's quota wins over the setting
    sync = make_sync(sqlite_store)
    sync = replace(sync, options=SyncOptions(price_reads_per_sync=1000))
    load_demo_mapping(sqlite_store, sync.settings, emulator.state)

    first = await sync_property(sync)

    # 15 % of 150 is kept back from price work: the detection stops and the connected push waits,
    # while availability (5 % kept back) still goes out to every listing
    assert not first.pms.prices_complete and first.pms.prices_unknown > 0
    assert any("budget" in note for note in first.notes)
    assert first.prices.result is PricesResult.NO_BUDGET and first.result == "partial"
    assert [o.status for o in first.listings if o.status is not ListingStatus.PAUSED] == [
        ListingStatus.WRITTEN
    ] * 4
    assert control.counts()[PUT_INVENTORY] == 4 and control.counts().get(POST_PRICES, 0) == 0
    budget = sync.client.budget()
    assert budget.remaining >= 8  # the availability reserve was never touched

    control.call("POST", "/quota", {"dailyQuota": 3000})
    second = await sync_property(make_sync(sqlite_store))

    assert second.pms.prices_complete and second.result == "ok"
    assert second.pms.price_reads < HORIZON  # the nights cached by the first sync are not read again
    assert_converged(emulator, control)


async def test_a_room_type_listing_counts_its_own_reservations_once_the_pms_holds_them(
    emulator: Emulator, control: Control, make_sync: SyncFactory, sqlite_store: Store
) -> None:
    sync = make_sync(sqlite_store)
    load_demo_mapping(sqlite_store, sync.settings, emulator.state)
    await sync_property(sync)
    free = control.free_rooms(FIRST, LAST)[1]
    start = next(n for n in sorted(free) if n > FIRST and free[n] > 1 and free[n + timedelta(days=1)] > 1)
    end = start + timedelta(days=2)
    # a guest books the doubles listing on the channel; the webhook bridge imports it into the PMS
    control.call(
        "POST",
        "/guest/book",
        {"listingId": DOUBLES[1], "startDate": start.isoformat(), "nights": 2, "lastName": "Channel"},
    )
    booked = control.call(
        "POST",
        "/pms/book",
        {"dateFrom": str(start), "dateTo": str(end), "lastName": "Channel", "roomTypeId": 1},
    )
    sqlite_store.webhook_records.save_booking(
        imported_booking(sync.property_id, "HMTEST0001", DOUBLES[1], 1, start, 2, booked["roomId"])
    )

    await sync_property(sync)

    after = control.free_rooms(start, start + timedelta(days=1))[1]
    days = control.calendar(DOUBLES[1], start, start + timedelta(days=1))
    for night, day in days.items():
        # the PMS room the channel's own booking took is added back: the channel subtracts it itself
        assert day["availableCount"] == after[night] + 1 == free[night]
        assert day["reserved"] == 1
