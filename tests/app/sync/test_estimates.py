"""What the daemon's planning asks without a request (``roomsync.app.sync.runs.estimates``), held
against what the runs then really do on the emulator: the estimated costs are compared with the
requests a quiet full sync or detection spends, counted in the emulator's request log, and with
the closure check's reads counted from the emulator's own closures (sync_harness)."""

from __future__ import annotations

from dataclasses import replace
from datetime import UTC, datetime, time, timedelta

from sync_harness import (
    DOUBLES,
    FIRST,
    LAST,
    NEAR,
    Control,
    Emulator,
    SyncFactory,
    closure_check_reads,
    load_demo_mapping,
    night,
    pushed_types,
    synced,
)

from roomsync.adapters.store import Store
from roomsync.app.sync import ListingStatus
from roomsync.app.sync.runs.detect import detect_changes
from roomsync.app.sync.runs.estimates import (
    detection_windows,
    synced_every_listing_since,
    warm_full_sync_cost,
)
from roomsync.app.sync.runs.full_sync import sync_property
from roomsync.app.sync.runs.poll import poll
from roomsync.app.sync.runs.property_sync import PropertySync
from roomsync.core.ports import ListingKey


def at(hour: int, minute: int = 0) -> datetime:
    """An instant of today (the runs' clocks stay on the emulator's day: the horizon is the same)."""
    return datetime.combine(FIRST, time(hour, minute), tzinfo=UTC)


def clocked(sync: PropertySync, instant: datetime) -> PropertySync:
    return replace(sync, clock=lambda: instant)


async def test_the_warm_full_sync_cost_is_what_a_quiet_full_sync_spends(
    emulator: Emulator, control: Control, make_sync: SyncFactory, sqlite_store: Store
) -> None:
    sync = await synced(make_sync, sqlite_store, emulator, control)

    estimate = await warm_full_sync_cost(sync)

    assert control.total() == 0  # the estimate costs nothing
    # the free rooms and the closure check around the closures the emulator holds
    assert estimate == 1 + closure_check_reads(emulator.state, pushed_types(emulator), FIRST, LAST)
    quiet = await sync_property(make_sync(sqlite_store))  # a new client, as after a restart
    assert quiet.result == "ok" and control.writes() == 0
    assert control.total() == estimate, control.counts()

    # a new closure of the doubles, located by the next full sync: the estimate grows with it
    control.call("POST", "/pms/close", {"dateFrom": night(60), "dateTo": night(61), "roomTypeId": 1})
    assert 1 in (await sync_property(sync)).pms.closures_located
    control.clear_log()
    grown = await warm_full_sync_cost(sync)
    assert grown == 1 + closure_check_reads(emulator.state, pushed_types(emulator), FIRST, LAST) > estimate
    assert (await sync_property(sync)).result == "ok" and control.writes() == 0
    assert control.total() == grown, control.counts()


async def test_the_detection_windows_are_what_a_quiet_detection_spends(
    emulator: Emulator, control: Control, make_sync: SyncFactory, sqlite_store: Store
) -> None:
    sync = await synced(make_sync, sqlite_store, emulator, control)
    # the types of the listings roomsync may push to, and type 1, which feeds the connected channels
    watched = pushed_types(emulator) | {1}

    windows = await detection_windows(sync)

    assert control.total() == 0
    assert len(windows) == closure_check_reads(emulator.state, watched, FIRST, NEAR)
    covered = sorted(night for window in windows for night in window.each_night())
    assert covered == [FIRST + timedelta(days=n) for n in range((NEAR - FIRST).days + 1)]
    quiet = await detect_changes(sync)
    assert quiet.result == "ok" and quiet.listings == []
    assert control.total() == len(windows), control.counts()

    # a closure of the near nights, detected: the next detection reads around it too
    control.call("POST", "/pms/close", {"dateFrom": night(10), "dateTo": night(11), "roomTypeId": 1})
    assert (await detect_changes(sync)).pms.closures_changed == (1,)
    control.clear_log()
    grown = await detection_windows(sync)
    assert len(grown) == closure_check_reads(emulator.state, watched, FIRST, NEAR) > len(windows)
    again = await detect_changes(sync)
    assert again.result == "ok" and again.listings == []
    assert control.total() == len(grown), control.counts()


async def test_every_listing_synced_since_an_instant(
    emulator: Emulator, control: Control, make_sync: SyncFactory, sqlite_store: Store
) -> None:
    sync = make_sync(sqlite_store)
    assert not await synced_every_listing_since(sync, at(0))  # no mapping
    load_demo_mapping(sqlite_store, sync.settings, emulator.state)
    assert not await synced_every_listing_since(sync, at(0))  # mapped, never synced

    assert (await sync_property(clocked(sync, at(8)))).result == "ok"

    assert await synced_every_listing_since(sync, at(8))
    assert await synced_every_listing_since(sync, at(8).replace(tzinfo=None))  # naive: UTC
    assert not await synced_every_listing_since(sync, at(8, 1))

    # a paused listing holds nothing back (the two unconnected listings never did)
    sqlite_store.listing_states.set_paused(ListingKey(sync.property_id, *DOUBLES), True, "by the test")
    assert (await sync_property(clocked(sync, at(9)))).result == "ok"
    assert await synced_every_listing_since(sync, at(9))
    assert control.total() > 0  # the runs were real


async def test_a_quiet_full_sync_within_the_hour_counts_as_every_listing_synced(
    emulator: Emulator, control: Control, make_sync: SyncFactory, sqlite_store: Store
) -> None:
    sync = make_sync(sqlite_store)
    load_demo_mapping(sqlite_store, sync.settings, emulator.state)
    assert (await sync_property(clocked(sync, at(8)))).result == "ok"  # every listing written
    assert (await sync_property(clocked(sync, at(9)))).result == "ok"  # every listing unchanged
    assert await synced_every_listing_since(sync, at(9))

    assert (await sync_property(clocked(sync, at(9, 30)))).result == "ok"  # unchanged again

    assert await synced_every_listing_since(sync, at(9, 30))


async def test_a_quiet_poll_within_the_hour_still_saves_its_writes(
    emulator: Emulator, control: Control, make_sync: SyncFactory, sqlite_store: Store
) -> None:
    sync = make_sync(sqlite_store)
    load_demo_mapping(sqlite_store, sync.settings, emulator.state)
    assert (await sync_property(clocked(sync, at(8)))).result == "ok"
    assert (await sync_property(clocked(sync, at(8, 30)))).result == "ok"  # recorded, unchanged
    recorded = last_synced(sqlite_store, sync.property_id)
    assert recorded and set(recorded.values()) == {at(8, 30)}
    control.clear_log()

    quiet = await poll(clocked(sync, at(8, 50)))

    assert quiet.result == "ok" and quiet.listings and control.total() > 0 and control.writes() == 0
    assert {o.status for o in quiet.listings} <= {ListingStatus.UNCHANGED, ListingStatus.PAUSED}
    assert last_synced(sqlite_store, sync.property_id) == recorded  # the poll wrote no listing state
    assert await synced_every_listing_since(sync, at(8, 30))


def last_synced(store: Store, property_id: str) -> dict[ListingKey, datetime]:
    """When each listing's sync was last recorded (UTC)."""
    return {
        state.listing: at.replace(tzinfo=UTC) if at.tzinfo is None else at
        for state in store.listing_states.list_listing_states(property_id)
        if (at := state.last_synced_at) is not None
    }
