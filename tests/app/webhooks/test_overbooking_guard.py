"""The overbooking guard end to end, with the real sync engine as ``NightsChanged``: a booking of
the last free studio through one listing closes those nights on the other studio listing's
channel calendar, and its cancellation opens them again."""

from __future__ import annotations

from roomsync.app.sync.engine import SyncEngine
from roomsync.app.webhooks import create_worker
from roomsync.core.ports import InboxStatus
from roomsync.metrics import Metrics
from support.webhooks import STUDIO_A, STUDIO_B, STUDIO_TYPE, Harness


def availability(harness: Harness, listing: str, first: int, last: int) -> list[str]:
    days = harness.ctl(
        "GET", f"/channel/calendar/{listing}?from={harness.day(first)}&to={harness.day(last)}"
    )["days"]
    return [day["availability"] for day in days]


async def test_a_booking_closes_its_nights_on_the_other_listing_of_the_room_type(harness: Harness) -> None:
    engine = SyncEngine(harness.context, harness.store, harness.client, metrics=Metrics())
    first = await engine.sync_property()
    assert first.result in ("ok", "ok_with_warnings"), first.error
    harness.fill_pms(STUDIO_TYPE, 200, 202, leave_free=1)  # one studio left on those nights
    synced = await engine.sync_property()
    assert synced.result in ("ok", "ok_with_warnings"), synced.error
    assert availability(harness, STUDIO_B, 200, 202) == ["available"] * 3

    worker = create_worker(
        harness.context, harness.store, harness.client, engine.nights_changed, metrics=Metrics()
    )
    code = harness.book(STUDIO_A, 200, 3)["confirmationCode"]
    harness.settle()
    await worker.drain()
    assert harness.inbox_counts()[InboxStatus.FAILED] == 0
    assert harness.the_pms_reservation(code).reservation_status_id == 3
    assert availability(harness, STUDIO_B, 200, 202) == ["unavailable"] * 3  # pushed at once
    assert availability(harness, STUDIO_B, 203, 203) == ["available"]

    harness.ctl("POST", "/guest/cancel", {"confirmationCode": code, "by": "guest"})
    harness.settle()
    await worker.drain()
    assert availability(harness, STUDIO_B, 200, 202) == ["available"] * 3
