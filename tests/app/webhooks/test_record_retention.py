"""Old records go: processed events and guest-check answers older than ``webhook_keep_days`` are
deleted by the worker's housekeeping; failed events stay for a person."""

from __future__ import annotations

import hashlib
from datetime import UTC, datetime, timedelta

from roomsync.app.webhooks import create_worker
from roomsync.core.ports import InboxStatus, NewDelivery
from roomsync.metrics import Metrics
from support.webhooks import DOUBLES, PROPERTY, Harness


async def test_the_worker_forgets_processed_records_past_the_keep_days(harness: Harness) -> None:
    for start in (170, 171, 172):
        assert harness.post(harness.check_event(DOUBLES, start, 2)).json()["succeed"] is True
    broken = "{ kept for a person"
    harness.store.inbox.accept_delivery(
        NewDelivery(
            property_id=PROPERTY,
            action="ReservationUpdated",
            body=broken,
            content_key=hashlib.sha256(broken.encode()).hexdigest(),
            received_at=datetime.now(UTC),
            parsed_ok=False,
        )
    )
    await harness.drain()
    assert len(harness.answers()) == 3
    assert harness.inbox_counts()[InboxStatus.DONE] == 3

    # the same day: nothing is old enough
    await harness.drain()
    assert harness.inbox_counts()[InboxStatus.DONE] == 3

    keep_days = harness.settings.webhook_keep_days
    later = datetime.now(UTC) + timedelta(days=keep_days, hours=1)
    worker = create_worker(
        harness.context,
        harness.store,
        harness.client,
        harness.nights,
        metrics=Metrics(),
        clock=lambda: later,
    )
    await worker.drain()
    assert harness.answers() == []
    counts = harness.inbox_counts()
    assert (counts[InboxStatus.DONE], counts[InboxStatus.FAILED]) == (0, 1)
    backlog = harness.store.webhook_records.inbox_backlog(PROPERTY)
    assert (backlog.open, backlog.failed) == (0, 1)
