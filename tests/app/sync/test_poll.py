"""The poll (``roomsync.app.sync.runs.poll``) against the emulator over loopback HTTP: one PMS read
of the free rooms, a push per listing whose calendar changed, from the ledger.

What a poll costs is counted in the emulator's request log; what it brings about is judged against
the emulator's PMS read-back and channel calendars (sync_harness), never against the engine's own
view.
"""

from __future__ import annotations

import itertools
from dataclasses import replace
from datetime import date, timedelta
from typing import Any

import pytest
from sync_harness import (
    AVAILABILITY_ROOM,
    FIRST,
    LAST,
    PUT_INVENTORY,
    ROOM_TYPE_LISTING,
    SUITES_LISTING,
    Control,
    Emulator,
    SyncFactory,
    assert_converged,
    channel_mismatches,
    load_demo_mapping,
    synced,
)

from roomsync.adapters.store import Store
from roomsync.app.daemon.freshness import changes_seen
from roomsync.app.sync import ListingStatus
from roomsync.app.sync.pms import free_room_ids_in
from roomsync.app.sync.runs import poll as poll_module
from roomsync.app.sync.runs.full_sync import sync_property
from roomsync.app.sync.runs.poll import poll
from roomsync.core.activity import ChangeKind
from roomsync.core.ports import ListingKey

DOUBLES_UNITS = 8
"""The doubles' listing sells at most this many rooms of room type 1 (the scenario's hint)."""


def book_two_doubles_nights(control: Control) -> tuple[date, int]:
    """A front-desk booking of room type 1 over two nights the doubles' listing shows as they
    are (fewer free rooms than it may sell); returns its first night and the reservation."""
    free = control.free_rooms(FIRST, LAST)[1]
    start = next(
        n
        for n in sorted(free)
        if n > FIRST and 0 < free[n] <= DOUBLES_UNITS and 0 < free[n + timedelta(days=1)] <= DOUBLES_UNITS
    )
    booked = control.call(
        "POST",
        "/pms/book",
        {
            "dateFrom": str(start),
            "dateTo": str(start + timedelta(days=2)),
            "lastName": "Poll",
            "roomTypeId": 1,
        },
    )
    return start, int(booked["reservationId"])


async def test_a_front_desk_booking_reaches_the_channel_through_one_poll(
    emulator: Emulator, control: Control, make_sync: SyncFactory, sqlite_store: Store
) -> None:
    sync = await synced(make_sync, sqlite_store, emulator, control)
    start, reservation = book_two_doubles_nights(control)
    assert channel_mismatches(emulator.state, control, FIRST, LAST) != []

    report = await poll(sync)

    assert report.result == "ok"
    # one free-room read, one write: the only listing selling the booked room type
    assert control.counts() == {AVAILABILITY_ROOM: 1, PUT_INVENTORY: 1}
    written = {o.listing_id for o in report.listings if o.status is ListingStatus.WRITTEN}
    assert written == {ROOM_TYPE_LISTING}
    assert_converged(emulator, control)
    end = start + timedelta(days=1)
    free = control.free_rooms(start, end)[1]
    days = control.calendar(ROOM_TYPE_LISTING, start, end)
    assert {night: day["availableCount"] for night, day in days.items()} == free
    runs = sqlite_store.sync_runs.recent_runs(sync.property_id, kind="poll")
    assert [run.result for run in runs] == ["ok"]

    # the booking cancelled: the free rooms are those the last full sync saw again, and the
    # full sync must not skip the listing on the strength of the digest it kept then
    control.call("POST", "/pms/cancel", {"reservationId": reservation})
    control.clear_log()
    after = await sync_property(sync)
    statuses = {o.listing_id: o.status for o in after.listings}
    assert statuses[ROOM_TYPE_LISTING] is ListingStatus.WRITTEN
    assert control.counts()[PUT_INVENTORY] == 1
    assert_converged(emulator, control)


