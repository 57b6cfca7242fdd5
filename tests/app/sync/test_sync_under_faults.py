"""A stale property converges while the service fails: 500s, 502s, dropped connections, slow
answers and 429s, injected by the emulator over real loopback HTTP.

Reads are safe to repeat, so the client retries them on 500/502/504 as on 503; what a sync read
before it stopped (PMS prices, channel calendars, pushes confirmed) is kept, so the next sync
continues instead of starting over. The cost is judged against a fault-free run of the same stale
property: faulted requests may cost at most 1.5 x the fault-free run plus the attempts that failed.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

from sync_harness import (
    HORIZON,
    NOW,
    Control,
    Emulator,
    EngineFactory,
    channel_mismatches,
    connected_mismatches,
    load_demo_mapping,
)

from roomsync.adapters.store import open_store, upgrade_to_head
from roomsync.app.sync import SyncReport

FIRST = NOW.date()
LAST = FIRST.fromordinal(FIRST.toordinal() + HORIZON - 1)


def mismatches(emulator: Emulator, control: Control) -> list[str]:
    return channel_mismatches(emulator.state, control, FIRST, LAST) + connected_mismatches(
        emulator.state, control, FIRST, LAST
    )


def failed_attempts(control: Control) -> int:
    """Requests the emulator answered with an injected 5xx or a dropped connection (status 0)."""
    by_status: dict[str, int] = control.call("GET", "/requests", limit=1)["byStatus"]
    failed = {"0", "500", "502", "504"}
    return sum(count for key, count in by_status.items() if key.rsplit(" ", 1)[1] in failed)


async def sync_until_converged(
    emulator: Emulator,
    control: Control,
    make_engine: EngineFactory,
    tmp_path: Path,
    name: str,
    tries: int,
    **settings: Any,
) -> tuple[int, list[SyncReport]]:
    url = f"sqlite:///{tmp_path / f'{name}.db'}"
    upgrade_to_head(url)
    reports: list[SyncReport] = []
    with open_store(url) as store:
        engine = make_engine(store, **settings)
        load_demo_mapping(store, engine.settings, emulator.state)
        for attempt in range(1, tries + 1):
            reports.append(await make_engine(store, **settings).sync_property())  # a fresh process each
            if not mismatches(emulator, control):
                return attempt, reports
    return 0, reports


async def test_a_stale_property_converges_within_four_syncs_under_20_percent_500s_and_5_percent_drops(
    emulator: Emulator, control: Control, make_engine: EngineFactory, tmp_path: Path
) -> None:
    syncs, _ = await sync_until_converged(emulator, control, make_engine, tmp_path, "clean", 1)
    assert syncs == 1, "the fault-free reference run did not converge in one sync"
    fault_free = control.total()

    control.reset(NOW)
    control.call("POST", "/faults", {"errorRate": 0.20, "errorStatuses": [500], "dropRate": 0.05})
    syncs, reports = await sync_until_converged(emulator, control, make_engine, tmp_path, "faulty", 4)
    summary = [(r.result, r.error) for r in reports]
    assert syncs, f"not converged after 4 syncs: {summary}; still {mismatches(emulator, control)[:3]}"
    spent, failed = control.total(), failed_attempts(control)
    print(f"converged in {syncs} syncs: {spent} requests, {failed} failed; fault-free {fault_free}")
    assert failed > 0, "no fault was injected"
    assert spent <= 1.5 * fault_free + failed, (spent, fault_free, failed)


async def test_mixed_faults_converge_without_exceeding_the_quota(
    emulator: Emulator, control: Control, make_engine: EngineFactory, tmp_path: Path
) -> None:
    """30 % faults of every kind at once (500, 502, 504, drops, 429s asking for a short wait,
    answers slower than the read timeout): the property converges over repeated syncs and the
    day's quota is never exceeded."""
    faults: dict[str, Any] = {
        "errorRate": 0.2,
        "errorStatuses": [500, 502, 504],
        "dropRate": 0.05,
        "slowRate": 0.05,
        "slowMs": 400,
        "throttleNext": 3,
        "throttleRetryAfter": 1,
    }
    control.call("POST", "/quota", {"dailyQuota": 1500, "freeLicence": False, "usedCalls": 0})
    control.call("POST", "/faults", faults)
    syncs, reports = await sync_until_converged(
        emulator, control, make_engine, tmp_path, "mixed", 8, read_timeout=0.25
    )
    assert syncs, f"not converged after 8 syncs: {[(r.result, r.error) for r in reports]}"
    usage = control.call("GET", "/quota")
    print(f"converged in {syncs} syncs, {usage['usedCalls']} of {usage['dailyQuota']} requests used")
    assert usage["usedCalls"] <= usage["dailyQuota"]
