"""The sweep of abandoned runs: a run whose process died never recorded its end, so it showed as
running; the daemon of its property closes it as abandoned once it has been silent long enough."""

from __future__ import annotations

import asyncio
import logging
from collections.abc import Callable
from datetime import datetime, timedelta

from roomsync.adapters.store import Store
from roomsync.app.daemon import run_kinds
from roomsync.settings import Settings


async def sweep_abandoned_runs(
    runs: run_kinds.Runs,
    store: Store,
    property_id: str,
    settings: Settings,
    clock: Callable[[], datetime],
    log: logging.Logger | logging.LoggerAdapter[logging.Logger],
) -> None:
    """Close as abandoned the runs whose process died (no heartbeat for three intervals),
    every interval from the first one after the start. Their end was never recorded, so they
    showed as running.

    A run beats every ``run_heartbeat_seconds * time_scale`` real seconds, and this loop
    sweeps at the same pace; "three intervals" is three times what the daemon's clock advanced
    during the last one, which holds whether the clock is real or runs faster than real time
    (a compressed emulator's clock, where one real interval is a whole heartbeat of the clock)."""
    beat = settings.run_heartbeat_seconds
    interval = beat * settings.time_scale
    least = timedelta(seconds=interval)
    failing = False
    before = clock()
    while True:
        await asyncio.sleep(interval)
        now = clock()
        silence = 3 * max(now - before, least)
        before = now
        if run_kinds.runs_starting(runs):  # a run's row exists but its id is not known here yet
            continue
        try:
            closed = await asyncio.to_thread(
                store.sync_runs.close_silent_runs,
                property_id,
                now - silence,
                now,
                set(run_kinds.runs_in_flight(runs)),
            )
        except Exception as error:
            if not failing:
                log.warning("closing abandoned runs failed (%s); trying every %g s", error, beat)
            failing = True
        else:
            if failing:
                log.info("closing abandoned sync runs works again")
            failing = False
            if closed:
                log.warning(
                    "closed sync run(s) %s as abandoned: no heartbeat for %g s, their process stopped",
                    ", ".join(map(str, closed)),
                    silence.total_seconds(),
                )
