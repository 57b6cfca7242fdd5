"""The digest of the last whole-range PMS read saved into the availability view (issue 26).

Every poll saved its 365-night read by reading the view's 1,460 rows back to compare them: on a
replica of many properties that was the largest cost of a quiet poll. A read equal to the last
one is now told by its digest.

Revision ID: 0013
Revises: 0012
Create Date: 2026-11-27
"""

from __future__ import annotations

from collections.abc import Sequence

import sqlalchemy as sa
from alembic import op

revision: str = "0013"
down_revision: str | None = "0012"
branch_labels: str | Sequence[str] | None = None
depends_on: str | Sequence[str] | None = None


def upgrade() -> None:
    op.create_table(
        "availability_read_mark",
        sa.Column("property_id", sa.String(), nullable=False),
        sa.Column("room_type_ids", sa.String(), nullable=False),
        sa.Column("first_night", sa.Date(), nullable=False),
        sa.Column("last_night", sa.Date(), nullable=False),
        sa.Column("digest", sa.String(), nullable=False),
        sa.Column("read_at", sa.DateTime(timezone=True), nullable=False),
        sa.PrimaryKeyConstraint("property_id"),
    )


def downgrade() -> None:
    op.drop_table("availability_read_mark")
