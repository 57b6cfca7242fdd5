"""Closing the runs a dead process left open: one sweep for every property a replica serves.

A run beats every ``run_heartbeat_seconds * time_scale`` real seconds (``RunRecorder``); a run
that has not beaten for three intervals belongs to a process that stopped (killed, out of
memory, the machine down) and is closed as ``abandoned``, so it stops showing as running. The
sweep asks the store once per interval for all the properties the replica serves (one statement,
not one per property: a replica of a thousand properties would otherwise query thirty times a
second at the default heartbeat), leaving out each property's own runs in flight and the
properties whose run is being started (its row exists, its id is not known yet).

"Three intervals" is three times what the daemon's clock advanced during the last one, which
holds whether the clock is real or runs faster than real time (a compressed emulator's clock,
where one real interval is a whole heartbeat of the clock).
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
from collections.abc import Callable
from datetime import datetime, timedelta
from typing import Protocol

from roomsync.core.ports import SyncRunStore

log = logging.getLogger("roomsync.daemon")


class SweptProperty(Protocol):
    """What the sweep needs of a property's daemon."""

    @property
    def property_id(self) -> str: ...

    @property
    def log(self) -> logging.LoggerAdapter[logging.Logger]: ...

    @property
    def runs_in_flight(self) -> set[int]: ...

    @property
    def runs_starting(self) -> int: ...


class RunSweeper:
    def __init__(
        self, runs: SyncRunStore, clock: Callable[[], datetime], heartbeat_seconds: float, time_scale: float
    ) -> None:
        self._runs = runs
        self._clock = clock
        self._heartbeat = heartbeat_seconds
        self._interval = heartbeat_seconds * time_scale
        self._properties: dict[str, SweptProperty] = {}
        self._task: asyncio.Task[None] | None = None

    def add(self, swept: SweptProperty) -> None:
        """Sweep ``swept``'s property from the next interval on (starts the loop on first use)."""
        self._properties[swept.property_id] = swept
        if self._task is None:
            self._task = asyncio.create_task(self._run(), name="roomsync-run-sweep")

    def remove(self, property_id: str) -> None:
        self._properties.pop(property_id, None)

    async def close(self) -> None:
        if self._task is not None:
            self._task.cancel()
            with contextlib.suppress(asyncio.CancelledError):
                await self._task
            self._task = None

    async def _run(self) -> None:
        least = timedelta(seconds=self._interval)
        failing = False
        before = self._clock()
        while True:
            await asyncio.sleep(self._interval)
            now = self._clock()
            silence = 3 * max(now - before, least)
            before = now
            swept = {pid: p for pid, p in self._properties.items() if not p.runs_starting}
            if not swept:
                continue
            keep = set().union(*(p.runs_in_flight for p in swept.values()))
            try:
                closed = await asyncio.to_thread(
                    self._runs.close_silent_runs, list(swept), now - silence, now, keep
                )
            except Exception as error:
                if not failing:
                    log.warning(
                        "closing abandoned runs failed (%s); trying every %g s", error, self._heartbeat
                    )
                failing = True
                continue
            if failing:
                log.info("closing abandoned sync runs works again")
            failing = False
            for property_id, ids in closed.items():
                swept[property_id].log.warning(
                    "closed sync run(s) %s as abandoned: no heartbeat for %g s, their process stopped",
                    ", ".join(map(str, ids)),
                    silence.total_seconds(),
                )
