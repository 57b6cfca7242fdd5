"""The resync (``roomsync.app.sync.runs.resync``) against the emulator over loopback HTTP: the
channel re-read, the ledger set aside. Drift is made behind roomsync's back through the API as
another application would; what a resync costs is counted in the emulator's request log, and
convergence is judged on the emulator's PMS state and channel read-backs (sync_harness).
"""

from __future__ import annotations

from datetime import timedelta

from sync_harness import (
    DOUBLES,
    FIRST,
    POST_PRICES,
    PUT_INVENTORY,
    READ_INVENTORY,
    Control,
    Emulator,
    SyncFactory,
    assert_converged,
    block_body,
    load_demo_mapping,
    night,
    synced,
)

from roomsync.adapters.store import Store
from roomsync.app.sync import ListingStatus
from roomsync.app.sync.runs.detect import detect_changes
from roomsync.app.sync.runs.full_sync import sync_property
from roomsync.app.sync.runs.plan import plan
from roomsync.app.sync.runs.poll import poll
from roomsync.app.sync.runs.resync import ResyncRequest, resync
from roomsync.core.ports import ListingKey


async def test_resync_repairs_drift_the_ledger_cannot_see(
    emulator: Emulator, control: Control, make_sync: SyncFactory, sqlite_store: Store
) -> None:
    sync = make_sync(sqlite_store)
    load_demo_mapping(sqlite_store, sync.settings, emulator.state)
    await sync_property(sync)
    drift = FIRST + timedelta(days=12)
    # someone else changes the channel calendar behind roomsync's back
    await sync.client.update_inventory(block_body(DOUBLES, drift, drift + timedelta(days=2)))
    assert control.calendar("41000003", drift, drift)[drift]["availability"] == "unavailable"
    await sync_property(sync)
    assert control.calendar("41000003", drift, drift)[drift]["availability"] == "unavailable"
    control.clear_log()

    doubles = ListingKey(sync.property_id, *DOUBLES)
    report = await resync(sync, [doubles], drift - timedelta(days=3), drift + timedelta(days=10))

    outcome = report.outcome(doubles)
    assert outcome is not None and outcome.status is ListingStatus.WRITTEN and outcome.read_channel
    assert outcome.drift_days == 3
    assert [o.listing_id for o in report.listings] == ["41000003"]
    assert control.counts()[READ_INVENTORY] == 1 and control.counts()[PUT_INVENTORY] == 1
    assert control.counts().get(POST_PRICES, 0) == 0
    assert_converged(emulator, control)


async def test_a_resync_of_a_few_nights_keeps_the_closures_located_outside_them(
    emulator: Emulator, control: Control, make_sync: SyncFactory, sqlite_store: Store
) -> None:
    """A resync of a date range (and its plan) reads the closures of those nights only: the store
    keeps the ones located elsewhere, which the polls and the guest checks use (forgotten, the next
    poll would open the closed nights on the channel, a guest check would answer yes for them)."""
    sync = make_sync(sqlite_store)
    load_demo_mapping(sqlite_store, sync.settings, emulator.state)
    assert (await sync_property(sync)).result == "ok"
    located = sqlite_store.sync_state.located_closures(sync.property_id)
    assert located.property_wide and located.room_types  # the demo's, 45 and 100 nights ahead
    first, last = FIRST + timedelta(days=2), FIRST + timedelta(days=4)
    await plan(sync, ResyncRequest([ListingKey(sync.property_id, *DOUBLES)], first, last))
    assert (await resync(sync, None, first, last)).result == "ok"
    assert sqlite_store.sync_state.located_closures(sync.property_id) == located
    assert (await poll(sync)).result == "ok"
    assert_converged(emulator, control)


async def test_a_resync_finds_a_closure_lifted_on_some_of_its_nights(
    emulator: Emulator, control: Control, make_sync: SyncFactory, sqlite_store: Store
) -> None:
    sync = await synced(make_sync, sqlite_store, emulator, control)
    control.call("POST", "/pms/close", {"dateFrom": night(20), "dateTo": night(22), "roomTypeId": 1})
    assert (await detect_changes(sync)).pms.closures_changed == (1,)
    control.call(
        "POST", "/pms/close", {"dateFrom": night(22), "dateTo": night(22), "roomTypeId": 1, "open": True}
    )

    resynced = await resync(sync)

    assert resynced.result == "ok"
    assert_converged(emulator, control)
