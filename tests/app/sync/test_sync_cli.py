"""``roomsync demo | mappings | plan | sync | resync | status`` as real processes."""

from __future__ import annotations

import os
import re
import subprocess
import sys
import tomllib
from datetime import timedelta
from pathlib import Path

import pytest
from sync_harness import (
    NOW,
    PASSWORD,
    PUT_INVENTORY,
    READ_INVENTORY,
    USERNAME,
    Control,
    Emulator,
    closure_check_reads,
)

from roomsync.emulator.scenario import DEFAULT_SEED, build_state
from support.warm_cli import WarmCli

ROOMSYNC = [sys.executable, "-m", "roomsync.app.cli"]


def run(args: list[str], env: dict[str, str], timeout: float = 120) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [*ROOMSYNC, *args], env=env, capture_output=True, text=True, timeout=timeout, check=False
    )


def clean_env(tmp_path: Path) -> dict[str, str]:
    env = {k: v for k, v in os.environ.items() if not k.startswith("ROOMSYNC_")}
    env["XDG_DATA_HOME"] = str(tmp_path / "xdg")
    env["COLUMNS"] = "200"
    return env


def row_of(output: str, label: str) -> list[str]:
    """The cells of the table row that starts with ``label``."""
    for line in output.splitlines():
        cells = [cell.strip() for cell in line.replace("┃", "│").split("│")[1:-1]]
        if cells and cells[0] == label:
            return cells
    raise AssertionError(f"no row {label!r} in:\n{output}")


@pytest.mark.slow
def test_demo_gives_the_same_result_every_time_and_says_where_it_writes(tmp_path: Path) -> None:
    """Issue 23: a second run reused the first run's ledger against a fresh emulator (its plan cost
    13 requests instead of 393, and three nights of 2001/41000003 ended different). The demo keeps
    a database of its own under data_dir/demo, made afresh at each run, says so first, and never
    touches the settings' database."""
    env = clean_env(tmp_path)
    settings_database = tmp_path / "settings" / "roomsync.db"
    env["ROOMSYNC_DATABASE_URL"] = f"sqlite:///{settings_database}"
    demo_directory = tmp_path / "xdg" / "roomsync" / "demo"

    first = run(["demo"], env)
    second = run(["demo"], env)

    for demo in (first, second):
        assert demo.returncode == 0, demo.stdout + demo.stderr
        assert demo.stdout.splitlines()[0].startswith(f"roomsync demo writes only to {demo_directory}:")
    # the same result, word for word (only the emulator's free port differs)
    assert same_but_the_port(first.stdout) == same_but_the_port(second.stdout)
    output = second.stdout
    assert "what it cost" in output and "listing 2001/41000003 on the channel" in output
    header = row_of(output, "step")
    plan = dict(zip(header, row_of(output, "plan (reads only)"), strict=True))
    # a cold start, every time (393 until the locating walked closed runs: 2026-12-06)
    assert plan["requests"] == "382" and plan["result"] == "planned"
    quiet = dict(zip(header, row_of(output, "sync, nothing changed"), strict=True))
    # the free rooms and the closure check around the closures of the room types the demo pushes
    # to (1, 2, 4; the suites, 3, are not connected on the channel), nothing else
    hotel = build_state("demo", DEFAULT_SEED)
    today = hotel.clock.today()
    check = closure_check_reads(hotel, {1, 2, 4}, today, today + timedelta(days=364))
    assert quiet["writes"] == "0" and int(quiet["requests"]) == 1 + check and quiet["result"] == "ok"
    changed = dict(zip(header, row_of(output, "sync after the changes"), strict=True))
    assert changed["writes"] == "2" and changed["result"] == "ok"  # the doubles' PUT, one POST Prices
    assert (demo_directory / "roomsync.db").is_file() and (demo_directory / "demo-mapping.toml").is_file()
    assert not settings_database.parent.exists()

    # the last line says how `roomsync status` shows the demo's data: run it as it is written
    shown = output.strip().splitlines()[-1].split("`")[1]
    assert shown.startswith("ROOMSYNC_DATABASE_URL="), shown
    assignment, *command = shown.split()
    name, value = assignment.split("=", 1)
    status = run(command[1:], {**env, name: value})

    assert command[0] == "roomsync" and status.returncode == 0, status.stderr
    for listing in ("2001/41000001", "2001/41000003", "2002/41000004"):
        assert listing in status.stdout
    assert "not connected (Undecided)" in status.stdout
    assert "recent runs" in status.stdout


