"""Properties as data: the ``property`` table (``roomsync properties add|list|show|remove|pause|
resume``). A row holds the settings the property sets for itself and references to its secrets
(``env:VAR`` / ``file:PATH``); a database without rows is a deployment of one property, configured
by the settings as before.

Revision ID: 0008
Revises: 0007
Create Date: 2026-11-24
"""

from __future__ import annotations

from collections.abc import Sequence

import sqlalchemy as sa
from alembic import op
from sqlalchemy.dialects import postgresql

revision: str = "0008"
down_revision: str | None = "0007"
branch_labels: str | Sequence[str] | None = None
depends_on: str | Sequence[str] | None = None


def upgrade() -> None:
    json = sa.JSON().with_variant(postgresql.JSONB(), "postgresql")
    op.create_table(
        "property",
        sa.Column("property_id", sa.String(), nullable=False),
        sa.Column("overrides", json, nullable=False),
        sa.Column("secret_refs", json, nullable=False),
        sa.Column("paused", sa.Boolean(), nullable=False),
        sa.Column("paused_reason", sa.Text(), nullable=True),
        sa.Column("created_at", sa.DateTime(timezone=True), nullable=False),
        sa.PrimaryKeyConstraint("property_id"),
    )


def downgrade() -> None:
    op.drop_table("property")
