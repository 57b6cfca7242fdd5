"""The sync engine (issue 5, application half): PMS reads within the budget, the pure core's
diff and compile, the writes, and what they leave in the store. docs/sync.md has the cost model.

    engine = SyncEngine(settings, store, client)
    report = await engine.sync_property()
"""

from roomsync.app.sync.engine import NoMapping, ProgressHook, RequestRefused, SyncEngine, SyncOptions
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
    "ProgressHook",
    "RequestRefused",
    "SyncEngine",
    "SyncOptions",
    "SyncReport",
]
