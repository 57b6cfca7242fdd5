"""A stale property converges while the service fails: 500s, 502s, dropped connections, slow
answers and 429s, injected by the emulator over real loopback HTTP.

Reads are safe to repeat, so the client retries them on 500/502/504 as on 503; what a sync read
before it stopped (PMS prices, channel calendars, pushes confirmed) is kept, so the next sync
continues instead of starting over. The cost is judged against a fault-free run of the same stale
property: faulted requests may cost at most 1.5 x the fault-free run plus the attempts that failed.

The 30 % cases run the client's default retry count (the ``max_retries`` setting, 4), as a daemon
does; the other cases here keep the suite's fast policy (2 retries). With 2 retries a read gives up
at about 0.3^3 = 2.7 % under 30 % faults, and a cold sync's ~120 price reads then take several
syncs to finish (a sync stops reading prices at the first read that gave up); with 4 it is 0.24 %.
"""

from __future__ import annotations

import dataclasses
import math
from collections.abc import AsyncIterator
from datetime import timedelta
from pathlib import Path
from typing import Any

import pytest
from sync_harness import (
    HORIZON,
    NOW,
    Control,
    Emulator,
    SyncFactory,
    channel_mismatches,
    connected_mismatches,
    load_demo_mapping,
    settings_for,
)

from roomsync.adapters.client import RetryPolicy, ServiceClient
from roomsync.adapters.client.config import reserves_of
from roomsync.adapters.store import Store, open_store, upgrade_to_head
from roomsync.app.daemon.jobs import service_failed
from roomsync.app.daemon.planning import DayCosts, full_sync_delay, plan_polling
from roomsync.app.daemon.run_costs import RunCosts
from roomsync.app.sync import SyncReport
from roomsync.app.sync.runs.detect import detect_changes
from roomsync.app.sync.runs.estimates import detection_windows
from roomsync.app.sync.runs.full_sync import sync_property
from roomsync.app.sync.runs.poll import poll
from roomsync.app.sync.runs.property_sync import PropertySync, SyncOptions
from roomsync.metrics import Metrics
from roomsync.property_context import PropertyContext

FIRST = NOW.date()
LAST = FIRST.fromordinal(FIRST.toordinal() + HORIZON - 1)


def mismatches(emulator: Emulator, control: Control) -> list[str]:
    return channel_mismatches(emulator.state, control, FIRST, LAST) + connected_mismatches(
        emulator.state, control, FIRST, LAST
    )


def failed_attempts(control: Control) -> int:
    """Attempts that failed, as the emulator's request log counts them: an injected 5xx, a dropped
    connection (logged as status 0), an injected 429, and an answer the client stopped waiting for
    (its read timeout: logged as 499, the client closed the connection)."""
    by_status: dict[str, int] = control.call("GET", "/requests", limit=1)["byStatus"]
    failed = {"0", "429", "499", "500", "502", "504"}
    return sum(count for key, count in by_status.items() if key.rsplit(" ", 1)[1] in failed)


MIXED_FAULTS: dict[str, Any] = {
    "errorRate": 0.2,
    "errorStatuses": [500, 502, 504],
    "dropRate": 0.05,
    "slowRate": 0.05,
    "slowMs": 400,
    "throttleNext": 3,
    "throttleRetryAfter": 1,
}
"""30 % faults of every kind at once: 500, 502, 504, drops, answers slower than the read timeout
(``READ_TIMEOUT``), and three 429s asking for a short wait."""
READ_TIMEOUT = 0.25
FAULT_SEED = 7
"""The emulator's fault draws are seeded, so a case fails the same requests whatever ran before it
(the engine's concurrent reads can still swap a few draws)."""


@pytest.fixture
async def make_default_sync(
    emulator: Emulator, tmp_path: Path, property_id: str
) -> AsyncIterator[SyncFactory]:
    """Like ``make_sync``, but the client retries as many times as the settings say (the
    ``max_retries`` default, 4, unless given), with the suite's short waits."""
    clients: list[ServiceClient] = []

    def make(store: Store, metrics: Metrics | None = None, **settings: Any) -> PropertySync:
        chosen = PropertyContext.of(settings_for(emulator.url, tmp_path, property_id=property_id, **settings))
        retry = dataclasses.replace(
            RetryPolicy(backoff_base=0.001, backoff_max=0.01, max_wait=2.0, settle=0.0),
            max_retries=chosen.settings.max_retries,
        )
        client = ServiceClient(
            chosen, budget_store=store.budget, token_store=store.tokens, retry=retry, clock=lambda: NOW
        )
        clients.append(client)
        return PropertySync.of(
            chosen, store, client, metrics=metrics, clock=lambda: NOW, options=SyncOptions(concurrency=4)
        )

    yield make
    for client in clients:
        await client.aclose()


