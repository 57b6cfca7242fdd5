"""SQLite write-ahead-log checkpoints, run by a thread of their own instead of by the writers.

By default SQLite checkpoints in whichever commit pushes the log past 1,000 pages: that commit
copies the log into the database file and waits for two fsyncs. The writer that pays is nearly
always the webhook receiver storing a guest check, so the guest waited for the disk: on this
project's machines the checkpoint's fsyncs were what separated the answer's p99 on disk (11 ms,
once 650 ms) from the same run on a RAM disk (4 ms); see ``benches/bench_check_availability.py``.

With ``WalCheckpointer`` running, the store's connections turn automatic checkpoints off and a
thread checkpoints every ``interval`` seconds in ``PASSIVE`` mode, which copies and syncs beside
the writers without stopping them. The log file is only started over when a write begins while
every page of it has been copied, which a pass that overlaps a commit never achieves; so once the
log passes ``truncate_frames`` pages the thread runs up to ``REWIND_PASSES`` quick passes (each
copies only what the last one missed, a millisecond) until one ends between two commits and the
next writer starts the log over. Measured: at some 400 commits a second that takes a few passes;
only a writer committing back to back leaves no gap, and then, at ``FORCE_FACTOR`` times the
threshold, a ``TRUNCATE`` checkpoint empties the log, holding writers back while it syncs (it
waits at most ``BUSY_TIMEOUT_MS`` for the lock, else tries next round). A first version forced
``TRUNCATE`` at the threshold: every 4 s of the benchmark a 25-100 ms stall, the p99 again.
Crash safety is SQLite's own: a log not yet copied is replayed when the database is opened.
"""

from __future__ import annotations

import logging
import sqlite3
import threading
import time

import sqlalchemy as sa
from sqlalchemy.engine import Engine
from sqlalchemy.pool import ConnectionPoolEntry

log = logging.getLogger("roomsync.store.checkpoints")

TRUNCATE_FRAMES = 4096
"""Log pages (4 KiB each: 16 MiB) past which the thread works to have the log started over."""
REWIND_PASSES = 20
"""Quick passes per round, at most, waiting for a moment between two commits."""
REWIND_PAUSE_SECONDS = 0.002
"""Pause before each quick pass, for a waiting writer to begin (and start the log over)."""
FORCE_FACTOR = 4
"""A log this many times ``TRUNCATE_FRAMES`` is emptied by force, holding writers back meanwhile."""
BUSY_TIMEOUT_MS = 200
"""How long the TRUNCATE checkpoint waits for the writer lock before leaving it to the next round."""


def is_file_sqlite(engine: Engine) -> bool:
    url = engine.url
    return (
        url.get_backend_name() == "sqlite"
        and url.database not in (None, "", ":memory:")
        and ("mode=memory" not in str(url.query))
    )


class WalCheckpointer:
    """Checkpoints one SQLite database file from a daemon thread (the module docstring says why)."""

    def __init__(self, engine: Engine, interval: float, *, truncate_frames: int = TRUNCATE_FRAMES) -> None:
        if not is_file_sqlite(engine):
            raise ValueError(
                f"background checkpoints need a SQLite database file, not {engine.url.drivername}"
            )
        if interval <= 0:
            raise ValueError(f"the checkpoint interval must be above 0 seconds, got {interval}")
        self._engine = engine
        self._interval = interval
        self._truncate_frames = truncate_frames
        self._stop = threading.Event()
        self._thread: threading.Thread | None = None
        self._failing = False
        self.rounds = 0
        """Checkpoint rounds run so far (each a PASSIVE pass, sometimes followed by a TRUNCATE)."""
        self.rewinds = 0
        """Times the log was started over by a writer after a quick pass (writers never held back)."""
        self.forced = 0
        """Times the log was emptied by a TRUNCATE checkpoint (writers held back meanwhile)."""

    def start(self) -> None:
        """Turn the connections' own checkpoints off and start the thread."""
        sa.event.listen(self._engine, "connect", _no_automatic_checkpoints)
        self._engine.dispose()  # pooled connections were made before the listener: make them anew
        self._thread = threading.Thread(target=self._run, name="roomsync-wal-checkpoints", daemon=True)
        self._thread.start()

    def stop(self) -> None:
        """Stop the thread (SQLite checkpoints once more when the last connection closes)."""
        self._stop.set()
        if self._thread is not None:
            self._thread.join(timeout=10)
            self._thread = None
        if sa.event.contains(self._engine, "connect", _no_automatic_checkpoints):
            sa.event.remove(self._engine, "connect", _no_automatic_checkpoints)

    def _run(self) -> None:
        database = self._engine.url.database
        assert database is not None
        connection = sqlite3.connect(
            database, isolation_level=None, check_same_thread=False, uri=database.startswith("file:")
        )
        try:
            connection.execute(f"PRAGMA busy_timeout = {BUSY_TIMEOUT_MS}")
            while not self._stop.wait(self._interval):
                self._round(connection)
        finally:
            connection.close()

    def _round(self, connection: sqlite3.Connection) -> None:
        started = time.perf_counter()
        try:
            log_frames = _checkpoint(connection, "PASSIVE")
            if log_frames >= self._truncate_frames:
                log_frames = self._rewind(connection, log_frames)
            if log_frames >= FORCE_FACTOR * self._truncate_frames:
                busy = connection.execute("PRAGMA wal_checkpoint(TRUNCATE)").fetchall()[0][0]
                self.forced += 0 if busy else 1
        except sqlite3.Error as error:
            if not self._failing:
                log.warning("checkpointing the SQLite log failed (%s); retried every round", error)
            self._failing = True
            return
        if self._failing:
            log.info("checkpointing the SQLite log recovered")
            self._failing = False
        self.rounds += 1
        took = time.perf_counter() - started
        if took > 1.0:
            log.warning("a checkpoint of the SQLite log took %.1f s (a slow disk)", took)

    def _rewind(self, connection: sqlite3.Connection, log_frames: int) -> int:
        """Let a writer rewind the log without holding writers back: SQLite starts the log over
        when a write begins while every page of it is in the database file. Each quick passive
        pass copies what was appended during the last, until one ends between two commits."""
        for _ in range(REWIND_PASSES):
            self._stop.wait(REWIND_PAUSE_SECONDS)  # a writer may begin, and rewind
            now = _checkpoint(connection, "PASSIVE")
            if now < log_frames:
                self.rewinds += 1
                return now
            log_frames = now
        return log_frames


def _checkpoint(connection: sqlite3.Connection, mode: str) -> int:
    """Run a checkpoint; returns the pages in the log."""
    _busy, log_frames, _copied = connection.execute(f"PRAGMA wal_checkpoint({mode})").fetchall()[0]
    return int(log_frames)


def _no_automatic_checkpoints(dbapi_connection: sqlite3.Connection, _record: ConnectionPoolEntry) -> None:
    dbapi_connection.execute("PRAGMA wal_autocheckpoint = 0").close()
