"""TEMPORARY facade (issue 24): the daemon's old ``SyncEngine`` over the run modules of
:mod:`roomsync.app.sync.runs`, kept only until the daemon calls them directly; then deleted."""

from __future__ import annotations

from collections.abc import Callable, Collection, Iterable
from datetime import date, datetime

from roomsync.adapters.client import ServiceClient
from roomsync.adapters.store import Store
from roomsync.app.sync.history import current_trigger
from roomsync.app.sync.report import SyncReport
from roomsync.app.sync.runs import estimates
from roomsync.app.sync.runs.detect import DETECT, detect_changes
from roomsync.app.sync.runs.full_sync import sync_property
from roomsync.app.sync.runs.plan import plan
from roomsync.app.sync.runs.poll import POLL, poll
from roomsync.app.sync.runs.property_sync import (
    ProgressHook,
    PropertySync,
    SyncOptions,
    no_progress,
    utc_now,
)
from roomsync.app.sync.runs.push import push_nights
from roomsync.app.sync.runs.reconcile import reconcile
from roomsync.app.sync.runs.repush import REPUSH, repush_connected_prices
from roomsync.app.sync.runs.resync import ResyncRequest, resync
from roomsync.core.catalog.types import Priority
from roomsync.core.ports import ListingKey
from roomsync.core.sync.price_detection import Window
from roomsync.metrics import Metrics
from roomsync.property import PropertyContext

__all__ = ["DETECT", "POLL", "REPUSH", "ProgressHook", "SyncEngine", "SyncOptions"]


class SyncEngine:
    def __init__(
        self,
        context: PropertyContext,
        store: Store,
        client: ServiceClient,
        *,
        metrics: Metrics | None = None,
        clock: Callable[[], datetime] = utc_now,
        options: SyncOptions | None = None,
        progress: ProgressHook = no_progress,
    ) -> None:
        self.sync = PropertySync.of(
            context, store, client, metrics=metrics, clock=clock, options=options, progress=progress
        )
        self.client = client
        self.property_id = context.property_id

    @property
    def runs_in_flight(self) -> set[int]:
        return self.sync.recorder.runs_in_flight

    @property
    def runs_starting(self) -> int:
        return self.sync.recorder.runs_starting

    async def sync_property(self) -> SyncReport:
        return await sync_property(self.sync, trigger=current_trigger())

    async def plan_resync(
        self, listings: Collection[ListingKey] | None, date_from: date | None, date_to: date | None
    ) -> SyncReport:
        return await plan(self.sync, ResyncRequest(listings, date_from, date_to), trigger=current_trigger())

    async def resync(
        self, listings: Collection[ListingKey] | None, date_from: date | None, date_to: date | None
    ) -> SyncReport:
        return await resync(self.sync, listings, date_from, date_to, trigger=current_trigger())

    async def reconcile(self) -> SyncReport:
        return await reconcile(self.sync, trigger=current_trigger())

    async def push_nights(
        self, room_type_id: int, nights: Iterable[date], *, exclude_listing_id: str | None = None
    ) -> SyncReport:
        return await push_nights(
            self.sync, room_type_id, nights, priority=Priority.GUEST, exclude_listing_id=exclude_listing_id
        )

    async def poll_availability(self) -> SyncReport:
        return await poll(self.sync, trigger=current_trigger())

    async def detect_changes(self) -> SyncReport:
        return await detect_changes(self.sync, trigger=current_trigger())

    async def repush_connected_prices(self) -> SyncReport:
        return await repush_connected_prices(self.sync, trigger=current_trigger())

    async def detection_windows(self) -> list[Window]:
        return await estimates.detection_windows(self.sync)

    async def warm_full_sync_cost(self) -> int:
        return await estimates.warm_full_sync_cost(self.sync)

    async def synced_every_listing_since(self, since: datetime) -> bool:
        return await estimates.synced_every_listing_since(self.sync, since)
