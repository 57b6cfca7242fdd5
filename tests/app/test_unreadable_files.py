"""A database that is not one, and a mapping file that is not text, are named in one line.

Every command that opens the database, on a file of random bytes, on a roomsync database cut
short, and on a directory in its place; ``mappings load`` on a binary file, a non-UTF-8 file, an
empty file and invalid TOML. Real ``roomsync`` processes: exit 1, one line on stderr naming the
file, no traceback, and the file byte for byte as it was.

The 24 commands of each case are forked from one process that has imported roomsync already
(``support.warm_cli``: each is still a process of its own, with its own environment, stdout,
stderr and exit status, but about 0.1 s instead of 1.2 CPU seconds of start and imports; the 72
fresh processes, four at a time, took 44 to 62 s a case in CI on 2026-11-27, both cores beside
the timed daemon tests), one after the other; the first command of each case also runs as an
ordinary ``python -m roomsync.app.cli`` process and must answer the same way.

The commands that never open the database are left out: ``version``, ``config`` (settings only),
``healthcheck`` (asks the daemon's port), ``emulator`` (serves the sandbox) and ``demo`` (its own
database under data_dir/demo, made afresh at each run: tests/app/sync/test_sync_cli.py).
"""

from __future__ import annotations

import functools
import hashlib
import os
import subprocess
import sys
from collections.abc import Callable
from pathlib import Path

import pytest

from support.warm_cli import WarmCli

ROOMSYNC = [sys.executable, "-m", "roomsync.app.cli"]
COMMANDS = [
    ["status"],
    ["budget"],
    ["db", "status"],
    ["db", "upgrade"],
    ["plan"],
    ["sync"],
    ["resync"],
    ["serve"],
    ["history", "41000001", "2027-06-01"],
    ["listings", "pause", "41000001", "--reason", "x"],
    ["listings", "resume", "41000001"],
    ["mappings", "load", "MAPPING"],
    ["mappings", "suggest"],
    ["properties", "list"],
    ["properties", "show", "hotel-b"],
    ["properties", "add", "hotel-b"],
    ["properties", "change", "hotel-b", "--set", "horizon_days=30"],
    ["properties", "remove", "hotel-b", "--yes"],
    ["properties", "pause", "hotel-b"],
    ["properties", "resume", "hotel-b"],
    ["webhooks"],
    ["webhooks", "show", "1"],
    ["webhooks", "replay", "1"],
    ["webhooks", "resume", "41000001"],
]
Runner = Callable[[list[str], dict[str, str]], subprocess.CompletedProcess[str]]


def env_for(database: Path, directory: Path) -> dict[str, str]:
    env = {k: v for k, v in os.environ.items() if not k.startswith("ROOMSYNC_")}
    env.update(
        ROOMSYNC_USERNAME="demo",
        ROOMSYNC_PASSWORD="demo",
        ROOMSYNC_DOMAIN="demo-hotel",
        ROOMSYNC_BASE_URL="http://127.0.0.1:9",  # never reached: the database is checked first
        ROOMSYNC_DATABASE_URL=f"sqlite:///{database}",
        ROOMSYNC_DATA_DIR=str(directory / "data"),
        XDG_DATA_HOME=str(directory / "xdg"),
    )
    return env


def run(args: list[str], env: dict[str, str]) -> subprocess.CompletedProcess[str]:
    return subprocess.run([*ROOMSYNC, *args], env=env, capture_output=True, text=True, timeout=60)


def fingerprint(path: Path) -> str:
    if path.is_dir():
        return "directory:" + ",".join(sorted(p.name for p in path.iterdir()))
    return hashlib.sha256(path.read_bytes()).hexdigest()


