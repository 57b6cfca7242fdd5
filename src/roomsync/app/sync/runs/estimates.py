"""What the daemon's planning asks of a property without spending a request: what the next
detection and a warm full sync cost (the closure check's windows around the closures the store
knows), and whether every listing was synced since an instant (a schedule may resume)."""

from __future__ import annotations

import asyncio
from datetime import UTC, date, datetime

from roomsync.app.sync.closures import remembered_runs
from roomsync.app.sync.pauses import MANAGED_CATEGORIES
from roomsync.app.sync.runs.property_sync import (
    PropertySync,
    horizon,
    listing_states,
    load_mapping,
    near_nights,
    watched_types,
)
from roomsync.core.ports import ListingState
from roomsync.core.sync.closure_windows import check_windows
from roomsync.core.sync.price_detection import Window


async def detection_windows(sync: PropertySync) -> list[Window]:
    """The windows the next detection will read when nothing changed (no request): its cost."""
    first, near, _ = near_nights(sync)
    return await _check_windows(sync, first, near)


async def warm_full_sync_cost(sync: PropertySync) -> int:
    """What a full sync costs when nothing changed and every price is cached (no request): the
    free rooms and the closure check's windows over the horizon (docs/sync.md). A first full
    sync costs far more (the price fill, the closures located, every listing written whole),
    and the daemon must not plan the day's later full syncs at that cost."""
    nights = horizon(sync)
    return 1 + len(await _check_windows(sync, nights[0], nights[-1]))


async def _check_windows(sync: PropertySync, first: date, last: date) -> list[Window]:
    """The closure check's windows over ``first..last`` around the closures the store knows."""
    mapping = await load_mapping(sync)
    located = await asyncio.to_thread(sync.store.sync_state.located_closures, sync.property_id)
    types, _ = await watched_types(sync, mapping)
    known = {t: spans for t, spans in remembered_runs(located, first, last).items() if t in types}
    return check_windows(first, last, known, sync.options.price_window_nights)


async def synced_every_listing_since(sync: PropertySync, since: datetime) -> bool:
    """Whether every mapped listing roomsync manages (not paused, connected as ``Full`` or
    ``Limited``) was synced at ``since`` or later, and the connection of every other one is
    known (a listing mapped after ``since`` is neither); False without a mapping."""
    mapping = await asyncio.to_thread(sync.store.mappings.load_mapping, sync.property_id)
    if mapping is None:
        return False
    states = await listing_states(sync, mapping.listings)
    floor = since if since.tzinfo else since.replace(tzinfo=UTC)

    def synced(state: ListingState) -> bool:
        at = state.last_synced_at
        return at is not None and (at if at.tzinfo else at.replace(tzinfo=UTC)) >= floor

    def covered(state: ListingState) -> bool:
        if state.sync_category is None:
            return False
        return state.paused or state.sync_category not in MANAGED_CATEGORIES or synced(state)

    return all(covered(state) for state in states.values())
