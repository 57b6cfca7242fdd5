"""A worker killed at the worst moments loses nothing: a new worker on the same database finishes
the job, and the PMS still ends with the reservation exactly once."""

from __future__ import annotations

import asyncio
from collections.abc import Sequence
from datetime import date
from typing import Any

import pytest

from roomsync.adapters.client import ServiceClient
from roomsync.app.webhooks import InboxWorker, create_worker
from roomsync.core.api.base import IdResult
from roomsync.core.api.pms.reservations import ReservationCreateRequest
from roomsync.core.catalog.types import Priority
from roomsync.core.ports import InboxStatus
from roomsync.metrics import Metrics
from roomsync.property_context import PropertyContext
from support.webhooks import (
    PROPERTY,
    STUDIO_A,
    STUDIO_TYPE,
    TWIN_TYPE,
    TWINS,
    Harness,
    NightsRecorder,
    nights_from,
)


class StuckPush:
    """A NightsChanged that never returns: the worker is killed while it waits."""

    def __init__(self) -> None:
        self.entered = asyncio.Event()

    async def __call__(
        self,
        property_id: str,
        room_type_id: int,
        nights: Sequence[date],
        *,
        source_listing_id: str | None = None,
    ) -> None:
        self.entered.set()
        await asyncio.Event().wait()


class DiesAfterCreating:
    """The service client, except that the process "dies" right after a reservation is created."""

    def __init__(self, real: ServiceClient) -> None:
        self._real = real

    def __getattr__(self, name: str) -> Any:
        return getattr(self._real, name)

    async def create_reservation(
        self, body: ReservationCreateRequest, *, priority: Priority | None = None
    ) -> IdResult:
        await self._real.create_reservation(body, priority=priority)
        raise asyncio.CancelledError  # the worker's process is gone before it records anything


def successor(harness: Harness, nights: NightsRecorder) -> InboxWorker:
    """A new worker on the same database, started after the old one died."""
    settings = harness.settings.model_copy(update={"webhook_claim_timeout_seconds": 0.0})
    context = PropertyContext.of(settings)
    return create_worker(context, harness.store, harness.client, nights, metrics=Metrics())


async def test_events_stored_while_no_worker_ran_are_applied_by_the_next_one(harness: Harness) -> None:
    code = harness.book(TWINS, 310, 2)["confirmationCode"]
    harness.settle()
    counts = harness.inbox_counts()
    assert counts[InboxStatus.DONE] == 2  # the two guest checks: answered, nothing left to apply
    assert counts[InboxStatus.PENDING] == 1  # the reservation: stored, answered, not yet applied
    nights = NightsRecorder()
    await successor(harness, nights).drain()
    assert harness.the_pms_reservation(code).reservation_status_id == 3
    assert nights.calls == [(PROPERTY, TWIN_TYPE, nights_from(harness.day(310), 2), TWINS)]


async def test_a_worker_killed_mid_event_is_taken_over_without_a_second_reservation(harness: Harness) -> None:
    code = harness.book(STUDIO_A, 320, 3)["confirmationCode"]
    harness.settle()
    stuck = StuckPush()
    doomed = create_worker(harness.context, harness.store, harness.client, stuck, metrics=Metrics())
    running = asyncio.create_task(doomed.run())
    await asyncio.wait_for(stuck.entered.wait(), timeout=30)  # the PMS reservation exists, the push hangs
    running.cancel()
    with pytest.raises(asyncio.CancelledError):
        await running
    assert harness.inbox_counts()[InboxStatus.PROCESSING] == 1

    nights = NightsRecorder()
    await successor(harness, nights).drain()
    assert harness.the_pms_reservation(code).reservation_status_id == 3  # exactly one
    assert nights.calls == [(PROPERTY, STUDIO_TYPE, nights_from(harness.day(320), 3), STUDIO_A)]
    assert harness.inbox_counts()[InboxStatus.DONE] == 3


async def test_a_worker_dying_between_creating_and_recording_does_not_create_twice(harness: Harness) -> None:
    code = harness.book(STUDIO_A, 330, 2)["confirmationCode"]
    harness.settle()
    doomed = create_worker(
        harness.context,
        harness.store,
        DiesAfterCreating(harness.client),  # type: ignore[arg-type]
        NightsRecorder(),
        metrics=Metrics(),
    )
    with pytest.raises(asyncio.CancelledError):
        await doomed.drain()
    assert len(harness.pms_reservations(code)) == 1
    link = harness.store.reservation_links.get_link(PROPERTY, code)
    assert link is not None and link.pms_reservation_id is None  # claimed, never recorded

    nights = NightsRecorder()
    await successor(harness, nights).drain()
    pms = harness.the_pms_reservation(code)
    link = harness.store.reservation_links.get_link(PROPERTY, code)
    assert link is not None and link.pms_reservation_id == pms.id
    assert nights.calls == [(PROPERTY, STUDIO_TYPE, nights_from(harness.day(330), 2), STUDIO_A)]


async def test_a_failed_push_is_tried_again_and_the_pms_is_not_touched_twice(harness: Harness) -> None:
    harness.nights.failures = 1
    code = harness.book(TWINS, 340, 2)["confirmationCode"]
    harness.settle()
    await harness.drain()  # the push fails; the retry is due at once (tiny backoff in the tests)

    assert harness.nights.calls == [(PROPERTY, TWIN_TYPE, nights_from(harness.day(340), 2), TWINS)]
    acceptance = next(
        row
        for row in harness.store.webhook_records.recent_inbox(PROPERTY)
        if row.action == "ReservationAcceptanceConfirmation"
    )
    assert (acceptance.status, acceptance.attempts) == ("done", 2)
    assert "sync engine is down" in (acceptance.last_error or "")
    assert harness.client.requests_sent.by_operation["create_reservation"] == 1
    assert harness.client.requests_sent.by_operation["update_reservation_fields"] == 0
    assert harness.the_pms_reservation(code).reservation_status_id == 3
