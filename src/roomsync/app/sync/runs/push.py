"""The overbooking guard's push: a few nights of one room type to its listings now (not the
listing a booking came from), from ONE free-room read of those nights, the closures and prices
the store holds and the ledger, at ``GUEST`` priority by default. The webhook bridge asks for it
(through the daemon's debouncer) when a booking or a cancellation changed the PMS.
"""

from __future__ import annotations

import asyncio
from collections.abc import Iterable
from datetime import date

from roomsync.app.sync.closures import remembered
from roomsync.app.sync.pms import PmsFacts, read_free_rooms
from roomsync.app.sync.report import COMMAND_LINE, SyncReport
from roomsync.app.sync.runs.listing_pass import read_own_reserved, sync_listings
from roomsync.app.sync.runs.property_sync import (
    PropertySync,
    cached_prices,
    forget_digests,
    horizon,
    ledger_run,
    listing_states,
    load_mapping,
)
from roomsync.core.catalog.types import Priority

PUSH_NIGHTS = "push_nights"


async def push_nights(
    sync: PropertySync,
    room_type_id: int,
    nights: Iterable[date],
    *,
    priority: Priority = Priority.GUEST,
    exclude_listing_id: str | None = None,
    trigger: str = COMMAND_LINE,
) -> SyncReport:
    """Push ``nights`` of ``room_type_id`` to its listings now (not ``exclude_listing_id``)."""
    wanted = sorted(set(nights))

    async def body(report: SyncReport) -> None:
        await _push(sync, report, room_type_id, wanted, priority, exclude_listing_id)

    return await sync.recorder.run(PUSH_NIGHTS, False, body, trigger=trigger)


async def _push(
    sync: PropertySync,
    report: SyncReport,
    room_type_id: int,
    wanted: list[date],
    priority: Priority,
    exclude_listing_id: str | None,
) -> None:
    mapping = await load_mapping(sync)
    inside = set(horizon(sync))
    nights = [night for night in wanted if night in inside]
    if not nights:
        report.notes.append("no night of the push is inside the sync horizon")
        return
    report.first_night, report.last_night = nights[0], nights[-1]
    listings = [
        e for e in mapping.listings if e.room_type_id == room_type_id and e.listing_id != exclude_listing_id
    ]
    if not listings:
        report.notes.append(f"room type {room_type_id} feeds no other listing")
        return
    located = await asyncio.to_thread(sync.store.sync_state.located_closures, sync.property_id)
    states = await listing_states(sync, listings)
    first, last = nights[0], nights[-1]
    own_before = await asyncio.to_thread(read_own_reserved, sync, first)
    read_at = sync.clock()
    free = await read_free_rooms(sync.client, first, last, priority)
    report.pms.availability_reads = 1
    closures = remembered(located, first, last)
    prices = await asyncio.to_thread(cached_prices, sync, mapping, {room_type_id}, first, last)
    facts = PmsFacts(first, last, free, closures, prices, read_at=read_at)
    run = ledger_run(sync, report, nights, priority)
    report.listings = await sync_listings(sync, run, listings, facts, states, own_before=own_before)
    await forget_digests(sync, report.listings)
