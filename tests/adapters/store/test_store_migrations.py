"""The bundled migrations take any database from empty to head, and the store checks for it."""

from __future__ import annotations

from pathlib import Path

import pytest
import sqlalchemy as sa
from alembic import command
from alembic.autogenerate import compare_metadata
from alembic.migration import MigrationContext

from roomsync.adapters.store import (
    SchemaNotCurrent,
    StoreUrlError,
    create_engine,
    current_revision,
    head_revision,
    open_store,
    pending_migrations,
    require_current_schema,
    upgrade_to_head,
)
from roomsync.adapters.store._sql import write_tx
from roomsync.adapters.store.migrations import VERSION_TABLE, alembic_config
from roomsync.adapters.store.tables import METADATA
from roomsync.settings import Settings

STORE_TABLES = {
    "activity_weight",
    "availability_read_mark",
    "property",
    "night_history",
    "token",
    "budget_day",
    "calendar_day",
    "channel_price",
    "pms_night_price",
    "pms_window_total",
    "store_generation",
    "property_mapping",
    "listing_mapping",
    "connected_push",
    "listing_state",
    "sync_run",
    "webhook_inbox",
    "dead_letter",
    "reservation_link",
    # 0002: the webhook receiver's shared availability view and the bridge's records
    "availability_view",
    "availability_hold",
    "checkout_answer",
    "channel_reservation",
    # 0009: the sync engine's state as typed rows (0004's JSON memo moved into them) and the
    # overbooking guard's pending pushes
    "closure_scope",
    "located_closure",
    "listing_fact",
    "listing_digest",
    "pending_push",
    "pending_push_night",
}


def table_names(url: str) -> set[str]:
    engine = create_engine(url)
    try:
        return set(sa.inspect(engine).get_table_names())
    finally:
        engine.dispose()


def test_upgrade_from_empty_to_head(empty_database_url: str) -> None:
    assert current_revision(empty_database_url) is None
    assert pending_migrations(empty_database_url) is True

    assert upgrade_to_head(empty_database_url) == head_revision()

    assert current_revision(empty_database_url) == head_revision()
    assert pending_migrations(empty_database_url) is False
    assert table_names(empty_database_url) == STORE_TABLES | {VERSION_TABLE}
    upgrade_to_head(empty_database_url)  # a second upgrade changes nothing
    assert current_revision(empty_database_url) == head_revision()


def test_downgrade_to_base_and_up_again(empty_database_url: str) -> None:
    upgrade_to_head(empty_database_url)
    engine = create_engine(empty_database_url)
    try:
        with write_tx(engine) as conn:
            command.downgrade(alembic_config(connection=conn), "base")
    finally:
        engine.dispose()
    assert table_names(empty_database_url) == {VERSION_TABLE}
    assert pending_migrations(empty_database_url) is True
    upgrade_to_head(empty_database_url)
    assert table_names(empty_database_url) == STORE_TABLES | {VERSION_TABLE}


def test_migrated_schema_matches_the_table_classes(store_url: str) -> None:
    engine = create_engine(store_url)
    try:
        with engine.connect() as conn:
            context = MigrationContext.configure(
                conn, opts={"compare_type": True, "version_table": VERSION_TABLE}
            )
            assert compare_metadata(context, METADATA) == []
    finally:
        engine.dispose()


def test_open_store_refuses_a_database_not_at_head(empty_database_url: str) -> None:
    # on SQLite the file does not exist yet (DatabaseMissing, a SchemaNotCurrent: nothing created)
    with pytest.raises(SchemaNotCurrent, match=r"(empty database|does not exist).*`roomsync db upgrade`"):
        open_store(empty_database_url)
    with open_store(empty_database_url, upgrade=True) as store:
        require_current_schema(store.engine)


def test_a_database_migrated_by_a_newer_roomsync_is_refused(empty_database_url: str) -> None:
    store_url = empty_database_url
    upgrade_to_head(store_url)
    engine = create_engine(store_url)
    try:
        with write_tx(engine) as conn:
            conn.execute(sa.text(f"UPDATE {VERSION_TABLE} SET version_num = '9999'"))
    finally:
        engine.dispose()
    assert pending_migrations(store_url) is True
    with pytest.raises(SchemaNotCurrent, match="newer roomsync"):
        upgrade_to_head(store_url)
    with pytest.raises(SchemaNotCurrent, match="newer roomsync"):
        open_store(store_url)


def test_default_sqlite_file_is_created_under_data_dir_in_wal_mode(tmp_path: Path) -> None:
    settings = Settings(data_dir=tmp_path / "nested" / "data")
    with open_store(settings, upgrade=True) as store:
        assert (tmp_path / "nested" / "data" / "roomsync.db").is_file()
        with store.engine.connect() as conn:
            assert conn.exec_driver_sql("PRAGMA journal_mode").scalar() == "wal"
            assert conn.exec_driver_sql("PRAGMA foreign_keys").scalar() == 1
            assert conn.exec_driver_sql("PRAGMA busy_timeout").scalar() == 30_000


@pytest.mark.postgres
def test_plain_postgresql_url_means_psycopg(postgres_store_url: str) -> None:
    plain = postgres_store_url.replace("postgresql+psycopg://", "postgresql://")
    with open_store(plain) as store:
        assert store.engine.dialect.driver == "psycopg"


@pytest.mark.parametrize(
    "url", ["mysql://user:hunter2@db/roomsync", "postgresql+asyncpg://user:hunter2@db/x", "not a url"]
)
def test_unusable_url_is_refused_without_showing_the_password(url: str) -> None:
    with pytest.raises(StoreUrlError, match="sqlite:///") as raised:
        open_store(url)
    assert "hunter2" not in str(raised.value)
