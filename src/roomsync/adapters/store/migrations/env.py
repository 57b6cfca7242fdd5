"""Alembic's environment for the store: runs on the connection ``upgrade_to_head`` hands over
(or, for a developer's ``alembic.command`` call, connects to ``config.attributes["url"]``)."""

from __future__ import annotations

from alembic import context
from sqlalchemy.engine import Connection

from roomsync.adapters.store._sql import write_tx
from roomsync.adapters.store.engine import create_engine
from roomsync.adapters.store.migrations import VERSION_TABLE
from roomsync.adapters.store.tables import METADATA


def _run(connection: Connection) -> None:
    context.configure(
        connection=connection,
        target_metadata=METADATA,
        version_table=VERSION_TABLE,
        render_as_batch=True,  # SQLite alters a table by copying it; batch mode does that
        compare_type=True,
    )
    with context.begin_transaction():
        context.run_migrations()


def _main() -> None:
    config = context.config
    if context.is_offline_mode():
        url = config.attributes.get("url")
        if url is None:
            raise RuntimeError("offline migrations need alembic_config(url=...)")
        context.configure(url=url, target_metadata=METADATA, version_table=VERSION_TABLE, literal_binds=True)
        with context.begin_transaction():
            context.run_migrations()
        return
    connection = config.attributes.get("connection")
    if connection is not None:
        _run(connection)
        return
    url = config.attributes.get("url")
    if url is None:
        raise RuntimeError("run the migrations through roomsync.adapters.store.migrations.upgrade_to_head")
    engine = create_engine(url)
    try:
        with write_tx(engine) as conn:
            _run(conn)
    finally:
        engine.dispose()


_main()
