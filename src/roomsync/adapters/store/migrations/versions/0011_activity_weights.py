"""When the front desk changes things (issue 18): per property, kind of change and hour of the
local week, the decayed count of changes the schedule saw.

Revision ID: 0011
Revises: 0010
Create Date: 2026-11-25
"""

from __future__ import annotations

from collections.abc import Sequence

import sqlalchemy as sa
from alembic import op

revision: str = "0011"
down_revision: str | None = "0010"
branch_labels: str | Sequence[str] | None = None
depends_on: str | Sequence[str] | None = None


def upgrade() -> None:
    op.create_table(
        "activity_weight",
        sa.Column("property_id", sa.String(), nullable=False),
        sa.Column("kind", sa.String(), nullable=False),
        sa.Column("hour_of_week", sa.Integer(), autoincrement=False, nullable=False),
        sa.Column("weight", sa.Float(), nullable=False),
        sa.Column("updated_at", sa.DateTime(timezone=True), nullable=False),
        sa.PrimaryKeyConstraint("property_id", "kind", "hour_of_week"),
    )


def downgrade() -> None:
    op.drop_table("activity_weight")