def bad_database_bytes(kind: str, scratch: Path) -> bytes | None:
    """The content of the bad database file of ``kind``; None for a directory in its place."""
    if kind == "garbage":
        return os.urandom(20_000)
    if kind == "truncated":
        scratch.mkdir()
        database = scratch / "roomsync.db"
        made = run(["db", "upgrade"], env_for(database, scratch))
        assert made.returncode == 0, made.stderr
        for suffix in ("-wal", "-shm"):
            Path(f"{database}{suffix}").unlink(missing_ok=True)
        return database.read_bytes()[:6000]
    return None


def check_command(
    command: list[str], directory: Path, content: bytes | None, runner: Runner = run
) -> str | None:
    """Run ``command`` in ``directory`` on its own copy of the bad database: what is wrong, or None."""
    directory.mkdir()
    database = directory / "roomsync.db"
    if content is None:
        database.mkdir()
    else:
        database.write_bytes(content)
    mapping = directory / "mapping.toml"
    mapping.write_text('currency = "EUR"\n')
    before = fingerprint(database)
    args = [str(mapping) if arg == "MAPPING" else arg for arg in command]
    try:
        result = runner(args, env_for(database, directory))
    except subprocess.TimeoutExpired:
        return "did not finish within 60 s"
    lines = [line for line in result.stderr.splitlines() if line.strip()]
    wrong = []
    if result.returncode != 1:
        wrong.append(f"exit {result.returncode}")
    if "Traceback" in result.stderr:
        wrong.append("a traceback")
    if len(lines) != 1:
        wrong.append(f"{len(lines)} stderr lines")
    elif not (lines[0].startswith("roomsync: ") and str(database) in lines[0]):
        wrong.append("the line does not name the file")
    if fingerprint(database) != before:
        wrong.append("the database changed")
    if not wrong:
        return None
    shown = "\n      ".join(lines[-6:]) or "(stderr empty)"
    return f"{', '.join(wrong)}:\n      {shown}"


@pytest.mark.parametrize("kind", ["garbage", "truncated", "directory"])
def test_every_command_names_a_database_that_is_not_one(kind: str, tmp_path: Path, warm_cli: WarmCli) -> None:
    content = bad_database_bytes(kind, tmp_path / "made")
    forked = functools.partial(warm_cli.run, timeout=60)
    results = [
        check_command(command, tmp_path / f"command-{i}", content, forked)
        for i, command in enumerate(COMMANDS)
    ]
    failures = [
        f"roomsync {' '.join(command)}: {wrong}"
        for command, wrong in zip(COMMANDS, results, strict=True)
        if wrong is not None
    ]
    # the first command the ordinary way too: a fresh interpreter answers as the forked ones did
    fresh = check_command(COMMANDS[0], tmp_path / "command-0-fresh", content)
    if fresh is not None:
        failures.append(f"roomsync {' '.join(COMMANDS[0])} (fresh process): {fresh}")
    assert not failures, f"{len(failures)} of {len(COMMANDS)} commands on a {kind} database:\n" + "\n".join(
        failures
    )


@pytest.mark.parametrize(
    ("content", "says"),
    [
        (bytes(range(256)) * 8, "not a TOML text file"),
        ('currency = "EUR"\n# café\n'.encode("latin-1"), "not a TOML text file"),
        (b"", "is empty"),
        (b"currency = \n[[listing]\n", "not valid TOML"),
    ],
    ids=["binary", "latin-1", "empty", "invalid-toml"],
)
def test_mappings_load_names_a_file_that_is_not_a_mapping(content: bytes, says: str, tmp_path: Path) -> None:
    mapping = tmp_path / "mapping.toml"
    mapping.write_bytes(content)
    before = fingerprint(mapping)

    result = run(["mappings", "load", str(mapping)], env_for(tmp_path / "roomsync.db", tmp_path))

    # exit 1: not a mapping file at all (exit 2 is for a TOML mapping with a wrong entry)
    assert result.returncode == 1, result.stderr
    assert "Traceback" not in result.stderr
    lines = [line for line in result.stderr.splitlines() if line.strip()]
    assert len(lines) == 1 and str(mapping) in lines[0] and says in lines[0], result.stderr
    assert fingerprint(mapping) == before
