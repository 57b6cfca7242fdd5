"""A real ``roomsync serve`` process against the emulator served over loopback, for the daemon tests.

The emulator runs in a thread of the test process (so a test can also look at its state); the
daemon is a separate process started with ``python -m roomsync.app.cli serve``. Both talk real
HTTP: the daemon calls the emulator's API, the emulator delivers webhooks to the daemon.
"""

from __future__ import annotations

import contextlib
import ctypes
import os
import signal
import socket
import subprocess
import sys
import time
from collections.abc import Callable, Iterator
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass, field
from datetime import UTC, date, datetime
from datetime import time as day_time
from pathlib import Path
from typing import Any, TypeVar

import httpx

from roomsync.core.api.channel import Availability, InventoryOperation, InventoryUpdate
from roomsync.core.codec import CONTENT_TYPE, PayloadFormat, encode_request
from roomsync.emulator.app import create_app
from roomsync.emulator.clock import EmulatorClock
from roomsync.emulator.scenario import DEMO_MAPPING_TOML, build_state
from roomsync.emulator.server import serve_in_thread
from roomsync.emulator.state import EmulatorState

ROOMSYNC = [sys.executable, "-m", "roomsync.app.cli"]
PASSWORD = "pw-Kq7rV2xLm9"
ADMIN_TOKEN = "adm-Tz4wQ8pNc1"
WEBHOOK_SECRET = "whs-Hb6yR3dJs5"
NO_KEEPALIVE = httpx.Limits(max_keepalive_connections=0)
"""The harness's clients open a connection per request: uvicorn closes a connection idle for 5 s,
and a request written on it as it closes fails with "Server disconnected without sending a
response" (encode/httpx#2487). The harness's calls come seconds apart, and that race failed
test_cli_resync_goes_through_the_daemon once in CI."""

DEMO_MAPPING = DEMO_MAPPING_TOML

T = TypeVar("T")


def free_port() -> int:
    with socket.socket(socket.AF_INET, socket.SOCK_STREAM) as probe:
        probe.bind(("127.0.0.1", 0))
        port: int = probe.getsockname()[1]
        return port


def wait_until(check: Callable[[], T | None], timeout: float, what: str, interval: float = 0.05) -> T:
    """Poll ``check`` until it returns something truthy (the daemon is another process: its state
    can only be observed, not awaited)."""
    deadline = time.monotonic() + timeout
    while True:
        value = check()
        if value:
            return value
        if time.monotonic() > deadline:
            raise AssertionError(f"timed out after {timeout} s waiting for {what}")
        time.sleep(interval)


@dataclass
class Emulator:
    state: EmulatorState
    url: str
    control: httpx.Client

    def post(self, path: str, body: dict[str, Any] | None = None, ok: tuple[int, ...] = (200,)) -> Any:
        response = self.control.post(path, json=body or {})
        assert response.status_code in ok, f"{path}: {response.status_code} {response.text}"
        return response.json()

    def get(self, path: str, **params: Any) -> Any:
        response = self.control.get(path, params=params)
        assert response.status_code == 200, f"{path}: {response.status_code} {response.text}"
        return response.json()

    def host_sets_availability(self, account_id: str, listing_id: str, night: date, available: str) -> None:
        """The host changes one night of a listing on the channel behind roomsync's back: a ``PUT
        Inventory`` through the service's own API, with a token of its own (the control surface
        has no calendar edit). roomsync's ledger does not know: only a read of the channel shows it."""
        update = InventoryUpdate(
            account_id=account_id,
            listing_id=listing_id,
            operations=[
                InventoryOperation(
                    date_from=night, date_to=night, set_available=True, available=Availability(available)
                )
            ],
        )
        with httpx.Client(base_url=self.url, timeout=30, limits=NO_KEEPALIVE) as http:
            credentials = {"username": "demo", "password": PASSWORD, "domain": "demo-hotel"}
            token = http.post("/v1/Token", data={"grant_type": "password", **credentials})
            assert token.status_code == 200, token.text
            answer = http.put(
                f"/v1/ChannelManager/{self.state.channel_name}/Inventory",
                content=encode_request(update, PayloadFormat.JSON),
                headers={
                    "Authorization": f"Bearer {token.json()['access_token']}",
                    "Content-Type": CONTENT_TYPE[PayloadFormat.JSON],
                    "Accept": CONTENT_TYPE[PayloadFormat.JSON],
                },
            )
            assert answer.status_code == 200, answer.text


def domain_emulators(
    states: dict[str, EmulatorState], url: str, cleanup: contextlib.ExitStack
) -> dict[str, Emulator]:
    """One :class:`Emulator` per domain of a multi-domain emulator served at ``url``
    (``roomsync.emulator.domains``), each with its own control client, closed by ``cleanup``."""
    return {
        domain: Emulator(
            state,
            url,
            cleanup.enter_context(
                httpx.Client(base_url=f"{url}/_domains/{domain}/_emulator", timeout=30, limits=NO_KEEPALIVE)
            ),
        )
        for domain, state in states.items()
    }


@contextlib.contextmanager
def emulator_at_start_of_today(*, quota: int | None = None) -> Iterator[Emulator]:
    """The demo hotel with its clock frozen at 00:00:30 UTC of today's (wall clock) date, so the
    emulated day and the daemon's quota day are the same date; a distinctive password."""
    start = datetime.combine(datetime.now(UTC).date(), day_time(0, 0, 30), tzinfo=UTC)
    state = build_state("demo", 7, clock=EmulatorClock(start, frozen=True))
    with (
        serve_in_thread(create_app(state)) as url,
        httpx.Client(base_url=f"{url}/_emulator", timeout=30, limits=NO_KEEPALIVE) as control,
    ):
        emulator = Emulator(state, url, control)
        emulator.post("/auth", {"password": PASSWORD})
        if quota is not None:
            emulator.post("/quota", {"dailyQuota": quota})
        yield emulator


