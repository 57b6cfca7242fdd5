"""The ``roomsync serve`` process: startup checks, the socket, uvicorn, and the signals.

SIGTERM or SIGINT starts a graceful stop: uvicorn stops accepting connections and lets requests in
progress finish, then the daemon starts no new run and lets the runs, webhook events and targeted
pushes in flight finish and be recorded (:meth:`Daemon.stop`, bounded by
``shutdown_grace_seconds``); the process then exits 0. A second signal exits at once (status
``128 + signal``), leaving whatever was in flight to the next start: nothing is half-applied on the
channel, because the ledger only records what the channel confirmed.
"""

from __future__ import annotations

import asyncio
import contextlib
import faulthandler
import logging
import os
import signal
import socket
from collections.abc import Iterator
from types import FrameType

import uvicorn

from roomsync.adapters.webhooks import WebhookAuth
from roomsync.app.daemon.app import create_daemon_app
from roomsync.app.daemon.lock import DaemonAlreadyRunning
from roomsync.app.daemon.replica import Replica
from roomsync.app.daemon.startup import StartupError
from roomsync.settings import Settings

log = logging.getLogger("roomsync.daemon")

HANDLED_SIGNALS = (signal.SIGINT, signal.SIGTERM)


def local_url(host: str, port: int) -> str:
    """Where a local client reaches a daemon listening on ``host``."""
    shown = "127.0.0.1" if host in ("0.0.0.0", "", "::") else host
    if ":" in shown:
        shown = f"[{shown}]"
    return f"http://{shown}:{port}"


def bind_socket(host: str, port: int) -> socket.socket:
    family = socket.AF_INET6 if ":" in host else socket.AF_INET
    sock = socket.socket(family, socket.SOCK_STREAM)
    sock.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
    try:
        sock.bind((host, port))
        sock.listen(2048)
    except OSError as error:
        sock.close()
        raise StartupError(f"cannot listen on {host}:{port}: {error.strerror or error}") from None
    sock.set_inheritable(True)
    return sock


class DaemonServer(uvicorn.Server):
    """uvicorn, with roomsync's signal handling: graceful first, immediate second, exit status 0."""

    @contextlib.contextmanager
    def capture_signals(self) -> Iterator[None]:
        previous = {sig: signal.signal(sig, self.handle_exit) for sig in HANDLED_SIGNALS}
        try:
            yield
        finally:
            for sig, handler in previous.items():
                signal.signal(sig, handler)
        # unlike uvicorn's own, the signal is not raised again: a graceful stop exits 0

    def handle_exit(self, sig: int, frame: FrameType | None) -> None:
        if self.should_exit:
            log.warning("second %s: exiting at once", signal.Signals(sig).name)
            logging.shutdown()
            os._exit(128 + sig)
        log.info("%s received: stopping gracefully (send it again to exit at once)", signal.Signals(sig).name)
        self.should_exit = True


async def serve(settings: Settings, host: str, port: int, *, migrate: bool) -> None:
    """Check, bind, serve until a signal; raises ``StartupError`` with one line when it cannot start."""
    url = local_url(host, port)
    sock = bind_socket(host, port)
    replica = Replica(settings)
    try:
        try:
            await replica.open(migrate=migrate, admin_url=url)
        except DaemonAlreadyRunning as error:
            raise StartupError(str(error)) from None
        config = uvicorn.Config(
            create_daemon_app(replica),
            http="h11",
            lifespan="on",
            log_config=None,
            access_log=False,
            timeout_graceful_shutdown=int(settings.shutdown_grace_seconds) or 1,
        )
        server = DaemonServer(config)
        log.info(
            "replica %s listening on %s (webhooks /webhooks/%s/{property}, /metrics, /healthz); %s",
            replica.name,
            url,
            settings.channel_name,
            f"serving property {replica.only_property()}" if replica.single
            else f"{len(replica.contexts)} properties in the database, shared with the other replicas",
        )
        for context in replica.contexts.values():
            receiver_auth = WebhookAuth.from_settings(context.settings)
            strict = receiver_auth.require_signature or receiver_auth.token is not None
            log.log(
                logging.INFO if strict else logging.WARNING,
                "webhook receiver of %s: %s",
                context.property_id,
                receiver_auth.describe(),
            )
        await server.serve(sockets=[sock])
        if server.started is False and not server.should_exit:
            raise StartupError("the server did not start (see the log above)")
    finally:
        sock.close()
        await replica.close()


def run(settings: Settings, host: str, port: int, *, migrate: bool) -> None:
    # SIGUSR1 writes every thread's stack to stderr: how an operator (or a test) finds out why a
    # replica is slow to stop, without stopping it
    faulthandler.register(signal.SIGUSR1, all_threads=True)
    asyncio.run(serve(settings, host, port, migrate=migrate))
