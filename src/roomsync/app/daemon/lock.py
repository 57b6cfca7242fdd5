"""One daemon per SQLite database, and how the CLI finds the daemon of this machine.

``roomsync serve`` holds an exclusive ``flock`` on a lock file for as long as it runs, and writes
into it where its admin API answers. On SQLite the lock file lies next to the database file
(``serve-<digest of the file's path>.lock`` in its directory), so every process that opens that
file, whatever its ``data_dir``, meets the same lock: that is what refuses a second replica. On
Postgres, where replicas coordinate through the database, the lock file is
``data_dir/serve-<digest of the URL>.lock`` and the first replica of the machine holds it only to
tell the CLI where it answers. The kernel drops the lock when the process dies, however it dies,
so a stale file never blocks a restart. The CLI (``roomsync resync``, ``roomsync status``) tries
the same lock: if it cannot take it, a daemon is running and the file says where to reach it.
"""

from __future__ import annotations

import fcntl
import hashlib
import json
import os
from dataclasses import dataclass
from pathlib import Path
from typing import IO

from sqlalchemy.engine import make_url
from sqlalchemy.exc import ArgumentError

from roomsync.settings import Settings


class DaemonAlreadyRunning(Exception):
    """Another process holds the lock; the message says which process and where."""


@dataclass(frozen=True)
class DaemonInfo:
    pid: int | None
    admin_url: str | None
    role: str = "serve"
    """``serve`` for a daemon; ``resync`` while a command writes directly (no daemon running)."""


def sqlite_file(database_url: str) -> Path | None:
    """The file of a SQLite database URL, absolute and with symbolic links resolved (so two
    spellings of one file agree); None for another database or one in memory."""
    try:
        url = make_url(database_url)
    except ArgumentError:
        return None
    if url.get_backend_name() != "sqlite" or not url.database or url.database == ":memory:":
        return None
    database = url.database
    if database.startswith("file:"):  # a URI filename (uri=true): its path, without the query
        database = database[len("file:"):].partition("?")[0]
        if not database or database == ":memory:":
            return None
    return Path(database).expanduser().resolve()


def lock_path(settings: Settings) -> Path:
    database = sqlite_file(settings.effective_database_url)
    if database is not None:
        digest = hashlib.sha256(str(database).encode()).hexdigest()[:12]
        return database.parent / f"serve-{digest}.lock"
    digest = hashlib.sha256(settings.effective_database_url.encode()).hexdigest()[:12]
    return settings.data_dir / f"serve-{digest}.lock"


def database_name(settings: Settings) -> str:
    """The database as the refusal names it: the SQLite file, else the URL without its password."""
    database = sqlite_file(settings.effective_database_url)
    if database is not None:
        return str(database)
    try:
        return make_url(settings.effective_database_url).render_as_string(hide_password=True)
    except ArgumentError:
        return "the configured database"


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
        self.database = database_name(settings)
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
                f"({self.database})"
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
