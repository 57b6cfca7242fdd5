"""Serving the emulator: ``run_emulator`` for the command line, ``serve_in_thread`` for tests.

``serve_in_thread`` starts uvicorn on a free loopback port in a background thread and yields the
base URL; the tests and benchmarks talk to the emulator over real HTTP through it.
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
import socket
import threading
import time
from collections.abc import Iterator

import uvicorn
from starlette.types import ASGIApp

from roomsync.emulator.app import create_app
from roomsync.emulator.scenario import DEFAULT_SEED, build_state

log = logging.getLogger("roomsync.emulator")

STARTUP_TIMEOUT = 10.0


def run_emulator(
    host: str = "127.0.0.1",
    port: int = 8765,
    seed: int = DEFAULT_SEED,
    scenario: str = "demo",
    channel_name: str = "RentalChannel",
    domains: int = 0,
) -> None:
    """Serve the emulator with ``scenario`` until interrupted (``roomsync emulator``); with
    ``domains`` > 0, that many properties behind one address (``roomsync.emulator.domains``)."""
    app: ASGIApp
    if domains > 0:
        from roomsync.emulator.domains import DomainsApp, build_domains

        app = DomainsApp(build_domains(domains, seed=seed, scenario=scenario))
    else:
        app = create_app(build_state(scenario, seed, channel_name=channel_name))
    log.info("emulator: scenario %s, seed %d, on http://%s:%d", scenario, seed, host, port)
    uvicorn.run(app, host=host, port=port, http="h11", log_level="warning", lifespan="on")


def _free_port(host: str) -> int:
    with socket.socket(socket.AF_INET, socket.SOCK_STREAM) as probe:
        probe.bind((host, 0))
        port: int = probe.getsockname()[1]
        return port


class _ThreadServer(uvicorn.Server):
    def install_signal_handlers(self) -> None:  # the main thread owns the signals
        return None


@contextlib.contextmanager
def serve_in_thread(app: ASGIApp, host: str = "127.0.0.1") -> Iterator[str]:
    """Serve ``app`` on a free loopback port in a background thread; yields ``http://host:port``."""
    port = _free_port(host)
    config = uvicorn.Config(
        app, host=host, port=port, http="h11", log_level="warning", lifespan="on", access_log=False
    )
    server = _ThreadServer(config)
    thread = threading.Thread(target=lambda: asyncio.run(server.serve()), name=f"uvicorn-{port}", daemon=True)
    thread.start()
    deadline = time.monotonic() + STARTUP_TIMEOUT
    while not server.started:  # uvicorn offers a flag, not an event, for "listening"
        if not thread.is_alive() or time.monotonic() > deadline:
            server.should_exit = True
            thread.join(STARTUP_TIMEOUT)
            raise RuntimeError(f"the emulator server on {host}:{port} did not start")
        time.sleep(0.005)
    try:
        yield f"http://{host}:{port}"
    finally:
        server.should_exit = True
        thread.join(STARTUP_TIMEOUT)
