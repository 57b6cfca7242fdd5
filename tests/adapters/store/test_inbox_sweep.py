"""The inbox seen for many properties at once (one claim loop per replica): each answer equals
what the per-property statements answer, property by property, and leaves other properties alone."""

from __future__ import annotations

from datetime import timedelta

from test_store_inbox import AT, delivery

from roomsync.adapters.store import Store
from roomsync.core.ports import InboxStatus


def test_due_properties_stale_claims_and_backlogs_answer_for_each_property(
    store: Store, property_id: str, other_property_id: str
) -> None:
    sweep, records = store.inbox_sweep, store.webhook_records
    quiet, unowned = f"{property_id}-quiet", f"{property_id}-unowned"
    owned = [property_id, other_property_id, quiet]
    assert sweep.properties_with_due_events(owned, AT) == set()

    store.inbox.accept_delivery(delivery(property_id, '{"a": 1}', reservation="R1"))
    store.inbox.accept_delivery(delivery(property_id, '{"a": 2}', reservation="R1"))
    later = store.inbox.accept_delivery(delivery(other_property_id, '{"b": 1}')).id
    store.inbox.accept_delivery(delivery(unowned, '{"c": 1}'))
    assert sweep.properties_with_due_events(owned, AT) == {property_id, other_property_id}

    # a retry not due yet does not count until it is
    claimed = store.inbox.claim_batch(other_property_id, 10, AT, "r/1")
    assert [item.id for item in claimed] == [later]
    store.inbox.mark_failed(other_property_id, later, "boom", AT, AT + timedelta(seconds=30))
    assert sweep.properties_with_due_events(owned, AT) == {property_id}
    due_later = sweep.properties_with_due_events(owned, AT + timedelta(seconds=30))
    assert due_later == {property_id, other_property_id}

    # a claim left by a dead worker goes back to pending once older than the timeout, only there
    first = store.inbox.claim_batch(property_id, 10, AT, "dead/1")
    assert len(first) == 1  # the second event of R1 waits for the first
    store.inbox.claim_batch(unowned, 10, AT, "dead/1")
    assert sweep.release_stale(owned, AT) == {}
    assert sweep.release_stale(owned, AT + timedelta(seconds=1)) == {property_id: 1}
    assert sweep.release_stale(owned, AT + timedelta(seconds=1)) == {}
    released = store.inbox.get_item(property_id, first[0].id)
    assert released is not None and released.status is InboxStatus.PENDING
    assert records.inbox_backlog(unowned).processing == 1

    backlogs = sweep.backlogs(owned)
    assert set(backlogs) == set(owned)
    for each in owned:
        assert backlogs[each] == records.inbox_backlog(each), each
    assert backlogs[property_id].pending == 2 and backlogs[quiet].open == 0
    assert backlogs[other_property_id].oldest_open_received_at == AT


def test_no_properties_no_statement(store: Store) -> None:
    sweep = store.inbox_sweep
    assert sweep.properties_with_due_events([], AT) == set()
    assert sweep.release_stale([], AT) == {}
    assert sweep.backlogs([]) == {}
