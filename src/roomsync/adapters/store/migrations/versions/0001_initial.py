"""The store's first schema: every table keyed by property.

Revision ID: 0001
Revises:
Create Date: 2026-11-22

Written out with plain SQLAlchemy types (not the application's), so this revision creates the
same tables whatever later code does: timestamps are ``timestamptz`` (SQLite: UTC wall time),
money is ``numeric(14,2)`` and markups ``numeric`` (SQLite: exact decimal text), JSON is
``jsonb`` on Postgres.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import sqlalchemy as sa
from alembic import op
from sqlalchemy.dialects import postgresql
from sqlalchemy.types import TypeEngine

revision: str = "0001"
down_revision: str | None = None
branch_labels: str | Sequence[str] | None = None
depends_on: str | Sequence[str] | None = None


def _text() -> sa.String:
    return sa.String()


def _money() -> TypeEngine[Any]:
    return sa.Numeric(14, 2).with_variant(sa.String(32), "sqlite")


def _decimal() -> TypeEngine[Any]:
    return sa.Numeric().with_variant(sa.String(40), "sqlite")


def _utc() -> sa.DateTime:
    return sa.DateTime(timezone=True)


def _json() -> TypeEngine[Any]:
    return sa.JSON().with_variant(postgresql.JSONB(), "postgresql")


def _property() -> sa.Column[str]:
    return sa.Column("property_id", _text(), nullable=False)


def _counter(name: str) -> sa.Column[int]:
    return sa.Column(name, sa.Integer(), nullable=False)


def upgrade() -> None:
    op.create_table(
        "token",
        _property(),
        sa.Column("access_token", sa.Text(), nullable=False),
        sa.Column("expires_at", _utc(), nullable=False),
        sa.PrimaryKeyConstraint("property_id"),
    )
    op.create_table(
        "budget_day",
        _property(),
        sa.Column("day", sa.Date(), nullable=False),
        _counter("quota"),
        _counter("used_local"),
        _counter("used_server"),
        *(
            _counter(f"{what}_{priority}")
            for what in ("spent", "refused")
            for priority in ("guest", "availability", "prices", "reconcile")
        ),
        sa.PrimaryKeyConstraint("property_id", "day"),
    )
    op.create_table(
        "calendar_day",
        _property(),
        sa.Column("account_id", _text(), nullable=False),
        sa.Column("listing_id", _text(), nullable=False),
        sa.Column("day", sa.Date(), nullable=False),
        sa.Column("available", _text(), nullable=True),
        sa.Column("count", sa.Integer(), nullable=True),
        sa.Column("price", _money(), nullable=True),
        sa.Column("min_nights", sa.Integer(), nullable=True),
        sa.Column("max_nights", sa.Integer(), nullable=True),
        sa.Column("cta", sa.Boolean(), nullable=True),
        sa.Column("ctd", sa.Boolean(), nullable=True),
        sa.Column("confirmed_at", _utc(), nullable=False),
        sa.PrimaryKeyConstraint("property_id", "account_id", "listing_id", "day"),
    )
    op.create_table(
        "channel_price",
        _property(),
        sa.Column("room_type_id", sa.Integer(), autoincrement=False, nullable=False),
        sa.Column("room_rate_type", sa.Integer(), autoincrement=False, nullable=False),
        sa.Column("day", sa.Date(), nullable=False),
        sa.Column("price", _money(), nullable=False),
        sa.Column("pushed_at", _utc(), nullable=False),
        sa.PrimaryKeyConstraint("property_id", "room_type_id", "room_rate_type", "day"),
    )
    op.create_table(
        "pms_night_price",
        _property(),
        sa.Column("room_type_id", sa.Integer(), autoincrement=False, nullable=False),
        sa.Column("night", sa.Date(), nullable=False),
        sa.Column("price", _money(), nullable=False),
        sa.Column("currency", _text(), nullable=False),
        sa.Column("read_at", _utc(), nullable=False),
        sa.PrimaryKeyConstraint("property_id", "room_type_id", "night"),
    )
    op.create_table(
        "pms_window_total",
        _property(),
        sa.Column("room_type_id", sa.Integer(), autoincrement=False, nullable=False),
        sa.Column("date_from", sa.Date(), nullable=False),
        sa.Column("date_to", sa.Date(), nullable=False),
        sa.Column("total", _money(), nullable=False),
        sa.Column("currency", _text(), nullable=False),
        sa.Column("read_at", _utc(), nullable=False),
        sa.PrimaryKeyConstraint("property_id", "room_type_id", "date_from", "date_to"),
    )
    op.create_table(
        "property_mapping",
        _property(),
        sa.Column("currency", _text(), nullable=False),
        sa.PrimaryKeyConstraint("property_id"),
    )
    op.create_table(
        "listing_mapping",
        _property(),
        sa.Column("account_id", _text(), nullable=False),
        sa.Column("listing_id", _text(), nullable=False),
        sa.Column("position", sa.Integer(), nullable=False),
        sa.Column("room_type_id", sa.Integer(), nullable=False),
        sa.Column("kind", _text(), nullable=False),
        sa.Column("currency", _text(), nullable=False),
        sa.Column("markup_percent", _decimal(), nullable=False),
        sa.Column("markup_amount", _decimal(), nullable=False),
        sa.Column("min_nights", sa.Integer(), nullable=True),
        sa.Column("max_nights", sa.Integer(), nullable=True),
        sa.Column("closed_to_arrival", _json(), nullable=False),
        sa.Column("closed_to_departure", _json(), nullable=False),
        sa.Column("availability_rules", _json(), nullable=True),
        sa.ForeignKeyConstraint(["property_id"], ["property_mapping.property_id"], ondelete="CASCADE"),
        sa.PrimaryKeyConstraint("property_id", "account_id", "listing_id"),
    )
    op.create_index("ix_listing_mapping_room_type", "listing_mapping", ["property_id", "room_type_id"])
    op.create_table(
        "connected_push",
        _property(),
        sa.Column("room_type_id", sa.Integer(), autoincrement=False, nullable=False),
        sa.Column("position", sa.Integer(), nullable=False),
        sa.Column("standard", sa.Boolean(), nullable=False),
        sa.Column("non_refundable_discount_percent", _decimal(), nullable=True),
        sa.ForeignKeyConstraint(["property_id"], ["property_mapping.property_id"], ondelete="CASCADE"),
        sa.PrimaryKeyConstraint("property_id", "room_type_id"),
    )
    op.create_table(
        "listing_state",
        _property(),
        sa.Column("account_id", _text(), nullable=False),
        sa.Column("listing_id", _text(), nullable=False),
        sa.Column("paused", sa.Boolean(), nullable=False),
        sa.Column("pause_reason", _text(), nullable=True),
        sa.Column("approval_status", _text(), nullable=True),
        sa.Column("sync_category", _text(), nullable=True),
        sa.Column("has_availability", sa.Boolean(), nullable=True),
        sa.Column("last_synced_at", _utc(), nullable=True),
        sa.Column("last_sync_result", _text(), nullable=True),
        sa.PrimaryKeyConstraint("property_id", "account_id", "listing_id"),
    )
    op.create_table(
        "sync_run",
        sa.Column("id", sa.Integer(), nullable=False),
        _property(),
        sa.Column("kind", _text(), nullable=False),
        sa.Column("started_at", _utc(), nullable=False),
        sa.Column("finished_at", _utc(), nullable=True),
        sa.Column("result", _text(), nullable=True),
        _counter("requests_spent"),
        _counter("operations"),
        _counter("price_elements"),
        sa.Column("error", sa.Text(), nullable=True),
        sa.PrimaryKeyConstraint("id"),
    )
    op.create_index("ix_sync_run_property_started", "sync_run", ["property_id", "started_at"])
    op.create_table(
        "webhook_inbox",
        sa.Column("id", sa.Integer(), nullable=False),
        _property(),
        sa.Column("webhook_id", _text(), nullable=True),
        sa.Column("content_key", _text(), nullable=False),
        sa.Column("action", _text(), nullable=False),
        sa.Column("reservation_key", _text(), nullable=True),
        sa.Column("received_at", _utc(), nullable=False),
        sa.Column("body", sa.Text(), nullable=False),
        sa.Column("parsed_ok", sa.Boolean(), nullable=False),
        sa.Column("status", _text(), nullable=False),
        _counter("attempts"),
        sa.Column("last_error", sa.Text(), nullable=True),
        sa.Column("not_before", _utc(), nullable=True),
        sa.Column("claimed_at", _utc(), nullable=True),
        sa.Column("processed_at", _utc(), nullable=True),
        sa.PrimaryKeyConstraint("id"),
        sa.UniqueConstraint("property_id", "webhook_id", name="uq_webhook_inbox_webhook_id"),
        sa.UniqueConstraint("property_id", "content_key", name="uq_webhook_inbox_content_key"),
    )
    op.create_index("ix_webhook_inbox_status", "webhook_inbox", ["property_id", "status", "id"])
    op.create_index("ix_webhook_inbox_reservation", "webhook_inbox", ["property_id", "reservation_key", "id"])
    op.create_table(
        "dead_letter",
        sa.Column("id", sa.Integer(), nullable=False),
        _property(),
        sa.Column("received_at", _utc(), nullable=False),
        sa.Column("reason", sa.Text(), nullable=False),
        sa.Column("body", sa.Text(), nullable=False),
        sa.Column("headers", _json(), nullable=False),
        sa.PrimaryKeyConstraint("id"),
    )
    op.create_index("ix_dead_letter_property", "dead_letter", ["property_id", "id"])
    op.create_table(
        "reservation_link",
        _property(),
        sa.Column("confirmation_code", _text(), nullable=False),
        sa.Column("listing_id", _text(), nullable=True),
        sa.Column("status", _text(), nullable=False),
        sa.Column("pms_reservation_id", sa.BigInteger(), nullable=True),
        sa.Column("pms_customer_id", sa.BigInteger(), nullable=True),
        sa.Column("last_payout", _money(), nullable=True),
        sa.Column("created_at", _utc(), nullable=False),
        sa.Column("updated_at", _utc(), nullable=False),
        sa.PrimaryKeyConstraint("property_id", "confirmation_code"),
    )
    op.create_index(
        "ix_reservation_link_pms_reservation", "reservation_link", ["property_id", "pms_reservation_id"]
    )


def downgrade() -> None:
    for table in (
        "reservation_link",
        "dead_letter",
        "webhook_inbox",
        "sync_run",
        "listing_state",
        "connected_push",
        "listing_mapping",
        "property_mapping",
        "pms_window_total",
        "pms_night_price",
        "channel_price",
        "calendar_day",
        "budget_day",
        "token",
    ):
        op.drop_table(table)  # drops the table's indexes with it
