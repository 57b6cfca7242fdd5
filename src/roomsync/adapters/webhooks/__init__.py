"""The webhook receiver and the reservation bridge (docs/webhooks.md).

Wiring, as the daemon does it::

    metrics = Metrics()
    worker = create_worker(settings, store, client, nights_changed, metrics=metrics)
    app = create_receiver_app(settings, store, client_factory=service_client_factory(settings, store),
                              metrics=metrics, on_stored=worker.wake)
    # serve ``app`` (uvicorn) and run ``await worker.run(stop)`` alongside it

The receiver stores every event before it answers and answers the guest checks itself; the
worker applies the stored events to the PMS and the listing states, each exactly once.
"""

from __future__ import annotations

from collections.abc import Callable

from roomsync.adapters.store import Store
from roomsync.adapters.webhooks.auth import WebhookAuth, WebhookAuthConfigError
from roomsync.adapters.webhooks.bridge import ReservationBridge, RetryLater
from roomsync.adapters.webhooks.db_calls import DbCalls
from roomsync.adapters.webhooks.listing_events import PAUSE_REASONS, ListingEvents
from roomsync.adapters.webhooks.mapping_index import CachedMapping
from roomsync.adapters.webhooks.protocols import Clock, NightsChanged, PmsClient
from roomsync.adapters.webhooks.receiver import WebhookReceiver, create_receiver_app, utc_now
from roomsync.adapters.webhooks.worker import InboxWorker
from roomsync.metrics import Metrics
from roomsync.settings import Settings

__all__ = [
    "PAUSE_REASONS",
    "Clock",
    "InboxWorker",
    "ListingEvents",
    "NightsChanged",
    "PmsClient",
    "ReservationBridge",
    "RetryLater",
    "WebhookAuth",
    "WebhookAuthConfigError",
    "WebhookReceiver",
    "create_receiver_app",
    "create_worker",
    "service_client_factory",
    "utc_now",
]


def service_client_factory(settings: Settings, store: Store) -> Callable[[], PmsClient]:
    """Makes the service client the receiver reads PMS availability with (in its own event loop)."""

    def make() -> PmsClient:
        from roomsync.adapters.client import ServiceClient

        return ServiceClient(settings, budget_store=store.budget, token_store=store.tokens)

    return make


def create_worker(
    settings: Settings,
    store: Store,
    client: PmsClient,
    nights_changed: NightsChanged,
    *,
    metrics: Metrics,
    clock: Clock = utc_now,
) -> InboxWorker:
    """A worker applying the inbox of ``settings``' property through ``client``."""
    mapping = CachedMapping(store.mappings, settings.effective_property_id)
    bridge = ReservationBridge(settings, store, client, mapping, nights_changed, clock)
    listing_events = ListingEvents(
        settings.effective_property_id, mapping, store.listing_states, metrics, DbCalls(store.engine)
    )
    return InboxWorker(settings, store, bridge, listing_events, metrics, clock)
