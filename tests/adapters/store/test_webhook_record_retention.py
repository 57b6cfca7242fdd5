"""The inbox backlog as the gauges read it, and forgetting old processed records, on both
databases."""

from __future__ import annotations

import hashlib
from datetime import UTC, date, datetime, timedelta

import pytest

from roomsync.adapters.store import Store, webhook_records
from roomsync.adapters.store.webhook_records import CheckoutAnswer, InboxBacklog
from roomsync.core.ports import NewDelivery

NOW = datetime(2027, 6, 1, 10, 0, tzinfo=UTC)


def _deliver(store: Store, property_id: str, body: str, received_at: datetime, parsed_ok: bool = True) -> int:
    return store.inbox.accept_delivery(
        NewDelivery(
            property_id=property_id,
            action="ReservationUpdated",
            body=body,
            content_key=hashlib.sha256(body.encode()).hexdigest(),
            received_at=received_at,
            parsed_ok=parsed_ok,
        )
    ).id


def _answer(at: datetime, property_id: str, inbox_id: int | None = None) -> CheckoutAnswer:
    return CheckoutAnswer(
        property_id=property_id,
        action="CheckAvailability",
        listing_id="41001",
        start_date=date(2027, 7, 1),
        nights=2,
        succeed=True,
        reason="free",
        answered_at=at,
        inbox_id=inbox_id,
    )


def test_the_backlog_counts_what_is_not_done(store: Store, property_id: str) -> None:
    records = store.webhook_records
    assert records.inbox_backlog(property_id) == InboxBacklog(0, 0, 0, None)
    for n in range(4):
        _deliver(store, property_id, f'{{"n": {n}}}', NOW + timedelta(minutes=n))
    _deliver(store, property_id, "{ broken", NOW - timedelta(hours=1), parsed_ok=False)
    claimed = store.inbox.claim_batch(property_id, 2, NOW + timedelta(minutes=5))
    store.inbox.mark_done(property_id, claimed[0].id, NOW + timedelta(minutes=6))

    backlog = records.inbox_backlog(property_id)
    # the failed event is older, but it is not open: the oldest open one is the second delivery
    assert backlog == InboxBacklog(
        pending=2, processing=1, failed=1, oldest_open_received_at=claimed[1].received_at
    )
    assert backlog.open == 3
    assert backlog.oldest_open_received_at == NOW + timedelta(minutes=1)


def test_old_processed_records_are_forgotten_and_the_rest_kept(
    store: Store, property_id: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(webhook_records, "FORGET_BATCH_ROWS", 2)
    records = store.webhook_records
    old, recent = NOW - timedelta(days=40), NOW - timedelta(days=10)
    old_ids = [_deliver(store, property_id, f'{{"old": {n}}}', old + timedelta(seconds=n)) for n in range(3)]
    recent_id = _deliver(store, property_id, '{"recent": 1}', recent)
    open_old = _deliver(store, property_id, '{"old but pending": 1}', old)
    failed_old = _deliver(store, property_id, "{ broken", old, parsed_ok=False)
    for item in store.inbox.claim_batch(property_id, 10, NOW):
        if item.id != open_old:
            store.inbox.mark_done(property_id, item.id, NOW)
    store.inbox.release_stale(property_id, NOW + timedelta(seconds=1))  # open_old back to pending
    records.record_answers([_answer(old, property_id, i) for i in old_ids] + [_answer(recent, property_id)])

    cutoff = NOW - timedelta(days=30)
    assert records.forget_processed_before(property_id, cutoff) == 4  # a batch of each table
    assert records.forget_processed_before(property_id, cutoff) == 2
    assert records.forget_processed_before(property_id, cutoff) == 0

    left = {row.id: row.status for row in records.recent_inbox(property_id, 100)}
    assert left == {recent_id: "done", open_old: "pending", failed_old: "failed"}
    assert [a.answered_at for a in records.recent_answers(property_id)] == [recent]


def test_forgetting_keeps_other_properties_records(
    store: Store, property_id: str, other_property_id: str
) -> None:
    records = store.webhook_records
    old = NOW - timedelta(days=40)
    theirs = _deliver(store, other_property_id, '{"theirs": 1}', old)
    for item in store.inbox.claim_batch(other_property_id, 10, NOW):
        store.inbox.mark_done(other_property_id, item.id, NOW)
    records.record_answers([_answer(old, other_property_id, theirs)])
    assert records.forget_processed_before(property_id, NOW) == 0
    assert [r.id for r in records.recent_inbox(other_property_id)] == [theirs]
    assert len(records.recent_answers(other_property_id)) == 1


def test_the_bookings_a_run_counts_are_those_still_staying_after_its_first_night(
    store: Store, property_id: str
) -> None:
    """Every run reads the channel's bookings the PMS holds: only those whose PMS stay ends
    after the run's first night can occupy one of its nights (the past ones only grow)."""
    first = date(2027, 5, 10)
    at = datetime(2027, 5, 10, 8, tzinfo=UTC)
    stays = {"LEFT": (5, 10), "STAYING": (8, 11), "COMING": (20, 22), "NO_PMS": None}
    for code, stay in stays.items():
        pms = {}
        if stay is not None:
            pms = {"pms_date_from": date(2027, 5, stay[0]), "pms_date_to": date(2027, 5, stay[1])}
        booking = webhook_records.ChannelBooking(property_id, code, "L1", first, 1, "accept", "x", at, **pms)
        store.webhook_records.save_booking(booking)
    every = store.webhook_records.list_bookings(property_id)
    staying = store.webhook_records.list_bookings(property_id, leaving_after=first)
    assert [b.confirmation_code for b in every] == ["COMING", "LEFT", "NO_PMS", "STAYING"]
    assert [b.confirmation_code for b in staying] == ["COMING", "STAYING"]
