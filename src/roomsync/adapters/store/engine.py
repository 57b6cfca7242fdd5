"""The database engine, and the ``Store`` facade that owns it.

SQLite (the default, one file under ``data_dir``) runs in WAL mode, so readers never wait for the
writer, with foreign keys on and a ``busy_timeout``, so a writer waits for the lock rather than
failing. SQLite allows one writer at a time: several processes may share the file, but their
writes queue. Postgres (``postgresql+psycopg://...``) is for several replicas at once.

Its pool pings a connection before use only when the connection sat idle for
``PING_IF_IDLE_SECONDS``: a ping is a round trip, and pinging at every checkout (SQLAlchemy's
``pool_pre_ping``) made each webhook guest check pay two of them (p50 4.5 -> 3.4 ms, p99 14.9 ->
9.2 ms in ``benches/bench_check_availability.py``). A connection that went bad while idle, the
usual case after a server restart, is replaced before anyone uses it. One that breaks while busy
fails the statement that finds out; SQLAlchemy then discards every connection of the pool opened
before the failure, so the next statement runs on a fresh one (tests/adapters/store/
test_postgres_reconnect.py).
"""

from __future__ import annotations

import os
import sqlite3
import time
from pathlib import Path
from types import TracebackType
from typing import Any

import sqlalchemy as sa
from sqlalchemy import event
from sqlalchemy.engine import URL, Connection, Engine, make_url
from sqlalchemy.exc import ArgumentError, DisconnectionError
from sqlalchemy.pool import ConnectionPoolEntry, StaticPool

from roomsync.adapters.store._sql import SQLITE_BEGIN_OPTION
from roomsync.adapters.store.activity import SqlActivityStore
from roomsync.adapters.store.availability_view import SqlAvailabilityView
from roomsync.adapters.store.budget import SqlBudgetStore
from roomsync.adapters.store.calendar_ledger import SqlCalendarLedger
from roomsync.adapters.store.channel_prices import SqlChannelPriceLedger
from roomsync.adapters.store.db_calls import DbCalls
from roomsync.adapters.store.dead_letters import SqlDeadLetterStore
from roomsync.adapters.store.gauge_reads import SqlGaugeReads
from roomsync.adapters.store.inbox import SqlWebhookInbox
from roomsync.adapters.store.inbox_sweep import SqlInboxSweep
from roomsync.adapters.store.listing_state import SqlListingStateStore
from roomsync.adapters.store.mappings import SqlMappingStore
from roomsync.adapters.store.night_history import SqlNightHistory
from roomsync.adapters.store.ownership import PostgresOwnership
from roomsync.adapters.store.pending_pushes import SqlPendingPushes
from roomsync.adapters.store.pms_prices import SqlPmsPriceCache
from roomsync.adapters.store.properties import SqlPropertyStore
from roomsync.adapters.store.reservation_links import SqlReservationLinkStore
from roomsync.adapters.store.sync_runs import SqlSyncRunStore
from roomsync.adapters.store.sync_state import SqlSyncState
from roomsync.adapters.store.tokens import SqlTokenStore
from roomsync.adapters.store.wal_checkpoints import WalCheckpointer, is_file_sqlite
from roomsync.adapters.store.webhook_records import SqlWebhookRecords
from roomsync.core.ports import (
    ActivityStore,
    CalendarLedger,
    ChannelPriceLedger,
    DeadLetterStore,
    ListingStateStore,
    MappingStore,
    PendingPushStore,
    PmsPriceCache,
    PropertyStore,
    ReservationLinkStore,
    SyncRunStore,
    SyncStateStore,
    TokenStore,
    WebhookInbox,
)

DEFAULT_BUSY_TIMEOUT_MS = 30_000
PING_IF_IDLE_SECONDS = 5.0
"""A pooled Postgres connection idle this long is pinged before use (the module docstring says why)."""
_CHECKED_IN_AT = "roomsync_checked_in_at"


class StoreUrlError(ValueError):
    """The database URL is not one the store can use; the message says what is allowed."""


class StoreUnreadable(Exception):
    """The database file is not a database roomsync can read (garbage, truncated, a directory);
    the message names the file and what is wrong. The file is left as it was."""


SQLITE_HEADER = b"SQLite format 3\x00"


