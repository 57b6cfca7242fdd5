"""`roomsync serve` as a process: what stops it from starting (one line, exit 1), and its signals."""

from __future__ import annotations

import signal
import socket
import subprocess
from collections.abc import Iterator
from pathlib import Path

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


def test_missing_credentials_and_mapping_are_named(emulator: Emulator, tmp_path: Path) -> None:
    env = daemon_env(emulator.url, tmp_path / "data", free_port())
    del env["ROOMSYNC_USERNAME"]
    result = serve(env, "--migrate")
    assert result.returncode == 1 and "username" in last_line(result)
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
        assert "already runs for this property" in last_line(second)
        assert first.url in last_line(second)
    finally:
        assert first.stop() == 0


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
    import psycopg
    from psycopg import sql

    name = f"roomsync_daemon_{free_port()}"
    admin_dsn = "host=127.0.0.1 port=5432 user=postgres dbname=test connect_timeout=5"
    with psycopg.connect(admin_dsn, autocommit=True) as admin:
        admin.execute(sql.SQL("CREATE DATABASE {}").format(sql.Identifier(name)))
    try:
        url = f"postgresql+psycopg://postgres@127.0.0.1:5432/{name}"
        env = daemon_env(emulator.url, tmp_path / "data", free_port(), database_url=url, time_scale="0.01")
        daemon = start_daemon(env, tmp_path / "daemon.log", "--migrate")
        try:
            wait_until(lambda: daemon.job("prices")["last_result"] == "ok", 60, "the first full sync")
            wait_until(lambda: daemon.job("poll")["last_result"] == "ok", 30, "a poll")
            assert daemon.http.get(f"{daemon.url}/readyz").json()["checks"]["database"] == "ok"
        finally:
            assert daemon.stop() == 0, daemon.log()[-2000:]
        assert not (tmp_path / "data" / "roomsync.db").exists()
        with psycopg.connect(f"host=127.0.0.1 port=5432 user=postgres dbname={name}") as db:
            kinds = dict(db.execute("SELECT kind, count(*) FROM sync_run GROUP BY kind").fetchall())
            running = db.execute("SELECT count(*) FROM sync_run WHERE result IS NULL").fetchone()
        assert kinds["sync"] >= 1 and kinds["poll"] >= 1
        assert running == (0,)
    finally:
        with psycopg.connect(admin_dsn, autocommit=True) as admin:
            admin.execute(sql.SQL("DROP DATABASE IF EXISTS {} WITH (FORCE)").format(sql.Identifier(name)))
