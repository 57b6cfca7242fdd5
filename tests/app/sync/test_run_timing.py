"""A scheduled run tells the schedule how long it held the property's lock, its wait for the lock
left out: a detection lets a poll due before it would end go first
(``Schedule._detection_yields_to_poll``), and a detection that waited for a full sync counted the
wait as its own length, then yielded to polls it would not have held up."""

from __future__ import annotations

import asyncio
import random
from pathlib import Path

from sync_harness import NOW, Control, Emulator, load_demo_mapping, settings_for

from roomsync.adapters.store import Store
from roomsync.app.daemon.run_kinds import DETECT
from roomsync.app.daemon.runtime import Daemon
from roomsync.property_context import PropertyContext

HELD_BY_ANOTHER = 2.0
"""Real seconds another run holds the lock before the detection may start."""


async def test_a_detection_reports_the_time_it_held_the_lock_not_its_wait_for_it(
    emulator: Emulator, control: Control, store_on: Store, tmp_path: Path, property_id: str
) -> None:
    settings = settings_for(emulator.url, tmp_path, property_id=property_id, schedule_jitter_seconds=3600)
    load_demo_mapping(store_on, settings, emulator.state)
    context = PropertyContext.of(settings)
    daemon = Daemon(context, store_on, clock=lambda: NOW, rng=random.Random(1), replica="a")
    await daemon.open()
    try:
        control.clear_log()
        loop = asyncio.get_running_loop()
        await daemon.lock.acquire()  # another run of the property holds it
        began = loop.time()
        detection = asyncio.create_task(daemon._run_scheduled(DETECT))
        await asyncio.sleep(HELD_BY_ANOTHER)
        assert not detection.done() and control.counts() == {}  # it waits, nothing read yet
        daemon.lock.release()
        took = await detection
        elapsed = loop.time() - began
        assert control.counts()  # the detection ran against the service once it had the lock
        # the seconds it held the lock (and its recording after it: well under a second), not a flag
        assert isinstance(took, float) and not isinstance(took, bool)
        assert elapsed - HELD_BY_ANOTHER - 1.0 <= took <= elapsed - HELD_BY_ANOTHER
    finally:
        await daemon.close()
