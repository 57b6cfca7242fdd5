"""Generation tokens (``store_generation``): what a replica may keep of rows every run reads whole.

A writer of a property's prices or mapping draws a new token in its own transaction
(:func:`new_generation`); a reader reads the token first (:func:`generation_of`), then the rows,
and keeps what it read under that token. A later read that finds the same token has what the rows
say without reading them. A write committed between the reader's two statements leaves rows newer
than the token kept, which only costs the next read its rows, never a stale answer.
"""

from __future__ import annotations

import uuid

import sqlalchemy as sa
from sqlalchemy.engine import Connection

from roomsync.adapters.store._sql import upsert_many
from roomsync.adapters.store.tables import STORE_GENERATION

PMS_PRICES = "pms_prices"
MAPPING = "mapping"

G = STORE_GENERATION.c
_READ = sa.select(G.generation).where(
    G.property_id == sa.bindparam("b_property_id"), G.what == sa.bindparam("b_what")
)


def new_generation(conn: Connection, property_id: str, what: str) -> None:
    """Draw a new generation of ``what`` of ``property_id`` (in the transaction that wrote it)."""
    row = {"property_id": property_id, "what": what, "generation": uuid.uuid4().hex}
    upsert_many(conn, STORE_GENERATION, [row], key=("property_id", "what"))


def generation_of(conn: Connection, property_id: str, what: str) -> str | None:
    """The generation of ``what`` of ``property_id``; None when nothing was ever written."""
    return conn.execute(_READ, {"b_property_id": property_id, "b_what": what}).scalar_one_or_none()
