"""Background checkpoints of a SQLite file: the log stays bounded while writers never stop, the
writers' own checkpoints are off, and nothing written is lost (a real SQLite file, real threads)."""

from __future__ import annotations

import threading
import time
from datetime import UTC, datetime
from pathlib import Path

import pytest

from roomsync.adapters.store import Store, open_store
from roomsync.core.ports import NewDelivery

PROPERTY = "wal-hotel"


def delivery(number: int) -> NewDelivery:
    return NewDelivery(
        property_id=PROPERTY,
        action="ReviewCreated",
        body='{"padding": "' + "x" * 2000 + '"}',  # a few pages per commit, as a real delivery
        content_key=f"key-{number}",
        received_at=datetime(2026, 11, 22, tzinfo=UTC),
        webhook_id=f"id-{number}",
        applied_on_receipt=True,
    )


def write_until(store: Store, stop: threading.Event, written: list[int], pause: float) -> None:
    number = 0
    while not stop.is_set():
        store.inbox.accept_delivery(delivery(number))
        written.append(number)
        number += 1
        if pause:
            time.sleep(pause)


def run_writer(path: Path, pause: float, seconds: float) -> tuple[Store, list[int], int]:
    """Write deliveries for ``seconds`` with a checkpointer at 50 ms rounds and a 1 MiB threshold;
    returns the store, what was written and the largest the log file grew (bytes)."""
    store = open_store(f"sqlite:///{path}", upgrade=True)
    assert store.start_background_checkpoints(0.05)
    assert store.checkpointer is not None
    store.checkpointer._truncate_frames = 256  # 1 MiB: many rounds past it in a short test
    with store.engine.connect() as conn:  # a new pooled connection: SQLite's own checkpoints are off
        assert conn.exec_driver_sql("PRAGMA wal_autocheckpoint").scalar() == 0
    stop = threading.Event()
    written: list[int] = []
    writer = threading.Thread(target=write_until, args=(store, stop, written, pause))
    writer.start()
    largest_log = 0
    deadline = time.monotonic() + seconds
    while time.monotonic() < deadline:
        time.sleep(0.01)
        largest_log = max(largest_log, Path(f"{path}-wal").stat().st_size)
    stop.set()
    writer.join()
    return store, written, largest_log


def stored_count(path: Path) -> int:
    with open_store(f"sqlite:///{path}") as reopened:
        return sum(reopened.inbox.count_by_status(PROPERTY).values())


def test_a_busy_writer_rewinds_the_log_without_being_held_back(tmp_path: Path) -> None:
    """Some 400 commits a second, a busy receiver: quick passes let a writer start the log over."""
    path = tmp_path / "roomsync.db"
    store, written, largest_log = run_writer(path, pause=0.002, seconds=3.0)
    checkpointer = store.checkpointer
    assert checkpointer is not None
    store.close()
    assert len(written) > 300
    assert checkpointer.rounds > 10
    assert checkpointer.rewinds >= 3  # started over again and again, by the writers themselves
    assert checkpointer.rewinds > checkpointer.forced  # mostly without holding writers back
    assert largest_log < 8 * 256 * 4096, largest_log  # bounded: within a few times the threshold
    assert stored_count(path) == len(written)


def test_a_writer_that_never_pauses_gets_its_log_emptied_by_force(tmp_path: Path) -> None:
    """Commits back to back leave no moment to rewind: the TRUNCATE checkpoint empties the log."""
    path = tmp_path / "roomsync.db"
    store, written, _ = run_writer(path, pause=0.0, seconds=2.0)
    checkpointer = store.checkpointer
    assert checkpointer is not None
    assert checkpointer.forced >= 1
    deadline = time.monotonic() + 10  # writes have stopped: a next round empties a log past the force size
    while Path(f"{path}-wal").stat().st_size >= 4 * 256 * 4096 and time.monotonic() < deadline:
        time.sleep(0.02)
    assert Path(f"{path}-wal").stat().st_size < 4 * 256 * 4096
    store.close()
    assert stored_count(path) == len(written)


def test_only_sqlite_files_get_a_checkpoint_thread(tmp_path: Path) -> None:
    with open_store("sqlite://", upgrade=True) as memory:
        assert memory.start_background_checkpoints(1.0) is False
    with open_store(f"sqlite:///{tmp_path / 'off.db'}", upgrade=True) as off:
        assert off.start_background_checkpoints(0) is False
        with off.engine.connect() as conn:
            assert conn.exec_driver_sql("PRAGMA wal_autocheckpoint").scalar() == 1000


@pytest.mark.postgres
def test_postgres_gets_no_checkpoint_thread(postgres_store_url: str) -> None:
    with open_store(postgres_store_url, upgrade=True) as store:
        assert store.start_background_checkpoints(1.0) is False


@pytest.mark.postgres
def test_records_for_people_do_not_wait_for_the_postgres_wal_flush(postgres_store_url: str) -> None:
    """Guest-check records commit with ``synchronous_commit = off``, for their own transaction only."""
    from roomsync.adapters.store._sql import write_tx

    with open_store(postgres_store_url) as store:
        with write_tx(store.engine, wait_for_disk=False) as conn:
            assert conn.exec_driver_sql("SHOW synchronous_commit").scalar() == "off"
        with write_tx(store.engine) as conn:  # the same pooled connection: back to the default
            assert conn.exec_driver_sql("SHOW synchronous_commit").scalar() == "on"
