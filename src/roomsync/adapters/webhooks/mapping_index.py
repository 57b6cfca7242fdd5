"""The property's mapping as the webhook package looks it up: listing -> room type, host ->
listings, room type -> listings.

The mapping lives in the store (``roomsync mappings load``); it is read again at most every
``MAPPING_TTL_SECONDS`` so a guest check does not pay a database round trip for it, and a mapping
loaded while the receiver runs is seen within that time.
"""

from __future__ import annotations

import time
from dataclasses import dataclass

from roomsync.core.mapping import ListingMapping
from roomsync.core.mapping import Mapping as PropertyMapping
from roomsync.core.ports import ListingKey, MappingStore

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
        return ListingKey(self.property_id, listing.account_id, listing.listing_id)

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
