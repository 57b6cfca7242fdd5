"""The persistence adapter: SQLite (default, WAL) or Postgres, every row keyed by property.

``open_store(settings_or_url)`` returns a :class:`Store` whose attributes implement the ports of
``roomsync.core.ports``: ``tokens`` (TokenStore), ``budget`` (BudgetStore), ``calendar``
(CalendarLedger), ``channel_prices`` (ChannelPriceLedger), ``pms_prices`` (PmsPriceCache),
``mappings`` (MappingStore), ``listing_states`` (ListingStateStore), ``sync_runs``
(SyncRunStore), ``inbox`` (WebhookInbox), ``dead_letters`` (DeadLetterStore) and
``reservation_links`` (ReservationLinkStore), ``sync_state`` (SyncStateStore: the sync engine's
closures, listing facts and digests) and ``pending_pushes`` (PendingPushStore). Each call is one
short transaction; whatever must be race-free across replicas sharing one Postgres is one atomic
SQL statement guarded by a unique key or a conditional UPDATE, never a read followed by a write.

The schema is managed by the bundled Alembic migrations: ``upgrade_to_head``,
``current_revision``, ``head_revision``, ``pending_migrations`` (``roomsync db upgrade`` /
``roomsync db status``).
"""

from __future__ import annotations

from sqlalchemy.engine import URL

from roomsync.adapters.store._sql import NotFound
from roomsync.adapters.store.dead_letters import strip_secrets
from roomsync.adapters.store.engine import (
    Store,
    StoreUnreadable,
    StoreUrlError,
    create_engine,
    display_url,
    missing_sqlite_file,
    parse_url,
)
from roomsync.adapters.store.migrations import (
    DatabaseMissing,
    SchemaNotCurrent,
    current_revision,
    head_revision,
    pending_migrations,
    require_current_schema,
    upgrade_to_head,
)
from roomsync.settings import Settings

__all__ = [
    "DatabaseMissing",
    "NotFound",
    "SchemaNotCurrent",
    "Store",
    "StoreUnreadable",
    "StoreUrlError",
    "create_engine",
    "current_revision",
    "display_url",
    "head_revision",
    "missing_sqlite_file",
    "open_store",
    "parse_url",
    "pending_migrations",
    "require_current_schema",
    "strip_secrets",
    "upgrade_to_head",
]


def database_url_of(settings_or_url: Settings | str | URL) -> str | URL:
    """The database URL of settings (``effective_database_url``), or the URL itself."""
    if isinstance(settings_or_url, Settings):
        return settings_or_url.effective_database_url
    return settings_or_url


def open_store(settings_or_url: Settings | str | URL, *, upgrade: bool = False) -> Store:
    """A store on the settings' database (or on the URL given).

    With ``upgrade`` the database is first migrated to the newest schema; without it, a database
    not at the newest schema raises ``SchemaNotCurrent`` naming ``roomsync db upgrade``, and a
    SQLite file that does not exist raises ``DatabaseMissing`` before anything is created.
    """
    url = database_url_of(settings_or_url)
    if not upgrade and missing_sqlite_file(url) is not None:
        raise DatabaseMissing(url)
    store = Store(create_engine(url))
    try:
        if upgrade:
            upgrade_to_head(store.engine)
        else:
            require_current_schema(store.engine)
    except BaseException:
        store.close()
        raise
    return store
