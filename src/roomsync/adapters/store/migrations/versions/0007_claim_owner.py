"""A webhook event's claim names the worker that holds it (``webhook_inbox.claimed_by``:
``<replica>/<incarnation>``), so a restarted daemon takes back its own previous incarnation's
claims at once instead of waiting out the claim timeout; another replica's wait for the timeout.

Revision ID: 0007
Revises: 0006
Create Date: 2026-11-24
"""

from __future__ import annotations

from collections.abc import Sequence

import sqlalchemy as sa
from alembic import op

revision: str = "0007"
down_revision: str | None = "0006"
branch_labels: str | Sequence[str] | None = None
depends_on: str | Sequence[str] | None = None


def upgrade() -> None:
    op.add_column("webhook_inbox", sa.Column("claimed_by", sa.String(), nullable=True))


def downgrade() -> None:
    with op.batch_alter_table("webhook_inbox") as batch:  # SQLite drops a column by copying the table
        batch.drop_column("claimed_by")
