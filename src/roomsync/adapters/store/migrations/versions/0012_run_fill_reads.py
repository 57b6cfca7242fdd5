"""A full sync records how many of its requests filled the cold price cache (issue 23).

A daemon that takes a property over (a restart, another replica) plans the rest of the day from
what the last full sync cost; the first one of a property reads every night's price once (365
requests for a year), which the next ones do not: without this the plan kept a cold sync's cost
for each later full sync, and polled less all day for it.

Revision ID: 0012
Revises: 0011
Create Date: 2026-11-27
"""

from __future__ import annotations

from collections.abc import Sequence

import sqlalchemy as sa
from alembic import op

revision: str = "0012"
down_revision: str | None = "0011"
branch_labels: str | Sequence[str] | None = None
depends_on: str | Sequence[str] | None = None


def upgrade() -> None:
    op.add_column(
        "sync_run",
        sa.Column("price_fill_reads", sa.Integer(), nullable=False, server_default=sa.text("0")),
    )


def downgrade() -> None:
    with op.batch_alter_table("sync_run") as batch:  # SQLite drops a column by copying the table
        batch.drop_column("price_fill_reads")
