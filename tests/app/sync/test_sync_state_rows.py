"""What a sync leaves in the store's sync-state rows (``store.sync_state``), and the digest's
compare-and-set when another writer (a second store: another replica) touches a listing during a
full sync, on SQLite and Postgres."""

from __future__ import annotations

from dataclasses import replace

from sync_harness import Control, Emulator, SyncFactory, load_demo_mapping

from roomsync.adapters.store import Store, open_store
from roomsync.app.sync import ListingStatus
from roomsync.app.sync.runs.full_sync import sync_property
from roomsync.app.sync.runs.push import push_nights
from roomsync.core.ports import ListingKey

STUDIO_LISTINGS = {"41000001", "41000002"}


async def test_a_full_sync_keeps_its_digests_and_a_push_forgets_those_of_the_listings_it_wrote(
    emulator: Emulator, control: Control, make_sync: SyncFactory, store_on: Store
) -> None:
    sync = make_sync(store_on)
    load_demo_mapping(store_on, sync.settings, emulator.state)
    pid = sync.property_id

    first = await sync_property(sync)

    in_step = {o.key for o in first.listings if o.status in (ListingStatus.WRITTEN, ListingStatus.UNCHANGED)}
    kept = {key.text: row for key, row in store_on.sync_state.digests(pid).items() if row.digest}
    assert in_step and set(kept) == in_step
    facts = store_on.sync_state.listing_facts(pid)
    assert {key.text for key in facts} == {o.key for o in first.listings}
    assert all(key.property_id == pid and fact.listing == key for key, fact in facts.items())
    located = store_on.sync_state.located_closures(pid)
    assert set(located.room_types) == set(first.pms.closures_located) and located.room_types

    second = await sync_property(sync)  # quiet: every digest holds, no row is written
    assert {key.text: row for key, row in store_on.sync_state.digests(pid).items()} == kept
    assert second.pms.closures_remembered == first.pms.closures_located

    night = first.first_night
    assert night is not None
    pushed = await push_nights(sync, 4, [night])
    written = {o.key for o in pushed.listings}
    assert {key.split("/")[1] for key in written} == STUDIO_LISTINGS
    after = {key.text: row for key, row in store_on.sync_state.digests(pid).items()}
    for key in written:
        assert after[key].digest is None and after[key].version == kept[key].version + 1
    assert {k: v for k, v in after.items() if k not in written} == {
        k: v for k, v in kept.items() if k not in written
    }


async def test_a_digest_is_not_kept_when_another_replica_pushed_the_listing_during_the_sync(
    emulator: Emulator, control: Control, make_sync: SyncFactory, store_on: Store, database_url: str
) -> None:
    """The engine's progress hook runs after the sync read the digest rows and before it compares
    any listing: there, another store on the same database forgets one listing's digest, as a
    targeted push of another replica does. The sync's keep of that digest loses; the others win."""
    sync = make_sync(store_on)
    load_demo_mapping(store_on, sync.settings, emulator.state)
    pid = sync.property_id
    studio = ListingKey(pid, "2001", "41000001")
    with open_store(database_url) as other_replica:

        def progress(stage: str, done: int, total: int) -> None:
            if stage == "listings" and done == 0:
                other_replica.sync_state.forget_digests([studio])

        sync = replace(sync, progress=progress)
        report = await sync_property(sync)

    assert report.result == "ok"
    rows = store_on.sync_state.digests(pid)
    assert rows[studio].digest is None  # the push's row stands
    others = {key: row for key, row in rows.items() if key != studio}
    assert others and all(row.digest for row in others.values())
    # the next sync compares that listing against its ledger, and keeps its digest then
    await sync_property(make_sync(store_on))
    assert store_on.sync_state.digests(pid)[studio].digest is not None
