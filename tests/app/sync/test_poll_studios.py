"""A cancellation on the single-unit studios (room type 4, one listing per unit) reaches both
studios' calendars through one poll (found slow from outside by the busy-hour bench)."""

from __future__ import annotations

from datetime import date, timedelta

from sync_harness import (
    AVAILABILITY_ROOM,
    FIRST,
    LAST,
    Control,
    Emulator,
    SyncFactory,
    channel_mismatches,
    synced,
)

from roomsync.adapters.store import Store
from roomsync.app.sync.runs.detect import detect_changes
from roomsync.app.sync.runs.poll import poll
from roomsync.app.sync.runs.property_sync import PropertySync

STUDIOS = ("41000001", "41000002")


async def test_a_cancellation_frees_the_studios_through_one_poll(
    emulator: Emulator, control: Control, make_sync: SyncFactory, sqlite_store: Store
) -> None:
    sync = await synced(make_sync, sqlite_store, emulator, control)
    free = control.free_rooms(FIRST, LAST)[4]
    night = open_studio_nights(control, free, 1)
    bookings = []
    for _ in range(free[night]):
        body = {
            "dateFrom": str(night),
            "dateTo": str(night + timedelta(days=1)),
            "lastName": "S",
            "roomTypeId": 4,
        }
        bookings.append(int(control.call("POST", "/pms/book", body)["reservationId"]))
    assert (await poll(sync)).result == "ok"
    assert [control.calendar(s, night, night)[night]["availability"] for s in STUDIOS] == ["unavailable"] * 2

    control.call("POST", "/pms/cancel", {"reservationId": bookings[0]})
    report = await poll(sync)

    assert report.result == "ok"
    shown = [control.calendar(s, night, night)[night]["availability"] for s in STUDIOS]
    assert shown == ["available", "available"], (night, shown, report.listings)
    assert channel_mismatches(emulator.state, control, FIRST, LAST) == []


CHECK_WINDOW = "POST /v1/Availability/RoomType/CombinedExtended"


def open_studio_nights(control: Control, free: dict[date, int], length: int) -> date:
    """The first night after the next two from which ``length`` nights each have a free studio
    and no channel reservation on either studio."""

    def open_night(n: date) -> bool:
        return free.get(n, 0) > 0 and not any(control.calendar(s, n, n)[n]["reserved"] for s in STUDIOS)

    return next(
        n
        for n in sorted(free)
        if n > FIRST + timedelta(days=2) and all(open_night(n + timedelta(days=k)) for k in range(length))
    )


async def booked_closed_and_reopened(sync: PropertySync, control: Control, first: date, last: date) -> int:
    """A studio booked over ``first..last``, then the nights closed, the closure detected, and
    the nights reopened (no detection since): the booking's id."""
    stay = {"dateFrom": str(first), "dateTo": str(last + timedelta(days=1)), "lastName": "S", "roomTypeId": 4}
    booking = int(control.call("POST", "/pms/book", stay)["reservationId"])
    closure = {"dateFrom": str(first), "dateTo": str(last), "roomTypeId": 4}
    control.call("POST", "/pms/close", closure)
    assert (await detect_changes(sync)).pms.closures_changed == (4,)
    control.call("POST", "/pms/close", {**closure, "open": True})
    return booking


async def test_a_cancellation_on_reopened_nights_shows_with_the_poll_that_sees_it(
    emulator: Emulator, control: Control, make_sync: SyncFactory, sqlite_store: Store
) -> None:
    """The front desk reopens two studio nights it had closed, then a guest cancels there: the
    poll that sees the rooms move on nights roomsync holds closed checks that run again (one
    read), finds it lifted and frees the studios, where they used to wait for the next detection
    (the busy-hour bench). A poll that sees no room move there spends nothing more."""
    sync = await synced(make_sync, sqlite_store, emulator, control)
    night = open_studio_nights(control, control.free_rooms(FIRST, LAST)[4], 2)
    after = night + timedelta(days=1)
    booking = await booked_closed_and_reopened(sync, control, night, after)

    control.clear_log()
    quiet = await poll(sync)  # nothing moved: the reopening is the detection's to see
    assert quiet.result == "ok" and control.total() == 1 and quiet.pms.closures_changed == ()

    control.call("POST", "/pms/cancel", {"reservationId": booking})
    control.clear_log()
    report = await poll(sync)

    assert report.result == "ok" and report.pms.closures_changed == (4,)
    assert control.counts().get(CHECK_WINDOW) == 1
    for studio in STUDIOS:
        days = control.calendar(studio, night, after)
        assert [days[n]["availability"] for n in (night, after)] == ["available", "available"]
    assert channel_mismatches(emulator.state, control, FIRST, LAST) == []


async def test_a_check_the_budget_refuses_leaves_the_poll_whole(
    emulator: Emulator, control: Control, make_sync: SyncFactory, sqlite_store: Store
) -> None:
    """The check of a closed run is extra: when the budget refuses it the poll still ends ok, with
    the runs as known and a note, and is not cut short after its read."""
    sync = await synced(make_sync, sqlite_store, emulator, control)
    night = open_studio_nights(control, control.free_rooms(FIRST, LAST)[4], 1)
    booking = await booked_closed_and_reopened(sync, control, night, night)
    assert (await poll(sync)).result == "ok"
    # the poll's read leaves the AVAILABILITY reserve (75 of 1,500) and no more
    control.call("POST", "/quota", {"dailyQuota": 1500, "freeLicence": False, "usedCalls": 1424})
    control.call("POST", "/pms/cancel", {"reservationId": booking})
    control.clear_log()

    report = await poll(sync)

    assert report.result == "ok" and report.pms.closures_changed == ()
    assert any("not checked again" in note for note in report.notes)
    assert control.counts().get(CHECK_WINDOW) is None and control.counts().get(AVAILABILITY_ROOM) == 1
