"""The poll, the daemon's cheap and frequent run: ONE PMS read (the free rooms of every room type
over the horizon), the closures and prices the store holds, then one ``PUT Inventory`` per listing
whose calendar changed, from the ledger. An unchanged property costs one request; a listing the
ledger does not know yet is left to the full sync.
"""

from __future__ import annotations

import asyncio
from dataclasses import dataclass, replace
from datetime import date, datetime

from roomsync.app.sync.closures import Closures, remembered
from roomsync.app.sync.pms import PmsFacts, counts_of, free_room_ids_in, free_rooms_request
from roomsync.app.sync.prices import PmsPrices
from roomsync.app.sync.report import COMMAND_LINE, SyncReport
from roomsync.app.sync.runs.listing_pass import sync_listings
from roomsync.app.sync.runs.property_sync import (
    PropertySync,
    cached_prices,
    horizon,
    ledger_run,
    mapping_of,
    states_of,
)
from roomsync.core.catalog.types import Priority
from roomsync.core.mapping import Mapping
from roomsync.core.ports import ListingKey, ListingState

POLL = "poll"


async def poll(sync: PropertySync, *, trigger: str = COMMAND_LINE) -> SyncReport:
    """One recorded poll of the property."""
    return await sync.recorder.run(POLL, False, lambda report: poll_pass(sync, report), trigger=trigger)


async def poll_pass(sync: PropertySync, report: SyncReport, closures: Closures | None = None) -> None:
    """Read the free rooms and push every listing whose calendar changed, from the ledger; with
    the closures the store holds, or ``closures`` (a detection's, just read)."""
    nights = horizon(sync)
    first, last = nights[0], nights[-1]
    report.first_night, report.last_night = first, last
    stored = await asyncio.to_thread(read_stored, sync, first, last, closures)
    read_started = sync.clock()
    free = await read_free_rooms_into_view(sync, nights, read_started)
    report.pms.availability_reads = 1
    mapping = stored.mapping
    facts = PmsFacts(first, last, free, stored.closures, stored.prices, read_at=read_started)
    # a listing whose inputs are those a run last brought it in step with (its digest) needs
    # neither its ledger read nor a diff: on a quiet poll of a 365-night horizon that was most of
    # the poll's CPU (issue 26). The poll keeps the digest of a listing it brought in step, as a
    # full sync does, and loses that of one it could not (failed, out of budget); a targeted
    # push, which writes a few nights only, forgets it.
    run = replace(ledger_run(sync, report, nights), trust_digests=True)
    report.listings = await sync_listings(sync, run, mapping.listings, facts, stored.states)


@dataclass(frozen=True)
class StoredInputs:
    """What a poll reads from the store besides the view: its mapping, the closures, the state of
    each listing and the cached PMS prices of the mapped room types."""

    mapping: Mapping
    closures: Closures
    states: dict[ListingKey, ListingState]
    prices: PmsPrices


def read_stored(sync: PropertySync, first: date, last: date, closures: Closures | None) -> StoredInputs:
    """The poll's store reads over ``first..last``, in one trip to a worker thread (a trip costs
    about 0.2 ms of CPU, a fair part of a quiet poll; issue 26); ``closures``, when given, instead
    of those the store holds."""
    mapping = mapping_of(sync)
    if closures is None:
        closures = remembered(sync.store.sync_state.located_closures(sync.property_id), first, last)
    states = states_of(sync, mapping.listings)
    room_types = {entry.room_type_id for entry in mapping.listings}
    return StoredInputs(mapping, closures, states, cached_prices(sync, mapping, room_types, first, last))


async def read_free_rooms_into_view(
    sync: PropertySync, nights: list[date], read_at: datetime
) -> dict[int, dict[date, int]]:
    """ONE PMS read of the free rooms over ``nights``, saved into the availability view (the
    webhook receiver answers guests from it: each poll keeps it fresh for free). An answer of the
    same bytes as the one remembered only dates the view's range (:mod:`.read_memo`)."""
    request = free_rooms_request(nights[0], nights[-1])
    answer = await sync.client.room_availability_digested(request, priority=Priority.AVAILABILITY)
    memo, view = sync.free_rooms_memo, sync.store.availability_view
    recalled = memo.recall(answer.digest, nights)
    if recalled is not None and await asyncio.to_thread(
        view.date_read, sync.property_id, read_at, recalled.mark
    ):
        return recalled.free_rooms
    rooms = free_room_ids_in(answer.model(), nights[0], nights[-1])
    free = counts_of(rooms)
    mark = await asyncio.to_thread(view.save_read, sync.property_id, read_at, free, rooms)
    memo.remember(answer.digest, nights, free, mark)
    return free
