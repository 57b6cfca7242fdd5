"""The full sync: one incremental sync of every mapped listing and of the connected channels'
prices, from one PMS read of the horizon (free rooms, closures, prices within the run's read
allowance). Listings the ledger knows cost nothing to compare; a listing seen for the first time
has its whole calendar written. :func:`full_pass` is also the body of a plan, a resync and a
reconciliation, each with its own :class:`FullScope`.
"""

from __future__ import annotations

import asyncio
from dataclasses import dataclass, replace

from roomsync.app.sync.closures import remembered, with_nights_replaced
from roomsync.app.sync.connected import push_connected_prices
from roomsync.app.sync.pms import PmsFacts, read_pms
from roomsync.app.sync.report import COMMAND_LINE, SyncReport
from roomsync.app.sync.runs.listing_pass import read_listings, read_own_reserved, sync_listings
from roomsync.app.sync.runs.property_sync import (
    PropertySync,
    Window,
    active_types,
    horizon,
    listing_run,
    listing_states,
    load_mapping,
    pms_read,
    save_closures,
    stamp,
    unmapped,
)
from roomsync.core.catalog.types import Priority
from roomsync.core.ports import ListingKey

FULL_SYNC = "sync"


@dataclass(frozen=True)
class FullScope:
    """What a full pass covers and how (the full sync's is the default)."""

    dry_run: bool = False
    only: frozenset[ListingKey] | None = None
    """The listings to bring in step (None: every mapped listing and the connected prices)."""
    window: Window = (None, None)
    read_channel: bool = False
    """Read each listing's channel calendar instead of trusting the ledger (resync, reconcile)."""
    relocate_closures: bool = False
    read_priority: Priority = Priority.AVAILABILITY
    ignore_price_ledger: bool = False


async def sync_property(sync: PropertySync, *, trigger: str = COMMAND_LINE) -> SyncReport:
    """One recorded full sync of the property."""
    return await sync.recorder.run(
        FULL_SYNC, False, lambda report: full_pass(sync, report, FullScope()), trigger=trigger
    )


async def full_pass(sync: PropertySync, report: SyncReport, scope: FullScope) -> None:
    mapping = await load_mapping(sync)
    nights = horizon(sync, scope.window)
    report.first_night, report.last_night = nights[0], nights[-1]
    only = scope.only
    listings = [entry for entry in mapping.listings if only is None or sync.key(entry) in only]
    if only is not None:
        unknown = unmapped(sync, mapping, only)
        if unknown:
            raise ValueError(unknown)
    sync_state = sync.store.sync_state
    located = await asyncio.to_thread(sync_state.located_closures, sync.property_id)
    states = await listing_states(sync, listings)
    if scope.read_channel or any(s.sync_category is None and not s.paused for s in states.values()):
        await read_listings(sync, mapping.listings, scope.read_priority, report)
        states = await listing_states(sync, listings)
    pushes = mapping.connected if only is None else ()
    room_types = sorted({entry.room_type_id for entry in listings} | {p.room_type_id for p in pushes})
    listing_facts = await asyncio.to_thread(sync_state.listing_facts, sync.property_id)
    closure_types = active_types(sync.property_id, listings, states, listing_facts)
    sync.progress("pms", 0, 1)
    own_before = await asyncio.to_thread(read_own_reserved, sync, nights[0])
    read_at = sync.clock()
    read = pms_read(
        sync,
        mapping,
        room_types,
        nights[0],
        nights[-1],
        located=located,
        now=read_at,
        relocate_closures=scope.relocate_closures,
        closure_types=closure_types,
    )
    facts = await read_pms(read)
    whole = horizon(sync)
    if (nights[0], nights[-1]) == (whole[0], whole[-1]):
        await save_closures(sync, facts, closure_types, read_at)
    else:  # a date range: the closures located outside it stay (polls and guest checks use them)
        known = remembered(located, whole[0], whole[-1])
        kept = with_nights_replaced(known, facts.closures, nights[0], nights[-1], closure_types)
        await save_closures(sync, replace(facts, closures=kept), closure_types, read_at)
    if facts.free_room_ids is not None:  # the guests' checks answer from it: fresh for free
        await asyncio.to_thread(
            sync.store.availability_view.save_read,
            sync.property_id,
            read_at,
            facts.free_rooms,
            facts.free_room_ids,
        )
    summarise_pms(report, facts, len(room_types))
    sync.progress("pms", 1, 1)
    run = replace(
        listing_run(sync, report, nights),
        dry_run=scope.dry_run,
        read_channel=scope.read_channel,
        read_priority=scope.read_priority,
        trust_digests=not scope.read_channel,
        record_every_listing=True,
    )
    report.listings = await sync_listings(sync, run, listings, facts, states, own_before=own_before)
    if pushes:
        sync.progress("prices", 0, 1)
        report.prices = await push_connected_prices(
            sync.client,
            sync.store,
            sync.property_id,
            pushes,
            facts.prices.prices,
            nights,
            clock=sync.clock,
            dry_run=scope.dry_run,
            stamp=stamp(sync, report),
            ignore_ledger=scope.ignore_price_ledger,
        )
        sync.progress("prices", 1, 1)


def summarise_pms(report: SyncReport, facts: PmsFacts, room_types: int) -> None:
    """What the run's PMS read cost and found, in the report."""
    summary = report.pms
    summary.room_types = room_types
    summary.availability_reads = 1
    summary.closure_reads = facts.closures.reads
    summary.closures_located = facts.closures.located
    summary.closures_remembered = facts.closures.remembered
    summary.price_reads = facts.prices.reads
    summary.prices_complete = facts.prices.complete
    summary.prices_failed = facts.prices.failed
    summary.prices_changed = facts.prices.changed
    summary.prices_unknown = facts.prices.unknown_nights
    summary.price_fill_reads = facts.prices.fill_reads
    summary.prices_unread_nights = facts.prices.unread_nights
    summary.first_unread_night = facts.prices.first_unread
    report.notes.extend(facts.closures.notes)
    report.notes.extend(facts.prices.notes)
