"""The detection: the closure check of the next ``detect_nights`` nights (its windows, one read
when no room-type closure is known there, also settle the PMS prices); only when a closure or a
price changed, a poll (one free-room read, a push per listing whose calendar changed) and the
connected prices. An unchanged property costs the check's reads.
"""

from __future__ import annotations

import asyncio

from roomsync.app.sync.closures import changed_room_types, closure_edits, remembered, with_nights_replaced
from roomsync.app.sync.connected import push_connected_prices
from roomsync.app.sync.pms import PmsFacts, read_closures_and_prices
from roomsync.app.sync.report import COMMAND_LINE, SyncReport
from roomsync.app.sync.runs.poll import poll_pass
from roomsync.app.sync.runs.property_sync import (
    PropertySync,
    cached_prices,
    load_mapping,
    near_nights,
    pms_read,
    save_closures,
    stamp,
    watched_types,
)

DETECT = "detect"


async def detect_changes(sync: PropertySync, *, trigger: str = COMMAND_LINE) -> SyncReport:
    """One recorded detection of the property."""
    return await sync.recorder.run(DETECT, False, lambda report: _detect(sync, report), trigger=trigger)


async def _detect(sync: PropertySync, report: SyncReport) -> None:
    mapping = await load_mapping(sync)
    first, near, nights = near_nights(sync)
    last = nights[-1]
    located = await asyncio.to_thread(sync.store.sync_state.located_closures, sync.property_id)
    closure_types, room_types = await watched_types(sync, mapping)
    read_at = sync.clock()
    read = pms_read(
        sync,
        mapping,
        room_types,
        first,
        near,
        located=located,
        now=read_at,
        relocate_closures=False,
        closure_types=closure_types,
    )
    checked, prices = await read_closures_and_prices(read)
    known = remembered(located, first, last)
    closures = with_nights_replaced(known, checked, first, near, closure_types)
    changed = changed_room_types(known, closures, closure_types)
    summary = report.pms
    summary.closure_reads = checked.reads
    summary.closures_located = checked.located
    summary.price_reads = prices.reads
    summary.prices_complete = prices.complete
    summary.prices_failed = prices.failed
    summary.prices_changed = prices.changed
    summary.price_edits = prices.edits
    summary.price_fill_reads = prices.fill_reads
    summary.closures_changed = changed
    summary.property_closures_changed = known.property_closed != closures.property_closed
    summary.closure_edits = closure_edits(known, closures, closure_types)
    report.notes.extend(checked.notes)
    report.notes.extend(prices.notes)
    if not (changed or summary.property_closures_changed or prices.changed):
        report.first_night, report.last_night = first, near
        return
    await save_closures(sync, PmsFacts(first, last, {}, closures, prices), closure_types, read_at)
    await poll_pass(sync, report, closures)
    summary.room_types = len(room_types)
    if prices.changed and mapping.connected:
        connected_types = {p.room_type_id for p in mapping.connected}
        cached = await asyncio.to_thread(cached_prices, sync, mapping, connected_types, first, last)
        report.prices = await push_connected_prices(
            sync.client,
            sync.store,
            sync.property_id,
            mapping.connected,
            cached.prices,
            nights,
            clock=sync.clock,
            dry_run=False,
            stamp=stamp(sync, report),
        )
