"""The closure and price detection (``roomsync.app.sync.runs.detect``) against the emulator.

What it costs is counted in the emulator's request log, what it brings about is judged against
the emulator's PMS and channel read-backs, never against the engine's own view.
"""

from __future__ import annotations

from dataclasses import dataclass, replace
from datetime import UTC, date, datetime, timedelta

from sync_harness import (
    DETECT_NIGHTS,
    FIRST,
    LAST,
    NEAR,
    POST_PRICES,
    PUT_INVENTORY,
    ROOM_TYPE_LISTING,
    SUITES_LISTING,
    Control,
    Emulator,
    SyncFactory,
    assert_converged,
    channel_mismatches,
    closure_check_reads,
    night,
    synced,
)

from roomsync.adapters.client import QuotaExhausted
from roomsync.adapters.store import Store
from roomsync.app.daemon.freshness import changes_seen
from roomsync.app.sync import ListingStatus
from roomsync.app.sync.closures import CombinedReader, _locate
from roomsync.app.sync.pms import closure_readers
from roomsync.app.sync.runs.detect import detect_changes
from roomsync.app.sync.runs.full_sync import sync_property
from roomsync.app.sync.runs.property_sync import SyncOptions
from roomsync.core.activity import ChangeKind
from roomsync.core.api.pms.availability import RoomTypeAvailability
from roomsync.core.catalog.types import Priority


async def test_nothing_changed_costs_the_check_of_the_near_nights_only(
    emulator: Emulator, control: Control, make_sync: SyncFactory, sqlite_store: Store
) -> None:
    sync = await synced(make_sync, sqlite_store, emulator, control)

    report = await detect_changes(sync)

    assert report.result == "ok" and report.listings == []
    # the room types of the listings roomsync may push to (a type whose listings are all
    # unconnected needs no closure check) and type 1, which feeds the connected channels
    hints = emulator.state.scenario.hints["listings"]
    watched = {h["pmsRoomTypeId"] for h in hints if h["connected"] in ("Full", "Limited")} | {1}
    check = closure_check_reads(emulator.state, watched, FIRST, NEAR)
    assert control.total() == check and control.writes() == 0
    assert report.pms.closures_changed == () and report.pms.prices_changed == 0


async def test_a_closure_a_second_closure_and_a_reopening_reach_the_channel(
    emulator: Emulator, control: Control, make_sync: SyncFactory, sqlite_store: Store
) -> None:
    sync = await synced(make_sync, sqlite_store, emulator, control)
    control.call("POST", "/pms/close", {"dateFrom": night(10), "dateTo": night(11), "roomTypeId": 1})

    closed = await detect_changes(sync)

    assert closed.result == "ok" and closed.pms.closures_changed == (1,) and closed.pms.closure_edits == 1
    written = {o.listing_id for o in closed.listings if o.status is ListingStatus.WRITTEN}
    assert written == {ROOM_TYPE_LISTING}
    assert_converged(emulator, control)
    days = control.calendar(ROOM_TYPE_LISTING, FIRST + timedelta(days=10), FIRST + timedelta(days=11))
    assert {day["availability"] for day in days.values()} == {"unavailable"}

    # a second closure of the same room type: the check reads around the known one and sees it
    control.clear_log()
    control.call("POST", "/pms/close", {"dateFrom": night(30), "dateTo": night(30), "roomTypeId": 1})
    second = await detect_changes(sync)
    assert second.pms.closures_changed == (1,)
    assert_converged(emulator, control)

    # the first closure lifted: its window now reads open
    control.call(
        "POST", "/pms/close", {"dateFrom": night(10), "dateTo": night(11), "roomTypeId": 1, "open": True}
    )
    lifted = await detect_changes(sync)
    assert lifted.pms.closures_changed == (1,) and lifted.pms.closures_located == ()
    assert_converged(emulator, control)
    days = control.calendar(ROOM_TYPE_LISTING, FIRST + timedelta(days=10), FIRST + timedelta(days=11))
    assert {day["availability"] for day in days.values()} == {"available"}


