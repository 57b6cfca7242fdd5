"""The sync engine's state as typed rows: written per key, compare-and-set where two writers meet
(two stores on one database stand for two replicas), and the JSON memo of before moved into them."""

from __future__ import annotations

import json
import threading
from collections.abc import Callable
from datetime import UTC, date, datetime, timedelta

import sqlalchemy as sa
from alembic import command

from roomsync.adapters.store import Store, create_engine, open_store, upgrade_to_head
from roomsync.adapters.store._sql import write_tx
from roomsync.adapters.store.migrations import alembic_config
from roomsync.core.ports import ListingFacts, ListingKey, LocatedClosures, StoredDigest

AT = datetime(2027, 3, 1, 12, 0, tzinfo=UTC)
D = date(2027, 3, 1)


def night(n: int) -> date:
    return D + timedelta(days=n)


# --- closures ------------------------------------------------------------------------------------


def test_closures_are_replaced_per_room_type_and_kept_per_property(
    store: Store, property_id: str, other_property_id: str
) -> None:
    assert store.sync_state.located_closures(property_id) == LocatedClosures()
    stale = store.sync_state.save_closures(
        property_id, AT, [(night(0), night(1))], {4: [(night(3), night(4)), (night(9), night(9))], 5: []}
    )
    assert stale == set()
    store.sync_state.save_closures(other_property_id, AT, [], {4: [(night(20), night(21))]})
    # a later read of room type 5 alone: 4's runs stay; the property's are replaced (every read
    # reads them) and 5's too
    store.sync_state.save_closures(property_id, AT + timedelta(minutes=5), [], {5: [(night(7), night(8))]})

    assert store.sync_state.located_closures(property_id) == LocatedClosures(
        property_wide=(),
        room_types={4: ((night(3), night(4)), (night(9), night(9))), 5: ((night(7), night(8)),)},
    )
    assert store.sync_state.located_closures(other_property_id).room_types == {4: ((night(20), night(21)),)}
    # a room type read open loses its runs
    store.sync_state.save_closures(property_id, AT + timedelta(minutes=6), [], {4: []})
    assert set(store.sync_state.located_closures(property_id).room_types) == {5}


def test_an_earlier_read_of_closures_never_replaces_a_later_one(
    store: Store, second_store: Store, property_id: str
) -> None:
    later, earlier = AT + timedelta(minutes=10), AT
    assert (
        second_store.sync_state.save_closures(
            property_id, later, [(night(2), night(2))], {4: [(night(5), night(6))]}
        )
        == set()
    )
    # the other replica's read was made before, its write arrives after: refused per scope
    stale = store.sync_state.save_closures(
        property_id, earlier, [], {4: [(night(1), night(1))], 6: [(night(3), night(3))]}
    )
    assert stale == {None, 4}  # the property's scope and room type 4 were read later; 6 is new
    assert store.sync_state.located_closures(property_id) == LocatedClosures(
        property_wide=((night(2), night(2)),),
        room_types={4: ((night(5), night(6)),), 6: ((night(3), night(3)),)},
    )


# --- listing facts -------------------------------------------------------------------------------


def test_listing_facts_are_written_per_listing_and_a_later_read_wins(
    store: Store, second_store: Store, property_id: str
) -> None:
    a, b = ListingKey(property_id, "A1", "L1"), ListingKey(property_id, "A1", "L2")
    assert (
        store.sync_state.save_listing_facts([ListingFacts(a, False, 3, AT), ListingFacts(b, True, None, AT)])
        == 2
    )
    later = AT + timedelta(minutes=1)
    assert second_store.sync_state.save_listing_facts([ListingFacts(a, False, 5, later)]) == 1
    # an earlier read arriving late changes nothing of a; b is not touched by a write of a alone
    assert store.sync_state.save_listing_facts([ListingFacts(a, True, None, AT)]) == 0

    facts = store.sync_state.listing_facts(property_id)
    assert facts == {
        a: ListingFacts(a, False, 5, later),
        b: ListingFacts(b, True, None, AT),
    }


# --- digests -------------------------------------------------------------------------------------


