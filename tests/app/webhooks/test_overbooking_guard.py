"""The overbooking guard end to end, with the real push (``roomsync.app.sync.runs.push``) as
``NightsChanged``: a booking of the last free studio through one listing closes those nights on
the other studio listing's channel calendar, and its cancellation opens them again."""

from __future__ import annotations

from collections.abc import Sequence
from datetime import date

from roomsync.app.sync.runs.full_sync import sync_property
from roomsync.app.sync.runs.property_sync import PropertySync
from roomsync.app.sync.runs.push import push_nights
from roomsync.app.webhooks import create_worker
from roomsync.core.ports import InboxStatus
from roomsync.metrics import Metrics
from support.webhooks import STUDIO_A, STUDIO_B, STUDIO_TYPE, Harness


def availability(harness: Harness, listing: str, first: int, last: int) -> list[str]:
    days = harness.ctl(
        "GET", f"/channel/calendar/{listing}?from={harness.day(first)}&to={harness.day(last)}"
    )["days"]
    return [day["availability"] for day in days]


class PushAtOnce:
    """The bridge's ``NightsChanged`` as the overbooking guard's push right away (the daemon
    debounces it instead); a failed push raises, so the bridge keeps the nights and retries."""

    def __init__(self, sync: PropertySync) -> None:
        self.sync = sync

    async def __call__(
        self,
        property_id: str,
        room_type_id: int,
        nights: Sequence[date],
        *,
        source_listing_id: str | None = None,
    ) -> None:
        assert property_id == self.sync.property_id
        report = await push_nights(self.sync, room_type_id, nights, exclude_listing_id=source_listing_id)
        if report.result not in ("ok", "ok_with_warnings"):
            raise RuntimeError(f"pushing {len(nights)} nights of room type {room_type_id}: {report.result}")


async def test_a_booking_closes_its_nights_on_the_other_listing_of_the_room_type(harness: Harness) -> None:
    sync = PropertySync.of(harness.context, harness.store, harness.client, metrics=Metrics())
    first = await sync_property(sync)
    assert first.result in ("ok", "ok_with_warnings"), first.error
    harness.fill_pms(STUDIO_TYPE, 200, 202, leave_free=1)  # one studio left on those nights
    synced = await sync_property(sync)
    assert synced.result in ("ok", "ok_with_warnings"), synced.error
    assert availability(harness, STUDIO_B, 200, 202) == ["available"] * 3

    worker = create_worker(
        harness.context, harness.store, harness.client, PushAtOnce(sync), metrics=Metrics()
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
