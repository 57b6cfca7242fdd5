"""Bad settings stop the real `roomsync` process with one line naming the setting, exit 2."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest

from roomsync.settings import Settings, SettingsError, load_settings

ROOMSYNC = [sys.executable, "-m", "roomsync.app.cli"]


def run_roomsync(*args: str, env: dict[str, str] | None = None) -> subprocess.CompletedProcess[str]:
    full_env = {k: v for k, v in os.environ.items() if not k.startswith("ROOMSYNC_")}
    full_env.update(env or {})
    return subprocess.run([*ROOMSYNC, *args], capture_output=True, text=True, env=full_env, timeout=60)


@pytest.mark.parametrize(
    ("variable", "value", "must_name"),
    [
        ("ROOMSYNC_PAYLOAD_FORMAT", "yaml", "'json' or 'xml'"),
        ("ROOMSYNC_DAILY_QUOTA", "0", "greater than 0"),
        ("ROOMSYNC_DAILY_QUOTA", "many", "valid integer"),
        ("ROOMSYNC_BASE_URL", "ftp://pms.example", "http://"),
        ("ROOMSYNC_DATABASE_URL", "mysql://x", "postgresql+psycopg://"),
        ("ROOMSYNC_HORIZON_DAYS", "731", "730"),
        ("ROOMSYNC_CHANNEL_NAME", "Rental Channel", "pattern"),
        ("ROOMSYNC_LOG_FORMAT", "xml", "'text' or 'json'"),
    ],
)
def test_bad_environment_value_is_one_line_exit_2(variable: str, value: str, must_name: str) -> None:
    setting = variable.removeprefix("ROOMSYNC_").lower()
    result = run_roomsync("config", env={variable: value})
    assert result.returncode == 2
    lines = result.stderr.strip().splitlines()
    assert len(lines) == 1, result.stderr
    assert setting in lines[0]
    assert must_name in lines[0]
    assert "Traceback" not in result.stderr


def test_unknown_setting_in_toml_names_it(tmp_path: Path) -> None:
    config = tmp_path / "roomsync.toml"
    config.write_text('base_url = "http://127.0.0.1:9"\nquota_per_day = 10\n')
    result = run_roomsync("config", env={"ROOMSYNC_CONFIG": str(config)})
    assert result.returncode == 2
    assert "unknown setting 'quota_per_day'" in result.stderr
    assert len(result.stderr.strip().splitlines()) == 1


def test_broken_toml_and_missing_file_are_named(tmp_path: Path) -> None:
    broken = tmp_path / "broken.toml"
    broken.write_text("base_url = \n")
    result = run_roomsync("config", env={"ROOMSYNC_CONFIG": str(broken)})
    assert result.returncode == 2 and "not valid TOML" in result.stderr
    result = run_roomsync("config", env={"ROOMSYNC_CONFIG": str(tmp_path / "absent.toml")})
    assert result.returncode == 2 and "no such file" in result.stderr


def test_documented_example_config_loads_and_lists_every_setting(monkeypatch: pytest.MonkeyPatch) -> None:
    example = Path(__file__).parents[2] / "config" / "roomsync.toml"
    monkeypatch.setenv("ROOMSYNC_CONFIG", str(example))
    assert isinstance(load_settings(), Settings)
    text = example.read_text()
    missing = [name for name in Settings.model_fields if f"{name} =" not in text]
    assert missing == []


def test_environment_beats_toml(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    config = tmp_path / "roomsync.toml"
    config.write_text('daily_quota = 100\nchannel_name = "Other"\n')
    monkeypatch.setenv("ROOMSYNC_CONFIG", str(config))
    monkeypatch.setenv("ROOMSYNC_DAILY_QUOTA", "1500")
    settings = load_settings()
    assert (settings.daily_quota, settings.channel_name) == (1500, "Other")


def test_reserves_must_be_ordered() -> None:
    with pytest.raises(SettingsError, match="reserve_availability <= reserve_prices"):
        load_settings(reserve_prices=0.5, reserve_reconcile=0.2)


def test_secrets_are_masked_by_roomsync_config() -> None:
    result = run_roomsync(
        "config",
        env={"ROOMSYNC_PASSWORD": "hunter2-secret", "ROOMSYNC_API_KEY": "k3y-secret"},
    )
    assert result.returncode == 0, result.stderr
    assert "hunter2-secret" not in result.stdout + result.stderr
    assert "k3y-secret" not in result.stdout + result.stderr
    assert "password = **********" in result.stdout


def test_repr_of_settings_hides_secrets() -> None:
    settings = load_settings(password="hunter2-secret", webhook_secret="whsec-secret")
    assert "hunter2-secret" not in repr(settings) and "whsec-secret" not in repr(settings)


def test_db_upgrade_then_status_through_the_cli(tmp_path: Path) -> None:
    env = {"ROOMSYNC_DATA_DIR": str(tmp_path / "data")}
    before = run_roomsync("db", "status", env=env)
    assert before.returncode == 0 and "does not exist: create it with `roomsync db upgrade`" in before.stdout
    assert not (tmp_path / "data").exists()  # asking created nothing
    upgraded = run_roomsync("db", "upgrade", env=env)
    assert upgraded.returncode == 0 and "is at revision" in upgraded.stdout
    after = run_roomsync("db", "status", env=env)
    assert "schema is current" in after.stdout


def test_unreachable_database_is_one_line_without_password() -> None:
    url = "postgresql+psycopg://postgres:s3cret-pw@127.0.0.1:1/nothing"
    result = run_roomsync("db", "status", env={"ROOMSYNC_DATABASE_URL": url})
    assert result.returncode == 1
    assert "cannot use the database" in result.stderr and "s3cret-pw" not in result.stderr
    assert len(result.stderr.strip().splitlines()) == 1


def test_budget_shows_what_was_spent_per_priority(tmp_path: Path) -> None:
    from datetime import UTC, datetime

    from roomsync.adapters.store import open_store
    from roomsync.core.budget import Reserves
    from roomsync.core.catalog import Priority

    env = {"ROOMSYNC_DATA_DIR": str(tmp_path / "data"), "ROOMSYNC_DAILY_QUOTA": "100"}
    assert run_roomsync("db", "upgrade", env=env).returncode == 0
    store = open_store(f"sqlite:///{tmp_path / 'data' / 'roomsync.db'}")
    today = datetime.now(UTC).date()
    for _ in range(3):
        assert store.budget.try_spend("default", today, Priority.PRICES, 100, Reserves()) is not None
    store.close()
    result = run_roomsync("budget", env=env)
    assert result.returncode == 0, result.stderr
    prices_line = next(line for line in result.stdout.splitlines() if "prices" in line)
    assert prices_line.split("│")[2].strip() == "3"
    assert "3 of 100 used" in result.stdout
