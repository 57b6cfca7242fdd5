"""The webhook receiver's tables: the availability view, its holds, checkout answers, and the
channel reservations as last applied to the PMS.

Revision ID: 0002
Revises: 0001
Create Date: 2026-11-24

Plain SQLAlchemy types, as in 0001: timestamps ``timestamptz`` (SQLite: UTC wall time), money
``numeric(14,2)`` (SQLite: exact decimal text).
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import sqlalchemy as sa
from alembic import op
from sqlalchemy.types import TypeEngine

revision: str = "0002"
down_revision: str | None = "0001"
branch_labels: str | Sequence[str] | None = None
depends_on: str | Sequence[str] | None = None


def _text() -> sa.String:
    return sa.String()


def _utc() -> sa.DateTime:
    return sa.DateTime(timezone=True)


def _money() -> TypeEngine[Any]:
    return sa.Numeric(14, 2).with_variant(sa.String(32), "sqlite")


def _property() -> sa.Column[str]:
    return sa.Column("property_id", _text(), nullable=False)


def upgrade() -> None:
    op.create_table(
        "availability_view",
        _property(),
        sa.Column("room_type_id", sa.Integer(), autoincrement=False, nullable=False),
        sa.Column("night", sa.Date(), nullable=False),
        sa.Column("free_rooms", sa.Integer(), nullable=False),
        sa.Column("held", sa.Integer(), nullable=False),
        sa.Column("read_at", _utc(), nullable=False),
        sa.Column("stale", sa.Boolean(), nullable=False),
        sa.PrimaryKeyConstraint("property_id", "room_type_id", "night"),
    )
    op.create_table(
        "availability_hold",
        _property(),
        sa.Column("confirmation_code", _text(), nullable=False),
        sa.Column("night", sa.Date(), nullable=False),
        sa.Column("room_type_id", sa.Integer(), nullable=False),
        sa.Column("held_at", _utc(), nullable=False),
        sa.Column("reflected_after", _utc(), nullable=True),
        sa.PrimaryKeyConstraint("property_id", "confirmation_code", "night"),
    )
    op.create_index(
        "ix_availability_hold_night", "availability_hold", ["property_id", "room_type_id", "night"]
    )
    op.create_table(
        "checkout_answer",
        sa.Column("id", sa.Integer(), nullable=False),
        _property(),
        sa.Column("action", _text(), nullable=False),
        sa.Column("confirmation_code", _text(), nullable=True),
        sa.Column("listing_id", _text(), nullable=False),
        sa.Column("start_date", sa.Date(), nullable=False),
        sa.Column("nights", sa.Integer(), nullable=False),
        sa.Column("succeed", sa.Boolean(), nullable=False),
        sa.Column("reason", sa.Text(), nullable=False),
        sa.Column("answered_at", _utc(), nullable=False),
        sa.Column("inbox_id", sa.Integer(), nullable=True),
        sa.PrimaryKeyConstraint("id"),
    )
    op.create_index("ix_checkout_answer_property", "checkout_answer", ["property_id", "id"])
    op.create_table(
        "channel_reservation",
        _property(),
        sa.Column("confirmation_code", _text(), nullable=False),
        sa.Column("listing_id", _text(), nullable=False),
        sa.Column("room_type_id", sa.Integer(), nullable=True),
        sa.Column("start_date", sa.Date(), nullable=False),
        sa.Column("nights", sa.Integer(), nullable=False),
        sa.Column("status_type", _text(), nullable=False),
        sa.Column("channel_updated_at", _utc(), nullable=True),
        sa.Column("last_action", _text(), nullable=False),
        sa.Column("pms_status", sa.Integer(), nullable=True),
        sa.Column("pms_room_id", sa.BigInteger(), nullable=True),
        sa.Column("pms_date_from", sa.Date(), nullable=True),
        sa.Column("pms_date_to", sa.Date(), nullable=True),
        sa.Column("pms_total", _money(), nullable=True),
        sa.Column("unpushed_nights", sa.Text(), nullable=True),
        sa.Column("updated_at", _utc(), nullable=False),
        sa.PrimaryKeyConstraint("property_id", "confirmation_code"),
    )


def downgrade() -> None:
    for table in ("channel_reservation", "checkout_answer", "availability_hold", "availability_view"):
        op.drop_table(table)  # drops the table's indexes with it
