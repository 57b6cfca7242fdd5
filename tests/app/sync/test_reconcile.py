"""The reconciliation (``roomsync.app.sync.runs.reconcile``) against the emulator over loopback
HTTP: every channel calendar re-read at the ``RECONCILE`` priority, the closures located again,
drift counted and repaired.

Drift is made behind roomsync's back through the API, as another application would. What was
read and written is counted in the emulator's request log; what the channel shows afterwards is
judged against the emulator's PMS state and channel read-backs (sync_harness), never against
the engine's own view.
"""

from __future__ import annotations

from datetime import date, timedelta

from sync_harness import (
    DOUBLES,
    FIRST,
    LAST,
    POST_PRICES,
    PUT_INVENTORY,
    READ_INVENTORY,
    ROOM_TYPE_LISTING,
    SUITES_LISTING,
    Control,
    Emulator,
    SyncFactory,
    assert_converged,
    block_body,
    channel_mismatches,
    load_demo_mapping,
    night,
    synced,
)

from roomsync.adapters.store import Store
from roomsync.app.sync import ListingStatus
from roomsync.app.sync.runs.detect import detect_changes
from roomsync.app.sync.runs.full_sync import sync_property
from roomsync.app.sync.runs.property_sync import PropertySync
from roomsync.app.sync.runs.reconcile import reconcile
from roomsync.app.sync.runs.resync import resync
from roomsync.core.api.channel import InventoryOperation, InventoryUpdate
from roomsync.core.catalog.types import Priority
from roomsync.core.ports import ListingKey

GET_LISTINGS = "GET /v1/ChannelManager/RentalChannel/Listings"
STUDIO = ("2001", "41000002")  # a single-unit listing of room type 4 (no channel reservation)
RESERVED_STUDIO = ("2001", "41000001")  # the other, which the demo's channel reservation holds
SUITES = ("2002", SUITES_LISTING)  # its mapping sets min_nights and closed-to-arrival, no max_nights


def connected_listings(emulator: Emulator) -> set[str]:
    hints = emulator.state.scenario.hints["listings"]
    return {h["listingId"] for h in hints if h["connected"] in ("Full", "Limited")}


async def drift_behind_roomsyncs_back(sync: PropertySync, control: Control) -> tuple[date, date]:
    """Close three open nights of the doubles and one open night of a studio on the channel, as
    another application would; returns the doubles' first drifted night and the studio's."""
    doubles = FIRST + timedelta(days=12)
    studio_days = control.calendar(STUDIO[1], FIRST + timedelta(days=5), FIRST + timedelta(days=40))
    studio = next(n for n, day in sorted(studio_days.items()) if day["availability"] == "available")
    await sync.client.update_inventory(block_body(DOUBLES, doubles, doubles + timedelta(days=2)))
    await sync.client.update_inventory(block_body(STUDIO, studio, studio))
    return doubles, studio


async def test_drift_made_behind_roomsyncs_back_is_found_counted_and_repaired(
    emulator: Emulator, control: Control, make_sync: SyncFactory, sqlite_store: Store
) -> None:
    sync = make_sync(sqlite_store)
    load_demo_mapping(sqlite_store, sync.settings, emulator.state)
    assert (await sync_property(sync)).result == "ok"
    assert_converged(emulator, control)
    doubles, studio = await drift_behind_roomsyncs_back(sync, control)
    # the ledger cannot see it: a full sync trusts the ledger and leaves the drift where it is
    assert (await sync_property(sync)).result == "ok"
    drifted = channel_mismatches(emulator.state, control, FIRST, LAST)
    assert {line.split()[0] for line in drifted} == {DOUBLES[1], STUDIO[1]}
    control.clear_log()
    spent_before = sync.client.budget().by_priority.get(Priority.RECONCILE, 0)

    report = await reconcile(sync)

    assert report.result == "ok", report.error
    for listing, days in ((DOUBLES, 3), (STUDIO, 1)):
        outcome = report.outcome(ListingKey(sync.property_id, *listing))
        assert outcome is not None and outcome.read_channel, listing
        assert outcome.drift_days == days and outcome.status is ListingStatus.WRITTEN, (listing, outcome)
    read = {o.listing_id for o in report.listings if o.read_channel}
    assert read == connected_listings(emulator)
    counts = control.counts()
    # one channel read per connected listing and one listing read; no price push (the connected
    # prices did not drift)
    assert counts[READ_INVENTORY] == len(read) and counts[GET_LISTINGS] == 1
    assert counts.get(POST_PRICES, 0) == 0
    # the reads went out at the RECONCILE priority: the client's budget counted as many there as
    # the emulator logged channel and listing reads
    spent = sync.client.budget().by_priority.get(Priority.RECONCILE, 0) - spent_before
    assert spent == counts[READ_INVENTORY] + counts[GET_LISTINGS]
    assert_converged(emulator, control)
    for listing, drifted in ((DOUBLES, doubles), (STUDIO, studio)):
        assert control.calendar(listing[1], drifted, drifted)[drifted]["availability"] == "available"
    runs = sqlite_store.sync_runs.recent_runs(sync.property_id, kind="reconcile")
    assert [run.result for run in runs] == ["ok"]


