"""The webhook parts put together for one property: the receiver (an adapter) handed the
application's checkout desk, and the inbox worker with its bridge and listing events.

Wiring, as the daemon does it::

    metrics = Metrics()
    worker = create_worker(context, store, client, nights_changed, metrics=metrics)
    app = create_receiver_app(context, store, client_factory=service_client_factory(context, store),
                              metrics=metrics, on_stored=worker.wake)
    # serve ``app`` (uvicorn) and run ``await worker.run(stop)`` alongside it

The receiver stores every event before it answers and hands the guest checks to the desk; the
worker applies the stored events to the PMS and the listing states, each exactly once.
"""

from __future__ import annotations

from collections.abc import Callable
from datetime import timedelta

from starlette.applications import Starlette

from roomsync.adapters.store import Store
from roomsync.adapters.webhooks import create_receiver_app as create_bare_receiver_app
from roomsync.adapters.webhooks import utc_now
from roomsync.app.webhooks.availability import AvailabilityService
from roomsync.app.webhooks.bridge import ReservationBridge
from roomsync.app.webhooks.checkout import CheckoutDesk
from roomsync.app.webhooks.listing_events import ListingEvents
from roomsync.app.webhooks.mapping_index import CachedClosures, CachedListingStates, CachedMapping
from roomsync.app.webhooks.protocols import Clock, NightsChanged, PmsClient
from roomsync.app.webhooks.worker import InboxWorker
from roomsync.metrics import Metrics
from roomsync.property_context import PropertyContext


def service_client_factory(context: PropertyContext, store: Store) -> Callable[[], PmsClient]:
    """Makes the service client the desk reads PMS availability with (in the receiver's own loop)."""

    def make() -> PmsClient:
        from roomsync.adapters.client import ServiceClient

        return ServiceClient(context, budget_store=store.budget, token_store=store.tokens)

    return make


def availability_service(
    context: PropertyContext, store: Store, client: PmsClient | None, *, clock: Clock = utc_now
) -> AvailabilityService:
    """The availability view as the property's guest checks read it, refreshed through ``client``
    (None: answered from the view as it is, until :meth:`AvailabilityService.use_client`)."""
    settings = context.settings
    return AvailabilityService(
        store.availability_view,
        client,
        context.property_id,
        # an age on the daemon's clock, compressed like its schedule: a test's 60 s day must not
        # take a view read hours of emulated time ago for fresh
        max_age=timedelta(seconds=settings.availability_view_max_age_seconds * settings.time_scale),
        read_timeout=settings.checkout_read_timeout_seconds,
        clock=clock,
        db=store.db_calls,
    )


def create_checkout_desk(
    context: PropertyContext, store: Store, availability: AvailabilityService, *, clock: Clock = utc_now
) -> CheckoutDesk:
    """The desk answering the property's guest checks."""
    return CheckoutDesk(
        context.property_id,
        store.inbox,
        CachedMapping(store.mappings, context.property_id),
        CachedListingStates(store.listing_states, context.property_id),
        CachedClosures(store.sync_state, context.property_id),
        availability,
        availability.view,
        store.webhook_records,
        clock,
        store.db_calls,
    )


def create_receiver_app(
    context: PropertyContext,
    store: Store,
    *,
    client: PmsClient | None = None,
    client_factory: Callable[[], PmsClient] | None = None,
    metrics: Metrics | None = None,
    clock: Clock = utc_now,
    on_stored: Callable[[], None] | None = None,
) -> Starlette:
    """The receiver app with the property's checkout desk. PMS reads for the availability view go
    through ``client``, or a client that ``client_factory`` makes when the app starts (and closes
    when it stops); with neither, guest checks are answered from the view as it is."""
    availability = availability_service(context, store, client, clock=clock)
    desk = create_checkout_desk(context, store, availability, clock=clock)
    made: list[PmsClient] = []

    async def open_client() -> None:
        if client is None and client_factory is not None:
            made.append(client_factory())
            availability.use_client(made[-1])

    async def close_client() -> None:
        while made:
            closing = getattr(made.pop(), "aclose", None)
            if closing is not None:
                await closing()

    return create_bare_receiver_app(
        context,
        store,
        desk=desk,
        metrics=metrics,
        clock=clock,
        on_stored=on_stored,
        on_start=open_client,
        on_stop=close_client,
    )


def create_worker(
    context: PropertyContext,
    store: Store,
    client: PmsClient,
    nights_changed: NightsChanged,
    *,
    metrics: Metrics,
    clock: Clock = utc_now,
) -> InboxWorker:
    """A worker applying the inbox of the context's property through ``client``."""
    mapping = CachedMapping(store.mappings, context.property_id)
    bridge = ReservationBridge(context, store, client, mapping, nights_changed, clock)
    listing_events = ListingEvents(
        context.property_id, mapping, store.listing_states, metrics, store.db_calls
    )
    return InboxWorker(context, store, bridge, listing_events, metrics, clock)
