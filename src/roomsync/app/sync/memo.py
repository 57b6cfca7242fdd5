"""What the sync engine remembers between runs that the store has no table for.

Two small facts live here: the room-type closures located by splitting ``Combined`` windows
(locating them costs about ``2 * log2(horizon)`` requests per closed run, so they are located once
and then taken from here while the one ``Combined`` read of each sync still says the type is
closed somewhere), and per listing the facts read from ``GET Listings`` that the engine needs but
``listing_state`` does not hold (``totalInventoryCount``, the cap of a room-type listing's count).

It is a cache, never the truth: losing it costs requests, not correctness, except that a
room-type closure added or lifted while another closure of the same type stays in the horizon is
only seen at the next ``reconcile`` (which re-locates every closure) or ``resync``.

:class:`FileSyncMemo` keeps one JSON file per property under ``data_dir/sync-memo/``;
:class:`MemorySyncMemo` keeps it in the process (tests). A store table would serve several
replicas better; the protocol is what the engine needs from either.
"""

from __future__ import annotations

import json
import os
import tempfile
from collections.abc import Mapping
from pathlib import Path
from typing import Any, Protocol
from urllib.parse import quote


class SyncMemo(Protocol):
    def load(self, property_id: str) -> dict[str, Any]:
        """The memo of ``property_id`` (empty when there is none)."""
        ...

    def save(self, property_id: str, memo: Mapping[str, Any]) -> None:
        """Replace the memo of ``property_id`` as a whole."""
        ...


class MemorySyncMemo:
    def __init__(self) -> None:
        self._memos: dict[str, str] = {}

    def load(self, property_id: str) -> dict[str, Any]:
        text = self._memos.get(property_id)
        return json.loads(text) if text else {}

    def save(self, property_id: str, memo: Mapping[str, Any]) -> None:
        self._memos[property_id] = json.dumps(memo, sort_keys=True)


class FileSyncMemo:
    """``<directory>/<property id, URL-quoted>.json``, replaced atomically (write, then rename)."""

    def __init__(self, directory: Path) -> None:
        self.directory = directory

    @classmethod
    def under(cls, data_dir: Path) -> FileSyncMemo:
        return cls(data_dir / "sync-memo")

    def _path(self, property_id: str) -> Path:
        return self.directory / f"{quote(property_id, safe='')}.json"

    def load(self, property_id: str) -> dict[str, Any]:
        path = self._path(property_id)
        try:
            loaded = json.loads(path.read_text())
        except FileNotFoundError:
            return {}
        except (OSError, ValueError):
            return {}  # a damaged cache is an empty one: it is rebuilt with a few requests
        return loaded if isinstance(loaded, dict) else {}

    def save(self, property_id: str, memo: Mapping[str, Any]) -> None:
        self.directory.mkdir(parents=True, exist_ok=True)
        path = self._path(property_id)
        handle, temporary = tempfile.mkstemp(dir=self.directory, prefix=".memo-", suffix=".json")
        try:
            with os.fdopen(handle, "w") as out:
                json.dump(memo, out, sort_keys=True)
            os.replace(temporary, path)
        except BaseException:
            Path(temporary).unlink(missing_ok=True)
            raise
