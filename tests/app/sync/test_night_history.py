"""The history of nights explains every night of a synced demo listing: each night's last
recorded push equals what the channel shows, and its PMS facts equal what the PMS held when the
run read it (both judged against the emulator's own state, not the engine's computation)."""

from __future__ import annotations

from dataclasses import dataclass
from datetime import date, timedelta
from decimal import Decimal

from sync_harness import HORIZON, NOW, Control, Emulator, SyncFactory, load_demo_mapping, nightly_price

from roomsync.adapters.store import Store
from roomsync.adapters.store.webhook_records import ChannelBooking, CheckoutAnswer
from roomsync.app.night_story import night_story, story_lines
from roomsync.app.sync.runs.full_sync import sync_property
from roomsync.app.sync.runs.resync import resync
from roomsync.core.api.channel import Availability, InventoryOperation, InventoryUpdate
from roomsync.core.night_history import EntryKind
from roomsync.core.ports import ListingKey, RateKey

FIRST = NOW.date()
LAST = FIRST + timedelta(days=HORIZON - 1)
ACCOUNT, DOUBLES, ROOM_TYPE = "2001", "41000003", 1  # the room-type listing of room type 1


@dataclass
class PmsAtRun:
    free: dict[date, int]
    closed: set[date]
    """Nights the room type is closed."""
    property_closed: set[date]
    prices: dict[date, Decimal | None]
    room_type_prices: dict[int, dict[date, Decimal | None]]


def pms_now(emulator: Emulator, control: Control) -> PmsAtRun:
    state = emulator.state
    nights = [FIRST + timedelta(days=n) for n in range(HORIZON)]
    return PmsAtRun(
        control.free_rooms(FIRST, LAST)[ROOM_TYPE],
        set(state.pms.room_type_closures.get(ROOM_TYPE, set())),
        set(state.pms.property_closures),
        {night: nightly_price(state, ROOM_TYPE, night) for night in nights},
        {
            room_type: {night: nightly_price(state, room_type, night) for night in nights}
            for room_type in state.pms.room_types
        },
    )


async def test_every_night_of_a_synced_listing_is_explained_by_its_history(
    emulator: Emulator, control: Control, make_sync: SyncFactory, store_on: Store
) -> None:
    sync = make_sync(store_on)
    load_demo_mapping(store_on, sync.settings, emulator.state)
    pid = sync.property_id
    pms_of_run: dict[int, PmsAtRun] = {}

    before = pms_now(emulator, control)
    first = await sync_property(sync)
    assert first.result == "ok" and first.run_id is not None
    pms_of_run[first.run_id] = before
    # the cold start wrote every night: runs of nights, not a row per night and field
    written = store_on.history.entries(pid, ACCOUNT, DOUBLES, FIRST, LAST)
    assert {e.field for e in written} == {"available", "count", "price"}
    runs = {field: sum(1 for e in written if e.field == field) for field in ("available", "count", "price")}
    pms = pms_now(emulator, control)
    closed_nights = len(pms.closed | pms.property_closed)
    assert runs["available"] <= 1 + 2 * closed_nights, runs  # nights alike are one row
    assert len(written) < 3 * HORIZON, runs

    # the front desk closes two nights of the doubles; the next sync pushes them
    closed_from = FIRST + timedelta(days=12)
    control.call(
        "POST",
        "/pms/close",
        {
            "dateFrom": str(closed_from),
            "dateTo": str(closed_from + timedelta(days=1)),
            "roomTypeId": ROOM_TYPE,
        },
    )
    before = pms_now(emulator, control)
    second = await sync_property(sync)
    assert second.result == "ok" and second.run_id is not None
    pms_of_run[second.run_id] = before

    channel = control.calendar(DOUBLES, FIRST, LAST)
    for offset in range(HORIZON):
        night = FIRST + timedelta(days=offset)
        story = night_story(store_on, pid, ACCOUNT, DOUBLES, night)
        day = channel[night]
        assert story.current["available"].new == day["availability"], night
        assert story.current["count"].new == day["availableCount"], night
        # the demo's rack rate prices every night of the horizon (its table covers 400 nights) and a
        # command-line sync may read a quarter of the day for prices: every night has a pushed price
        assert pms_of_run[first.run_id].prices[night] is not None, night
        assert story.current["price"].new == int(day["dailyPrice"]), night
        for field, entry in story.current.items():
            assert entry.kind is EntryKind.PUSH and entry.trigger == "command line"
            assert entry.run_kind == "sync" and entry.run_id in pms_of_run
            pms = pms_of_run[entry.run_id]  # the PMS when that run read it
            assert entry.facts["room_type"] == ROOM_TYPE
            if field == "count":
                assert entry.facts["free_rooms"] == pms.free[night], night
            if field in ("available", "count"):
                assert entry.facts["closed"] == (night in pms.closed), (night, field)
                assert entry.facts["property_closed"] == (night in pms.property_closed), (night, field)
            else:
                assert Decimal(str(entry.facts["pms_price"])) == pms.prices[night], night
            assert entry.request["operation"] == "PUT Inventory" and entry.request["updated_days"] >= 1

    # the connected channels' prices: each night's last accepted price is the ledger's, from the PMS's
    mapping = store_on.mappings.load_mapping(pid)
    assert mapping is not None and mapping.connected
    for push in mapping.connected:
        rate = RateKey(pid, push.room_type_id, 1)
        ledger = store_on.channel_prices.read_pushed_prices(rate, FIRST, LAST)
        assert ledger, push
        for night, pushed in ledger.items():
            story = night_story(store_on, pid, "connected", f"{push.room_type_id}/standard", night)
            entry = story.current["price"]
            assert entry.kind is EntryKind.PRICE_PUSH and Decimal(str(entry.new)) == pushed.price
            assert (
                Decimal(str(entry.facts["pms_price"]))
                == pms_of_run[entry.run_id or 0].room_type_prices[push.room_type_id][night]
            )

    # the closed night: its history goes back to the front desk's change
    story = night_story(store_on, pid, ACCOUNT, DOUBLES, closed_from)
    now = story.current["available"]
    assert (now.old, now.new, now.run_id) == ("available", "unavailable", second.run_id)
    assert now.facts["closed"] is True and now.first_night == closed_from
    assert [item.entry.new for item in story.timeline if item.entry and item.entry.field == "available"] == [
        "available",
        "unavailable",
    ]
    lines = story_lines(story)
    assert lines[0] == f"{ACCOUNT}/{DOUBLES} night {closed_from} (property {pid})"
    assert any(line.startswith("available = unavailable: pushed ") for line in lines)
    assert any("room type closed" in line for line in lines)


