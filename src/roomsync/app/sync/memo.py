"""What the sync engine remembers between runs that the store has no table for.

Two small facts live here: the room-type closures located by splitting ``Combined`` windows
(locating them costs about ``2 * log2(horizon)`` requests per closed run, so they are located once
and then taken from here while the one ``Combined`` read of each sync still says the type is
closed somewhere), and per listing the facts read from ``GET Listings`` that the engine needs but
``listing_state`` does not hold (``totalInventoryCount``, the cap of a room-type listing's count).

It is a cache, never the truth: losing it costs requests, not correctness, except that a
room-type closure added or lifted while another closure of the same type stays in the horizon is
only seen at the next ``reconcile`` (which re-locates every closure) or ``resync``.

:class:`roomsync.adapters.store.sync_memo.SqlSyncMemo` (``store.sync_memo``, the default) keeps
it in the database, one row per property, shared by replicas; :class:`MemorySyncMemo` keeps it in
the process (tests, benchmarks). Until migration 0004 it was a JSON file under
``data_dir/sync-memo/``, which is no longer read.
"""

from __future__ import annotations

import json
from collections.abc import Mapping
from typing import Any

from roomsync.core.ports import SyncMemoStore

SyncMemo = SyncMemoStore
"""What the engine needs of a memo (the protocol lives with the store's other ports)."""


class MemorySyncMemo:
    def __init__(self) -> None:
        self._memos: dict[str, str] = {}

    def load(self, property_id: str) -> dict[str, Any]:
        text = self._memos.get(property_id)
        return json.loads(text) if text else {}

    def save(self, property_id: str, memo: Mapping[str, Any]) -> None:
        self._memos[property_id] = json.dumps(memo, sort_keys=True)