async def in_step(make_sync: SyncFactory, store: Store, emulator: Emulator, control: Control) -> PropertySync:
    """The demo property after a full sync, its channel in step with the PMS as the emulator
    sees it (nothing changed behind roomsync's back), the log cleared."""
    sync = make_sync(store)
    load_demo_mapping(store, sync.settings, emulator.state)
    assert (await sync_property(sync)).result == "ok"
    assert channel_mismatches(emulator.state, control, FIRST, LAST) == []
    control.clear_log()
    return sync


async def test_a_restriction_rule_without_max_nights_is_not_drift(
    emulator: Emulator, control: Control, make_sync: SyncFactory, sqlite_store: Store
) -> None:
    sync = await in_step(make_sync, sqlite_store, emulator, control)

    report = await reconcile(sync)

    outcome = report.outcome(ListingKey(sync.property_id, *SUITES))
    assert outcome is not None and outcome.read_channel
    assert (outcome.drift_days, outcome.status) == (0, ListingStatus.UNCHANGED)


async def test_nights_held_by_the_channels_own_reservation_are_not_drift(
    emulator: Emulator, control: Control, make_sync: SyncFactory, sqlite_store: Store
) -> None:
    sync = await in_step(make_sync, sqlite_store, emulator, control)
    days = control.calendar(RESERVED_STUDIO[1], FIRST, LAST)
    held = [n for n, day in days.items() if day["reserved"]]
    assert held and all(days[n]["availability"] == "unavailable" for n in held)

    report = await reconcile(sync)

    outcome = report.outcome(ListingKey(sync.property_id, *RESERVED_STUDIO))
    assert outcome is not None and outcome.read_channel
    assert (outcome.drift_days, outcome.status) == (0, ListingStatus.UNCHANGED)


async def test_a_stay_limit_set_behind_roomsyncs_back_is_still_drift(
    emulator: Emulator, control: Control, make_sync: SyncFactory, sqlite_store: Store
) -> None:
    """An unset max_nights and the channel's default are alike; a maximum someone else set is not."""
    sync = await in_step(make_sync, sqlite_store, emulator, control)
    changed = FIRST + timedelta(days=20)
    before = control.calendar(SUITES[1], changed, changed)[changed]
    assert before["maxNights"] == 1125  # the rule sets none: the channel shows its default
    restrict = InventoryOperation(
        date_from=changed,
        date_to=changed,
        set_restrictions=True,
        min_nights=before["minNights"],
        max_nights=5,
        closed_to_arrival=before["closedToArrival"],
        closed_to_departure=before["closedToDeparture"],
    )
    await sync.client.update_inventory(
        InventoryUpdate(account_id=SUITES[0], listing_id=SUITES[1], operations=[restrict])
    )

    report = await reconcile(sync)

    outcome = report.outcome(ListingKey(sync.property_id, *SUITES))
    assert outcome is not None and outcome.read_channel
    assert (outcome.drift_days, outcome.status) == (1, ListingStatus.WRITTEN)
    assert control.calendar(SUITES[1], changed, changed)[changed] == before
    again = (await reconcile(sync)).outcome(ListingKey(sync.property_id, *SUITES))
    assert again is not None and (again.drift_days, again.status) == (0, ListingStatus.UNCHANGED)


