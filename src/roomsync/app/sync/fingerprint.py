"""A digest of everything a listing's desired calendar is computed from.

The ledger is written only by the runs and only with desired calendars (or with a channel
read that a write then brings to the desired calendar), so when the inputs of a listing are the
same as at its last successful sync, its ledger still equals its desired calendar and the listing
needs neither a ledger read nor a diff. On a quiet sync of a large property that saves most of
the work (a ledger read and a 365-night desired calendar per listing). ``resync`` and
``reconcile`` never trust it; a listing that was not brought in step (failed, paused, out of
budget, planned only) loses its digest.
"""

from __future__ import annotations

import hashlib
from collections.abc import Collection, Mapping, Sequence
from datetime import date
from decimal import Decimal

from roomsync.core.mapping import ListingMapping


class TypeDigests:
    """Digests of the per-room-type inputs, computed once per run and shared by its listings."""

    def __init__(
        self,
        nights: Sequence[date],
        free_rooms: Mapping[int, Mapping[date, int]],
        closed: Mapping[int, Collection[date]],
        property_closed: Collection[date],
        prices: Mapping[int, Mapping[date, Decimal]],
        *,
        close_unpriced: bool = False,
    ) -> None:
        self._nights = nights
        self._unpriced = "|close-unpriced" if close_unpriced else ""  # keep: the digests of before
        self._free = free_rooms
        self._closed = closed
        self._prices = prices
        self._cache: dict[int, str] = {}
        wanted = set(nights)
        self._property = ",".join(sorted(n.isoformat() for n in property_closed if n in wanted))

    def of(self, room_type_id: int) -> str:
        found = self._cache.get(room_type_id)
        if found is None:
            free = self._free.get(room_type_id, {})
            prices = self._prices.get(room_type_id, {})
            closed = self._closed.get(room_type_id, ())
            wanted = set(self._nights)
            parts = [
                f"{self._nights[0]}..{self._nights[-1]}:{len(self._nights)}",
                ",".join(str(free.get(n, 0)) for n in self._nights),
                ",".join(_canonical(prices.get(n)) for n in self._nights),
                ",".join(sorted(n.isoformat() for n in closed if n in wanted)),
                self._property,
            ]
            found = hashlib.sha256(("|".join(parts) + self._unpriced).encode()).hexdigest()
            self._cache[room_type_id] = found
        return found


def listing_digest(
    types: TypeDigests, listing: ListingMapping, own_reserved: Mapping[date, int], count_cap: int | None
) -> str:
    own = ",".join(f"{night.isoformat()}={rooms}" for night, rooms in sorted(own_reserved.items()))
    text = "|".join([types.of(listing.room_type_id), listing.model_dump_json(), own, str(count_cap)])
    return hashlib.sha256(text.encode()).hexdigest()


def _canonical(price: Decimal | None) -> str:
    """76, 76.0 and 76.00 are one price (a fresh read and the cache's copy differ in exponent)."""
    return "" if price is None else str(price.normalize())