def test_a_digest_is_kept_only_if_its_row_did_not_change_since_it_was_read(
    store: Store, second_store: Store, property_id: str
) -> None:
    key = ListingKey(property_id, "A1", "L1")
    assert store.sync_state.digests(property_id) == {}
    assert store.sync_state.keep_digest(key, "d1", 0) == StoredDigest(key, "d1", 1)

    # two writers read version 1: a full sync (store) and a targeted push (second_store)
    read = store.sync_state.digests(property_id)[key]
    second_store.sync_state.forget_digests([key])
    lost = store.sync_state.keep_digest(key, "d2", read.version)

    assert lost == StoredDigest(key, None, 2)  # it re-reads the row: the push's, not its own
    # with what it re-read, the next attempt wins
    assert store.sync_state.keep_digest(key, "d2", lost.version) == StoredDigest(key, "d2", 3)


def test_forgetting_a_digest_never_kept_still_fences_a_sync_that_read_its_absence(
    store: Store, second_store: Store, property_id: str
) -> None:
    key = ListingKey(property_id, "A1", "L9")
    second_store.sync_state.forget_digests([key])  # between the read and the keep
    assert store.sync_state.keep_digest(key, "d1", 0) == StoredDigest(key, None, 1)


def test_of_two_writers_racing_one_digest_exactly_one_wins(
    store: Store, second_store: Store, property_id: str
) -> None:
    """Eight threads on two stores (two connection pools: two replicas) all read version 1 and try
    to set their digest at the same moment: one succeeds, every other re-reads the winner's row."""
    key = ListingKey(property_id, "A1", "L1")
    store.sync_state.keep_digest(key, "first", 0)
    gate = threading.Barrier(8)
    results: dict[int, StoredDigest] = {}

    def writer(n: int) -> None:
        on = store if n % 2 else second_store
        gate.wait()
        results[n] = on.sync_state.keep_digest(key, f"digest-{n}", 1)

    run_threads(writer, 8)

    winners = [n for n, row in results.items() if row.digest == f"digest-{n}"]
    assert len(winners) == 1, results
    assert {row.version for row in results.values()} == {2}
    assert {row.digest for row in results.values()} == {f"digest-{winners[0]}"}
    assert store.sync_state.digests(property_id)[key] == StoredDigest(key, f"digest-{winners[0]}", 2)


