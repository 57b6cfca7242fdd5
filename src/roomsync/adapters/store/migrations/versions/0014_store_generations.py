"""Generation tokens of what every run reads whole: a property's cached PMS prices, its mapping
(issue 26).

Every run read a year of cached prices (1,460 rows at four room types), a fifth of a quiet
poll's CPU, and its mapping. A replica keeps what it last read of a generation, compactly, and
reads the rows again only when a write has drawn a new token.

Revision ID: 0014
Revises: 0013
Create Date: 2026-11-28
"""

from __future__ import annotations

from collections.abc import Sequence

import sqlalchemy as sa
from alembic import op

revision: str = "0014"
down_revision: str | None = "0013"
branch_labels: str | Sequence[str] | None = None
depends_on: str | Sequence[str] | None = None


def upgrade() -> None:
    op.create_table(
        "store_generation",
        sa.Column("property_id", sa.String(), nullable=False),
        sa.Column("what", sa.String(), nullable=False),
        sa.Column("generation", sa.String(), nullable=False),
        sa.PrimaryKeyConstraint("property_id", "what"),
    )
    # what was written before has a generation too, or a property whose prices or mapping never
    # change again would read their rows on every run
    for what, table in (("pms_prices", "pms_night_price"), ("mapping", "property_mapping")):
        op.execute(
            "INSERT INTO store_generation (property_id, what, generation) "
            f"SELECT DISTINCT property_id, '{what}', 'before-0014' FROM {table}"
        )


def downgrade() -> None:
    op.drop_table("store_generation")
