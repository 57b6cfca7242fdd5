"""The two runs the daemon needs beyond the sync engine's entry points.

* :meth:`DaemonEngine.poll_availability`: the cheap, frequent poll. ONE PMS read (free rooms of
  every room type over the horizon), the closures the last full sync located and the PMS prices
  it cached, then one ``PUT Inventory`` per listing whose calendar changed. An unchanged property
  costs one request, which is what lets the schedule poll every two minutes on a paid licence.
  Closures and prices are refreshed by the (less frequent) full sync, ``sync_property``. A listing
  the ledger does not know yet is left to that full sync (it needs a channel read).
* :meth:`DaemonEngine.repush_connected_prices`: every desired connected-channel price sent again
  in ONE ``POST Prices``, from the cached PMS prices (no PMS read), ledger ignored: the service
  gives no way to read those prices back, so an occasional full re-push is the only repair.

Both are recorded like every other run (``sync_runs``, metrics) through the engine's own
bookkeeping, so ``roomsync status`` and the dashboard see them as kinds ``poll`` and ``repush``.
"""

from __future__ import annotations

import asyncio
from datetime import date
from decimal import Decimal

from roomsync.adapters.store.availability_view import SqlAvailabilityView
from roomsync.app.sync.channel import ListingRun
from roomsync.app.sync.closures import remembered
from roomsync.app.sync.connected import push_connected_prices
from roomsync.app.sync.engine import SyncEngine
from roomsync.app.sync.pms import PmsFacts, counts_of, read_free_room_ids
from roomsync.app.sync.prices import PmsPrices
from roomsync.app.sync.report import ListingStatus, SyncReport
from roomsync.core.catalog.types import Priority
from roomsync.core.mapping import Mapping

POLL = "poll"
REPUSH = "repush"
UNTOUCHED = frozenset({ListingStatus.UNCHANGED, ListingStatus.PAUSED, ListingStatus.SKIPPED})
"""A poll's outcomes that leave a listing's ledger as it was."""


class DaemonEngine(SyncEngine):
    """The sync engine plus the daemon's cheap poll and its connected-price re-push."""

    async def poll_availability(self) -> SyncReport:
        return await self._tracked(POLL, False, self._poll)

    async def repush_connected_prices(self) -> SyncReport:
        return await self._tracked(REPUSH, False, self._repush)

    def _cached_prices(self, mapping: Mapping, room_types: set[int], first: date, last: date) -> PmsPrices:
        prices: dict[int, dict[date, Decimal]] = {}
        for room_type_id in sorted(room_types):
            rows = self.store.pms_prices.read_night_prices(self.property_id, room_type_id, first, last)
            prices[room_type_id] = {
                night: row.price for night, row in rows.items() if row.currency == mapping.currency
            }
        return PmsPrices(prices=prices)

    async def _poll(self, report: SyncReport) -> None:
        mapping = await self._mapping()
        nights = self._horizon()
        first, last = nights[0], nights[-1]
        report.first_night, report.last_night = first, last
        located = await asyncio.to_thread(self.sync_state.located_closures, self.property_id)
        states = await self._listing_states(mapping.listings)
        read_started = self.clock()
        rooms = await read_free_room_ids(self.client, first, last, Priority.AVAILABILITY)
        free = counts_of(rooms)
        report.pms.availability_reads = 1
        # the webhook receiver answers guests from this view: each poll keeps it fresh for free
        await asyncio.to_thread(
            SqlAvailabilityView(self.store.engine).save_read, self.property_id, read_started, free, rooms
        )
        closures = remembered(located, first, last)
        room_types = {entry.room_type_id for entry in mapping.listings}
        prices = await asyncio.to_thread(self._cached_prices, mapping, room_types, first, last)
        run = ListingRun(
            client=self.client,
            store=self.store,
            property_id=self.property_id,
            nights=nights,
            clock=self.clock,
            max_dates_per_request=self.settings.max_dates_per_request,
            require_ledger=True,
        )
        facts = PmsFacts(first, last, free, closures, prices, read_at=read_started)
        report.listings = await self._listings(run, mapping.listings, facts, states)
        # as after the engine's own targeted push: a listing whose ledger this poll may have changed
        # must not be skipped by the next full sync on the strength of a digest recorded before
        touched = [o for o in report.listings if o.status not in UNTOUCHED]
        if touched:
            await self._forget_digests(touched)

    async def _repush(self, report: SyncReport) -> None:
        mapping = await self._mapping()
        if not mapping.connected:
            report.notes.append("no [[connected]] room types in the mapping: nothing to re-push")
            return
        nights = self._horizon()
        report.first_night, report.last_night = nights[0], nights[-1]
        room_types = {push.room_type_id for push in mapping.connected}
        prices = await asyncio.to_thread(self._cached_prices, mapping, room_types, nights[0], nights[-1])
        report.prices = await push_connected_prices(
            self.client,
            self.store,
            self.property_id,
            mapping.connected,
            prices.prices,
            nights,
            clock=self.clock,
            dry_run=False,
            ignore_ledger=True,
        )
