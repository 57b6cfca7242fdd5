"""Where a replica's CPU goes: py-spy samples of a running ``roomsync serve``, split by what the
sampled code was doing and by the run kind it did it for.

Used by ``bench_properties.py --profile``; on its own: ``python benches/cpu_profile.py RAW``
splits a raw file that ``py-spy record --format raw --gil`` wrote.

Only samples that hold the GIL count (``--gil``): a thread waiting on the network or on Postgres
holds none, so the shares are of the Python CPU the process burns, which is what limits how many
properties one replica holds. Each sample is put in the first activity, in the order below, whose
marker appears anywhere on its stack (a gauge refresh that reads the store is "metrics and
gauges", not "store"): the split answers "what would go away if this activity went away".
"""

from __future__ import annotations

import contextlib
import shutil
import subprocess
import sys
from collections import Counter
from collections.abc import Iterator
from pathlib import Path

ACTIVITIES: tuple[tuple[str, tuple[str, ...]], ...] = (
    ("metrics and gauges", ("refresh_gauges", "prometheus_client", "set_listing_gauges", "live_status")),
    ("planning and learning", ("daemon/planner.py", "daemon/planning.py", "learning.py", "freshness.py")),
    ("housekeeping", ("inbox_loop.py", "run_sweep.py", "daemon/lock.py", "daemon/replica.py", "retention")),
    ("webhooks", ("app/webhooks/", "adapters/webhooks/")),
    ("history", ("history_writer.py", "night_history.py")),
    ("store (SQLAlchemy, driver)", ("sqlalchemy/", "psycopg", "sqlite3", "adapters/store/")),
    ("requests (HTTP, JSON, models)", ("httpx/", "httpcore/", "h11/", "adapters/client/", "pydantic")),
    ("the run's own computing (core)", ("roomsync/core/", "app/sync/")),
    ("scheduler and event loop", ("apscheduler/", "asyncio/", "app/daemon/")),
)
RUN_KINDS: tuple[tuple[str, str], ...] = (
    ("full sync", "sync/runs/full_sync.py"),
    ("resync", "sync/runs/resync.py"),
    ("reconcile", "sync/runs/reconcile.py"),
    ("poll", "sync/runs/poll.py"),
    ("detect", "sync/runs/detect.py"),
    ("repush", "sync/runs/repush.py"),
    ("push", "sync/runs/push.py"),
)


@contextlib.contextmanager
def recording(pid: int, seconds: float, raw: Path) -> Iterator[None]:
    """py-spy samples ``pid`` for ``seconds`` while the block runs (it must be on PATH or beside
    this Python: ``pip install py-spy``)."""
    spy = shutil.which("py-spy") or str(Path(sys.executable).with_name("py-spy"))
    if not Path(spy).exists() and shutil.which(spy) is None:
        raise SystemExit("--profile needs py-spy: .venv/bin/pip install py-spy")
    command = [spy, "record", "--pid", str(pid), "--duration", str(round(seconds)), "--rate", "50"]
    command += ["--gil", "--nonblocking", "--format", "raw", "--output", str(raw)]
    process = subprocess.Popen(
        command,
        stdout=subprocess.DEVNULL,
        stderr=subprocess.PIPE,
    )
    try:
        yield
    finally:
        _, err = process.communicate(timeout=seconds + 120)
        if process.returncode != 0 or not raw.exists():
            print(f"py-spy failed ({process.returncode}): {err.decode(errors='replace')[-500:]}")


def first_match(stack: str, table: tuple[tuple[str, tuple[str, ...]], ...]) -> str | None:
    for name, markers in table:
        if any(marker in stack for marker in markers):
            return name
    return None


def split(raw: Path) -> tuple[Counter[str], Counter[str], int]:
    """Samples per activity and per run kind, and the total."""
    activities: Counter[str] = Counter()
    kinds: Counter[str] = Counter()
    total = 0
    for line in raw.read_text(errors="replace").splitlines():
        stack, _, count_text = line.rpartition(" ")
        if not stack or not count_text.isdigit():
            continue
        count = int(count_text)
        total += count
        activities[first_match(stack, ACTIVITIES) or "other"] += count
        kind = next((name for name, marker in RUN_KINDS if marker in stack), "outside any run")
        kinds[kind] += count
    return activities, kinds, total


def report(raw: Path, cpu_seconds: float, runs: dict[str, int]) -> None:
    """Print the split, in CPU seconds (the process's measured CPU shared by the samples)."""
    activities, kinds, total = split(raw)
    if not total:
        print("profile: no samples")
        return
    per_sample = cpu_seconds / total
    print(f"profile: {total} samples holding the GIL, {cpu_seconds:.1f} CPU s")
    for name, count in activities.most_common():
        print(f"  {name:<34} {count / total:6.1%}  {count * per_sample:7.1f} s")
    print("  by the run it was for (CPU per run: the kind's share / its runs in the window):")
    by_table = {"full sync": "sync", "poll": "poll", "detect": "detect", "reconcile": "reconcile"}
    for name, count in kinds.most_common():
        made = runs.get(by_table.get(name, name), 0)
        per_run = f", {count * per_sample / made * 1000:.0f} ms per run ({made} runs)" if made else ""
        print(f"  {name:<34} {count / total:6.1%}  {count * per_sample:7.1f} s{per_run}")


if __name__ == "__main__":
    activities, kinds, total = split(Path(sys.argv[1]))
    for name, count in (activities + Counter()).most_common():
        print(f"{name:<34} {count / max(total, 1):6.1%}")
    for name, count in kinds.most_common():
        print(f"{name:<34} {count / max(total, 1):6.1%}")
