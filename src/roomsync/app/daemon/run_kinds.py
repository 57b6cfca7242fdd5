"""The daemon's one door to the sync: which function runs each kind of run, and the little else the
daemon asks of the sync (its estimates, the runs in flight, the client).

Each kind is a function of :mod:`roomsync.app.sync.runs` over the property's
:class:`~roomsync.app.sync.runs.property_sync.PropertySync`, started with the trigger the history
of nights records (:func:`~roomsync.app.sync.history_writer.daemon_trigger`). Every run the daemon
starts (and, through it, the console's resync plan), and every estimate it asks of them, goes
through here and nowhere else in the package (the report and history types, the price cache's
helpers and the startup's mapping checks are imported where they are used), so the way the runs
are made can change behind this module alone.

========== ==========================================================================================
kind       run
========== ==========================================================================================
prices     the full sync: free rooms, closures, PMS price detection, listing pushes, connected prices
poll       one PMS read, pushes of the listings that changed
detect     the closure check of the near nights (its windows also settle prices), pushes on a change
reconcile  every channel calendar re-read, drift counted and repaired
repush     every connected-channel price again
push       the webhook bridge's nights of one room type (:func:`push_nights`)
resync     the admin's request (:func:`resync`; :func:`plan_resync` is its dry run)
========== ==========================================================================================
"""

from __future__ import annotations

from collections.abc import Awaitable, Callable, Collection
from datetime import date, datetime

from roomsync.adapters.client import ServiceClient
from roomsync.adapters.store import Store
from roomsync.app.sync import SyncReport
from roomsync.app.sync.history_writer import daemon_trigger
from roomsync.app.sync.runs import estimates
from roomsync.app.sync.runs import push as push_run
from roomsync.app.sync.runs import resync as resync_run
from roomsync.app.sync.runs.detect import DETECT, detect_changes
from roomsync.app.sync.runs.full_sync import sync_property
from roomsync.app.sync.runs.plan import plan
from roomsync.app.sync.runs.poll import POLL, poll
from roomsync.app.sync.runs.property_sync import PropertySync, SyncOptions
from roomsync.app.sync.runs.reconcile import reconcile
from roomsync.app.sync.runs.repush import REPUSH, repush_connected_prices
from roomsync.core.ports import ListingKey
from roomsync.metrics import Metrics
from roomsync.property_context import PropertyContext

PRICES = "prices"
RECONCILE = "reconcile"
PUSH = "push"
RESYNC = "resync"
SCHEDULED = (PRICES, POLL, DETECT, RECONCILE, REPUSH)
"""The kinds the daemon's schedule runs (push and resync run on demand)."""

__all__ = [
    "DETECT",
    "POLL",
    "PRICES",
    "PUSH",
    "RECONCILE",
    "REPUSH",
    "RESYNC",
    "SCHEDULED",
    "SCHEDULED_RUNS",
    "Runs",
    "client_of",
    "detection_window_count",
    "open_runs",
    "plan_resync",
    "push_nights",
    "resync",
    "runs_in_flight",
    "runs_starting",
    "synced_every_listing_since",
    "warm_full_sync_cost",
]

Runs = PropertySync
"""What every run of one property is made with (its context, store, client, recorder, clock)."""

ScheduledRun = Callable[[Runs], Awaitable[SyncReport]]

# looked up when each run starts, not bound once: a bench times the runs by wrapping these
SCHEDULED_RUNS: dict[str, ScheduledRun] = {
    PRICES: lambda runs: sync_property(runs, trigger=daemon_trigger(PRICES)),
    POLL: lambda runs: poll(runs, trigger=daemon_trigger(POLL)),
    DETECT: lambda runs: detect_changes(runs, trigger=daemon_trigger(DETECT)),
    RECONCILE: lambda runs: reconcile(runs, trigger=daemon_trigger(RECONCILE)),
    REPUSH: lambda runs: repush_connected_prices(runs, trigger=daemon_trigger(REPUSH)),
}
"""The function that runs each scheduled kind."""


def open_runs(
    context: PropertyContext,
    store: Store,
    client: ServiceClient,
    *,
    metrics: Metrics,
    clock: Callable[[], datetime],
    price_read_cap: Callable[[], int],
) -> Runs:
    """The runs of ``context``'s property through ``client``, each asking ``price_read_cap`` for
    the price reads it may spend when it starts."""
    options = SyncOptions(price_read_cap=price_read_cap)
    return PropertySync.of(context, store, client, metrics=metrics, clock=clock, options=options)


async def push_nights(
    runs: Runs, room_type_id: int, nights: list[date], exclude_listing_id: str | None
) -> SyncReport:
    return await push_run.push_nights(
        runs, room_type_id, nights, exclude_listing_id=exclude_listing_id, trigger=daemon_trigger(PUSH)
    )


async def resync(
    runs: Runs,
    listings: Collection[ListingKey] | None,
    date_from: date | None,
    date_to: date | None,
    trigger: str,
) -> SyncReport:
    return await resync_run.resync(runs, listings, date_from, date_to, trigger=trigger)


async def plan_resync(
    runs: Runs,
    listings: Collection[ListingKey] | None,
    date_from: date | None,
    date_to: date | None,
    trigger: str,
) -> SyncReport:
    request = resync_run.ResyncRequest(listings, date_from, date_to)
    return await plan(runs, request, trigger=trigger)


async def detection_window_count(runs: Runs) -> int:
    """The check windows the next detection reads (no request)."""
    return len(await estimates.detection_windows(runs))


async def warm_full_sync_cost(runs: Runs) -> int:
    """What a full sync costs once every price is cached and nothing changed (no request)."""
    return await estimates.warm_full_sync_cost(runs)


async def synced_every_listing_since(runs: Runs, since: datetime) -> bool:
    return await estimates.synced_every_listing_since(runs, since)


def runs_starting(runs: Runs) -> int:
    """Runs being recorded, their ids not known yet."""
    return runs.recorder.runs_starting


def runs_in_flight(runs: Runs) -> set[int]:
    """Ids of the runs in progress (alive, whatever their heartbeat says)."""
    return runs.recorder.runs_in_flight


def client_of(runs: Runs) -> ServiceClient:
    return runs.client
