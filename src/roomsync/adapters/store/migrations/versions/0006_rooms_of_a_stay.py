"""A stay needs one room free on every night: the availability view keeps which rooms are free
(``availability_view.free_room_ids``) and a hold keeps the room it was given
(``availability_hold.room_id``), so the guest check, the hold and the placement follow one rule.

Revision ID: 0006
Revises: 0005
Create Date: 2026-11-24
"""

from __future__ import annotations

from collections.abc import Sequence

import sqlalchemy as sa
from alembic import op

revision: str = "0006"
down_revision: str | None = "0005"
branch_labels: str | Sequence[str] | None = None
depends_on: str | Sequence[str] | None = None


def upgrade() -> None:
    op.add_column("availability_view", sa.Column("free_room_ids", sa.Text(), nullable=True))
    op.add_column("availability_hold", sa.Column("room_id", sa.Integer(), nullable=True))


def downgrade() -> None:
    with op.batch_alter_table("availability_hold") as batch:  # SQLite drops a column by copying the table
        batch.drop_column("room_id")
    with op.batch_alter_table("availability_view") as batch:
        batch.drop_column("free_room_ids")
