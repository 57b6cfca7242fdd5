"""`roomsync serve` as a process: what stops it from starting (one line; exit 2 for a settings
mistake, else 1), and its signals."""

from __future__ import annotations

import signal
import socket
import subprocess
from collections.abc import Iterator
from pathlib import Path

import psycopg
import pytest
from daemon_harness import (
    ROOMSYNC,
    Emulator,
    daemon_env,
    emulator_at_start_of_today,
    free_port,
    start_daemon,
    wait_until,
)

from support.postgres import scratch_postgres_database


@pytest.fixture(scope="module")
def emulator() -> Iterator[Emulator]:
    with emulator_at_start_of_today() as running:
        yield running


def serve(env: dict[str, str], *args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run([*ROOMSYNC, "serve", *args], env=env, capture_output=True, text=True, timeout=60)


def last_line(result: subprocess.CompletedProcess[str]) -> str:
    assert "Traceback" not in result.stderr, result.stderr
    return result.stderr.strip().splitlines()[-1]


def test_pending_migrations_are_refused_with_the_command_to_run(emulator: Emulator, tmp_path: Path) -> None:
    result = serve(daemon_env(emulator.url, tmp_path / "data", free_port()))
    assert result.returncode == 1
    line = last_line(result)
    assert line.startswith("roomsync: ") and "roomsync db upgrade" in line and "--migrate" in line


def test_refused_credentials_are_named(emulator: Emulator, tmp_path: Path) -> None:
    env = daemon_env(emulator.url, tmp_path / "data", free_port(), password="not-the-password")
    result = serve(env, "--migrate")
    assert result.returncode == 1
    line = last_line(result)
    assert "refused the credentials of user 'demo'" in line and "not-the-password" not in result.stderr


def test_a_wrong_password_is_refused_even_while_a_stored_token_is_valid(
    emulator: Emulator, tmp_path: Path
) -> None:
    env = daemon_env(emulator.url, tmp_path / "data", free_port())
    upgraded = subprocess.run([*ROOMSYNC, "db", "upgrade"], env=env, capture_output=True, timeout=60)
    assert upgraded.returncode == 0
    stored = subprocess.run(
        [*ROOMSYNC, "mappings", "suggest", "-o", str(tmp_path / "m.toml")],
        env=env,
        capture_output=True,
        text=True,
        timeout=60,
    )
    assert stored.returncode == 0, stored.stderr  # a valid token is now in the database
    env["ROOMSYNC_PASSWORD"] = "changed-since"
    try:
        result = serve(env)
    except subprocess.TimeoutExpired:
        pytest.fail("roomsync serve started with a wrong password because a stored token was still valid")
    assert result.returncode == 1
    line = last_line(result)
    assert "refused the credentials of user 'demo'" in line and "changed-since" not in result.stderr


def test_missing_credentials_and_mapping_are_named(emulator: Emulator, tmp_path: Path) -> None:
    env = daemon_env(emulator.url, tmp_path / "data", free_port())
    del env["ROOMSYNC_USERNAME"]
    result = serve(env, "--migrate")
    assert result.returncode == 2 and "username" in last_line(result)  # a settings mistake
    env = daemon_env(emulator.url, tmp_path / "data", free_port())
    del env["ROOMSYNC_MAPPING_FILE"]
    result = serve(env, "--migrate")
    assert result.returncode == 1 and "roomsync mappings load" in last_line(result)


def test_an_unreachable_service_and_a_busy_port_are_named(emulator: Emulator, tmp_path: Path) -> None:
    env = daemon_env(f"http://127.0.0.1:{free_port()}", tmp_path / "data", free_port(), max_retries="0")
    result = serve(env, "--migrate")
    assert result.returncode == 1 and "cannot reach the service" in last_line(result)
    with socket.socket() as taken:
        taken.bind(("127.0.0.1", 0))
        taken.listen(1)
        port = taken.getsockname()[1]
        result = serve(daemon_env(emulator.url, tmp_path / "data", port), "--migrate")
    assert result.returncode == 1 and f"cannot listen on 127.0.0.1:{port}" in last_line(result)


def test_one_daemon_per_property_and_data_directory(emulator: Emulator, tmp_path: Path) -> None:
    env = daemon_env(emulator.url, tmp_path / "data", free_port(), schedule_jitter_seconds="3600")
    first = start_daemon(env, tmp_path / "first.log", "--migrate")
    try:
        second = serve({**env, "ROOMSYNC_SERVE_PORT": str(free_port())})
        assert second.returncode == 1
        assert "already runs on this database" in last_line(second)
        assert "SQLite serves one replica" in last_line(second)
        assert first.url in last_line(second)
    finally:
        assert first.stop() == 0


def test_a_second_replica_on_one_sqlite_file_is_refused_whatever_its_data_directory(
    emulator: Emulator, tmp_path: Path
) -> None:
    """The guard is keyed on the database file, not on data_dir: a second ``serve`` with a data
    directory of its own, reaching the same file by another path (a symbolic link), is refused in
    one line naming the file; the CLI of the second directory finds the running daemon too."""
    shared = tmp_path / "shared"
    shared.mkdir()
    (tmp_path / "alias").symlink_to(shared, target_is_directory=True)
    database = shared / "roomsync.db"
    first_env = daemon_env(
        emulator.url,
        tmp_path / "data-1",
        free_port(),
        database_url=f"sqlite:///{database}",
        schedule_jitter_seconds="3600",
    )
    first = start_daemon(first_env, tmp_path / "first.log", "--migrate")
    try:
        second_env = daemon_env(
            emulator.url,
            tmp_path / "data-2",
            free_port(),
            database_url=f"sqlite:///{tmp_path / 'alias' / 'roomsync.db'}",
        )
        try:
            second = serve(second_env)
        except subprocess.TimeoutExpired:
            pytest.fail("a second roomsync serve on the same SQLite file started (its data_dir differs)")
        assert second.returncode == 1
        lines = second.stderr.strip().splitlines()
        assert len(lines) == 1, second.stderr
        assert lines[0].startswith("roomsync: ") and "Traceback" not in second.stderr
        assert f"already runs on this database ({database})" in lines[0]
        assert "SQLite serves one replica" in lines[0] and first.url in lines[0]
        assert not (tmp_path / "data-2" / "roomsync.db").exists()
        shown = subprocess.run(
            [*ROOMSYNC, "status"], env=second_env, capture_output=True, text=True, timeout=60
        )
        assert shown.returncode == 0, shown.stderr
        assert "daemon running" in shown.stdout
    finally:
        assert first.stop() == 0
    assert not list((tmp_path / "data-1").glob("serve-*.lock"))  # the lock lies next to the file
    (lock,) = shared.glob("serve-*.lock")
    assert not lock.read_text()  # released: the next start is not refused


def test_a_second_signal_exits_at_once(emulator: Emulator, tmp_path: Path) -> None:
    env = daemon_env(emulator.url, tmp_path / "data", free_port(), schedule_jitter_seconds="0")
    # every answer of the service takes a second: the first full sync is in flight for minutes
    emulator.post("/faults", {"latencyMs": 1000})
    try:
        daemon = start_daemon(env, tmp_path / "daemon.log", "--migrate")
        daemon.process.send_signal(signal.SIGTERM)
        wait_until(lambda: "waiting up to" in daemon.log(), 10, "the graceful stop to begin")
        assert daemon.process.poll() is None  # the sync in flight is let finish...
        daemon.process.send_signal(signal.SIGTERM)
        code = daemon.process.wait(5)  # ...unless the operator insists
    finally:
        emulator.control.delete("/faults")
    daemon.kill()
    assert code == 128 + signal.SIGTERM
    assert "exiting at once" in daemon.log()


@pytest.mark.postgres
def test_serving_on_postgres(emulator: Emulator, tmp_path: Path) -> None:
    """config/run-with-postgres.md: the same daemon on a PostgreSQL database (a scratch one)."""
    with scratch_postgres_database("roomsync_daemon") as url:
        env = daemon_env(emulator.url, tmp_path / "data", free_port(), database_url=url, time_scale="0.01")
        daemon = start_daemon(env, tmp_path / "daemon.log", "--migrate")
        try:
            wait_until(lambda: daemon.job("prices")["last_result"] == "ok", 60, "the first full sync")
            wait_until(lambda: daemon.job("poll")["last_result"] == "ok", 30, "a poll")
            assert daemon.http.get(f"{daemon.url}/readyz").json()["checks"]["database"] == "ok"
        finally:
            assert daemon.stop() == 0, daemon.log()[-2000:]
        assert not (tmp_path / "data" / "roomsync.db").exists()
        with psycopg.connect(url.replace("postgresql+psycopg://", "postgresql://")) as db:
            kinds = dict(db.execute("SELECT kind, count(*) FROM sync_run GROUP BY kind").fetchall())
            running = db.execute("SELECT count(*) FROM sync_run WHERE result IS NULL").fetchone()
        assert kinds["sync"] >= 1 and kinds["poll"] >= 1
        assert running == (0,)


def test_guest_check_answers_are_written_when_the_daemon_stops(emulator: Emulator, tmp_path: Path) -> None:
    """The receiver gathers answers for a quarter second before writing them; mounted in the
    daemon it has no lifespan of its own, so the daemon's stop writes what is still waiting."""
    import json
    import sqlite3
    import time
    from datetime import UTC, datetime, timedelta

    from daemon_harness import WEBHOOK_SECRET

    from roomsync.core.webhook_signature import SIGNATURE_HEADER, sign

    env = daemon_env(emulator.url, tmp_path / "data", free_port(), schedule_jitter_seconds="3600")
    daemon = start_daemon(env, tmp_path / "daemon.log", "--migrate")
    soon = datetime.now(UTC).date() + timedelta(days=10)
    try:
        body = json.dumps(
            {"action": "CheckAvailability", "startDate": str(soon), "nights": "2", "listingId": "99999999"}
        ).encode()
        headers = {SIGNATURE_HEADER: sign(WEBHOOK_SECRET, int(time.time()), body), "X-Webhook-Id": "stop-1"}
        answer = daemon.http.post(f"{daemon.url}/webhooks/RentalChannel", content=body, headers=headers)
        assert answer.status_code == 200 and answer.json()["succeed"] is False
    finally:
        assert daemon.stop() == 0, daemon.log()[-2000:]
    with sqlite3.connect(tmp_path / "data" / "roomsync.db") as db:
        rows = db.execute("SELECT action, listing_id, succeed, reason FROM checkout_answer").fetchall()
    assert len(rows) == 1
    action, listing, succeed, reason = rows[0]
    assert (action, listing, succeed) == ("CheckAvailability", "99999999", 0)
    assert "not in the mapping" in reason


def test_a_run_left_open_by_a_killed_daemon_is_closed(emulator: Emulator, tmp_path: Path) -> None:
    import sqlite3

    database = tmp_path / "data" / "roomsync.db"

    def open_runs() -> list[tuple[int, str]]:
        if not database.exists():
            return []
        with sqlite3.connect(database) as db:
            return db.execute("SELECT id, kind FROM sync_run WHERE result IS NULL").fetchall()

    env = daemon_env(
        emulator.url, tmp_path / "data", free_port(), schedule_jitter_seconds="0", run_heartbeat_seconds="1"
    )
    emulator.post("/faults", {"latencyMs": 1000})  # the first full sync stays in flight
    try:
        doomed = start_daemon(env, tmp_path / "doomed.log", "--migrate")
        left_open = wait_until(open_runs, 30, "the first sync to start")
        doomed.kill()  # SIGKILL: the run's end is never written
    finally:
        emulator.control.delete("/faults")
    assert open_runs() == left_open

    env = {**env, "ROOMSYNC_SCHEDULE_JITTER_SECONDS": "3600", "ROOMSYNC_SERVE_PORT": str(free_port())}
    successor = start_daemon(env, tmp_path / "successor.log")
    try:
        wait_until(lambda: not open_runs() or None, 30, "the abandoned run to be closed")
    finally:
        assert successor.stop() == 0, successor.log()[-2000:]
    with sqlite3.connect(database) as db:
        closed = db.execute(
            "SELECT result, finished_at IS NOT NULL FROM sync_run WHERE id = ?", (left_open[0][0],)
        ).fetchone()
    assert closed == ("abandoned", 1)
    assert f"closed sync run(s) {left_open[0][0]} as abandoned" in successor.log()


def test_a_restarted_daemon_goes_on_with_the_schedule_the_store_shows(
    emulator: Emulator, tmp_path: Path
) -> None:
    """A restart (a rolling upgrade, a takeover) right after a healthy full sync does not spend
    another: the ledger, closures and prices it left are in the store, so the next full sync comes
    when it is due and the polls go on. A daemon whose last full sync failed syncs at once."""
    import sqlite3

    database = tmp_path / "data" / "roomsync.db"

    def runs(kind: str) -> int:
        with sqlite3.connect(database) as db:
            return int(db.execute("SELECT count(*) FROM sync_run WHERE kind = ?", (kind,)).fetchone()[0])

    env = daemon_env(
        emulator.url, tmp_path / "data", free_port(), time_scale="0.01", schedule_jitter_seconds="0"
    )
    first = start_daemon(env, tmp_path / "first.log", "--migrate")
    try:
        wait_until(lambda: first.job("prices")["last_result"] == "ok", 60, "the first full sync")
    finally:
        assert first.stop() == 0, first.log()[-2000:]
    assert runs("sync") == 1
    polls = runs("poll")

    # a fresh port for each start: the last one's may be another test's outgoing connection's by
    # now (a bind there failed with "Address already in use" in CI, 2026-12-06)
    env = {**env, "ROOMSYNC_SERVE_PORT": str(free_port())}
    again = start_daemon(env, tmp_path / "again.log")
    try:
        wait_until(lambda: runs("poll") > polls or None, 30, "a poll of the restarted daemon")
        assert again.job("prices")["last_result"] == "ok"  # the last full sync, from the store
        assert "the schedule goes on from the store" in again.log()
    finally:
        assert again.stop() == 0, again.log()[-2000:]
    assert runs("sync") == 1  # the full sync is due hours later (price_check_interval_seconds)

    with sqlite3.connect(database) as db:  # the last full sync as if it had failed
        db.execute("UPDATE sync_run SET result = 'failed' WHERE kind = 'sync'")
    third = start_daemon({**env, "ROOMSYNC_SERVE_PORT": str(free_port())}, tmp_path / "third.log")
    try:
        wait_until(lambda: runs("sync") == 2 or None, 60, "a full sync at once")
        assert "first full sync now" in third.log()
    finally:
        assert third.stop() == 0, third.log()[-2000:]