async def test_a_quiet_poll_costs_exactly_one_request(
    emulator: Emulator, control: Control, make_sync: SyncFactory, sqlite_store: Store
) -> None:
    sync = await synced(make_sync, sqlite_store, emulator, control)

    quiet = await poll(sync)

    assert quiet.result == "ok"
    assert control.total() == 1 and control.counts() == {AVAILABILITY_ROOM: 1}
    assert {o.status for o in quiet.listings} <= {ListingStatus.UNCHANGED, ListingStatus.PAUSED}

    # a new client, as after a restart: its token is in the store, the poll still costs one
    control.clear_log()
    again = await poll(make_sync(sqlite_store))
    assert again.result == "ok" and control.total() == 1, control.counts()
    assert_converged(emulator, control)


async def test_a_poll_keeps_the_guests_availability_view_fresh(
    emulator: Emulator, control: Control, make_sync: SyncFactory, sqlite_store: Store
) -> None:
    sync = await synced(make_sync, sqlite_store, emulator, control)
    book_two_doubles_nights(control)

    assert (await poll(sync)).result == "ok"

    view = sqlite_store.availability_view
    for room_type_id, per_night in control.free_rooms(FIRST, LAST).items():
        rows = view.read_nights(sync.property_id, room_type_id, per_night)
        assert {night: row.free_rooms for night, row in rows.items()} == per_night, room_type_id
        assert not any(row.stale for row in rows.values())


