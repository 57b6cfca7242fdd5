"""The connected-price repair: every desired connected-channel price again in ONE ``POST
Prices``, from the cached PMS prices (no PMS read), the ledger ignored. The service gives no way
to read those prices back, so an occasional full re-push (the daemon's, every
``repush_interval_seconds``) is the only repair."""

from __future__ import annotations

import asyncio

from roomsync.app.sync.connected import push_connected_prices
from roomsync.app.sync.report import COMMAND_LINE, SyncReport
from roomsync.app.sync.runs.property_sync import PropertySync, cached_prices, horizon, load_mapping, stamp

REPUSH = "repush"


async def repush_connected_prices(sync: PropertySync, *, trigger: str = COMMAND_LINE) -> SyncReport:
    return await sync.recorder.run(REPUSH, False, lambda report: _repush(sync, report), trigger=trigger)


async def _repush(sync: PropertySync, report: SyncReport) -> None:
    mapping = await load_mapping(sync)
    if not mapping.connected:
        report.notes.append("no [[connected]] room types in the mapping: nothing to re-push")
        return
    nights = horizon(sync)
    report.first_night, report.last_night = nights[0], nights[-1]
    room_types = {push.room_type_id for push in mapping.connected}
    prices = await asyncio.to_thread(cached_prices, sync, mapping, room_types, nights[0], nights[-1])
    report.prices = await push_connected_prices(
        sync.client,
        sync.store,
        sync.property_id,
        mapping.connected,
        prices.prices,
        nights,
        clock=sync.clock,
        dry_run=False,
        stamp=stamp(sync, report),
        ignore_ledger=True,
    )
