"""The CLI a script can use: ``--json`` on the commands that print tables, ``--version``,
``listings pause|resume``; real ``roomsync`` processes against the emulator.

``--version`` runs as an ordinary ``python -m roomsync.app.cli`` process; the other commands are
forked from one that has imported roomsync already (``support.warm_cli``: each still a process of
its own, with its environment, stdout, stderr and exit status, without the second of imports
that was most of the 20 commands' time)."""

from __future__ import annotations

import json
from datetime import date, timedelta
from pathlib import Path
from typing import Any

from sync_harness import PASSWORD, PUT_INVENTORY, Control, Emulator
from test_sync_cli import cli_env
from test_sync_cli import run as run_fresh

from roomsync import __version__
from support.warm_cli import WarmCli


def json_of(warm_cli: WarmCli, args: list[str], env: dict[str, str]) -> Any:
    done = warm_cli.run([*args, "--json"], env)
    assert done.returncode == 0, done.stderr
    return json.loads(done.stdout)  # the whole of stdout is one JSON document


def test_every_table_command_answers_json_and_listings_pause_with_a_reason(
    tmp_path: Path, emulator: Emulator, control: Control, warm_cli: WarmCli
) -> None:
    env = cli_env(tmp_path, emulator)
    version = run_fresh(["--version"], env)
    assert version.returncode == 0 and version.stdout.strip() == f"roomsync {__version__}"
    database = json_of(warm_cli, ["db", "status"], env)
    assert database["pending"] and database["revision"] is None
    assert warm_cli.run(["db", "upgrade"], env).returncode == 0
    mapping_file = tmp_path / "mapping.toml"
    assert (
        warm_cli.run(["mappings", "suggest", "--currency", "EUR", "-o", str(mapping_file)], env).returncode
        == 0
    )
    assert warm_cli.run(["mappings", "load", str(mapping_file)], env).returncode == 0

    config = json_of(warm_cli, ["config"], env)
    assert config["password"] == "**********"
    assert [name for name, value in config.items() if value == PASSWORD] == ["username"]  # same word

    plan = json_of(warm_cli, ["plan"], env)
    assert plan["dry_run"] is True and plan["kind"] == "plan"
    assert sum(row["write_requests"] for row in plan["listings"]) == 4  # one PUT per connected listing
    assert {row["status"] for row in plan["listings"]} >= {"planned"}

    sync = json_of(warm_cli, ["sync"], env)
    assert sync["result"] == "ok" and sync["writes"] == 5  # 4 PUTs and one Prices batch
    assert sync["requests_by_operation"]["update_inventory"] == control.counts()[PUT_INVENTORY] == 4

    night = date.fromisoformat(sync["first_night"]) + timedelta(days=3)
    history = warm_cli.run(["history", "41000003", str(night)], env)
    assert history.returncode == 0, history.stderr
    lines = history.stdout.splitlines()
    assert lines[0] == f"2001/41000003 night {night} (property demo-hotel)"
    assert any(line.startswith("available = ") and "started by command line" in line for line in lines)
    assert any(line.strip().startswith("carried by PUT Inventory request 0") for line in lines)
    story = json_of(warm_cli, ["history", "2001/41000003", str(night)], env)
    assert set(story["current"]) == {"available", "count", "price"} and story["timeline"]
    bad_night = warm_cli.run(["history", "41000003", "14th"], env)
    assert bad_night.returncode == 2 and bad_night.stderr.strip() == (
        "roomsync: night '14th': write it as YYYY-MM-DD"
    )

    budget = json_of(warm_cli, ["budget"], env)
    assert budget["used"] >= sync["requests"] and budget["quota"] > budget["remaining"]
    assert {line["priority"] for line in budget["lines"]} >= {1, 2}

    paused = json_of(warm_cli, ["listings", "pause", "41000003", "--reason", "renovation of room 12"], env)
    assert paused["listing"] == "2001/41000003" and paused["was_paused"] is False
    status = json_of(warm_cli, ["status"], env)["status"]
    assert status["property_id"] == "demo-hotel"
    row = next(r for r in status["listings"] if r["listing_id"] == "41000003")
    assert row["state"] == "paused" and "renovation of room 12" in row["reason"]
    again = json_of(warm_cli, ["sync"], env)
    assert next(r for r in again["listings"] if r["listing"] == "2001/41000003")["status"] == "paused"

    resumed = warm_cli.run(["listings", "resume", "2001/41000003"], env)
    assert resumed.returncode == 0, resumed.stderr
    assert "resumed (it was paused: paused by an operator: renovation of room 12)" in resumed.stdout
    row = next(
        r for r in json_of(warm_cli, ["status"], env)["status"]["listings"] if r["listing_id"] == "41000003"
    )
    assert row["state"] != "paused"

    webhooks = json_of(warm_cli, ["webhooks"], env)
    assert set(webhooks) == {"property", "counts", "events", "guest_checks", "dead_letters"}
    assert webhooks["counts"]["pending"] == 0

    resync = json_of(warm_cli, ["resync", "--listing", "2001/41000001"], env)
    assert resync["kind"] == "resync" and resync["listings"][0]["read_channel"] is True


def test_listings_pause_refuses_an_unknown_listing_and_a_missing_reason(
    tmp_path: Path, emulator: Emulator, warm_cli: WarmCli
) -> None:
    env = cli_env(tmp_path, emulator)
    assert warm_cli.run(["db", "upgrade"], env).returncode == 0

    unknown = warm_cli.run(["listings", "pause", "999", "--reason", "x"], env)
    assert unknown.returncode == 2
    assert unknown.stderr.strip() == "roomsync: listing 999 is not in the mapping of property demo-hotel"
    blank = warm_cli.run(["listings", "pause", "999", "--reason", " "], env)
    assert blank.returncode == 2 and "--reason: say why" in blank.stderr
