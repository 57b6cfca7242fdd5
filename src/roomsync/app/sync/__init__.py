"""The sync engine (issue 5, application half): PMS reads within the budget, the pure core's
diff and compile, the writes, and what they leave in the store. docs/sync.md has the cost model.

    engine = SyncEngine(settings, store, client)
    report = await engine.sync_property()
"""

from typing import TYPE_CHECKING, Any

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
    "ProgressHook",
    "RequestRefused",
    "SyncEngine",
    "SyncOptions",
    "SyncReport",
]

if TYPE_CHECKING:
    from roomsync.app.sync.engine import ProgressHook, SyncEngine, SyncOptions

_ENGINE = ("ProgressHook", "SyncEngine", "SyncOptions")


def __getattr__(name: str) -> Any:
    # the engine brings the client and every model of the catalog: importing a part of this
    # package (the report, the history) must not wait for it
    if name in _ENGINE:
        from roomsync.app.sync import engine

        return getattr(engine, name)
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
