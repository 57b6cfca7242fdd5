"""The sync engine's memo of a property in the database (``SyncMemoStore``), one JSON row per
property: shared by every replica on the same database, where a file under ``data_dir`` was seen
by one machine only. What the memo holds and why it is only a cache: ``roomsync.app.sync.memo``."""

from __future__ import annotations

import json
from collections.abc import Mapping
from datetime import UTC, datetime
from typing import Any

import sqlalchemy as sa
from sqlalchemy.engine import Engine

from roomsync.adapters.store._sql import read_tx, upsert_many, write_tx
from roomsync.adapters.store.tables import SYNC_MEMO

M = SYNC_MEMO.c


class SqlSyncMemo:
    def __init__(self, engine: Engine) -> None:
        self._engine = engine

    def load(self, property_id: str) -> dict[str, Any]:
        with read_tx(self._engine) as conn:
            body = conn.execute(sa.select(M.body).where(M.property_id == property_id)).scalar_one_or_none()
        if body is None:
            return {}
        try:
            loaded = json.loads(body)
        except ValueError:
            return {}  # a damaged cache is an empty one: it is rebuilt with a few requests
        return loaded if isinstance(loaded, dict) else {}

    def save(self, property_id: str, memo: Mapping[str, Any]) -> None:
        row = {
            "property_id": property_id,
            "body": json.dumps(memo, sort_keys=True),
            "saved_at": datetime.now(UTC),
        }
        with write_tx(self._engine) as conn:
            upsert_many(conn, SYNC_MEMO, [row], key=["property_id"])
