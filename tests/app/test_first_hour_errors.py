"""A newcomer's first mistakes (issue 23, item 5), as real ``roomsync`` processes: each is one
line on stderr, with the exit status of its kind, and leaves nothing behind.

- the same missing credentials are a settings mistake for every command: exit 2 (README
  "Settings"), from ``sync`` and ``plan`` as from ``serve`` (which said 1), and ``serve`` says
  nothing before that line (alembic's two lines of its schema check came first);
- a command that reads the database, on a database that does not exist, says so and how to
  create it, and creates nothing (``status`` said "is at an empty database" and left an empty
  file behind).
"""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest

ROOMSYNC = [sys.executable, "-m", "roomsync.app.cli"]


def roomsync(env: dict[str, str], *args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run([*ROOMSYNC, *args], env=env, capture_output=True, text=True, timeout=90)


def base_env(tmp_path: Path) -> dict[str, str]:
    """No ROOMSYNC_* of the developer, a HOME and data directory of the test's own."""
    env = {k: v for k, v in os.environ.items() if not k.startswith("ROOMSYNC_")}
    env.pop("XDG_DATA_HOME", None)
    env["HOME"] = str(tmp_path / "home")
    return env


def one_line(result: subprocess.CompletedProcess[str]) -> str:
    assert "Traceback" not in result.stderr, result.stderr
    lines = [line for line in result.stderr.splitlines() if line.strip()]
    assert len(lines) == 1, result.stderr
    assert lines[0].startswith("roomsync: "), lines[0]
    return lines[0]


def test_missing_credentials_exit_2_from_every_command(tmp_path: Path) -> None:
    env = base_env(tmp_path)
    env.update(ROOMSYNC_BASE_URL="http://127.0.0.1:9", ROOMSYNC_SERVE_PORT="9")  # never reached
    made = roomsync(env, "db", "upgrade")
    assert made.returncode == 0, made.stderr

    for command in (["sync"], ["plan"], ["serve"], ["serve", "--migrate"]):
        result = roomsync(env, *command)
        line = one_line(result)
        assert result.returncode == 2, f"roomsync {' '.join(command)}: exit {result.returncode}: {line}"
        assert "username" in line and "password" in line and "domain" in line, line
        assert "api_key" in line, line


@pytest.mark.parametrize("command", [["status"], ["budget"], ["webhooks"], ["db", "status"]])
def test_a_database_that_does_not_exist_is_named_and_not_created(tmp_path: Path, command: list[str]) -> None:
    env = base_env(tmp_path)
    home = Path(env["HOME"])
    home.mkdir()
    database = home / ".local" / "share" / "roomsync" / "roomsync.db"

    result = roomsync(env, *command)

    if command == ["db", "status"]:  # a report, not an error: it says the same on stdout
        assert result.returncode == 0, result.stderr
        said = result.stdout
    else:  # exit 1, as for a database behind the schema (a settings mistake would be 2)
        said = one_line(result)
        assert result.returncode == 1, said
    assert f"sqlite:///{database}" in said
    assert "does not exist" in said and "roomsync db upgrade" in said and "empty database" not in said
    assert list(home.iterdir()) == [], "nothing is created: " + ", ".join(str(p) for p in home.rglob("*"))
