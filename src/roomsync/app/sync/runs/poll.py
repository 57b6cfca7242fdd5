"""The poll, the daemon's cheap and frequent run: ONE PMS read (the free rooms of every room type
over the horizon), the closures and prices the store holds, then one ``PUT Inventory`` per listing
whose calendar changed, from the ledger. An unchanged property costs one request; a listing the
ledger does not know yet is left to the full sync.
"""

from __future__ import annotations

import asyncio
from dataclasses import dataclass, replace
from datetime import date, datetime

from roomsync.adapters.client import QuotaExhausted
from roomsync.app.sync.closures import (
    Closures,
    closure_edits,
    read_closures,
    remembered,
    with_nights_replaced,
)
from roomsync.app.sync.pms import (
    PmsFacts,
    closure_readers,
    counts_of,
    free_room_ids_in,
    free_rooms_request,
)
from roomsync.app.sync.prices import PmsPrices
from roomsync.app.sync.report import COMMAND_LINE, SyncReport
from roomsync.app.sync.runs.listing_pass import read_own_reserved, sync_listings
from roomsync.app.sync.runs.property_sync import (
    PropertySync,
    cached_prices,
    horizon,
    ledger_run,
    mapping_of,
    save_closures,
    states_of,
)
from roomsync.core.catalog.types import Priority
from roomsync.core.mapping import Mapping
from roomsync.core.ports import ListingKey, ListingState, LocatedClosures
from roomsync.core.sync.desired import nights_through

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
    free, before = await read_free_rooms_into_view(sync, nights, read_started)
    report.pms.availability_reads = 1
    mapping = stored.mapping
    facts = PmsFacts(first, last, free, stored.closures, stored.prices, read_at=read_started)
    if stored.located is not None and before is not None:
        facts = await recheck_closures_where_rooms_moved(sync, report, facts, stored.located, before)
    # a listing whose inputs are those a run last brought it in step with (its digest) needs
    # neither its ledger read nor a diff: on a quiet poll of a 365-night horizon that was most of
    # the poll's CPU (issue 26). The poll keeps the digest of a listing it brought in step, as a
    # full sync does, and loses that of one it could not (failed, out of budget); a targeted
    # push, which writes a few nights only, forgets it.
    run = replace(ledger_run(sync, report, nights), trust_digests=True)
    report.listings = await sync_listings(
        sync, run, mapping.listings, facts, stored.states, own_before=stored.own_reserved
    )


async def recheck_closures_where_rooms_moved(
    sync: PropertySync,
    report: SyncReport,
    facts: PmsFacts,
    located: LocatedClosures,
    before: dict[int, dict[date, int]],
) -> PmsFacts:
    """``facts`` with each known closed run whose free rooms moved since the last read checked
    again, one ``CombinedExtended`` read a run.

    A booking or a cancellation on nights roomsync holds closed is the front desk at work there,
    often right after reopening them: a reopening is otherwise seen by the next detection only,
    and the cancellation with it (the busy-hour bench: the studios freed by a cancellation shown
    10 to 19 minutes late, their reopening unseen). A run is checked as the detection checks it
    (:func:`~roomsync.app.sync.closures.read_closures` over its own nights), so a run found lifted
    is forgotten and the poll pushes the nights it frees."""
    closures = facts.closures
    moved = [
        (room_type_id, run)
        for room_type_id in sorted(closures.room_types)
        for run in closures.runs_of(room_type_id)
        if any(
            before.get(room_type_id, {}).get(night) != facts.free_rooms.get(room_type_id, {}).get(night)
            for night in nights_through(*run)
        )
    ]
    if not moved:
        return facts
    check, combined = closure_readers(sync.client)
    changed: set[int] = set()
    for room_type_id, (first, last) in moved:
        try:
            checked, _ = await read_closures(
                check, combined, first, last, [room_type_id], located,
                window_nights=sync.options.price_window_nights, concurrency=1,
            )  # fmt: skip
        except QuotaExhausted:  # the check is extra: the poll pushes what it read, the runs as known
            report.notes.append("closed runs whose rooms moved were not checked again: no budget")
            break
        report.pms.closure_reads += checked.reads
        rechecked = with_nights_replaced(closures, checked, first, last, [room_type_id])
        if rechecked.closed_for(room_type_id) != closures.closed_for(room_type_id):
            changed.add(room_type_id)
        closures = replace(rechecked, reads=0, notes=[])
    if not changed:
        return facts
    report.pms.closures_changed = tuple(sorted(changed))
    report.pms.closure_edits = closure_edits(facts.closures, closures, changed)
    facts = replace(facts, closures=closures)
    await save_closures(sync, facts, changed, facts.read_at or sync.clock())
    return facts


@dataclass(frozen=True)
class StoredInputs:
    """What a poll reads from the store besides the view: its mapping, the closures, the state of
    each listing, the cached PMS prices of the mapped room types and this channel's own
    reservations (read before the free rooms)."""

    mapping: Mapping
    closures: Closures
    states: dict[ListingKey, ListingState]
    prices: PmsPrices
    own_reserved: dict[str, dict[date, int]]
    located: LocatedClosures | None = None
    """The runs the store holds, when the poll took its closures from them."""


def read_stored(sync: PropertySync, first: date, last: date, closures: Closures | None) -> StoredInputs:
    """The poll's store reads over ``first..last``, in one trip to a worker thread (a trip costs
    about 0.2 ms of CPU, a fair part of a quiet poll; issue 26); ``closures``, when given, instead
    of those the store holds."""
    mapping = mapping_of(sync)
    located = None
    if closures is None:
        located = sync.store.sync_state.located_closures(sync.property_id)
        closures = remembered(located, first, last)
    states = states_of(sync, mapping.listings)
    room_types = {entry.room_type_id for entry in mapping.listings}
    prices = cached_prices(sync, mapping, room_types, first, last)
    return StoredInputs(mapping, closures, states, prices, read_own_reserved(sync, first), located)


async def read_free_rooms_into_view(
    sync: PropertySync, nights: list[date], read_at: datetime
) -> tuple[dict[int, dict[date, int]], dict[int, dict[date, int]] | None]:
    """ONE PMS read of the free rooms over ``nights``, saved into the availability view (the
    webhook receiver answers guests from it: each poll keeps it fresh for free). An answer of the
    same bytes as the one remembered only dates the view's range (:mod:`.read_memo`).

    Returns the free rooms, and those of the read before when this answer differs from it (None
    when it repeats it, or no read of these nights is remembered)."""
    request = free_rooms_request(nights[0], nights[-1])
    answer = await sync.client.room_availability_digested(request, priority=Priority.AVAILABILITY)
    memo, view = sync.free_rooms_memo, sync.store.availability_view
    recalled = memo.recall(answer.digest, nights)
    if recalled is not None and await asyncio.to_thread(
        view.date_read, sync.property_id, read_at, recalled.mark
    ):
        return recalled.free_rooms, None
    before = memo.last_free_rooms(nights)
    rooms = free_room_ids_in(answer.model(), nights[0], nights[-1])
    free = counts_of(rooms)
    mark = await asyncio.to_thread(view.save_read, sync.property_id, read_at, free, rooms)
    memo.remember(answer.digest, nights, free, mark)
    return free, before
