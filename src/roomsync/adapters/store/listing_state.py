"""What roomsync knows of each listing's state (``ListingStateStore``).

Each setter is one upsert of its own columns, so two writers of different facts (a webhook
reporting approval, a sync recording its result) never overwrite each other's.
"""

from __future__ import annotations

from datetime import datetime
from typing import Any

import sqlalchemy as sa
from sqlalchemy.engine import Engine

from roomsync.adapters.store._sql import insert_for, read_tx, write_tx
from roomsync.adapters.store.tables import LISTING_STATE
from roomsync.core.ports import ListingKey, ListingState

S = LISTING_STATE.c
FIELDS = (
    "paused",
    "pause_reason",
    "approval_status",
    "sync_category",
    "has_availability",
    "last_synced_at",
    "last_sync_result",
)


class SqlListingStateStore:
    def __init__(self, engine: Engine) -> None:
        self._engine = engine

    def get_listing_state(self, listing: ListingKey) -> ListingState:
        query = sa.select(LISTING_STATE).where(
            S.property_id == listing.property_id,
            S.account_id == listing.account_id,
            S.listing_id == listing.listing_id,
        )
        with read_tx(self._engine) as conn:
            row = conn.execute(query).one_or_none()
        return ListingState(listing=listing) if row is None else listing_state_of_row(row._mapping)

    def list_listing_states(self, property_id: str) -> list[ListingState]:
        query = (
            sa.select(LISTING_STATE).where(S.property_id == property_id).order_by(S.account_id, S.listing_id)
        )
        with read_tx(self._engine) as conn:
            rows = conn.execute(query).all()
        return [listing_state_of_row(row._mapping) for row in rows]

    def set_paused(self, listing: ListingKey, paused: bool, reason: str | None = None) -> None:
        self._set(listing, paused=paused, pause_reason=reason if paused else None)

    def set_approval_status(self, listing: ListingKey, status: str) -> None:
        self._set(listing, approval_status=status)

    def set_sync_category(self, listing: ListingKey, category: str) -> None:
        self._set(listing, sync_category=category)

    def set_has_availability(self, listing: ListingKey, has_availability: bool) -> None:
        self._set(listing, has_availability=has_availability)

    def record_listing_sync(self, listing: ListingKey, at: datetime, result: str) -> None:
        self._set(listing, last_synced_at=at, last_sync_result=result)

    def _set(self, listing: ListingKey, **values: Any) -> None:
        key = {
            "property_id": listing.property_id,
            "account_id": listing.account_id,
            "listing_id": listing.listing_id,
        }
        with write_tx(self._engine) as conn:
            stmt = insert_for(conn, LISTING_STATE).values(key | {"paused": False} | values)
            conn.execute(
                stmt.on_conflict_do_update(
                    index_elements=[S.property_id, S.account_id, S.listing_id],
                    set_={name: stmt.excluded[name] for name in values},
                )
            )


def listing_state_of_row(values: Any) -> ListingState:
    listing = ListingKey(values["property_id"], values["account_id"], values["listing_id"])
    return ListingState(listing=listing, **{name: values[name] for name in FIELDS})
