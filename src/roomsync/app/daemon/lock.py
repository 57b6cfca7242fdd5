"""One daemon per SQLite database, and how the CLI finds the daemon of this machine.

``roomsync serve`` holds an exclusive ``flock`` on ``data_dir/serve-<database>.lock`` (a digest
of the database URL) for as long as it runs, and writes into it where its admin API answers. On
SQLite that is what refuses a second replica; on Postgres, where replicas coordinate through the
database, the first replica of the machine holds it only to tell the CLI where it answers. The
kernel drops the lock when the process dies, however it dies, so a stale file never blocks a
restart. The CLI
(``roomsync resync``, ``roomsync status``) tries the same lock: if it cannot take it, a daemon is
running and the file says where to reach it.
"""

from __future__ import annotations

import fcntl
import hashlib
import json
import os
from dataclasses import dataclass
from pathlib import Path
from typing import IO

from roomsync.settings import Settings


class DaemonAlreadyRunning(Exception):
    """Another process holds the lock; the message says which process and where."""


@dataclass(frozen=True)
class DaemonInfo:
    pid: int | None
    admin_url: str | None
    role: str = "serve"
    """``serve`` for a daemon; ``resync`` while a command writes directly (no daemon running)."""


def lock_path(settings: Settings) -> Path:
    digest = hashlib.sha256(settings.effective_database_url.encode()).hexdigest()[:12]
    return settings.data_dir / f"serve-{digest}.lock"


def _read(handle: IO[str]) -> DaemonInfo:
    handle.seek(0)
    try:
        data = json.loads(handle.read() or "{}")
    except ValueError:
        data = {}
    pid = data.get("pid")
    url = data.get("admin_url")
    role = data.get("role")
    return DaemonInfo(
        pid if isinstance(pid, int) else None,
        url if isinstance(url, str) else None,
        role if isinstance(role, str) else "serve",
    )


class DaemonLock:
    """The lock ``roomsync serve`` holds while it runs (and a direct ``roomsync resync`` while it writes)."""

    def __init__(self, settings: Settings) -> None:
        self.path = lock_path(settings)
        self._handle: IO[str] | None = None

    def acquire(self, admin_url: str | None, role: str = "serve") -> None:
        self.path.parent.mkdir(parents=True, exist_ok=True)
        handle = open(self.path, "a+")  # noqa: SIM115 - kept open while the lock is held
        try:
            fcntl.flock(handle, fcntl.LOCK_EX | fcntl.LOCK_NB)
        except BlockingIOError:
            other = _read(handle)
            handle.close()
            raise DaemonAlreadyRunning(
                f"another roomsync {other.role} (pid {other.pid or '?'}) already runs on this database "
                f"with data_dir {self.path.parent}"
                + (f", answering on {other.admin_url}" if other.admin_url else "")
            ) from None
        handle.seek(0)
        handle.truncate()
        handle.write(json.dumps({"pid": os.getpid(), "admin_url": admin_url, "role": role}))
        handle.flush()
        self._handle = handle

    def release(self) -> None:
        if self._handle is None:
            return
        handle, self._handle = self._handle, None
        handle.seek(0)
        handle.truncate()
        fcntl.flock(handle, fcntl.LOCK_UN)
        handle.close()


def running_daemon(settings: Settings) -> DaemonInfo | None:
    """The daemon holding the lock of ``settings``' property, or None when none runs here."""
    path = lock_path(settings)
    if not path.is_file():
        return None
    with open(path) as handle:
        try:
            fcntl.flock(handle, fcntl.LOCK_SH | fcntl.LOCK_NB)
        except BlockingIOError:
            return _read(handle)
        fcntl.flock(handle, fcntl.LOCK_UN)
    return None
