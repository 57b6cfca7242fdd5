"""The store's Alembic migrations, run from code: no ``alembic.ini`` is needed anywhere.

``upgrade_to_head(url)`` brings a database (empty or older) to the newest schema in one
transaction; on Postgres it first takes an advisory lock, so replicas starting together migrate
one after the other instead of racing. ``current_revision(url)`` and ``pending_migrations(url)``
report where a database stands. Each accepts a URL or an existing engine.

The revision is kept in the table ``roomsync_schema_version`` (not Alembic's default name), so
the store can share a Postgres database with another Alembic-managed application.

A new revision for developers: ``alembic.command.revision(alembic_config(url), message=...,
autogenerate=True)`` against a database at head, then review the file it writes to versions/.
"""

from __future__ import annotations

from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

from alembic import command
from alembic.config import Config
from alembic.runtime.migration import MigrationContext
from alembic.script import ScriptDirectory
from sqlalchemy.engine import URL, Connection, Engine

from roomsync.adapters.store._sql import read_tx, write_tx
from roomsync.adapters.store.engine import create_engine, display_url

MIGRATIONS_DIR = Path(__file__).parent
VERSION_TABLE = "roomsync_schema_version"
ADVISORY_LOCK_KEY = 0x726F6F6D73796E63  # "roomsync" in ASCII: the migration lock's key on Postgres


class SchemaNotCurrent(RuntimeError):
    """The database is not at the schema this roomsync needs; the message says what to run."""


class DatabaseMissing(SchemaNotCurrent):
    """The SQLite file does not exist (nothing was created); the message says how to create it."""

    def __init__(self, url: str | URL) -> None:
        super().__init__(
            f"database {display_url(url)} does not exist: create it with `roomsync db upgrade`"
        )


def alembic_config(url: str | URL | None = None, connection: Connection | None = None) -> Config:
    """Alembic's configuration, built in code: the script location and, for ``env.py``, either
    a connection to use or a URL to connect to."""
    config = Config()
    config.set_main_option("script_location", str(MIGRATIONS_DIR))
    if connection is not None:
        config.attributes["connection"] = connection
    if url is not None:
        config.attributes["url"] = url  # not a main option: ConfigParser would expand its "%"s
    return config


def head_revision() -> str:
    """The newest revision this roomsync knows."""
    head = ScriptDirectory.from_config(alembic_config()).get_current_head()
    if head is None:  # pragma: no cover - the package always ships its revisions
        raise RuntimeError(f"no migrations found under {MIGRATIONS_DIR}")
    return head


@contextmanager
def _engine_of(url_or_engine: str | URL | Engine) -> Iterator[Engine]:
    if isinstance(url_or_engine, Engine):
        yield url_or_engine
        return
    engine = create_engine(url_or_engine)
    try:
        yield engine
    finally:
        engine.dispose()


def upgrade_to_head(url_or_engine: str | URL | Engine) -> str:
    """Migrate the database to the newest schema (doing nothing when it is there); returns it."""
    with _engine_of(url_or_engine) as engine, write_tx(engine) as conn:
        if conn.dialect.name == "postgresql":
            conn.exec_driver_sql(f"SELECT pg_advisory_xact_lock({ADVISORY_LOCK_KEY})")
        _check_known(conn, engine)
        command.upgrade(alembic_config(connection=conn), "head")
    return head_revision()


def current_revision(url_or_engine: str | URL | Engine) -> str | None:
    """The database's revision, None for a database never migrated."""
    with _engine_of(url_or_engine) as engine, read_tx(engine) as conn:
        return _revision_of(conn)


def pending_migrations(url_or_engine: str | URL | Engine) -> bool:
    """True when the database is behind the newest schema (or was never migrated)."""
    return current_revision(url_or_engine) != head_revision()


def require_current_schema(url_or_engine: str | URL | Engine) -> None:
    """Raise ``SchemaNotCurrent``, naming the command to run, unless the database is at head."""
    with _engine_of(url_or_engine) as engine:
        current = current_revision(engine)
        if current == head_revision():
            return
        with read_tx(engine) as conn:
            _check_known(conn, engine)
        shown = "an empty database" if current is None else f"revision {current}"
        raise SchemaNotCurrent(
            f"database {display_url(engine.url)} is at {shown}, this roomsync needs {head_revision()}: "
            "run `roomsync db upgrade`"
        )


def _revision_of(conn: Connection) -> str | None:
    context = MigrationContext.configure(conn, opts={"version_table": VERSION_TABLE})
    return context.get_current_revision()


def _check_known(conn: Connection, engine: Engine) -> None:
    """Refuse a database migrated by a newer roomsync: this one cannot know its schema."""
    current = _revision_of(conn)
    scripts = ScriptDirectory.from_config(alembic_config())
    if current is not None and current not in {script.revision for script in scripts.walk_revisions()}:
        raise SchemaNotCurrent(
            f"database {display_url(engine.url)} is at revision {current}, which this roomsync does "
            "not know: a newer roomsync migrated it; run that version"
        )
