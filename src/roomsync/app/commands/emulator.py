"""``roomsync emulator``: serve the sandbox of the service as a real server."""

from __future__ import annotations

import typer

from roomsync.app.cli_support import fail
from roomsync.emulator.scenario import DEFAULT_SEED, SCENARIOS
from roomsync.emulator.server import run_emulator


def emulator(
    host: str = typer.Option("127.0.0.1", help="Address to listen on."),
    port: int = typer.Option(8765, min=1, max=65535, help="Port to listen on."),
    seed: int = typer.Option(DEFAULT_SEED, help="Seed of the scenario (same seed, same property)."),
    scenario: str = typer.Option("demo", help=f"Scenario to serve: {', '.join(SCENARIOS)}."),
    channel_name: str = typer.Option("RentalChannel", help="Path segment of the rental channel."),
    domains: int = typer.Option(
        0, min=0, max=2000,
        help="Serve this many properties (hotel-01, ...; user-01 / secret-01) behind one address.",
    ),
) -> None:
    """Serve the emulator of the service (the sandbox the demo and the tests use)."""
    if scenario not in SCENARIOS:
        raise fail(f"--scenario {scenario!r}: allowed values are {', '.join(SCENARIOS)}")
    typer.echo(f"emulator: scenario {scenario}, seed {seed}, on http://{host}:{port} (Ctrl-C stops)")
    try:
        run_emulator(host, port, seed, scenario, channel_name, domains)
    except OSError as error:
        raise fail(f"cannot listen on {host}:{port}: {error.strerror or error}", 1) from None