async def test_a_poll_whose_answer_repeats_dates_the_view_or_saves_it_when_the_view_moved_on(
    emulator: Emulator,
    control: Control,
    make_sync: SyncFactory,
    sqlite_store: Store,
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """The second of two polls gets the same answer: it takes the free rooms from the property's
    memo, without decoding the answer, and only dates the view (issue 26). When a read of some
    nights (a guest's check) has changed the view in between, the next poll with that same answer
    decodes it and puts the PMS's word back."""
    decoded: list[int] = []

    def counted(entries: Any, first: date, last: date) -> Any:
        decoded.append(1)
        return free_room_ids_in(entries, first, last)

    monkeypatch.setattr(poll_module, "free_room_ids_in", counted)
    frozen = await synced(make_sync, sqlite_store, emulator, control)
    ticks = itertools.count(1)
    sync = replace(frozen, clock=lambda: frozen.clock() + timedelta(seconds=next(ticks)))  # each poll later
    view, prop = sqlite_store.availability_view, sync.property_id
    free = control.free_rooms(FIRST, LAST)

    def view_of(room_type_id: int) -> dict[date, tuple[int, Any]]:
        rows = view.read_nights(prop, room_type_id, free[room_type_id])
        return {night: (row.free_rooms, row.read_at) for night, row in rows.items()}

    assert (await poll(sync)).result == "ok"
    first_read = {read_at for _, read_at in view_of(1).values()}
    assert len(first_read) == 1 and len(decoded) == 1
    assert (await poll(sync)).result == "ok"
    assert len(decoded) == 1
    dated = view_of(1)
    assert {n: f for n, (f, _) in dated.items()} == free[1]
    assert len({read_at for _, read_at in dated.values()} - first_read) == 1

    night = FIRST + timedelta(days=3)
    view.save_read(prop, sync.clock(), {1: {night: free[1][night] + 5}})  # some nights only
    assert view_of(1)[night][0] == free[1][night] + 5
    assert (await poll(sync)).result == "ok"
    assert {n: f for n, (f, _) in view_of(1).items()} == free[1]
    assert len(decoded) == 2 and control.counts() == {AVAILABILITY_ROOM: 3}


async def test_a_listing_the_ledger_does_not_know_is_left_to_the_full_sync(
    emulator: Emulator, control: Control, make_sync: SyncFactory, sqlite_store: Store
) -> None:
    """The suites' listing is paused through the first full sync (nothing of it is in the
    ledger), then resumed: the poll leaves its stale calendar alone, the next full sync writes it."""
    sync = make_sync(sqlite_store)
    load_demo_mapping(sqlite_store, sync.settings, emulator.state)
    suites = ListingKey(sync.property_id, "2002", SUITES_LISTING)
    sqlite_store.listing_states.set_paused(suites, True, "held back by the test")
    assert (await sync_property(sync)).result == "ok"
    sqlite_store.listing_states.set_paused(suites, False, None)
    stale = control.calendar(SUITES_LISTING, FIRST, LAST)
    assert any(
        line.startswith(SUITES_LISTING) for line in channel_mismatches(emulator.state, control, FIRST, LAST)
    )
    control.clear_log()

    report = await poll(sync)

    assert report.result == "ok"
    outcome = report.outcome(suites)
    assert outcome is not None and outcome.status is ListingStatus.SKIPPED
    assert "full sync" in (outcome.reason or "")
    assert control.counts() == {AVAILABILITY_ROOM: 1}
    assert control.calendar(SUITES_LISTING, FIRST, LAST) == stale

    full = await sync_property(sync)
    assert {o.listing_id: o.status for o in full.listings}[SUITES_LISTING] is ListingStatus.WRITTEN
    assert_converged(emulator, control)


async def test_a_poll_reads_the_ledger_only_of_listings_whose_inputs_moved(
    emulator: Emulator,
    control: Control,
    make_sync: SyncFactory,
    sqlite_store: Store,
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """A listing whose inputs are those a run last brought it in step with (its digest) needs no
    ledger read and no diff; one whose room type's free rooms moved does, and the poll that
    wrote it keeps its new digest, as a full sync would."""
    sync = await synced(make_sync, sqlite_store, emulator, control)
    read: list[str] = []
    real = sqlite_store.calendar.read_days

    def counting(key: ListingKey, first: date, last: date) -> Any:
        read.append(key.listing_id)
        return real(key, first, last)

    monkeypatch.setattr(sqlite_store.calendar, "read_days", counting)

    assert (await poll(sync)).result == "ok"
    assert read == []

    book_two_doubles_nights(control)
    moved = await poll(sync)
    assert read == [ROOM_TYPE_LISTING]
    assert {o.listing_id for o in moved.listings if o.status is ListingStatus.WRITTEN} == {ROOM_TYPE_LISTING}

    read.clear()
    again = await poll(sync)
    assert read == []
    assert {o.status for o in again.listings} <= {ListingStatus.UNCHANGED, ListingStatus.PAUSED}
    assert_converged(emulator, control)


async def test_the_horizons_new_night_is_written_but_not_seen_as_a_change_of_the_pms(
    emulator: Emulator, control: Control, make_sync: SyncFactory, sqlite_store: Store
) -> None:
    synced_sync = await synced(make_sync, sqlite_store, emulator, control)
    # the date moved: the horizon reaches one night further (the same as a day later's poll)
    sync = make_sync(sqlite_store, horizon_days=synced_sync.settings.horizon_days + 1)

    report = await poll(sync)

    written = [o for o in report.listings if o.status is ListingStatus.WRITTEN]
    assert written and all(o.days_changed == o.days_new == 1 for o in written)
    assert changes_seen(report) == {}
    # the full sync that reads the new night's PMS price first writes it: no change either
    full = await sync_property(sync)
    priced = [o for o in full.listings if o.status is ListingStatus.WRITTEN]
    assert priced and all(o.days_changed == o.days_new for o in priced)
    assert changes_seen(full) == {}
    # a booking in the same poll is the desk's change, the new night or not
    sync = make_sync(sqlite_store, horizon_days=synced_sync.settings.horizon_days + 2)
    book_two_doubles_nights(control)

    report = await poll(sync)

    doubles = next(o for o in report.listings if o.listing_id == ROOM_TYPE_LISTING)
    assert doubles.days_changed == 3 and doubles.days_new == 1
    assert changes_seen(report) == {ChangeKind.AVAILABILITY: 1}