async def test_a_reserved_listings_other_nights_still_drift_and_its_held_nights_are_not_written(
    emulator: Emulator, control: Control, make_sync: SyncFactory, sqlite_store: Store
) -> None:
    sync = await in_step(make_sync, sqlite_store, emulator, control)
    days = control.calendar(RESERVED_STUDIO[1], FIRST, LAST)
    held = {n for n, day in days.items() if day["reserved"]}
    closed = next(
        n for n, day in sorted(days.items()) if n > max(held) and day["availability"] == "available"
    )
    await sync.client.update_inventory(block_body(RESERVED_STUDIO, closed, closed))

    report = await reconcile(sync)

    outcome = report.outcome(ListingKey(sync.property_id, *RESERVED_STUDIO))
    assert outcome is not None and outcome.read_channel
    assert (outcome.drift_days, outcome.status) == (1, ListingStatus.WRITTEN)
    written = [(op.date_from, op.date_to) for request in outcome.requests for op in request.operations]
    assert written == [(closed, closed)]  # the drifted night only, none the reservation holds
    assert channel_mismatches(emulator.state, control, FIRST, LAST) == []
    assert control.calendar(RESERVED_STUDIO[1], closed, closed)[closed]["availability"] == "available"


async def test_the_reconciliation_reads_at_its_priority_and_waits_when_its_reserve_is_reached(
    emulator: Emulator, control: Control, make_sync: SyncFactory, sqlite_store: Store
) -> None:
    """30 % of the day is kept back from reconciliation reads: below it the reconciliation sends
    no channel read at all, while a resync (whose reads go at the availability priority) still
    reads and repairs."""
    sync = make_sync(sqlite_store)
    load_demo_mapping(sqlite_store, sync.settings, emulator.state)
    assert (await sync_property(sync)).result == "ok"
    doubles, _ = await drift_behind_roomsyncs_back(sync, control)
    # 300 of 1,500 left: under the reconciliation's reserve (450), over the prices' (225)
    control.call("POST", "/quota", {"usedCalls": 1200})
    await sync.client.refresh_usage()  # the client hears the server's count
    control.clear_log()

    held = await reconcile(sync)

    counts = control.counts()
    assert counts.get(READ_INVENTORY, 0) == 0 and counts.get(GET_LISTINGS, 0) == 0, counts
    assert counts.get(PUT_INVENTORY, 0) == 0
    doubles_key = ListingKey(sync.property_id, *DOUBLES)
    outcome = held.outcome(doubles_key)
    assert outcome is not None and outcome.status is ListingStatus.NO_BUDGET
    assert control.calendar(DOUBLES[1], doubles, doubles)[doubles]["availability"] == "unavailable"

    control.clear_log()
    repaired = await resync(sync)

    assert control.counts()[READ_INVENTORY] == len(connected_listings(emulator))
    outcome = repaired.outcome(doubles_key)
    assert outcome is not None and outcome.drift_days == 3 and outcome.status is ListingStatus.WRITTEN
    assert channel_mismatches(emulator.state, control, FIRST, LAST) == []


async def test_a_closure_lifted_on_some_of_its_nights_is_found_by_the_reconciliation(
    emulator: Emulator, control: Control, make_sync: SyncFactory, sqlite_store: Store
) -> None:
    sync = await synced(make_sync, sqlite_store, emulator, control)
    control.call("POST", "/pms/close", {"dateFrom": night(10), "dateTo": night(14), "roomTypeId": 1})
    assert (await detect_changes(sync)).pms.closures_changed == (1,)
    assert_converged(emulator, control)
    control.call(
        "POST", "/pms/close", {"dateFrom": night(12), "dateTo": night(12), "roomTypeId": 1, "open": True}
    )

    # the check's blind spot, by design: the run's window still reads closed
    blind = await detect_changes(sync)
    assert blind.pms.closures_changed == ()
    assert channel_mismatches(emulator.state, control, FIRST, LAST) != []

    control.clear_log()
    reconciled = await reconcile(sync)

    assert reconciled.result == "ok" and 1 in reconciled.pms.closures_located
    assert_converged(emulator, control)
    day = control.calendar(ROOM_TYPE_LISTING, FIRST + timedelta(days=12), FIRST + timedelta(days=12))
    assert {d["availability"] for d in day.values()} == {"available"}