def check_sqlite_file(path: Path) -> None:
    """Refuse a file that is not a readable SQLite database before anything opens it for writing
    (opening switches a database to WAL, which would write into a file that is not ours)."""
    if not path.exists():
        return
    if path.is_dir():
        raise StoreUnreadable(f"the database {path} is a directory, not a database file")
    try:
        with path.open("rb") as handle:
            header = handle.read(len(SQLITE_HEADER))
    except OSError as error:
        raise StoreUnreadable(f"cannot read the database {path}: {error.strerror or error}") from None
    if not header:
        return  # an empty file: SQLite makes it a new database
    if header != SQLITE_HEADER:
        raise StoreUnreadable(
            f"{path} is not a SQLite database (it does not start with the SQLite header): point "
            "database_url at a roomsync database, or move the file away"
        )
    try:
        probe = sqlite3.connect(f"{path.resolve().as_uri()}?mode=ro", uri=True)
        try:
            tables = [row[0] for row in probe.execute("SELECT name FROM sqlite_master WHERE type = 'table'")]
            for table in tables:
                probe.execute(f'SELECT 1 FROM "{table}" LIMIT 1').fetchall()
        finally:
            probe.close()
    except sqlite3.DatabaseError as error:
        raise StoreUnreadable(f"the database {path} is damaged ({error}): restore it from a backup") from None


def parse_url(url: str | URL) -> URL:
    """The URL with its driver settled: ``sqlite`` (pysqlite) or ``postgresql+psycopg``."""
    try:
        parsed = make_url(url)
    except ArgumentError:
        raise StoreUrlError(
            "database_url is not a URL; use sqlite:///path/to/file.db or postgresql+psycopg://..."
        ) from None
    if parsed.drivername in ("sqlite", "sqlite+pysqlite"):
        return parsed
    if parsed.drivername == "postgresql":
        return parsed.set(drivername="postgresql+psycopg")  # plain postgresql:// means psycopg 3 here
    if parsed.drivername == "postgresql+psycopg":
        return parsed
    shown = parsed.render_as_string(hide_password=True)
    raise StoreUrlError(f"database_url {shown}: use sqlite:///path/to/file.db or postgresql+psycopg://...")


def display_url(url: str | URL) -> str:
    """The URL with its password hidden, for messages and logs."""
    return make_url(url).render_as_string(hide_password=True)


def _is_memory(url: URL) -> bool:
    return url.database in (None, "", ":memory:") or "mode=memory" in str(url.query)


def missing_sqlite_file(url: str | URL) -> Path | None:
    """The file of a SQLite URL when it does not exist yet (opening it would create it), else None
    (the file exists, an in-memory or ``file:`` database, or Postgres)."""
    parsed = parse_url(url)
    if parsed.get_backend_name() != "sqlite" or _is_memory(parsed):
        return None
    database = parsed.database or ""
    if database.startswith("file:") or Path(database).exists():
        return None
    return Path(database)


def create_engine(
    url: str | URL,
    *,
    busy_timeout_ms: int = DEFAULT_BUSY_TIMEOUT_MS,
    ping_if_idle_seconds: float = PING_IF_IDLE_SECONDS,
) -> Engine:
    """An engine for ``url``, set up as the module docstring says."""
    parsed = parse_url(url)
    if parsed.get_backend_name() == "postgresql":
        return _postgres_engine(parsed, ping_if_idle_seconds)
    return _sqlite_engine(parsed, busy_timeout_ms)


def _postgres_engine(url: URL, ping_if_idle_seconds: float) -> Engine:
    engine = sa.create_engine(url, connect_args={"application_name": "roomsync"})

    @event.listens_for(engine, "checkin")
    def _on_checkin(_dbapi_connection: Any, record: ConnectionPoolEntry) -> None:
        record.info[_CHECKED_IN_AT] = time.monotonic()

    @event.listens_for(engine, "checkout")
    def _on_checkout(dbapi_connection: Any, record: ConnectionPoolEntry, _proxy: Any) -> None:
        checked_in_at = record.info.get(_CHECKED_IN_AT)
        if checked_in_at is None or time.monotonic() - checked_in_at < ping_if_idle_seconds:
            return  # just opened, or in use a moment ago
        try:
            engine.dialect.do_ping(dbapi_connection)
        except Exception as error:
            # the pool drops this connection and checks out another (a new one if need be)
            raise DisconnectionError(f"an idle pooled connection failed its ping: {error}") from error

    return engine