async def sync_until_converged(
    emulator: Emulator,
    control: Control,
    make_sync: SyncFactory,
    tmp_path: Path,
    name: str,
    tries: int,
    **settings: Any,
) -> tuple[int, list[SyncReport]]:
    url = f"sqlite:///{tmp_path / f'{name}.db'}"
    upgrade_to_head(url)
    reports: list[SyncReport] = []
    with open_store(url) as store:
        sync = make_sync(store, **settings)
        load_demo_mapping(store, sync.settings, emulator.state)
        for attempt in range(1, tries + 1):
            reports.append(await sync_property(make_sync(store, **settings)))  # a fresh process each
            if not mismatches(emulator, control):
                return attempt, reports
    return 0, reports


async def test_a_stale_property_converges_within_four_syncs_under_20_percent_500s_and_5_percent_drops(
    emulator: Emulator, control: Control, make_sync: SyncFactory, tmp_path: Path
) -> None:
    syncs, _ = await sync_until_converged(emulator, control, make_sync, tmp_path, "clean", 1)
    assert syncs == 1, "the fault-free reference run did not converge in one sync"
    fault_free = control.total()

    control.reset(NOW)
    control.call("POST", "/faults", {"errorRate": 0.20, "errorStatuses": [500], "dropRate": 0.05})
    syncs, reports = await sync_until_converged(emulator, control, make_sync, tmp_path, "faulty", 4)
    summary = [(r.result, r.error) for r in reports]
    assert syncs, f"not converged after 4 syncs: {summary}; still {mismatches(emulator, control)[:3]}"
    spent, failed = control.total(), failed_attempts(control)
    print(f"converged in {syncs} syncs: {spent} requests, {failed} failed; fault-free {fault_free}")
    assert failed > 0, "no fault was injected"
    assert spent <= 1.5 * fault_free + failed, (spent, fault_free, failed)


async def test_mixed_faults_converge_within_four_syncs_at_a_bounded_cost(
    emulator: Emulator, control: Control, make_default_sync: SyncFactory, tmp_path: Path
) -> None:
    """30 % faults of every kind at once: the property converges within the 20 % case's four full
    syncs, spending at most 1.5 x the fault-free run of the same scenario (same read timeout) plus
    the failed attempts, and the day's quota is never exceeded. Four full syncs are 18 h of the
    default schedule (one every ``price_check_interval_seconds``, 6 h); the daemon's hour is the
    next test."""
    syncs, _ = await sync_until_converged(
        emulator, control, make_default_sync, tmp_path, "clean", 1, read_timeout=READ_TIMEOUT
    )
    assert syncs == 1, "the fault-free reference run did not converge in one sync"
    fault_free = control.total()

    control.reset(NOW)
    control.call("POST", "/faults", MIXED_FAULTS)
    emulator.state.faults.rng.seed(FAULT_SEED)
    syncs, reports = await sync_until_converged(
        emulator, control, make_default_sync, tmp_path, "mixed", 4, read_timeout=READ_TIMEOUT
    )
    summary = [(r.result, r.error) for r in reports]
    assert syncs, f"not converged after 4 syncs: {summary}; still {mismatches(emulator, control)[:3]}"
    spent, failed = control.total(), failed_attempts(control)
    usage = control.call("GET", "/quota")
    print(
        f"converged in {syncs} syncs: {spent} requests, {failed} failed; fault-free {fault_free}; "
        f"{usage['usedCalls']} of {usage['dailyQuota']} counted"
    )
    assert failed > 0, "no fault was injected"
    assert spent <= 1.5 * fault_free + failed, (spent, fault_free, failed)
    assert usage["usedCalls"] <= usage["dailyQuota"]


HOUR = 3600.0