async def test_old_history_is_pruned_and_a_drift_is_recorded(
    emulator: Emulator, control: Control, make_sync: SyncFactory, sqlite_store: Store
) -> None:
    sync = make_sync(sqlite_store)
    load_demo_mapping(sqlite_store, sync.settings, emulator.state)
    pid = sync.property_id
    assert (await sync_property(sync)).result == "ok"
    night = FIRST + timedelta(days=5)
    # the host changes the channel behind roomsync's back; a resync reads it and repairs it
    await sync.client.update_inventory(
        InventoryUpdate(
            account_id=ACCOUNT,
            listing_id=DOUBLES,
            operations=[
                InventoryOperation(
                    date_from=night, date_to=night, set_available=True, available=Availability.UNAVAILABLE
                )
            ],
        )
    )
    report = await resync(sync, [ListingKey(pid, ACCOUNT, DOUBLES)], night, night)
    assert report.result == "ok"
    entries = sqlite_store.history.entries(pid, ACCOUNT, DOUBLES, night, night)
    kinds = [(e.kind, e.field, e.old, e.new) for e in entries]
    assert (EntryKind.DRIFT, "available", "available", "unavailable") in kinds
    assert kinds[-1] == (EntryKind.PUSH, "available", "unavailable", "available")

    assert sqlite_store.history.prune(pid, NOW - timedelta(days=1)) == 0
    gone = sqlite_store.history.prune(pid, NOW + timedelta(days=1))
    assert gone > 0 and sqlite_store.history.entries(pid, ACCOUNT, DOUBLES, FIRST, LAST) == []


async def test_guest_checks_and_bookings_are_in_the_nights_timeline(
    emulator: Emulator, control: Control, make_sync: SyncFactory, sqlite_store: Store
) -> None:
    sync = make_sync(sqlite_store)
    load_demo_mapping(sqlite_store, sync.settings, emulator.state)
    pid = sync.property_id
    assert (await sync_property(sync)).result == "ok"
    start = FIRST + timedelta(days=20)
    records = sqlite_store.webhook_records
    records.record_answers(
        [
            CheckoutAnswer(pid, "CheckAvailability", DOUBLES, start, 3, True, "a room is free", NOW),
            CheckoutAnswer(pid, "CheckAvailability", "41000001", start, 3, False, "another listing", NOW),
        ]
    )
    records.save_booking(
        ChannelBooking(
            pid,
            "HMSMITH01",
            DOUBLES,
            start,
            3,
            "accept",
            "ReservationAcceptanceConfirmation",
            NOW + timedelta(minutes=1),
            pms_status=1,
        )
    )
    inside, after = start + timedelta(days=2), start + timedelta(days=3)

    timeline = [item.text for item in night_story(sqlite_store, pid, ACCOUNT, DOUBLES, inside).timeline]

    assert f"CheckAvailability: answered yes (a room is free); stay {start} +3" in timeline
    booked = "booking HMSMITH01: accept (ReservationAcceptanceConfirmation)"
    assert any(text.startswith(booked) for text in timeline)
    assert not any("another listing" in text for text in timeline)
    later = [item.kind for item in night_story(sqlite_store, pid, ACCOUNT, DOUBLES, after).timeline]
    assert "booking" not in later and "guest_check" not in later  # the guest leaves that morning
