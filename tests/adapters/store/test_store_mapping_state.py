"""Mapping, listing state, sync runs and reservation links."""

from __future__ import annotations

import threading
from datetime import UTC, datetime, timedelta
from decimal import Decimal
from typing import Any

import pytest

from roomsync.adapters.store import NotFound, Store
from roomsync.core.mapping import ListingKind, parse_mapping
from roomsync.core.ports import ABANDONED, KindSpend, ListingKey, ListingState
from roomsync.core.property import PropertyRecord

AT = datetime(2027, 5, 1, 8, 0, tzinfo=UTC)

FULL_MAPPING: dict[str, Any] = {
    "currency": "EUR",
    "listing": [
        {
            "room_type_id": 2,
            "account_id": "host-1",
            "listing_id": "1002",
            "kind": "room_type",
            "currency": "EUR",
            "price": {"markup_percent": "12.5", "markup_amount": "-3.25"},
            "restrictions": {
                "min_nights": 2,
                "max_nights": 28,
                "closed_to_arrival": [0, 6],
                "closed_to_departure": [3],
            },
            "availability_rules": {"min_hours_ahead": 24, "max_days_notice": 365, "check_in_days": [1, 5]},
        },
        {
            "room_type_id": 1,
            "account_id": "host-1",
            "listing_id": "1001",
            "kind": "single",
            "currency": "EUR",
        },
    ],
    "connected": [
        {"room_type_id": 1, "standard": True, "non_refundable_discount_percent": "7.5"},
        {"room_type_id": 2, "standard": False},
    ],
}


def test_mapping_round_trips_in_file_order(store: Store, property_id: str) -> None:
    assert store.mappings.load_mapping(property_id) is None
    mapping = parse_mapping(FULL_MAPPING)
    store.mappings.replace_mapping(property_id, mapping)

    loaded = store.mappings.load_mapping(property_id)
    assert loaded == mapping
    assert loaded is not None
    assert [entry.listing_id for entry in loaded.listings] == ["1002", "1001"]
    assert loaded.listings[0].kind is ListingKind.ROOM_TYPE
    assert loaded.listings[0].price.markup_percent == Decimal("12.5")
    assert loaded.connected[0].non_refundable_discount_percent == Decimal("7.5")


def test_mapping_is_replaced_as_a_whole(store: Store, property_id: str, other_property_id: str) -> None:
    store.mappings.replace_mapping(property_id, parse_mapping(FULL_MAPPING))
    store.mappings.replace_mapping(other_property_id, parse_mapping(FULL_MAPPING))
    smaller = parse_mapping(
        {
            "currency": "EUR",
            "listing": [
                {"room_type_id": 9, "account_id": "h", "listing_id": "9", "kind": "single", "currency": "EUR"}
            ],
        }
    )
    assert store.mappings.count_listings(property_id) == len(parse_mapping(FULL_MAPPING).listings) > 1
    store.mappings.replace_mapping(property_id, smaller)

    assert store.mappings.load_mapping(property_id) == smaller
    assert store.mappings.count_listings(property_id) == 1
    assert store.mappings.load_mapping(other_property_id) == parse_mapping(FULL_MAPPING)
    store.mappings.replace_mapping(property_id, parse_mapping({"currency": "USD"}))
    emptied = store.mappings.load_mapping(property_id)
    assert emptied is not None
    assert (emptied.currency, emptied.listings, emptied.connected) == ("USD", (), ())
    assert store.mappings.count_listings(property_id) == 0
    assert store.mappings.count_listings("no-such-property") == 0


def test_a_mapping_read_again_is_what_the_rows_say_after_any_replicas_write(
    store: Store, second_store: Store, property_id: str
) -> None:
    """A replica keeps the mapping of the generation it last read (every run loads it, issue 26);
    another replica's replace, or the property's removal, is seen by its next load all the same."""
    full = parse_mapping(FULL_MAPPING)
    second_store.properties.add_property(PropertyRecord(property_id=property_id))
    second_store.mappings.replace_mapping(property_id, full)
    assert store.mappings.load_mapping(property_id) == full
    assert store.mappings.load_mapping(property_id) == full  # the generation kept

    usd = parse_mapping({"currency": "USD"})
    second_store.mappings.replace_mapping(property_id, usd)
    assert store.mappings.load_mapping(property_id) == usd
    second_store.properties.remove_property(property_id)
    assert store.mappings.load_mapping(property_id) is None


