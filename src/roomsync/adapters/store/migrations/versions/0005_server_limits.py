"""The budget remembers what the server said about the quota: its daily limit and reset instant,
so that every process (``roomsync budget``, ``status``, a restarted daemon) plans with the
server's figures instead of the ``daily_quota`` setting and the machine's midnight.

Revision ID: 0005
Revises: 0004
Create Date: 2026-11-24
"""

from __future__ import annotations

from collections.abc import Sequence

import sqlalchemy as sa
from alembic import op

revision: str = "0005"
down_revision: str | None = "0004"
branch_labels: str | Sequence[str] | None = None
depends_on: str | Sequence[str] | None = None


def upgrade() -> None:
    op.add_column("budget_day", sa.Column("server_quota", sa.Integer(), nullable=True))
    op.add_column("budget_day", sa.Column("server_resets_at", sa.DateTime(timezone=True), nullable=True))


def downgrade() -> None:
    with op.batch_alter_table("budget_day") as batch:  # SQLite drops a column by copying the table
        batch.drop_column("server_resets_at")
        batch.drop_column("server_quota")
