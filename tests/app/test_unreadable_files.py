"""A database that is not one, and a mapping file that is not text, are named in one line.

Every command that opens the database, on a file of random bytes, on a roomsync database cut
short, and on a directory in its place; ``mappings load`` on a binary file, a non-UTF-8 file, an
empty file and invalid TOML. Real ``roomsync`` processes: exit 1, one line on stderr naming the
file, no traceback, and the file byte for byte as it was.
"""

from __future__ import annotations

import hashlib
import os
import subprocess
import sys
from pathlib import Path

import pytest

ROOMSYNC = [sys.executable, "-m", "roomsync.app.cli"]
COMMANDS = [
    ["status"],
    ["budget"],
    ["db", "status"],
    ["db", "upgrade"],
    ["webhooks"],
    ["plan"],
    ["sync"],
    ["serve"],
    ["mappings", "load", "MAPPING"],
]


def env_for(database: Path, tmp_path: Path) -> dict[str, str]:
    env = {k: v for k, v in os.environ.items() if not k.startswith("ROOMSYNC_")}
    env.update(
        ROOMSYNC_USERNAME="demo",
        ROOMSYNC_PASSWORD="demo",
        ROOMSYNC_DOMAIN="demo-hotel",
        ROOMSYNC_BASE_URL="http://127.0.0.1:9",  # never reached: the database is checked first
        ROOMSYNC_DATABASE_URL=f"sqlite:///{database}",
        ROOMSYNC_DATA_DIR=str(tmp_path / "data"),
        XDG_DATA_HOME=str(tmp_path / "xdg"),
    )
    return env


def run(args: list[str], env: dict[str, str]) -> subprocess.CompletedProcess[str]:
    return subprocess.run([*ROOMSYNC, *args], env=env, capture_output=True, text=True, timeout=60)


def fingerprint(path: Path) -> str:
    if path.is_dir():
        return "directory:" + ",".join(sorted(p.name for p in path.iterdir()))
    return hashlib.sha256(path.read_bytes()).hexdigest()


def bad_database(kind: str, tmp_path: Path) -> Path:
    database = tmp_path / "roomsync.db"
    if kind == "garbage":
        database.write_bytes(os.urandom(20_000))
    elif kind == "truncated":
        made = run(["db", "upgrade"], env_for(database, tmp_path))
        assert made.returncode == 0, made.stderr
        for suffix in ("-wal", "-shm"):
            Path(f"{database}{suffix}").unlink(missing_ok=True)
        database.write_bytes(database.read_bytes()[:6000])
    else:
        database.mkdir()
    return database


@pytest.mark.parametrize("kind", ["garbage", "truncated", "directory"])
@pytest.mark.parametrize("command", COMMANDS, ids=lambda c: " ".join(c[:2]))
def test_every_command_names_a_database_that_is_not_one(
    kind: str, command: list[str], tmp_path: Path
) -> None:
    database = bad_database(kind, tmp_path)
    mapping = tmp_path / "mapping.toml"
    mapping.write_text('currency = "EUR"\n')
    before = fingerprint(database)

    result = run([str(mapping) if arg == "MAPPING" else arg for arg in command], env_for(database, tmp_path))

    assert result.returncode == 1, result.stderr
    assert "Traceback" not in result.stderr
    lines = [line for line in result.stderr.splitlines() if line.strip()]
    assert len(lines) == 1, result.stderr
    assert str(database) in lines[0] and lines[0].startswith("roomsync: ")
    assert fingerprint(database) == before


@pytest.mark.parametrize(
    ("content", "says"),
    [
        (bytes(range(256)) * 8, "not a TOML text file"),
        ("currency = \"EUR\"\n# café\n".encode("latin-1"), "not a TOML text file"),
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

    assert result.returncode in (1, 2), result.stderr  # 1: not a mapping file; 2: a mapping with an error
    assert "Traceback" not in result.stderr
    lines = [line for line in result.stderr.splitlines() if line.strip()]
    assert len(lines) == 1 and str(mapping) in lines[0] and says in lines[0], result.stderr
    assert fingerprint(mapping) == before
