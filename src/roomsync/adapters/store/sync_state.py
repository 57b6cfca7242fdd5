"""The sync engine's state between runs as typed rows (``SyncStateStore``), written per key.

* ``closure_scope`` + ``located_closure``: the runs of closed nights per room type (and of the
  property, ``PROPERTY_WIDE``). A scope is replaced whole, under its ``closure_scope`` row: the
  conditional ``UPDATE ... WHERE read_at <= :mine`` takes that row's lock (Postgres) or runs in the
  database's single write transaction (SQLite), so of two writers the later read always wins and
  the runs of two reads are never mixed.
* ``listing_fact``: per listing, an upsert that does nothing when a later read is stored.
* ``listing_digest``: per listing, a ``version`` that every change moves on; keeping a digest is
  ``UPDATE ... WHERE version = :read`` (or an insert that must not conflict), forgetting one moves
  the version on, so a full sync that read the row before a targeted push forgot it cannot keep a
  digest its ledger no longer matches.

What these facts are and why losing them costs requests, never correctness: ``roomsync.app.sync``
(``closures``, ``fingerprint``) and docs/sync.md.
"""

from __future__ import annotations

from collections.abc import Collection, Mapping, Sequence
from datetime import datetime
from typing import Any

import sqlalchemy as sa
from sqlalchemy.engine import Connection, Engine

from roomsync.adapters.store._sql import insert_for, read_tx, write_tx
from roomsync.adapters.store.tables import (
    CLOSURE_SCOPE,
    LISTING_DIGEST,
    LISTING_FACT,
    LOCATED_CLOSURE,
    PROPERTY_WIDE,
)
from roomsync.core.ports import ListingFacts, ListingKey, LocatedClosures, NightSpan, StoredDigest

C = LOCATED_CLOSURE.c
S = CLOSURE_SCOPE.c
F = LISTING_FACT.c
D = LISTING_DIGEST.c