def run_threads(target: Callable[[int], None], count: int) -> None:
    errors: list[BaseException] = []

    def guarded(n: int) -> None:
        try:
            target(n)
        except BaseException as error:  # reported below, in the test's thread
            errors.append(error)

    threads = [threading.Thread(target=guarded, args=(n,)) for n in range(count)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join(60)
    assert not errors, errors


# --- pending pushes ------------------------------------------------------------------------------


def test_a_pending_push_is_claimed_by_one_flush_and_deleted_when_done(
    store: Store, second_store: Store, property_id: str, other_property_id: str
) -> None:
    pushes = store.pending_pushes
    first = pushes.record(property_id, 7, [night(2), night(1)], "L1", AT)
    pushes.record(other_property_id, 7, [night(1)], None, AT)
    assert pushes.waiting(property_id) == 1

    claimed = pushes.claim(property_id, "flush-a", AT)
    assert [(p.id, p.room_type_id, p.nights, p.source_listing_id) for p in claimed] == [
        (first, 7, (night(1), night(2)), "L1")
    ]
    assert second_store.pending_pushes.claim(property_id, "flush-b", AT) == []  # claimed already
    later = second_store.pending_pushes.record(property_id, 8, [night(5)], None, AT)  # during the push
    assert pushes.done(property_id, "flush-a") == 1
    assert pushes.waiting(property_id) == 1
    assert [p.id for p in second_store.pending_pushes.claim(property_id, "flush-b", AT)] == [later]
    assert pushes.waiting(other_property_id) == 1  # another property's are its own


def test_claims_of_a_stopped_owner_are_released_for_the_next(
    store: Store, second_store: Store, property_id: str
) -> None:
    store.pending_pushes.record(property_id, 7, [night(1)], None, AT)
    assert len(store.pending_pushes.claim(property_id, "dead-replica/1", AT)) == 1
    # the replica died before ``done``; the one that takes the property over releases and claims
    assert second_store.pending_pushes.release_claims(property_id) == 1
    taken = second_store.pending_pushes.claim(property_id, "new-owner/1", AT)
    assert [p.nights for p in taken] == [(night(1),)]
    assert store.pending_pushes.done(property_id, "dead-replica/1") == 0  # too late: not its claim
    assert second_store.pending_pushes.done(property_id, "new-owner/1") == 1
    assert store.pending_pushes.waiting(property_id) == 0


def test_concurrent_claims_are_disjoint(store: Store, second_store: Store, property_id: str) -> None:
    for n in range(40):
        store.pending_pushes.record(property_id, 7, [night(n % 5)], None, AT)
    gate = threading.Barrier(6)
    claimed: dict[int, list[int]] = {}

    def claimer(n: int) -> None:
        on = store if n % 2 else second_store
        gate.wait()
        claimed[n] = [p.id for p in on.pending_pushes.claim(property_id, f"flush-{n}", AT)]

    run_threads(claimer, 6)
    every = [push_id for ids in claimed.values() for push_id in ids]
    assert len(every) == 40 and len(set(every)) == 40


# --- the migration from the JSON memo ------------------------------------------------------------


def test_migration_0009_moves_the_json_memo_into_rows_and_back(empty_database_url: str) -> None:
    url = empty_database_url
    engine = create_engine(url)
    try:
        with write_tx(engine) as conn:
            command.upgrade(alembic_config(connection=conn), "0008")
        memo = {
            "closures": {
                "room_types": {"4": [["2027-03-03", "2027-03-04"], ["2027-03-10", "2027-03-10"]]},
                "property": [["2027-03-01", "2027-03-01"]],
                "checked": ["2027-03-01", "2027-09-01"],
            },
            "listings": {"A1/L1": {"total_inventory_count": 3}, "A1/L2": {"missing": True}},
            "digests": {"A1/L1": "abc"},
        }
        saved = AT if engine.dialect.name == "postgresql" else AT.replace(tzinfo=None)
        with write_tx(engine) as conn:
            insert = sa.text("INSERT INTO sync_memo (property_id, body, saved_at) VALUES (:p, :b, :s)")
            conn.execute(insert, {"p": "hotel-1", "b": json.dumps(memo), "s": saved})
            conn.execute(insert, {"p": "hotel-2", "b": "{not json", "s": saved})  # a damaged cache
    finally:
        engine.dispose()

    upgrade_to_head(url)

    with open_store(url) as store:
        state = store.sync_state
        assert state.located_closures("hotel-1") == LocatedClosures(
            property_wide=((D, D),),
            room_types={4: ((night(2), night(3)), (night(9), night(9)))},
        )
        l1, l2 = ListingKey("hotel-1", "A1", "L1"), ListingKey("hotel-1", "A1", "L2")
        assert state.listing_facts("hotel-1") == {
            l1: ListingFacts(l1, False, 3, AT),
            l2: ListingFacts(l2, True, None, AT),
        }
        assert state.digests("hotel-1") == {l1: StoredDigest(l1, "abc", 1)}
        assert state.located_closures("hotel-2") == LocatedClosures() and state.digests("hotel-2") == {}
        assert "sync_memo" not in sa.inspect(store.engine).get_table_names()
        # written per key from here on, as the engine does
        state.forget_digests([l1])

    engine = create_engine(url)
    try:
        with write_tx(engine) as conn:
            command.downgrade(alembic_config(connection=conn), "0008")
        with engine.connect() as conn:
            body = conn.execute(
                sa.text("SELECT body FROM sync_memo WHERE property_id = 'hotel-1'")
            ).scalar_one()
    finally:
        engine.dispose()
    rebuilt = json.loads(body)
    assert rebuilt["closures"] == {
        "room_types": {"4": [["2027-03-03", "2027-03-04"], ["2027-03-10", "2027-03-10"]]},
        "property": [["2027-03-01", "2027-03-01"]],
    }
    assert rebuilt["listings"] == {"A1/L1": {"total_inventory_count": 3}, "A1/L2": {"missing": True}}
    assert "digests" not in rebuilt  # forgotten after the upgrade
