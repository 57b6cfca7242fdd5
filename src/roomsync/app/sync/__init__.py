"""Syncing a property (application half): PMS reads within the budget, the pure core's diff and
compile, the writes, and what they leave in the store. Each kind of run is a module of
:mod:`roomsync.app.sync.runs`; docs/sync.md has the cost model.

    sync = PropertySync.of(context, store, client)
    report = await sync_property(sync)
"""

from typing import TYPE_CHECKING

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

if TYPE_CHECKING:  # TEMPORARY, see __getattr__
    from roomsync.app.sync.engine import ProgressHook, SyncEngine, SyncOptions  # noqa: F401


def __getattr__(name: str) -> object:
    # TEMPORARY (issue 24, removed once the daemon calls the run modules): the daemon's SyncEngine
    if name in ("SyncEngine", "SyncOptions", "ProgressHook"):
        from roomsync.app.sync import engine

        return getattr(engine, name)
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
