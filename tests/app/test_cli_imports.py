"""The command line imports a command's module only when that command runs.

The client (with every model of the catalog), the sync's runs, the emulator and the daemon take
about a second to import: ``roomsync version`` or ``roomsync db status`` must not wait for them,
and every command must still be found. A fresh interpreter per check (imports are per process).
"""

from __future__ import annotations

import json
import subprocess
import sys

HEAVY = (
    "roomsync.adapters.client.operations",
    "roomsync.core.api.webhooks",
    "roomsync.app.sync.runs.property_sync",
    "roomsync.emulator.app",
    "roomsync.app.daemon.runtime",
)


def modules_loaded_by(code: str) -> set[str]:
    done = subprocess.run(
        [sys.executable, "-c", f"{code}\nimport json, sys; print(json.dumps(sorted(sys.modules)))"],
        capture_output=True,
        text=True,
        timeout=60,
    )
    assert done.returncode == 0, done.stderr
    return set(json.loads(done.stdout.splitlines()[-1]))


def test_the_command_line_loads_no_command_before_it_runs() -> None:
    loaded = modules_loaded_by("import roomsync.app.cli")
    assert [name for name in HEAVY if name in loaded] == []


def test_a_command_that_reads_the_store_does_not_load_the_client_or_the_engine() -> None:
    loaded = modules_loaded_by(
        "from roomsync.app.cli import load_command\n"
        "for name in ('db', 'budget', 'properties', 'status', 'history', 'webhooks'):\n"
        "    load_command(name)"
    )
    assert [name for name in HEAVY if name in loaded] == []


def test_every_command_is_found_and_loads() -> None:
    from roomsync.app.cli import COMMANDS, load_command

    for name in COMMANDS:
        command = load_command(name)
        assert command.name == name
        assert command.help, f"roomsync {name} has no help"