class SqlSyncState:
    def __init__(self, engine: Engine) -> None:
        self._engine = engine

    # --- closures --------------------------------------------------------------------------------

    def located_closures(self, property_id: str) -> LocatedClosures:
        query = (
            sa.select(C.room_type_id, C.first_night, C.last_night)
            .where(C.property_id == property_id)
            .order_by(C.room_type_id, C.first_night)
        )
        with read_tx(self._engine) as conn:
            rows = conn.execute(query).all()
        runs: dict[int, list[NightSpan]] = {}
        for room_type_id, first, last in rows:
            runs.setdefault(room_type_id, []).append((first, last))
        whole = tuple(runs.pop(PROPERTY_WIDE, ()))
        return LocatedClosures(whole, {t: tuple(spans) for t, spans in runs.items()})

    def save_closures(
        self,
        property_id: str,
        read_at: datetime,
        property_wide: Sequence[NightSpan],
        room_types: Mapping[int, Sequence[NightSpan]],
    ) -> set[int | None]:
        if PROPERTY_WIDE in room_types:
            raise ValueError(f"room type {PROPERTY_WIDE} is reserved for the property's closures")
        scopes: list[tuple[int, Sequence[NightSpan]]] = [(PROPERTY_WIDE, property_wide)]
        scopes += sorted(room_types.items())  # one order for every writer: no deadlock
        stale: set[int | None] = set()
        with write_tx(self._engine) as conn:
            for room_type_id, spans in scopes:
                if not self._take_scope(conn, property_id, room_type_id, read_at):
                    stale.add(None if room_type_id == PROPERTY_WIDE else room_type_id)
                    continue
                in_scope = (C.property_id == property_id) & (C.room_type_id == room_type_id)
                conn.execute(sa.delete(LOCATED_CLOSURE).where(in_scope))
                if spans:
                    conn.execute(
                        sa.insert(LOCATED_CLOSURE),
                        [
                            {
                                "property_id": property_id,
                                "room_type_id": room_type_id,
                                "first_night": first,
                                "last_night": last,
                            }
                            for first, last in spans
                        ],
                    )
        return stale

    @staticmethod
    def _take_scope(conn: Connection, property_id: str, room_type_id: int, read_at: datetime) -> bool:
        """Whether this read may replace the scope (no later read stored); locks its row."""
        moved = conn.execute(
            sa.update(CLOSURE_SCOPE)
            .where(S.property_id == property_id, S.room_type_id == room_type_id, S.read_at <= read_at)
            .values(read_at=read_at)
        ).rowcount
        if moved:
            return True
        row = {"property_id": property_id, "room_type_id": room_type_id, "read_at": read_at}
        # RETURNING, not rowcount: psycopg reports no count for INSERT ... ON CONFLICT
        inserted = insert_for(conn, CLOSURE_SCOPE).on_conflict_do_nothing().returning(S.room_type_id)
        return conn.execute(inserted, row).first() is not None

    # --- listing facts ---------------------------------------------------------------------------

    def listing_facts(self, property_id: str) -> dict[ListingKey, ListingFacts]:
        with read_tx(self._engine) as conn:
            rows = conn.execute(sa.select(LISTING_FACT).where(F.property_id == property_id)).all()
        facts = (listing_facts_of_row(row._mapping) for row in rows)
        return {f.listing: f for f in facts}

    def save_listing_facts(self, facts: Sequence[ListingFacts]) -> int:
        if not facts:
            return 0
        rows: list[dict[str, Any]] = [
            {
                "property_id": f.listing.property_id,
                "account_id": f.listing.account_id,
                "listing_id": f.listing.listing_id,
                "missing": f.missing,
                "total_inventory_count": f.total_inventory_count,
                "read_at": f.read_at,
            }
            for f in sorted(facts, key=lambda f: _key_of(f.listing))
        ]
        written = 0
        with write_tx(self._engine) as conn:
            stmt = insert_for(conn, LISTING_FACT)
            upsert = stmt.on_conflict_do_update(
                index_elements=["property_id", "account_id", "listing_id"],
                set_={
                    "missing": stmt.excluded.missing,
                    "total_inventory_count": stmt.excluded.total_inventory_count,
                    "read_at": stmt.excluded.read_at,
                },
                where=F.read_at <= stmt.excluded.read_at,  # an earlier read never overwrites a later one
            ).returning(F.listing_id)
            for row in rows:  # one by one: a row comes back only when it was written
                written += conn.execute(upsert, row).first() is not None
        return written

    # --- digests ---------------------------------------------------------------------------------

    def digests(self, property_id: str) -> dict[ListingKey, StoredDigest]:
        with read_tx(self._engine) as conn:
            rows = conn.execute(sa.select(LISTING_DIGEST).where(D.property_id == property_id)).all()
        found: dict[ListingKey, StoredDigest] = {}
        for row in rows:
            key = ListingKey(property_id, row.account_id, row.listing_id)
            found[key] = StoredDigest(key, row.digest, row.version)
        return found

    def keep_digest(self, listing: ListingKey, digest: str, read_version: int) -> StoredDigest:
        where = _where(listing)
        with write_tx(self._engine) as conn:
            if read_version == 0:
                row = {**_key_of_row(listing), "digest": digest, "version": 1}
                conn.execute(insert_for(conn, LISTING_DIGEST).on_conflict_do_nothing(), row)
            else:
                conn.execute(
                    sa.update(LISTING_DIGEST)
                    .where(where, D.version == read_version)
                    .values(digest=digest, version=D.version + 1)
                )
            # the row as it stands: this writer's on success, the winner's otherwise (re-read)
            stored = conn.execute(sa.select(D.digest, D.version).where(where)).one()
        return StoredDigest(listing, stored.digest, stored.version)

    def forget_digests(self, listings: Collection[ListingKey]) -> None:
        if not listings:
            return
        rows = [
            {**_key_of_row(listing), "digest": None, "version": 1}
            for listing in sorted(set(listings), key=_key_of)  # one order for every writer
        ]
        with write_tx(self._engine) as conn:
            stmt = insert_for(conn, LISTING_DIGEST)
            stmt = stmt.on_conflict_do_update(
                index_elements=["property_id", "account_id", "listing_id"],
                set_={"digest": None, "version": D.version + 1},
            )
            conn.execute(stmt, rows)


def _key_of(listing: ListingKey) -> tuple[str, str, str]:
    return listing.property_id, listing.account_id, listing.listing_id


def _key_of_row(listing: ListingKey) -> dict[str, str]:
    return {
        "property_id": listing.property_id,
        "account_id": listing.account_id,
        "listing_id": listing.listing_id,
    }


def _where(listing: ListingKey) -> sa.ColumnElement[bool]:
    return sa.and_(
        D.property_id == listing.property_id,
        D.account_id == listing.account_id,
        D.listing_id == listing.listing_id,
    )


def listing_facts_of_row(m: Any) -> ListingFacts:
    key = ListingKey(m["property_id"], m["account_id"], m["listing_id"])
    return ListingFacts(key, m["missing"], m["total_inventory_count"], m["read_at"])
