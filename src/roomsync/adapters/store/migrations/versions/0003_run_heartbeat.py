"""Sync runs record when they were last known alive (``sync_run.heartbeat_at``).

A process killed in the middle of a run (SIGKILL, OOM, power) never writes the run's end, so the
run showed as running forever. A run in progress now records a heartbeat; a run whose heartbeat
stopped long ago is closed as ``abandoned`` by the daemon (``SyncRunStore.close_silent_runs``).

Revision ID: 0003
Revises: 0002
Create Date: 2026-11-22
"""

from __future__ import annotations

from collections.abc import Sequence

import sqlalchemy as sa
from alembic import op

revision: str = "0003"
down_revision: str | None = "0002"
branch_labels: str | Sequence[str] | None = None
depends_on: str | Sequence[str] | None = None


def upgrade() -> None:
    op.add_column("sync_run", sa.Column("heartbeat_at", sa.DateTime(timezone=True), nullable=True))
    # the sweep: the open runs of a property
    op.create_index("ix_sync_run_property_open", "sync_run", ["property_id", "result"])


def downgrade() -> None:
    op.drop_index("ix_sync_run_property_open", table_name="sync_run")
    with op.batch_alter_table("sync_run") as batch:  # SQLite drops a column by copying the table
        batch.drop_column("heartbeat_at")