@dataclass
class DaemonProcess:
    process: subprocess.Popen[bytes]
    url: str
    log_path: Path
    data_dir: Path
    http: httpx.Client = field(default_factory=lambda: httpx.Client(timeout=30, limits=NO_KEEPALIVE))
    spawned_at: float = field(default_factory=time.monotonic)

    def admin(self, method: str, path: str, **kwargs: Any) -> httpx.Response:
        headers = {"Authorization": f"Bearer {ADMIN_TOKEN}"}
        return self.http.request(method, f"{self.url}/admin{path}", headers=headers, **kwargs)

    def status(self) -> dict[str, Any]:
        response = self.admin("GET", "/status")
        assert response.status_code == 200, response.text
        data: dict[str, Any] = response.json()
        return data

    def job(self, kind: str) -> dict[str, Any]:
        return next(job for job in self.status()["schedule"]["jobs"] if job["kind"] == kind)

    def metrics_text(self) -> str:
        response = self.http.get(f"{self.url}/metrics")
        assert response.status_code == 200
        return response.text

    def alive(self) -> bool:
        try:
            return httpx.get(f"{self.url}/healthz", timeout=5).status_code == 200
        except httpx.HTTPError:
            return False

    def log(self) -> str:
        return self.log_path.read_text(errors="replace")

    def stop(self, timeout: float = 60) -> int:
        """SIGTERM, then the exit status; a process still running after ``timeout`` has its threads'
        stacks written to its log (SIGUSR1), is killed, and the test fails with the log's tail."""
        self.process.send_signal(signal.SIGTERM)
        try:
            return self.process.wait(timeout)
        except subprocess.TimeoutExpired:
            self.process.send_signal(signal.SIGUSR1)
            time.sleep(2)
            self.process.kill()
            self.process.wait(10)
            raise AssertionError(
                f"roomsync serve did not exit within {timeout:g} s of SIGTERM; its log ends:\n"
                + self.log()[-12000:]
            ) from None
        finally:
            self.http.close()

    def kill(self) -> None:
        if self.process.poll() is None:
            self.process.kill()
            self.process.wait(10)
        self.http.close()


def daemon_env(emulator_url: str, data_dir: Path, port: int, **settings: str) -> dict[str, str]:
    mapping = data_dir.parent / "mapping.toml"
    mapping.write_text(DEMO_MAPPING)
    env = {k: v for k, v in os.environ.items() if not k.startswith("ROOMSYNC_")}
    env.update(
        ROOMSYNC_BASE_URL=emulator_url,
        ROOMSYNC_USERNAME="demo",
        ROOMSYNC_PASSWORD=PASSWORD,
        ROOMSYNC_DOMAIN="demo-hotel",
        ROOMSYNC_DATA_DIR=str(data_dir),
        ROOMSYNC_MAPPING_FILE=str(mapping),
        ROOMSYNC_SERVE_PORT=str(port),
        ROOMSYNC_ADMIN_TOKEN=ADMIN_TOKEN,
        ROOMSYNC_WEBHOOK_SECRET=WEBHOOK_SECRET,
    )
    env.update({f"ROOMSYNC_{name.upper()}": value for name, value in settings.items()})
    return env


PR_SET_PDEATHSIG = 1
_SPAWNER = ThreadPoolExecutor(1, thread_name_prefix="daemon-spawner")
"""Starts every daemon from one thread that lives as long as the test process: the kernel's
parent-death signal follows the thread that forked, and a test may start daemons from a pool
whose threads end."""


def _die_with_the_test_process() -> None:
    # a daemon whose test process was killed (a timeout, an interrupted run) would otherwise go
    # on polling on its compressed clock and load the machine for every later test and CI run
    ctypes.CDLL(None, use_errno=True).prctl(PR_SET_PDEATHSIG, signal.SIGKILL)


def start_daemon(env: dict[str, str], log_path: Path, *args: str) -> DaemonProcess:
    """A ``roomsync serve`` process, once it answers ``/healthz``."""
    daemon = spawn_daemon(env, log_path, *args)
    await_daemon(daemon)
    return daemon


def spawn_daemon(env: dict[str, str], log_path: Path, *args: str) -> DaemonProcess:
    """A ``roomsync serve`` process just started (a test may do something else while it boots,
    then :func:`await_daemon` it)."""
    port = int(env["ROOMSYNC_SERVE_PORT"])
    with open(log_path, "wb") as log_file:
        process = _SPAWNER.submit(
            subprocess.Popen,
            [*ROOMSYNC, "serve", *args],
            env=env,
            stdout=log_file,
            stderr=subprocess.STDOUT,
            preexec_fn=_die_with_the_test_process,
        ).result()
    return DaemonProcess(process, f"http://127.0.0.1:{port}", log_path, Path(env["ROOMSYNC_DATA_DIR"]))


def await_daemon(daemon: DaemonProcess) -> None:
    """Wait until a spawned daemon answers ``/healthz`` (within 60 s of its start); fail if it exited."""
    process = daemon.process
    left = 60 - (time.monotonic() - daemon.spawned_at)
    try:
        wait_until(
            lambda: daemon.alive() or process.poll() is not None, left, "the daemon to answer /healthz"
        )
    except BaseException:
        daemon.kill()
        raise
    if process.poll() is not None:
        raise AssertionError(f"roomsync serve exited with {process.returncode}:\n{daemon.log()}")
