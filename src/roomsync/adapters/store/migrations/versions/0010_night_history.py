"""The history of nights (issue 14): what was pushed to each listing's nights, from which PMS
facts, by which request, and why; one row per run of nights changed alike.

Revision ID: 0010
Revises: 0009
Create Date: 2026-11-25
"""

from __future__ import annotations

from collections.abc import Sequence

import sqlalchemy as sa
from alembic import op
from sqlalchemy.dialects import postgresql

revision: str = "0010"
down_revision: str | None = "0009"
branch_labels: str | Sequence[str] | None = None
depends_on: str | Sequence[str] | None = None


def upgrade() -> None:
    json = sa.JSON().with_variant(postgresql.JSONB(), "postgresql")
    op.create_table(
        "night_history",
        sa.Column("id", sa.Integer(), nullable=False),
        sa.Column("property_id", sa.String(), nullable=False),
        sa.Column("account_id", sa.String(), nullable=False),
        sa.Column("listing_id", sa.String(), nullable=False),
        sa.Column("first_night", sa.Date(), nullable=False),
        sa.Column("last_night", sa.Date(), nullable=False),
        sa.Column("at", sa.DateTime(timezone=True), nullable=False),
        sa.Column("kind", sa.String(), nullable=False),
        sa.Column("field", sa.String(), nullable=False),
        sa.Column("old_value", json, nullable=True),
        sa.Column("new_value", json, nullable=True),
        sa.Column("facts", json, nullable=False),
        sa.Column("request", json, nullable=False),
        sa.Column("trigger", sa.Text(), nullable=False),
        sa.Column("run_kind", sa.String(), nullable=False),
        sa.Column("run_id", sa.Integer(), nullable=True),
        sa.PrimaryKeyConstraint("id"),
    )
    op.create_index(
        "ix_night_history_listing",
        "night_history",
        ["property_id", "account_id", "listing_id", "last_night"],
    )
    op.create_index("ix_night_history_at", "night_history", ["property_id", "at"])


def downgrade() -> None:
    op.drop_index("ix_night_history_at", table_name="night_history")
    op.drop_index("ix_night_history_listing", table_name="night_history")
    op.drop_table("night_history")
