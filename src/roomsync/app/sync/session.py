"""A store, a client and the runs of one property (:class:`PropertySync`), opened and closed together
(CLI, demo)."""

from __future__ import annotations

from collections.abc import AsyncIterator, Callable
from contextlib import asynccontextmanager
from dataclasses import dataclass
from datetime import datetime

from roomsync.adapters.client import ServiceClient
from roomsync.adapters.store import Store, open_store
from roomsync.app.sync.runs.property_sync import (
    ProgressHook,
    PropertySync,
    SyncOptions,
    no_progress,
    utc_now,
)
from roomsync.metrics import Metrics
from roomsync.property_context import PropertyContext
from roomsync.settings import Settings


@dataclass
class SyncSession:
    settings: Settings
    store: Store
    client: ServiceClient
    sync: PropertySync


@asynccontextmanager
async def open_session(
    context: PropertyContext,
    *,
    upgrade: bool = False,
    metrics: Metrics | None = None,
    clock: Callable[[], datetime] = utc_now,
    options: SyncOptions | None = None,
    progress: ProgressHook = no_progress,
) -> AsyncIterator[SyncSession]:
    """Open the store (``upgrade`` migrates it first), a client and the property's runs; close them after."""
    settings = context.settings
    store = open_store(settings, upgrade=upgrade)
    try:
        client = ServiceClient(context, budget_store=store.budget, token_store=store.tokens, clock=clock)
        try:
            sync = PropertySync.of(
                context,
                store,
                client,
                metrics=metrics,
                clock=clock,
                options=options,
                progress=progress,
            )
            yield SyncSession(settings, store, client, sync)
        finally:
            await client.aclose()
    finally:
        store.close()
