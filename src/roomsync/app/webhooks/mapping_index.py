"""The property's mapping as the webhook package looks it up (listing -> room type, host ->
listings), and the listing states the guest checks consult, both cached briefly in memory.

The mapping lives in the store (``roomsync mappings load``); it is read again at most every
``MAPPING_TTL_SECONDS`` so a guest check does not pay a database round trip for it, and a mapping
loaded while the receiver runs is seen within that time.
"""

from __future__ import annotations

import time
from collections.abc import Sequence
from dataclasses import dataclass
from datetime import date

from roomsync.app.listing_pause import listing_states_generation
from roomsync.core.mapping import ListingMapping
from roomsync.core.mapping import Mapping as PropertyMapping
from roomsync.core.ports import (
    ListingKey,
    ListingState,
    ListingStateStore,
    LocatedClosures,
    MappingStore,
    SyncStateStore,
)

MAPPING_TTL_SECONDS = 5.0


@dataclass(frozen=True)
class MappingIndex:
    property_id: str
    mapping: PropertyMapping | None

    def listing(self, listing_id: str | int) -> ListingMapping | None:
        wanted = str(listing_id)
        if self.mapping is None:
            return None
        return next((x for x in self.mapping.listings if x.listing_id == wanted), None)

    def listings_of_host(self, account_id: str) -> list[ListingMapping]:
        if self.mapping is None:
            return []
        return [x for x in self.mapping.listings if x.account_id == account_id]

    def key(self, listing: ListingMapping) -> ListingKey:
        return listing.listing_key(self.property_id)

    @property
    def currency(self) -> str | None:
        return None if self.mapping is None else self.mapping.currency


class CachedMapping:
    """The mapping of one property, re-read from the store once it is older than the TTL."""

    def __init__(self, store: MappingStore, property_id: str, ttl: float = MAPPING_TTL_SECONDS) -> None:
        self._store = store
        self._property_id = property_id
        self._ttl = ttl
        self._loaded: MappingIndex | None = None
        self._loaded_at = 0.0

    def current(self) -> MappingIndex:
        """The index (reads the store when the cached one is too old; call it off the event loop)."""
        now = time.monotonic()
        if self._loaded is None or now - self._loaded_at > self._ttl:
            self._loaded = MappingIndex(self._property_id, self._store.load_mapping(self._property_id))
            self._loaded_at = now
        return self._loaded

    def forget(self) -> None:
        self._loaded = None


LISTING_STATES_TTL_SECONDS = 1.0


class CachedListingStates:
    """The property's listing states, read in one query at most every ``ttl`` seconds.

    A guest check would otherwise read its listing's state from the store every time. A change
    made in this process (the worker applying a suspension) is seen at once; one made by another
    replica or by ``roomsync webhooks resume`` within ``ttl``.
    """

    def __init__(
        self, store: ListingStateStore, property_id: str, ttl: float = LISTING_STATES_TTL_SECONDS
    ) -> None:
        self._store = store
        self._property_id = property_id
        self._ttl = ttl
        self._states: dict[ListingKey, ListingState] = {}
        self._loaded_at: float | None = None
        self._generation = -1

    def get(self, key: ListingKey) -> ListingState:
        """The state of ``key`` (reads the store when the cache is old; call it off the event loop)."""
        now = time.monotonic()
        generation = listing_states_generation(self._property_id)
        if self._loaded_at is None or now - self._loaded_at > self._ttl or generation != self._generation:
            self._states = {s.listing: s for s in self._store.list_listing_states(self._property_id)}
            self._loaded_at = now
            self._generation = generation
        return self._states.get(key) or ListingState(listing=key)


CLOSURES_TTL_SECONDS = 2.0


class CachedClosures:
    """The PMS closures the last sync located (``store.sync_state``), read at most every ``ttl``.

    A guest check refuses a night the PMS closed for the listing's room type (or the whole
    property) even before the sync has pushed the closure to the channel: the channel's calendar
    may lag, the desk's answer must not. Closures are what the syncs located, so a closure made
    at the front desk is known from the first run that read it (the poll does not read closures).
    """

    def __init__(self, store: SyncStateStore, property_id: str, ttl: float = CLOSURES_TTL_SECONDS) -> None:
        self._store = store
        self._property_id = property_id
        self._ttl = ttl
        self._located = LocatedClosures()
        self._loaded_at: float | None = None

    def first_closed(self, room_type_id: int, nights: Sequence[date]) -> str | None:
        """Why the first closed night of ``nights`` is closed, or None (call it off the event loop)."""
        now = time.monotonic()
        if self._loaded_at is None or now - self._loaded_at > self._ttl:
            self._located = self._store.located_closures(self._property_id)
            self._loaded_at = now
        type_spans = self._located.room_types.get(room_type_id, ())
        for night in nights:
            if any(first <= night <= last for first, last in self._located.property_wide):
                return f"the PMS has the property closed on {night}"
            if any(first <= night <= last for first, last in type_spans):
                return f"the PMS has room type {room_type_id} closed on {night}"
        return None
