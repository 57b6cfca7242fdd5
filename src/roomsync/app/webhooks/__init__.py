"""The application's webhook logic (docs/webhooks.md): the checkout desk that answers guest
checks, the reservation bridge that applies channel reservations to the PMS exactly once, the
listing events that pause and resume listings, and the inbox worker that applies stored events.

The receiver itself is an adapter (``roomsync.adapters.webhooks``): it translates HTTP into
stored events and hands guest checks to the desk it is given. :mod:`.wiring` puts the two
together for one property.
"""

from __future__ import annotations

from roomsync.app.webhooks.bridge import ReservationBridge, RetryLater
from roomsync.app.webhooks.checkout import AnswerLog, CheckoutDesk
from roomsync.app.webhooks.listing_events import PAUSE_REASONS, ListingEvents
from roomsync.app.webhooks.mapping_index import CachedMapping
from roomsync.app.webhooks.protocols import Clock, NightsChanged, PmsClient
from roomsync.app.webhooks.wiring import (
    availability_service,
    create_checkout_desk,
    create_receiver_app,
    create_worker,
    service_client_factory,
)
from roomsync.app.webhooks.worker import InboxWorker

__all__ = [
    "PAUSE_REASONS",
    "AnswerLog",
    "CachedMapping",
    "CheckoutDesk",
    "Clock",
    "InboxWorker",
    "ListingEvents",
    "NightsChanged",
    "PmsClient",
    "ReservationBridge",
    "RetryLater",
    "availability_service",
    "create_checkout_desk",
    "create_receiver_app",
    "create_worker",
    "service_client_factory",
]