async def daemon_hour(store: Store, sync: PropertySync) -> list[str]:
    """The runs the default schedule makes in a daemon's first hour, on one engine (one process):
    the full sync at the start (the ``prices`` job; the next one is due 6 h later,
    ``price_check_interval_seconds``, or, after one that failed or stopped short, 5 minutes later
    and then twice as long after each further failure: ``full_sync_delay``), then polls and
    detections at the intervals the daemon's own planner gives (``plan_polling``, replanned after
    every run, the next run due an interval after the last was due:
    ``DaemonRuntime._run_scheduled``). The start's jitter is left out and the learned week is the
    prior (a new database). What ran, in order."""
    settings, gate = sync.settings, sync.client.gate
    mapping = store.mappings.load_mapping(sync.property_id)
    listings = len(mapping.listings) if mapping else 0
    costs = RunCosts()
    failures = 0

    async def full_sync() -> str:
        nonlocal failures
        report = await sync_property(sync)
        costs.full_sync = max(report.requests, 1)
        failures = failures + 1 if service_failed(report) else 0
        return f"sync {report.result}"

    def next_full_sync(at: float) -> float:
        return at + full_sync_delay(settings, quota=gate.quota, last_cost=costs.full_sync, failures=failures)

    ran = [await full_sync()]
    costs.check_windows = len(await detection_windows(sync))

    def plan(at: float) -> tuple[float, float]:
        made = plan_polling(
            settings,
            gate.snapshot(),
            reserves_of(settings),
            resets_at=gate.resets_at(),
            now=NOW + timedelta(seconds=at),
            costs=DayCosts(listings, poll_cost=costs.poll_cost, detect_cost=costs.detect_cost),
        )
        return made.interval, made.detect_interval

    poll_every, detect_every = plan(0.0)
    due = {"poll": poll_every, "detect": detect_every, "sync": next_full_sync(0.0)}
    while True:
        kind = min(due, key=due.__getitem__)
        if due[kind] > HOUR:
            return ran
        if kind == "sync":
            ran.append(await full_sync())
            due["sync"] = next_full_sync(due["sync"])
            continue
        if kind == "poll":
            report = await poll(sync)
            costs.poll_seen(report.requests)
        else:
            windows = costs.check_windows
            report = await detect_changes(sync)
            costs.detection_seen(report.requests, windows)
            costs.check_windows = len(await detection_windows(sync))
        ran.append(f"{kind} {report.result}")
        poll_every, detect_every = plan(due[kind])
        every = poll_every if kind == "poll" else detect_every
        due[kind] = due[kind] + every if math.isfinite(every) else math.inf


@pytest.mark.slow
async def test_a_cold_property_converges_within_one_daemon_hour_under_30_percent_faults(
    emulator: Emulator, control: Control, make_default_sync: SyncFactory, tmp_path: Path
) -> None:
    """Issue 12, item 5: "within 1 daemon hour under 30 % faults, with requests spent within 1.5x
    of the fault-free run plus the failed attempts". The hour is the default schedule's own (see
    ``daemon_hour``): ONE full sync, then the polls and detections planned for the demo hotel's
    1,500-request day (the plan depends on the hour of the day; about 12 polls and 13 detections
    when measured), so the bound is one full sync and about 25 cheap runs, not the four full syncs
    above (those are 18 h of the default schedule). Three fault seeds, each a different 30 % of
    the requests failing: every one must converge."""
    url = f"sqlite:///{tmp_path / 'clean.db'}"
    upgrade_to_head(url)
    with open_store(url) as store:
        sync = make_default_sync(store, read_timeout=READ_TIMEOUT)
        load_demo_mapping(store, sync.settings, emulator.state)
        clean_runs = await daemon_hour(store, sync)
    assert not mismatches(emulator, control), "the fault-free hour did not converge"
    fault_free = control.total()

    outcomes = []
    for seed in (4, 5, 6):
        control.reset(NOW)
        control.call("POST", "/faults", MIXED_FAULTS)
        emulator.state.faults.rng.seed(seed)
        url = f"sqlite:///{tmp_path / f'seed-{seed}.db'}"
        upgrade_to_head(url)
        with open_store(url) as store:
            sync = make_default_sync(store, read_timeout=READ_TIMEOUT)
            load_demo_mapping(store, sync.settings, emulator.state)
            runs = await daemon_hour(store, sync)
        left = mismatches(emulator, control)
        spent, failed = control.total(), failed_attempts(control)
        within = spent <= 1.5 * fault_free + failed
        outcomes.append(
            (
                not left and within,
                f"seed {seed}: {len(left)} nights and prices differ after {len(runs)} runs "
                f"({', '.join(runs[:3])}, ...); {spent} requests, {failed} failed, fault-free hour "
                f"{fault_free} ({len(clean_runs)} runs): {'within' if within else 'over'} the bound",
            )
        )
    assert all(ok for ok, _ in outcomes), "\n".join(text for _, text in outcomes)
