"""Syncing a property (application half): PMS reads within the budget, the pure core's diff and
compile, the writes, and what they leave in the store. Each kind of run is a module of
:mod:`roomsync.app.sync.runs`; docs/sync.md has the cost model.

    sync = PropertySync.of(context, store, client)
    report = await sync_property(sync)
"""

from roomsync.app.sync.errors import NoMapping, RequestRefused
from roomsync.app.sync.report import (
    ListingOutcome,
    ListingStatus,
    PricesOutcome,
    PricesResult,
    SyncReport,
)

__all__ = [
    "ListingOutcome",
    "ListingStatus",
    "NoMapping",
    "PricesOutcome",
    "PricesResult",
    "RequestRefused",
    "SyncReport",
]
