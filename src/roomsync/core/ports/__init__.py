"""The small protocols the adapters implement, so callers never depend on a database.

The store (``roomsync.adapters.store``) implements them on SQLite and Postgres. They are
synchronous: each call is one short transaction. Every key carries the property, so one database
serves many properties and no call ever sees another property's rows. Timestamps are
timezone-aware UTC; the adapter refuses naive ones.

Each concern's ports live in a module of their own (``budget``, ``calendar``, ``runs``,
``webhooks``); this package names them all, so a caller imports ``roomsync.core.ports``.
"""

from roomsync.core.listing import ListingKey, listing_text
from roomsync.core.ports.budget import BudgetStore, StoredToken, TokenStore
from roomsync.core.ports.calendar import (
    CalendarLedger,
    ChannelDay,
    ChannelPriceLedger,
    LedgerEntry,
    ListingState,
    ListingStateStore,
    MappingStore,
    NightPrice,
    PmsPriceCache,
    PushedPrice,
    RateKey,
    WindowTotal,
)
from roomsync.core.ports.runs import (
    ABANDONED,
    ActivityStore,
    KindSpend,
    ListingFacts,
    LocatedClosures,
    NightSpan,
    PropertyStore,
    StoredDigest,
    SyncRun,
    SyncRunStore,
    SyncStateStore,
)
from roomsync.core.ports.webhooks import (
    AcceptedDelivery,
    DeadLetter,
    DeadLetterStore,
    InboxItem,
    InboxStatus,
    NewDelivery,
    PendingPush,
    PendingPushStore,
    ReservationLink,
    ReservationLinkStore,
    WebhookInbox,
)

__all__ = [
    "ABANDONED",
    "AcceptedDelivery",
    "ActivityStore",
    "BudgetStore",
    "CalendarLedger",
    "ChannelDay",
    "ChannelPriceLedger",
    "DeadLetter",
    "DeadLetterStore",
    "InboxItem",
    "InboxStatus",
    "KindSpend",
    "LedgerEntry",
    "ListingFacts",
    "ListingKey",
    "ListingState",
    "ListingStateStore",
    "LocatedClosures",
    "MappingStore",
    "NewDelivery",
    "NightPrice",
    "NightSpan",
    "PendingPush",
    "PendingPushStore",
    "PmsPriceCache",
    "PropertyStore",
    "PushedPrice",
    "RateKey",
    "ReservationLink",
    "ReservationLinkStore",
    "StoredDigest",
    "StoredToken",
    "SyncRun",
    "SyncRunStore",
    "SyncStateStore",
    "TokenStore",
    "WebhookInbox",
    "WindowTotal",
    "listing_text",
]
