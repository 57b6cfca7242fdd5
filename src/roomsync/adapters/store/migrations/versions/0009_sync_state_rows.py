"""The sync memo's JSON body (one row per property, loaded and saved whole) becomes typed rows
written per key: ``closure_scope`` + ``located_closure`` (closed runs per room type and of the
property), ``listing_fact`` (what ``GET Listings`` said of each listing) and ``listing_digest``
(with a version for compare-and-set). The overbooking guard's targeted pushes waiting in a
process's memory move to ``pending_push`` + ``pending_push_night``, so a replica that takes a
property over makes the ones its previous owner had not.

The existing memo's content is moved into the new tables (a body that does not parse is a cache
lost: skipped), then ``sync_memo`` is dropped. The downgrade rebuilds ``sync_memo`` from the rows
(pending pushes have no place there and are dropped: the next poll brings the listings in step).

Revision ID: 0009
Revises: 0008
Create Date: 2026-11-25
"""

from __future__ import annotations

import json
from collections.abc import Sequence
from datetime import UTC, date, datetime
from typing import Any

import sqlalchemy as sa
from alembic import op

revision: str = "0009"
down_revision: str | None = "0008"
branch_labels: str | Sequence[str] | None = None
depends_on: str | Sequence[str] | None = None

PROPERTY_WIDE = 0
"""``room_type_id`` of the property's own closures (``tables.PROPERTY_WIDE``)."""

UTC_TIME = sa.DateTime(timezone=True)

sync_memo = sa.table(
    "sync_memo",
    sa.column("property_id", sa.String()),
    sa.column("body", sa.Text()),
    sa.column("saved_at", UTC_TIME),
)
closure_scope = sa.table(
    "closure_scope",
    sa.column("property_id", sa.String()),
    sa.column("room_type_id", sa.Integer()),
    sa.column("read_at", UTC_TIME),
)
located_closure = sa.table(
    "located_closure",
    sa.column("property_id", sa.String()),
    sa.column("room_type_id", sa.Integer()),
    sa.column("first_night", sa.Date()),
    sa.column("last_night", sa.Date()),
)
listing_fact = sa.table(
    "listing_fact",
    sa.column("property_id", sa.String()),
    sa.column("account_id", sa.String()),
    sa.column("listing_id", sa.String()),
    sa.column("missing", sa.Boolean()),
    sa.column("total_inventory_count", sa.Integer()),
    sa.column("read_at", UTC_TIME),
)
listing_digest = sa.table(
    "listing_digest",
    sa.column("property_id", sa.String()),
    sa.column("account_id", sa.String()),
    sa.column("listing_id", sa.String()),
    sa.column("digest", sa.String()),
    sa.column("version", sa.Integer()),
)


def upgrade() -> None:
    op.create_table(
        "closure_scope",
        sa.Column("property_id", sa.String(), nullable=False),
        sa.Column("room_type_id", sa.Integer(), autoincrement=False, nullable=False),
        sa.Column("read_at", UTC_TIME, nullable=False),
        sa.PrimaryKeyConstraint("property_id", "room_type_id"),
    )
    op.create_table(
        "located_closure",
        sa.Column("property_id", sa.String(), nullable=False),
        sa.Column("room_type_id", sa.Integer(), autoincrement=False, nullable=False),
        sa.Column("first_night", sa.Date(), nullable=False),
        sa.Column("last_night", sa.Date(), nullable=False),
        sa.PrimaryKeyConstraint("property_id", "room_type_id", "first_night"),
    )
    op.create_table(
        "listing_fact",
        sa.Column("property_id", sa.String(), nullable=False),
        sa.Column("account_id", sa.String(), nullable=False),
        sa.Column("listing_id", sa.String(), nullable=False),
        sa.Column("missing", sa.Boolean(), nullable=False),
        sa.Column("total_inventory_count", sa.Integer(), nullable=True),
        sa.Column("read_at", UTC_TIME, nullable=False),
        sa.PrimaryKeyConstraint("property_id", "account_id", "listing_id"),
    )
    op.create_table(
        "listing_digest",
        sa.Column("property_id", sa.String(), nullable=False),
        sa.Column("account_id", sa.String(), nullable=False),
        sa.Column("listing_id", sa.String(), nullable=False),
        sa.Column("digest", sa.String(), nullable=True),
        sa.Column("version", sa.Integer(), nullable=False),
        sa.PrimaryKeyConstraint("property_id", "account_id", "listing_id"),
    )
    op.create_table(
        "pending_push",
        sa.Column("id", sa.Integer(), nullable=False),
        sa.Column("property_id", sa.String(), nullable=False),
        sa.Column("room_type_id", sa.Integer(), nullable=False),
        sa.Column("source_listing_id", sa.String(), nullable=True),
        sa.Column("recorded_at", UTC_TIME, nullable=False),
        sa.Column("claimed_by", sa.String(), nullable=True),
        sa.Column("claimed_at", UTC_TIME, nullable=True),
        sa.PrimaryKeyConstraint("id"),
    )
    op.create_index("ix_pending_push_property", "pending_push", ["property_id", "id"])
    op.create_table(
        "pending_push_night",
        sa.Column("push_id", sa.Integer(), autoincrement=False, nullable=False),
        sa.Column("night", sa.Date(), nullable=False),
        sa.ForeignKeyConstraint(["push_id"], ["pending_push.id"], ondelete="CASCADE"),
        sa.PrimaryKeyConstraint("push_id", "night"),
    )
    _move_memo_into_rows(op.get_bind())
    op.drop_table("sync_memo")


