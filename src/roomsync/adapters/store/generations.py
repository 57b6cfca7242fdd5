"""Generation tokens (``store_generation``): what a replica may keep of rows every run reads whole.

A writer of a property's prices or mapping draws a new token in its own transaction
(:func:`new_generation`); a reader reads the token first (:func:`generation_of`), then the rows,
and keeps what it read under that token. A later read that finds the same token has what the rows
say without reading them. A write committed between the reader's two statements leaves rows newer
than the token kept, which only costs the next read its rows, never a stale answer.
"""

from __future__ import annotations

import uuid
from collections.abc import Hashable
from typing import Generic, TypeVar

import sqlalchemy as sa
from sqlalchemy.engine import Connection

from roomsync.adapters.store._sql import upsert_many
from roomsync.adapters.store.tables import STORE_GENERATION

PMS_PRICES = "pms_prices"
MAPPING = "mapping"

T = TypeVar("T")

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


class KeptReads(Generic[T]):
    """Per property, what the last read of a generation found (one replica's memory): the value
    kept under the read's generation and ``asked`` (what else the read depended on)."""

    def __init__(self) -> None:
        self._kept: dict[str, tuple[str, Hashable, T]] = {}

    def get(self, property_id: str, generation: str | None, asked: Hashable = ()) -> T | None:
        """What a read of ``generation`` and ``asked`` found; None when nothing was written yet
        (no generation) or the read kept was of another generation or asked otherwise."""
        kept = self._kept.get(property_id)
        if generation is None or kept is None or kept[:2] != (generation, asked):
            return None
        return kept[2]

    def keep(self, property_id: str, generation: str | None, asked: Hashable, value: T) -> None:
        """Keep ``value`` as what a read of ``generation`` and ``asked`` found; nothing is kept
        without a generation (it could not be told from a later write's rows)."""
        if generation is None:
            self.forget(property_id)
        else:
            self._kept[property_id] = (generation, asked, value)

    def forget(self, property_id: str) -> None:
        self._kept.pop(property_id, None)