async def test_a_detection_counts_each_edit_it_found_not_each_room_type(
    emulator: Emulator, control: Control, make_sync: SyncFactory, sqlite_store: Store
) -> None:
    """What the schedule learns (``freshness.changes_seen``) counts edits: a detection that comes
    after two closures and three price edits of one room type has seen five changes, not two."""
    sync = await synced(make_sync, sqlite_store, emulator, control)
    for first, last in ((10, 11), (20, 20)):
        control.call("POST", "/pms/close", {"dateFrom": night(first), "dateTo": night(last), "roomTypeId": 1})
    for first, last, price in ((30, 36, "131.00"), (40, 40, "132.00"), (41, 42, "133.00")):
        body = {"roomTypeId": 2, "dateFrom": night(first), "dateTo": night(last), "price": price}
        control.call("POST", "/pms/price", body)

    report = await detect_changes(sync)

    assert report.pms.closures_changed == (1,) and report.pms.closure_edits == 2
    # 40 and 41-42 touch: one run of changed nights, which no read can tell from a single edit
    assert report.pms.prices_changed == 10 and report.pms.price_edits == 2
    assert changes_seen(report) == {ChangeKind.CLOSURES: 2, ChangeKind.PRICES: 2}
    assert_converged(emulator, control)


async def test_a_reopening_of_one_of_two_touching_closures_reaches_the_channel(
    emulator: Emulator, control: Control, make_sync: SyncFactory, sqlite_store: Store
) -> None:
    """Two closures located apart stay two runs where they touch: merged, the check read them as
    one window, which still read closed after either was lifted (the busy-hour bench's slow
    cancellations on the studios: nights left unavailable until a relocation)."""
    sync = await synced(make_sync, sqlite_store, emulator, control)
    control.call("POST", "/pms/close", {"dateFrom": night(10), "dateTo": night(11), "roomTypeId": 1})
    assert (await detect_changes(sync)).pms.closures_changed == (1,)
    control.call("POST", "/pms/close", {"dateFrom": night(12), "dateTo": night(13), "roomTypeId": 1})
    assert (await detect_changes(sync)).pms.closures_changed == (1,)
    runs = sqlite_store.sync_state.located_closures(sync.property_id).room_types[1]
    assert (FIRST + timedelta(days=10), FIRST + timedelta(days=11)) in runs
    assert (FIRST + timedelta(days=12), FIRST + timedelta(days=13)) in runs

    control.clear_log()
    control.call(
        "POST", "/pms/close", {"dateFrom": night(10), "dateTo": night(11), "roomTypeId": 1, "open": True}
    )
    lifted = await detect_changes(sync)

    assert lifted.pms.closures_changed == (1,) and lifted.pms.closures_located == ()
    assert_converged(emulator, control)
    days = control.calendar(ROOM_TYPE_LISTING, FIRST + timedelta(days=10), FIRST + timedelta(days=13))
    assert [day["availability"] for _, day in sorted(days.items())] == ["available"] * 2 + ["unavailable"] * 2


async def test_a_price_change_reaches_the_listing_and_the_connected_channels(
    emulator: Emulator, control: Control, make_sync: SyncFactory, sqlite_store: Store
) -> None:
    sync = await synced(make_sync, sqlite_store, emulator, control)
    for room_type_id in (1, 2):  # type 1 also feeds the connected channels
        control.call(
            "POST",
            "/pms/price",
            {"roomTypeId": room_type_id, "dateFrom": night(30), "dateTo": night(33), "price": "123.45"},
        )

    report = await detect_changes(sync)

    assert report.result == "ok" and report.pms.prices_changed == 8 and report.pms.price_edits == 2
    written = {o.listing_id for o in report.listings if o.status is ListingStatus.WRITTEN}
    assert written == {ROOM_TYPE_LISTING, SUITES_LISTING}
    counts = control.counts()
    assert counts[PUT_INVENTORY] == 2 and counts[POST_PRICES] == 1
    assert_converged(emulator, control)


async def test_a_change_beyond_the_near_nights_waits_for_the_full_sync(
    emulator: Emulator, control: Control, make_sync: SyncFactory, sqlite_store: Store
) -> None:
    sync = await synced(make_sync, sqlite_store, emulator, control)
    far = DETECT_NIGHTS + 10
    control.call("POST", "/pms/close", {"dateFrom": night(far), "dateTo": night(far), "roomTypeId": 2})

    quiet = await detect_changes(sync)
    assert quiet.listings == [] and channel_mismatches(emulator.state, control, FIRST, LAST)

    full = await sync_property(sync)
    assert full.result == "ok"
    assert_converged(emulator, control)


