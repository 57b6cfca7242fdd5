"""The server's quota and reset win over the settings everywhere, across processes.

The emulator runs a free licence (100 requests a day) while roomsync's ``daily_quota`` setting
says 1,500, and its day ends at an instant that is not the machine's UTC midnight. After one
command has heard the server (usage headers), later processes that send no request at all
(``roomsync budget``, ``roomsync status``) plan with the server's 100 and its reset, and count the
requests in the budget period that the server's reset delimits.
"""

from __future__ import annotations

import re
from datetime import UTC, datetime, timedelta
from pathlib import Path

from sync_harness import Control, Emulator
from test_sync_cli import cli_env, row_of, run

from roomsync.adapters.store import open_store
from roomsync.core.budget import budget_period


def test_budget_and_status_plan_with_the_servers_quota_and_reset(
    tmp_path: Path, emulator: Emulator, control: Control
) -> None:
    # the server's day ends in 3 h 10 min: not at this machine's next UTC midnight
    wall = datetime.now(UTC)
    midnight = datetime.combine(wall.date(), datetime.min.time(), tzinfo=UTC)
    server_now = midnight + timedelta(hours=20, minutes=50)
    control.call("POST", "/clock", {"now": server_now.isoformat(), "frozen": True})
    control.call("POST", "/quota", {"freeLicence": True, "usedCalls": 40})  # another app spent 40
    server_reset = wall + timedelta(seconds=emulator.state.clock.seconds_to_midnight())
    env = cli_env(tmp_path, emulator)
    assert run(["db", "upgrade"], env).returncode == 0

    suggested = run(["mappings", "suggest", "--currency", "EUR", "-o", str(tmp_path / "m.toml")], env)
    assert suggested.returncode == 0, suggested.stderr
    used = 40 + control.total()

    budget = run(["budget"], env)
    assert budget.returncode == 0, budget.stderr
    caption = " ".join(budget.stdout.split())
    assert f"{used} of 100 used" in caption, budget.stdout
    assert "1500" not in budget.stdout and "1,500" not in budget.stdout
    shown_reset = re.search(r"resets at (\S+)", caption)
    assert shown_reset is not None, budget.stdout
    assert abs((datetime.fromisoformat(shown_reset.group(1)) - server_reset).total_seconds()) <= 60

    status = run(["status"], env)
    assert status.returncode == 0, status.stderr
    shown = " ".join(status.stdout.split())
    assert f"{used} of 100 used" in shown and f"{100 - used} remaining" in shown, status.stdout
    # the schedule a daemon would plan is the free licence's: polls spaced for 100 requests a day
    assert "free licence" in shown or float(row_of(status.stdout, "poll")[1].split()[0]) >= 15, status.stdout

    # once a process has heard the server's reset, every later request is counted in the budget
    # period that reset delimits, not in the machine's UTC day (the very first request of a
    # deployment, sent before anything was heard, is counted by the machine's midnight)
    day, _ = budget_period(wall, server_reset)
    database = f"sqlite:///{tmp_path / 'data' / 'roomsync.db'}"
    with open_store(database) as store:
        before = store.budget.snapshot("demo-hotel", day, 100).used_local
    control.clear_log()
    again = run(["mappings", "suggest", "--currency", "EUR", "-o", str(tmp_path / "m2.toml")], env)
    assert again.returncode == 0, again.stderr
    with open_store(database) as store:
        assert store.budget.snapshot("demo-hotel", day, 100).used_local - before == control.total() > 0
