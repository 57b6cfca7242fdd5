"""The store's read for a scrape of many properties gives each property what its own reads give."""

from __future__ import annotations

import secrets
from datetime import UTC, datetime, timedelta

from roomsync.adapters.store import Store
from roomsync.core.mapping import parse_mapping
from roomsync.core.ports import ListingFacts, ListingKey, NewDelivery

AT = datetime(2027, 5, 1, 8, 0, tzinfo=UTC)


def mapping_of(*listing_ids: str) -> dict[str, object]:
    return {
        "currency": "EUR",
        "listing": [
            {
                "room_type_id": n,
                "account_id": "host-1",
                "listing_id": lid,
                "kind": "room_type",
                "currency": "EUR",
            }
            for n, lid in enumerate(listing_ids, start=1)
        ],
    }


def fill(store: Store, pid: str, listing_ids: tuple[str, ...], events: int, dead: int) -> None:
    store.mappings.replace_mapping(pid, parse_mapping(mapping_of(*listing_ids)))
    first = ListingKey(pid, "host-1", listing_ids[0])
    store.listing_states.record_listing_sync(first, AT, "ok")
    store.listing_states.set_paused(ListingKey(pid, "host-1", "heard-of"), True, "unlinked")
    store.sync_state.save_listing_facts([ListingFacts(first, False, 3, AT)])
    for n in range(events):
        store.inbox.accept_delivery(
            NewDelivery(pid, "reservation", "{}", f"{pid}-{n}", AT + timedelta(minutes=n))
        )
    for n in range(dead):
        store.dead_letters.add_dead_letter(pid, AT, "unreadable", f"body {n}", {})


def test_the_scrape_read_gives_every_property_what_its_own_reads_give(store: Store) -> None:
    one, two, unmapped = (f"prop-{secrets.token_hex(4)}" for _ in range(3))
    fill(store, one, ("10", "11", "12"), events=2, dead=1)
    fill(store, two, ("20",), events=0, dead=3)

    found = store.gauge_reads.gauge_facts([one, two, unmapped])

    assert set(found) == {one, two, unmapped}
    for pid in (one, two, unmapped):
        facts = found[pid]
        mapping = store.mappings.load_mapping(pid)
        assert facts.mapped is (mapping is not None)
        assert facts.listings == (list(mapping.listings) if mapping else [])
        assert facts.states == store.listing_states.list_listing_states(pid)
        assert facts.facts == store.sync_state.listing_facts(pid)
        assert facts.dead_letters == store.dead_letters.count_dead_letters(pid)
        assert facts.inbox == store.webhook_records.inbox_backlog(pid)
    assert (found[one].inbox.pending, found[one].inbox.oldest_open_received_at) == (2, AT)
    assert (found[two].dead_letters, len(found[one].listings), found[unmapped].mapped) == (3, 3, False)
    assert store.gauge_reads.gauge_facts([]) == {}