def test_listing_state_facts_are_set_independently(store: Store, property_id: str) -> None:
    listing = ListingKey(property_id, "host-1", "1001")
    assert store.listing_states.get_listing_state(listing) == ListingState(listing=listing)

    store.listing_states.set_paused(listing, True, "overbooked on 2027-05-03")
    store.listing_states.set_approval_status(listing, "approved")
    store.listing_states.set_sync_category(listing, "Limited")
    store.listing_states.set_has_availability(listing, True)
    store.listing_states.record_listing_sync(listing, AT, "ok")
    assert store.listing_states.get_listing_state(listing) == ListingState(
        listing=listing,
        paused=True,
        pause_reason="overbooked on 2027-05-03",
        approval_status="approved",
        sync_category="Limited",
        has_availability=True,
        last_synced_at=AT,
        last_sync_result="ok",
    )

    store.listing_states.set_paused(listing, False)
    state = store.listing_states.get_listing_state(listing)
    assert (state.paused, state.pause_reason, state.approval_status) == (False, None, "approved")

    other = ListingKey(property_id, "host-1", "1000")
    store.listing_states.set_approval_status(other, "rejected")
    assert [s.listing.listing_id for s in store.listing_states.list_listing_states(property_id)] == [
        "1000",
        "1001",
    ]


def test_sync_runs_start_finish_and_newest_first(
    store: Store, property_id: str, other_property_id: str
) -> None:
    first = store.sync_runs.start_run(property_id, "sync", AT)
    second = store.sync_runs.start_run(property_id, "reconcile", AT + timedelta(minutes=5))
    store.sync_runs.finish_run(
        property_id,
        first,
        AT + timedelta(seconds=40),
        "ok",
        requests_spent=7,
        operations=12,
        price_elements=3,
    )
    store.sync_runs.finish_run(property_id, second, AT + timedelta(minutes=6), "failed", error="HTTP 500")

    runs = store.sync_runs.recent_runs(property_id)
    assert [run.id for run in runs] == [second, first]
    assert (runs[1].requests_spent, runs[1].operations, runs[1].price_elements, runs[1].result) == (
        7,
        12,
        3,
        "ok",
    )
    assert (runs[0].kind, runs[0].error, runs[0].finished_at) == (
        "reconcile",
        "HTTP 500",
        AT + timedelta(minutes=6),
    )
    assert [run.id for run in store.sync_runs.recent_runs(property_id, kind="sync")] == [first]
    assert len(store.sync_runs.recent_runs(property_id, limit=1)) == 1
    assert store.sync_runs.recent_runs(other_property_id) == []
    with pytest.raises(NotFound, match="no sync run"):
        store.sync_runs.finish_run(other_property_id, first, AT, "ok")


def test_what_the_ended_runs_spent_since_an_instant_is_summed_per_kind(
    store: Store, property_id: str, other_property_id: str
) -> None:
    runs = store.sync_runs
    spent = [("poll", 0, 2), ("poll", 10, 1), ("detect", 20, 30), ("detect", 30, 12), ("poll", 40, 5)]
    for kind, minute, requests in spent:
        run = runs.start_run(property_id, kind, AT + timedelta(minutes=minute))
        runs.finish_run(
            property_id, run, AT + timedelta(minutes=minute, seconds=20), "ok", requests_spent=requests
        )
    runs.start_run(property_id, "detect", AT + timedelta(minutes=45))  # in progress: not counted yet
    elsewhere = runs.start_run(other_property_id, "poll", AT + timedelta(minutes=15))
    runs.finish_run(other_property_id, elsewhere, AT + timedelta(minutes=16), "ok", requests_spent=99)

    assert runs.spent_since(property_id, AT + timedelta(minutes=10)) == {
        "poll": KindSpend(runs=2, requests=6),
        "detect": KindSpend(runs=2, requests=42),
    }
    assert runs.spent_since(property_id, AT + timedelta(minutes=50)) == {}


