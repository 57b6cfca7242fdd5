"""The overbooking guard's push (``roomsync.app.sync.runs.push``) against the emulator over
loopback HTTP: what it costs is counted in the emulator's request log, what it brings about is
read back from the emulator's channel.
"""

from __future__ import annotations

from datetime import timedelta

from sync_harness import (
    FIRST,
    LAST,
    PUT_INVENTORY,
    Control,
    Emulator,
    SyncFactory,
    assert_converged,
    load_demo_mapping,
)

from roomsync.adapters.store import Store
from roomsync.app.sync import ListingStatus
from roomsync.app.sync.runs.full_sync import sync_property
from roomsync.app.sync.runs.push import push_nights


async def test_push_nights_writes_only_the_other_listings_of_the_room_type(
    emulator: Emulator, control: Control, make_sync: SyncFactory, sqlite_store: Store
) -> None:
    sync = make_sync(sqlite_store)
    load_demo_mapping(sqlite_store, sync.settings, emulator.state)
    await sync_property(sync)
    studios = control.free_rooms(FIRST, LAST)[4]
    night = next(n for n in sorted(studios) if n > FIRST and studios[n] > 0)
    free = studios[night]
    for _ in range(free):  # take every studio that night
        control.call(
            "POST",
            "/pms/book",
            {
                "dateFrom": str(night),
                "dateTo": str(night + timedelta(days=1)),
                "lastName": "Full",
                "roomTypeId": 4,
            },
        )
    control.clear_log()

    report = await push_nights(sync, 4, [night], exclude_listing_id="41000002")

    assert report.result == "ok"
    assert control.counts() == {"POST /v1/Availability/Room": 1, PUT_INVENTORY: 1}
    assert [o.listing_id for o in report.listings] == ["41000001"]
    assert control.calendar("41000001", night, night)[night]["availability"] == "unavailable"
    assert control.calendar("41000002", night, night)[night]["availability"] == "available"
    assert sqlite_store.sync_runs.recent_runs(sync.property_id, kind="push_nights")[0].result == "ok"
    # the next sync finds 41000001 in step and brings the excluded listing in step too
    after_push = await sync_property(sync)
    statuses = {o.listing_id: o.status for o in after_push.listings}
    assert statuses["41000001"] is ListingStatus.UNCHANGED and statuses["41000002"] is ListingStatus.WRITTEN
    assert_converged(emulator, control)
