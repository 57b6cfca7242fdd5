"""The sync engine's memo moves from a file under ``data_dir`` into the database (``sync_memo``),
so that replicas sharing one database share it too.

The old file (``data_dir/sync-memo/<property>.json``) is not imported: the memo is a cache, and
an empty one costs the next sync a few requests to locate room-type closures again.

Revision ID: 0004
Revises: 0003
Create Date: 2026-11-22
"""

from __future__ import annotations

from collections.abc import Sequence

import sqlalchemy as sa
from alembic import op

revision: str = "0004"
down_revision: str | None = "0003"
branch_labels: str | Sequence[str] | None = None
depends_on: str | Sequence[str] | None = None


def upgrade() -> None:
    op.create_table(
        "sync_memo",
        sa.Column("property_id", sa.String(), nullable=False),
        sa.Column("body", sa.Text(), nullable=False),
        sa.Column("saved_at", sa.DateTime(timezone=True), nullable=False),
        sa.PrimaryKeyConstraint("property_id"),
    )


def downgrade() -> None:
    op.drop_table("sync_memo")
