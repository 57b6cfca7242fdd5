"""``roomsync properties`` and ``--property``: properties as rows, secrets by reference only.

The commands are ``roomsync`` processes forked from one that has imported roomsync already
(``support.warm_cli``: each a process of its own, with its environment, stdout, stderr and exit
status, without the second of start and imports that was most of the 30 commands' time)."""

from __future__ import annotations

import os
import sqlite3
import subprocess
from collections.abc import Callable
from pathlib import Path

import pytest

from support.warm_cli import WarmCli

Roomsync = Callable[..., subprocess.CompletedProcess[str]]
"""``roomsync(env, *args)``: run ``roomsync ARGS`` with the environment ``env``."""


@pytest.fixture
def roomsync(warm_cli: WarmCli) -> Roomsync:
    def run(env: dict[str, str], *args: str) -> subprocess.CompletedProcess[str]:
        return warm_cli.run(list(args), env, timeout=60)

    return run


@pytest.fixture
def env(tmp_path: Path, roomsync: Roomsync) -> dict[str, str]:
    env = {k: v for k, v in os.environ.items() if not k.startswith("ROOMSYNC_")}
    env["ROOMSYNC_DATA_DIR"] = str(tmp_path / "data")
    env["ROOMSYNC_DOMAIN"] = "settings-hotel"
    assert roomsync(env, "db", "upgrade").returncode == 0
    return env


def test_properties_are_added_listed_paused_and_removed_with_secrets_by_reference(
    env: dict[str, str], tmp_path: Path, roomsync: Roomsync
) -> None:
    added = roomsync(
        env,
        "properties",
        "add",
        "hotel-a",
        "--set",
        "daily_quota=100",
        "--set",
        "domain=hotel-a",
        "--secret",
        "password=env:HOTEL_A_PASSWORD",
    )
    assert added.returncode == 0, added.stderr
    assert "settings' own property (settings-hotel)" in added.stdout
    assert (
        roomsync(env, "properties", "add", "hotel-b", "--secret", "password=file:/run/secrets/b").returncode
        == 0
    )

    listed = roomsync(env, "properties", "list", "--json")
    assert listed.returncode == 0, listed.stderr
    assert '"hotel-a"' in listed.stdout and '"daily_quota": 100' in listed.stdout
    assert '"env:HOTEL_A_PASSWORD"' in listed.stdout

    # the reference does not resolve: show says so, in one line, naming the variable
    shown = roomsync(env, "properties", "show", "hotel-a")
    assert (
        "usable: no: property hotel-a: secret password refers to the environment variable "
        "HOTEL_A_PASSWORD, which is not set" in shown.stdout
    )
    shown = roomsync({**env, "HOTEL_A_PASSWORD": "s3cr3t-value"}, "properties", "show", "hotel-a")
    assert "usable: yes" in shown.stdout
    assert "s3cr3t-value" not in shown.stdout
    database = Path(env["ROOMSYNC_DATA_DIR"], "roomsync.db")
    with sqlite3.connect(database) as db:
        stored = " ".join(str(row) for row in db.execute("SELECT * FROM property").fetchall())
    assert "env:HOTEL_A_PASSWORD" in stored and "s3cr3t" not in stored

    # two properties: a command must be told which
    ambiguous = roomsync(env, "budget")
    assert ambiguous.returncode == 2
    assert ambiguous.stderr.strip() == (
        "roomsync: this deployment has 2 properties; say which with --property (hotel-a, hotel-b)"
    )
    budget = roomsync({**env, "HOTEL_A_PASSWORD": "x"}, "budget", "--property", "hotel-a")
    assert budget.returncode == 0, budget.stderr
    assert "Request budget of hotel-a" in budget.stdout and "100" in budget.stdout
    unknown = roomsync(env, "status", "--property", "nowhere")
    assert unknown.returncode == 2
    assert "no property nowhere in this deployment (it has: hotel-a, hotel-b)" in unknown.stderr

    assert roomsync(env, "properties", "pause", "hotel-b", "--reason", "renovation").returncode == 0
    assert "paused: renovation" in roomsync(env, "properties", "list").stdout
    assert roomsync(env, "properties", "resume", "hotel-b").returncode == 0
    assert roomsync(env, "properties", "remove", "hotel-b", "--yes").returncode == 0
    assert "hotel-b" not in roomsync(env, "properties", "list", "--json").stdout


@pytest.mark.parametrize(
    ("args", "message"),
    [
        (["add", "bad id!"], "property id 'bad id!': use 1-63 letters"),
        (["add", "h", "--secret", "password=plain-secret"], "give a reference, env:VARIABLE or file:"),
        (
            ["add", "h", "--set", "password=x"],
            "'password' is a secret: give it with --secret password=env:VAR",
        ),
        (["add", "h", "--set", "daily_quota=-3"], "setting 'daily_quota': Input should be greater than 0"),
        (["add", "h", "--set", "database_url=x"], "'database_url' is not a per-property setting"),
        (["add", "h", "--set", "novalue"], "--set 'novalue': write NAME=VALUE"),
        (["pause", "nobody"], "no property nobody in the deployment"),
    ],
)
def test_bad_property_input_is_refused_in_one_line(
    env: dict[str, str], args: list[str], message: str, roomsync: Roomsync
) -> None:
    refused = roomsync(env, "properties", *args)
    assert refused.returncode == 2, refused.stdout
    assert message in refused.stderr
    assert len(refused.stderr.strip().splitlines()) == 1
    assert "Traceback" not in refused.stderr