def test_runs_whose_heartbeat_stopped_are_closed_as_abandoned(
    store: Store, property_id: str, other_property_id: str
) -> None:
    alive = store.sync_runs.start_run(property_id, "sync", AT)
    dead = store.sync_runs.start_run(property_id, "poll", AT)
    finished = store.sync_runs.start_run(property_id, "reconcile", AT)
    elsewhere = store.sync_runs.start_run(other_property_id, "sync", AT)
    store.sync_runs.finish_run(property_id, finished, AT + timedelta(seconds=5), "ok")
    store.sync_runs.beat_run(property_id, alive, AT + timedelta(minutes=3))
    store.sync_runs.beat_run(property_id, finished, AT + timedelta(minutes=3))  # ended: not touched

    in_flight_here = store.sync_runs.start_run(property_id, "push", AT)  # silent, but ours: alive

    now = AT + timedelta(minutes=4)
    closed = store.sync_runs.close_silent_runs(
        property_id, now - timedelta(seconds=90), now, keep={in_flight_here}
    )
    assert closed == [dead]
    runs = {run.id: run for run in store.sync_runs.recent_runs(property_id)}
    assert (runs[dead].result, runs[dead].finished_at) == (ABANDONED, now)
    assert "stopped without recording its end" in (runs[dead].error or "")
    assert (runs[alive].result, runs[alive].heartbeat_at) == (None, AT + timedelta(minutes=3))
    assert runs[in_flight_here].result is None
    assert (runs[finished].result, runs[finished].heartbeat_at) == ("ok", AT)
    assert store.sync_runs.recent_runs(other_property_id)[0].id == elsewhere
    assert store.sync_runs.recent_runs(other_property_id)[0].result is None  # another property's
    assert (
        store.sync_runs.close_silent_runs(property_id, now - timedelta(seconds=90), now, {in_flight_here})
        == []
    )
    # once it is no longer ours (its process died), it is closed like any other
    assert store.sync_runs.close_silent_runs(property_id, now - timedelta(seconds=90), now) == [
        in_flight_here
    ]


def test_reservation_link_is_claimed_once_then_completed(store: Store, property_id: str) -> None:
    assert store.reservation_links.claim_link(property_id, "HMABCDEFGH", "1001", AT) is True
    assert store.reservation_links.claim_link(property_id, "HMABCDEFGH", "1001", AT) is False
    link = store.reservation_links.get_link(property_id, "HMABCDEFGH")
    assert link is not None and (link.status, link.pms_reservation_id) == ("creating", None)

    store.reservation_links.record_created(
        property_id, "HMABCDEFGH", 4_000_000_123, 77, AT + timedelta(seconds=2)
    )
    store.reservation_links.set_link_status(
        property_id, "HMABCDEFGH", "cancelled", AT + timedelta(days=1), last_payout=Decimal("45.10")
    )
    link = store.reservation_links.get_link(property_id, "HMABCDEFGH")
    assert link is not None
    assert (link.status, link.pms_reservation_id, link.pms_customer_id, link.last_payout) == (
        "cancelled",
        4_000_000_123,
        77,
        Decimal("45.10"),
    )
    assert (link.created_at, link.updated_at) == (AT, AT + timedelta(days=1))
    with pytest.raises(NotFound, match="no reservation link"):
        store.reservation_links.record_created(property_id, "HMUNKNOWN0", 1, None, AT)


def test_two_replicas_claiming_one_reservation_get_one_claim(
    store: Store, second_store: Store, property_id: str
) -> None:
    attempts = 12
    start = threading.Barrier(attempts)
    results: list[bool] = []

    def claim(index: int) -> None:
        start.wait()
        replica = store if index % 2 else second_store
        results.append(replica.reservation_links.claim_link(property_id, "HMRACE0001", None, AT))

    workers = [threading.Thread(target=claim, args=(i,)) for i in range(attempts)]
    for worker in workers:
        worker.start()
    for worker in workers:
        worker.join()
    assert sorted(results) == [False] * (attempts - 1) + [True]


def test_concurrent_mapping_replacements_leave_one_whole_mapping(
    store: Store, second_store: Store, property_id: str
) -> None:
    """Replicas loading different mappings at once: the result is one of them, never a mix."""
    loaders = 8
    mappings = [
        parse_mapping(
            {
                "currency": "EUR",
                "listing": [
                    {
                        "room_type_id": n + 1,
                        "account_id": "h",
                        "listing_id": f"{n}-{i}",
                        "kind": "single",
                        "currency": "EUR",
                    }
                    for i in range(5)
                ],
            }
        )
        for n in range(loaders)
    ]
    start = threading.Barrier(loaders)
    errors: list[BaseException] = []

    def load(index: int) -> None:
        replica = store if index % 2 else second_store
        try:
            start.wait()
            replica.mappings.replace_mapping(property_id, mappings[index])
        except BaseException as error:
            errors.append(error)

    threads = [threading.Thread(target=load, args=(i,)) for i in range(loaders)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    assert errors == []
    assert store.mappings.load_mapping(property_id) in mappings