def _sqlite_engine(url: URL, busy_timeout_ms: int) -> Engine:
    kwargs: dict[str, Any] = {}
    if _is_memory(url):
        # one shared connection, or each connection would see its own empty database
        kwargs = {"poolclass": StaticPool, "connect_args": {"check_same_thread": False}}
    elif url.database and not url.database.startswith("file:"):
        check_sqlite_file(Path(url.database))
        Path(url.database).parent.mkdir(parents=True, exist_ok=True)
        # the database holds the service's token: readable by roomsync's user alone, whatever the
        # umask (SQLite gives its -wal and -shm files the database file's permissions)
        os.close(os.open(url.database, os.O_CREAT | os.O_WRONLY, 0o600))
    engine = sa.create_engine(url, **kwargs)

    @event.listens_for(engine, "connect")
    def _on_connect(dbapi_connection: sqlite3.Connection, _record: ConnectionPoolEntry) -> None:
        # pysqlite's own transaction handling defers BEGIN and commits before DDL; turn it off
        # and begin transactions ourselves (below), as SQLAlchemy's documentation recommends.
        dbapi_connection.isolation_level = None
        cursor = dbapi_connection.cursor()
        cursor.execute(f"PRAGMA busy_timeout = {int(busy_timeout_ms)}")
        cursor.execute("PRAGMA journal_mode = WAL")
        cursor.execute("PRAGMA synchronous = NORMAL")  # durable enough in WAL mode, much faster
        cursor.execute("PRAGMA foreign_keys = ON")
        cursor.close()

    @event.listens_for(engine, "begin")
    def _on_begin(conn: Connection) -> None:
        mode = conn.get_execution_options().get(SQLITE_BEGIN_OPTION, "DEFERRED")
        conn.exec_driver_sql(f"BEGIN {mode}")

    return engine


class Store:
    """All repositories of one database, sharing one engine. Close it (or use ``with``)."""

    def __init__(self, engine: Engine) -> None:
        self.engine = engine
        # typed as the ports, so mypy checks that each repository implements its protocol
        self.tokens: TokenStore = SqlTokenStore(engine)
        # the class, not the port: the client also gives back what it never sent (its BudgetLedger)
        self.budget = SqlBudgetStore(engine)
        self.calendar: CalendarLedger = SqlCalendarLedger(engine)
        self.channel_prices: ChannelPriceLedger = SqlChannelPriceLedger(engine)
        self.pms_prices: PmsPriceCache = SqlPmsPriceCache(engine)
        self.mappings: MappingStore = SqlMappingStore(engine)
        self.listing_states: ListingStateStore = SqlListingStateStore(engine)
        self.sync_runs: SyncRunStore = SqlSyncRunStore(engine)
        self.inbox: WebhookInbox = SqlWebhookInbox(engine)
        self.dead_letters: DeadLetterStore = SqlDeadLetterStore(engine)
        self.reservation_links: ReservationLinkStore = SqlReservationLinkStore(engine)
        self.sync_state: SyncStateStore = SqlSyncState(engine)
        self.pending_pushes: PendingPushStore = SqlPendingPushes(engine)
        self.properties: PropertyStore = SqlPropertyStore(engine)
        self.history = SqlNightHistory(engine)
        self.activity: ActivityStore = SqlActivityStore(engine)
        # the webhook side's and the guest checks' records, reached like every other port
        self.availability_view = SqlAvailabilityView(engine)
        self.webhook_records = SqlWebhookRecords(engine)
        self.inbox_sweep = SqlInboxSweep(engine)
        self.gauge_reads = SqlGaugeReads(engine)
        self.db_calls = DbCalls(engine)
        """Where the webhook side runs its blocking store calls (one thread per SQLite file)."""
        self.checkpointer: WalCheckpointer | None = None

    def ownership(self, replica: str) -> PostgresOwnership:
        """The replica's share of the properties through Postgres advisory locks."""
        return PostgresOwnership(self.engine, replica)

    def ping(self) -> None:
        """Raise unless the database answers a trivial query (readiness)."""
        with self.engine.connect() as connection:
            connection.execute(sa.text("SELECT 1"))

    @property
    def url(self) -> str:
        """The database URL, password hidden."""
        return display_url(self.engine.url)

    def start_background_checkpoints(self, interval: float) -> bool:
        """On a SQLite file, checkpoint its log from a thread every ``interval`` seconds instead of
        in the writers' commits (``wal_checkpoints``); for long-running processes. Returns whether
        it started: not on Postgres, an in-memory database, or with ``interval`` 0."""
        if interval <= 0 or self.checkpointer is not None or not is_file_sqlite(self.engine):
            return False
        self.checkpointer = WalCheckpointer(self.engine, interval)
        self.checkpointer.start()
        return True

    def close(self) -> None:
        if self.checkpointer is not None:
            self.checkpointer.stop()
            self.checkpointer = None
        self.engine.dispose()

    def __enter__(self) -> Store:
        return self

    def __exit__(
        self, exc_type: type[BaseException] | None, exc: BaseException | None, tb: TracebackType | None
    ) -> None:
        self.close()
