"""Deliveries that cannot be processed, kept for a person to look at (``DeadLetterStore``)."""

from __future__ import annotations

from collections.abc import Mapping
from datetime import datetime

import sqlalchemy as sa
from sqlalchemy.engine import Engine

from roomsync.adapters.store._sql import read_tx, write_tx
from roomsync.adapters.store.tables import DEAD_LETTER
from roomsync.core.ports import DeadLetter

D = DEAD_LETTER.c
STRIPPED = "[stripped]"
SECRET_HEADERS = frozenset({"authorization", "proxy-authorization", "cookie", "set-cookie"})
SECRET_WORDS = ("secret", "token", "signature", "password", "key", "auth")
"""A header whose name contains one of these may carry a secret (``apikey``, ``X-Api-Key``,
``X-Webhook-Signature``...): its value is never stored."""


def strip_secrets(headers: Mapping[str, str]) -> dict[str, str]:
    """``headers`` with the value of every header that may carry a secret replaced."""
    kept: dict[str, str] = {}
    for name, value in headers.items():
        lowered = name.lower()
        secret = lowered in SECRET_HEADERS or any(word in lowered for word in SECRET_WORDS)
        kept[name] = STRIPPED if secret else value
    return kept


class SqlDeadLetterStore:
    def __init__(self, engine: Engine) -> None:
        self._engine = engine

    def add_dead_letter(
        self, property_id: str, received_at: datetime, reason: str, body: str, headers: Mapping[str, str]
    ) -> int:
        stmt = (
            sa.insert(DEAD_LETTER)
            .values(
                property_id=property_id,
                received_at=received_at,
                reason=reason,
                body=body,
                headers=strip_secrets(headers),
            )
            .returning(D.id)
        )
        with write_tx(self._engine) as conn:
            return int(conn.execute(stmt).scalar_one())

    def list_dead_letters(self, property_id: str, limit: int = 100) -> list[DeadLetter]:
        query = sa.select(DEAD_LETTER).where(D.property_id == property_id).order_by(D.id.desc()).limit(limit)
        with read_tx(self._engine) as conn:
            rows = conn.execute(query).all()
        return [DeadLetter(**dict(row._mapping)) for row in rows]

    def count_dead_letters(self, property_id: str) -> int:
        query = sa.select(sa.func.count()).select_from(DEAD_LETTER).where(D.property_id == property_id)
        with read_tx(self._engine) as conn:
            return int(conn.execute(query).scalar_one())