async def test_a_price_edit_deep_in_a_window_is_found_though_the_run_may_read_few_unread_nights(
    emulator: Emulator, control: Control, make_sync: SyncFactory, sqlite_store: Store
) -> None:
    """The fill's cap (5 reads: a free licence's) is not the narrowing's: an edit in the middle of
    the near nights takes more splits than that to find, and was never found while one cap held
    both (the week bench on a free licence, 2026-12-06)."""
    sync = replace(
        await synced(make_sync, sqlite_store, emulator, control),
        options=SyncOptions(price_read_cap=lambda: 5),
    )
    control.call(
        "POST", "/pms/price", {"roomTypeId": 2, "dateFrom": night(37), "dateTo": night(37), "price": "99.90"}
    )

    report = await detect_changes(sync)

    assert report.pms.prices_complete and report.pms.prices_changed == 1
    assert report.pms.price_reads > 5  # the splits down to one night, past the fill's cap
    assert report.pms.price_fill_reads == 0
    assert_converged(emulator, control)


COMBINED = "POST /v1/Availability/RoomType/Combined"
"""The locating read (the check's windows are ``CombinedExtended``)."""


async def test_a_new_closure_is_located_at_about_log2_of_its_window_plus_its_nights(
    emulator: Emulator, control: Control, make_sync: SyncFactory, sqlite_store: Store
) -> None:
    """A closure of three nights, of two room types at once, inside the detection's 60 nights:
    its first night by halving (at most ceil(log2 60) = 6 reads), its nights walked one read each
    with the open night after it (3), and one read of the nights after that (1): 10 locating
    reads shared by both types, where halving both halves down to single nights cost 13 here (and
    15-18 per closure on the week bench's first day, 2026-12-06)."""
    sync = await synced(make_sync, sqlite_store, emulator, control)
    control.clear_log()
    for room_type_id in (1, 2):
        body = {"dateFrom": night(30), "dateTo": night(32), "roomTypeId": room_type_id}
        control.call("POST", "/pms/close", body)

    report = await detect_changes(sync)

    assert report.result == "ok" and report.pms.closures_changed == (1, 2)
    assert control.counts().get(COMBINED, 0) <= 6 + 3 + 1
    assert_converged(emulator, control)


@dataclass
class Budgeted:
    """A locating read that the budget refuses after ``allowed`` reads (``QuotaExhausted``, as the
    client's budget raises it, before anything is sent)."""

    read_combined: CombinedReader
    allowed: int
    spent: int = 0

    async def read(self, first: date, last: date) -> RoomTypeAvailability:
        if self.spent == self.allowed:
            now, priority = datetime.now(UTC), Priority.AVAILABILITY
            raise QuotaExhausted("test budget", priority=priority, remaining=0, reserve=0, resets_at=now)
        self.spent += 1
        return await self.read_combined(first, last)


async def test_nights_still_in_question_when_the_budget_stops_the_locating_count_as_closed(
    emulator: Emulator, control: Control, make_sync: SyncFactory, sqlite_store: Store
) -> None:
    """The budget refusing the locating reads after the first few: no night the PMS holds closed
    is reported open (an open one may be reported closed until the next sync: not offered beats
    oversold)."""
    sync = await synced(make_sync, sqlite_store, emulator, control)
    control.call("POST", "/pms/close", {"dateFrom": night(30), "dateTo": night(32), "roomTypeId": 1})
    control.call("POST", "/pms/close", {"dateFrom": night(40), "dateTo": night(40), "roomTypeId": 1})
    _, combined = closure_readers(sync.client)
    first, last = FIRST + timedelta(days=24), FIRST + timedelta(days=59)
    pms_closed = {n for n in emulator.state.pms.room_type_closures.get(1, set()) if first <= n <= last}
    for allowed in range(40):  # until a budget suffices
        budgeted = Budgeted(combined, allowed)

        found, reads, cut_short = await _locate(budgeted.read, first, last, {1})

        assert pms_closed <= found[1], f"after {allowed} reads: closed nights reported open"
        assert reads == budgeted.spent and (cut_short or found[1] == pms_closed), f"after {allowed} reads"
        if not cut_short:
            break
    assert not cut_short and allowed > 5, f"{allowed} reads located every closure"  # the loop was tested
