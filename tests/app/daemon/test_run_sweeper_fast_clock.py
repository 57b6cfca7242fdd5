"""The abandoned-run sweeper on a clock that runs faster than real time (a compressed day).

The daemon's runs beat every ``run_heartbeat_seconds * time_scale`` REAL seconds. When its clock
is the emulator's, advanced ``1 / time_scale`` times faster than real time (the benchmarks and
the compressed-day tests), one beat is a whole ``run_heartbeat_seconds`` of that clock; a sweeper
that waited three SCALED intervals of the clock called live runs of another process abandoned
(seen in the week benchmark: runs closed as abandoned while they were working).

Here a replica serves the demo hotel with such a clock, and "another process" keeps a run of the
same property alive through the store (the same calls a second replica makes: start, beat); the
run must stay open while it beats and be closed once it stops beating.
"""

from __future__ import annotations

import asyncio
import random
import time
from datetime import UTC, datetime, timedelta
from pathlib import Path

from pydantic import SecretStr

from roomsync.adapters.store import Store
from roomsync.app.daemon.replica import Replica
from roomsync.emulator.app import create_app
from roomsync.emulator.clock import EmulatorClock
from roomsync.emulator.scenario import DEMO_MAPPING_TOML, build_state
from roomsync.emulator.server import serve_in_thread
from roomsync.settings import Settings

SPEED = 500.0
"""The clock runs this many times faster than real time; ``time_scale`` is its inverse."""


def fast_clock() -> EmulatorClock:
    start_real = time.time()
    start = datetime.combine(datetime.now(UTC).date(), datetime.min.time(), UTC) + timedelta(hours=8)
    return EmulatorClock(start, wall=lambda: start_real + (time.time() - start_real) * SPEED)


async def beat_for(
    store: Store, property_id: str, run_id: int, clock: EmulatorClock, seconds: float, every: float
) -> None:
    """Beat as another process would: on a thread of its own, not on the replica's event loop,
    whose first full sync (365 nights' prices) could hold the loop past three beats (0.2 s
    real) on a loaded machine and make a live run look silent (CI, 2026-11-27)."""

    def beating() -> None:
        deadline = time.monotonic() + seconds
        while time.monotonic() < deadline:
            store.sync_runs.beat_run(property_id, run_id, clock.now())
            time.sleep(every)

    await asyncio.to_thread(beating)


def result_of(store: Store, property_id: str, run_id: int) -> str | None:
    runs = store.sync_runs.recent_runs(property_id, limit=1_000)
    return next(run.result for run in runs if run.id == run_id)


def test_a_live_run_of_another_process_is_not_called_abandoned_on_a_fast_clock(tmp_path: Path) -> None:
    clock = fast_clock()
    state = build_state("demo", 7, clock=clock)
    mapping = tmp_path / "mapping.toml"
    mapping.write_text(DEMO_MAPPING_TOML)
    with serve_in_thread(create_app(state)) as url:
        settings = Settings(
            base_url=url,
            username="demo",
            password=SecretStr("demo"),
            domain="demo-hotel",
            data_dir=tmp_path,
            mapping_file=mapping,
            time_scale=1 / SPEED,
            schedule_jitter_seconds=0,
        )
        beat_real = settings.run_heartbeat_seconds * settings.time_scale  # 0.06 s

        async def scenario() -> tuple[str | None, str | None, list[str | None]]:
            replica = Replica(settings, clock=clock.now, rng=random.Random(7))
            await replica.open(migrate=True)
            daemon = replica.daemons[settings.effective_property_id]
            store, pid = daemon.store, daemon.property_id
            replica.start()
            try:
                # the replica's first full sync (365 nights' prices) holds its event loop, sweeper
                # included, for longer than ten beats on a loaded machine (CI, 2026-11-27): the
                # other process's run starts once that is done, so the beats below time the sweep
                deadline = time.monotonic() + 60
                while daemon.jobs["prices"].last_result is None and time.monotonic() < deadline:
                    await asyncio.sleep(0.01)
                assert daemon.jobs["prices"].last_result is not None, "no first full sync in 60 s"
                other = await asyncio.to_thread(store.sync_runs.start_run, pid, "poll", clock.now())
                # alive for 30 of its beats: about 4 hours of the fast clock
                await beat_for(store, pid, other, clock, 30 * beat_real, beat_real)
                while_beating = await asyncio.to_thread(result_of, store, pid, other)
                await asyncio.sleep(10 * beat_real)  # silent for ten beats
                after_silence = await asyncio.to_thread(result_of, store, pid, other)
                own = [run.result for run in store.sync_runs.recent_runs(pid, limit=1_000) if run.id != other]
            finally:
                await replica.stop()
                await replica.close()
            return while_beating, after_silence, own

        while_beating, after_silence, own = asyncio.run(scenario())
    assert while_beating is None, f"a run that kept beating was closed as {while_beating!r}"
    assert after_silence == "abandoned"
    assert own, "the replica ran nothing in the meantime"
    assert "abandoned" not in own, f"the replica's own runs: {own}"