def downgrade() -> None:
    op.create_table(
        "sync_memo",
        sa.Column("property_id", sa.String(), nullable=False),
        sa.Column("body", sa.Text(), nullable=False),
        sa.Column("saved_at", UTC_TIME, nullable=False),
        sa.PrimaryKeyConstraint("property_id"),
    )
    _rebuild_memo(op.get_bind())
    op.drop_table("pending_push_night")
    op.drop_index("ix_pending_push_property", table_name="pending_push")
    op.drop_table("pending_push")
    op.drop_table("listing_digest")
    op.drop_table("listing_fact")
    op.drop_table("located_closure")
    op.drop_table("closure_scope")


# --- the move --------------------------------------------------------------------------------------


def _move_memo_into_rows(conn: sa.Connection) -> None:
    for property_id, body, saved_at in conn.execute(sa.select(sync_memo)).all():
        try:
            memo = json.loads(body)
        except ValueError:
            continue  # a damaged cache is an empty one
        if not isinstance(memo, dict):
            continue
        _move_closures(conn, property_id, memo.get("closures"), saved_at)
        _move_listings(conn, property_id, memo.get("listings"), saved_at)
        _move_digests(conn, property_id, memo.get("digests"))


def _spans(runs: Any) -> list[tuple[date, date]]:
    spans: list[tuple[date, date]] = []
    for run in runs if isinstance(runs, list) else ():
        try:
            first, last = date.fromisoformat(run[0]), date.fromisoformat(run[1])
        except (TypeError, ValueError, IndexError):
            continue
        spans.append((first, last))
    return spans


def _move_closures(conn: sa.Connection, property_id: str, closures: Any, saved_at: datetime) -> None:
    if not isinstance(closures, dict):
        return
    scopes: dict[int, list[tuple[date, date]]] = {PROPERTY_WIDE: _spans(closures.get("property"))}
    room_types = closures.get("room_types")
    for key, runs in (room_types if isinstance(room_types, dict) else {}).items():
        if str(key).isdigit() and int(key) != PROPERTY_WIDE:
            scopes[int(key)] = _spans(runs)
    for room_type_id, spans in scopes.items():
        conn.execute(
            sa.insert(closure_scope).values(
                property_id=property_id, room_type_id=room_type_id, read_at=saved_at
            )
        )
        for first, last in dict(spans).items():  # one run per first night (the key)
            conn.execute(
                sa.insert(located_closure).values(
                    property_id=property_id, room_type_id=room_type_id, first_night=first, last_night=last
                )
            )


def _listing_of(key: Any) -> tuple[str, str] | None:
    account, slash, listing = str(key).partition("/")
    return (account, listing) if slash and account and listing else None


def _move_listings(conn: sa.Connection, property_id: str, listings: Any, saved_at: datetime) -> None:
    for key, facts in (listings if isinstance(listings, dict) else {}).items():
        listing = _listing_of(key)
        if listing is None or not isinstance(facts, dict):
            continue
        count = facts.get("total_inventory_count")
        conn.execute(
            sa.insert(listing_fact).values(
                property_id=property_id,
                account_id=listing[0],
                listing_id=listing[1],
                missing=bool(facts.get("missing")),
                total_inventory_count=count if isinstance(count, int) else None,
                read_at=saved_at,
            )
        )


def _move_digests(conn: sa.Connection, property_id: str, digests: Any) -> None:
    for key, digest in (digests if isinstance(digests, dict) else {}).items():
        listing = _listing_of(key)
        if listing is None or not isinstance(digest, str):
            continue
        conn.execute(
            sa.insert(listing_digest).values(
                property_id=property_id,
                account_id=listing[0],
                listing_id=listing[1],
                digest=digest,
                version=1,
            )
        )


def _rebuild_memo(conn: sa.Connection) -> None:
    memos: dict[str, dict[str, Any]] = {}
    saved: dict[str, datetime] = {}

    def memo_of(property_id: str) -> dict[str, Any]:
        return memos.setdefault(property_id, {"closures": {"room_types": {}, "property": []}})

    for pid, _room_type_id, read_at in conn.execute(sa.select(closure_scope)).all():
        memo_of(pid)
        saved[pid] = max(saved.get(pid, read_at), read_at)
    for pid, room_type_id, first, last in conn.execute(
        sa.select(located_closure).order_by(located_closure.c.first_night)
    ).all():
        closures = memo_of(pid)["closures"]
        run = [first.isoformat(), last.isoformat()]
        if room_type_id == PROPERTY_WIDE:
            closures["property"].append(run)
        else:
            closures["room_types"].setdefault(str(room_type_id), []).append(run)
    for pid, account, listing, missing, count, read_at in conn.execute(sa.select(listing_fact)).all():
        facts = {"missing": True} if missing else {"total_inventory_count": count}
        memo_of(pid).setdefault("listings", {})[f"{account}/{listing}"] = facts
        saved[pid] = max(saved.get(pid, read_at), read_at)
    for pid, account, listing, digest, _version in conn.execute(sa.select(listing_digest)).all():
        if digest is not None:
            memo_of(pid).setdefault("digests", {})[f"{account}/{listing}"] = digest
    for pid, memo in memos.items():
        at = saved.get(pid) or datetime.now(UTC)
        if conn.dialect.name == "sqlite":  # as the store's UtcDateTime keeps it there
            at = at.astimezone(UTC).replace(tzinfo=None) if at.tzinfo else at
        conn.execute(
            sa.insert(sync_memo).values(property_id=pid, body=json.dumps(memo, sort_keys=True), saved_at=at)
        )