def same_but_the_port(output: str) -> str:
    return re.sub(r"127\.0\.0\.1:\d+", "127.0.0.1:PORT", output)


def cli_env(tmp_path: Path, emulator: Emulator) -> dict[str, str]:
    env = clean_env(tmp_path)
    env.update(
        ROOMSYNC_BASE_URL=emulator.url,
        ROOMSYNC_USERNAME=USERNAME,
        ROOMSYNC_PASSWORD=PASSWORD,
        ROOMSYNC_DOMAIN="demo-hotel",
        ROOMSYNC_DATA_DIR=str(tmp_path / "data"),
        ROOMSYNC_HORIZON_DAYS="45",
    )
    return env


def test_mappings_plan_sync_resync_status_from_the_command_line(
    tmp_path: Path, emulator: Emulator, control: Control, warm_cli: WarmCli
) -> None:
    """The first command runs the ordinary way, the others are forked from a warm process
    (``support.warm_cli``: each still a process of its own; ten fresh interpreters took about
    30 s of CPU here, beside the timed daemon tests)."""
    env = cli_env(tmp_path, emulator)
    assert run(["db", "upgrade"], env).returncode == 0
    mapping_file = tmp_path / "mapping.toml"

    suggested = warm_cli.run(["mappings", "suggest", "--currency", "EUR", "-o", str(mapping_file)], env)

    assert suggested.returncode == 0, suggested.stderr
    assert control.total() == 3  # the token, GET Listings, GET Rooms
    mapped = {entry["listing_id"]: entry for entry in tomllib.loads(mapping_file.read_text())["listing"]}
    for hint in emulator.state.scenario.hints["listings"]:
        assert mapped[hint["listingId"]]["room_type_id"] == hint["pmsRoomTypeId"]
        if hint["inventory"] == "room-type" and hint["connected"] == "Full":
            assert mapped[hint["listingId"]]["kind"] == "room_type"

    dollars = tmp_path / "dollars.toml"
    dollars.write_text(mapping_file.read_text().replace('"EUR"', '"USD"'))
    refused = warm_cli.run(["mappings", "load", str(dollars)], env)
    assert refused.returncode == 2
    assert "currency USD differs from the PMS currency EUR" in refused.stderr

    loaded = warm_cli.run(["mappings", "load", str(mapping_file)], env)
    assert loaded.returncode == 0, loaded.stderr
    assert "loaded 6 listings" in loaded.stdout

    control.clear_log()
    plan = warm_cli.run(["plan"], env)
    assert plan.returncode == 0, plan.stderr
    assert "would send: 5 write requests" in plan.stdout  # 4 connected listings and one Prices batch
    assert control.counts().get(PUT_INVENTORY, 0) == 0

    sync = warm_cli.run(["sync"], env)
    assert sync.returncode == 0, sync.stderr
    assert control.counts()[PUT_INVENTORY] == 4
    assert "result: ok" in sync.stdout

    first = NOW.date() + timedelta(days=3)
    control.clear_log()
    resync = warm_cli.run(
        [
            "resync",
            "--listing",
            "2001/41000003",
            "--from",
            str(first),
            "--to",
            str(first + timedelta(days=5)),
        ],
        env,
    )
    assert resync.returncode == 0, resync.stderr
    assert control.counts()[READ_INVENTORY] == 1

    bad = warm_cli.run(["resync", "--listing", "41000003"], env)
    assert bad.returncode == 2 and "ACCOUNT/LISTING" in bad.stderr

    status = warm_cli.run(["status"], env)
    assert status.returncode == 0, status.stderr
    assert "resync" in status.stdout and "2001/41000003" in status.stdout and "ok" in status.stdout


def test_sync_without_a_mapping_says_how_to_load_one(tmp_path: Path, emulator: Emulator) -> None:
    env = cli_env(tmp_path, emulator)
    assert run(["db", "upgrade"], env).returncode == 0

    result = run(["sync"], env)

    assert result.returncode == 1
    assert "roomsync mappings load FILE" in result.stderr
