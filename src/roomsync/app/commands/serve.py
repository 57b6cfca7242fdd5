"""``roomsync serve``: the daemon (schedule, webhooks, admin API, metrics) in one process."""

from __future__ import annotations

import httpx
import typer

from roomsync.app.cli_support import EXIT_FAILURE, EXIT_USAGE, fail, settings_or_exit
from roomsync.app.daemon.startup import SettingsMistake, StartupError
from roomsync.app.logs import configure_logging


def serve(
    host: str | None = typer.Option(None, help="Address to listen on (default: the serve_host setting)."),
    port: int | None = typer.Option(
        None, min=1, max=65535, help="Port to listen on (default: the serve_port setting)."
    ),
    migrate: bool = typer.Option(
        False, "--migrate", help="Migrate the database to the newest schema first, instead of refusing."
    ),
) -> None:
    """Run the daemon: budget-aware polling, webhooks, admin API, /metrics (SIGTERM stops it).

    One process: availability polling planned against the daily quota, price checks,
    reconciliation and re-pushes on their cadence, the webhook receiver and worker, the admin API
    under /admin, /metrics, /healthz and /readyz."""
    settings = settings_or_exit()
    configure_logging(settings)
    from roomsync.app.daemon.process import run  # the web stack only for this command: the CLI starts fast

    try:
        run(settings, host or settings.serve_host, port or settings.serve_port, migrate=migrate)
    except StartupError as error:  # a settings mistake exits 2, as from every other command
        raise fail(str(error), EXIT_USAGE if isinstance(error, SettingsMistake) else EXIT_FAILURE) from None


def healthcheck(
    port: int | None = typer.Option(None, help="Port of the daemon (default: the serve_port setting)."),
    timeout: float = typer.Option(4.0, min=0.1, help="Seconds to wait for the answer."),
) -> None:
    """Exit 0 when the daemon on this machine answers /healthz, else 1 (a container's HEALTHCHECK)."""
    settings = settings_or_exit()
    url = f"http://127.0.0.1:{port or settings.serve_port}/healthz"
    try:
        answer = httpx.get(url, timeout=timeout)
    except httpx.HTTPError as error:
        raise fail(f"{url}: {type(error).__name__}", EXIT_FAILURE) from None
    if answer.status_code != 200:
        raise fail(f"{url}: answered {answer.status_code}", EXIT_FAILURE)
    typer.echo(f"{url}: alive")
