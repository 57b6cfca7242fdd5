"""A targeted push recorded by one daemon of a property and not made (the daemon died, or died while
making it) is made by the daemon that takes the property over, once, on SQLite and on Postgres.

Two real :class:`Daemon` instances, each with its own store (its own connection pool: two
replicas) on one database, against the emulator over loopback HTTP. The schedule's first full
sync is put far off (jitter), so the only run in the test is the push itself."""

from __future__ import annotations

import asyncio
import random
from collections.abc import Callable
from datetime import date, timedelta
from pathlib import Path

import pytest
from sync_harness import NOW, PUT_INVENTORY, Control, Emulator, load_demo_mapping, settings_for

from roomsync.adapters.store import Store, open_store
from roomsync.app.daemon.runtime import Daemon
from roomsync.app.sync.runs.full_sync import sync_property
from roomsync.property_context import PropertyContext

FIRST = NOW.date()
STUDIOS = 4
"""The demo's room type with two listings (41000001 and 41000002)."""


def daemon_of(context: PropertyContext, store: Store, replica: str) -> Daemon:
    # Random(1) puts the first full sync ~480 s away (jitter up to 3,600 s): no run but the push
    return Daemon(context, store, clock=lambda: NOW, rng=random.Random(1), replica=replica)


def book_every_studio(control: Control) -> date:
    """Take every free studio of one night at the front desk; returns the night."""
    studios = control.free_rooms(FIRST, FIRST + timedelta(days=60))[STUDIOS]
    night = next(n for n in sorted(studios) if n > FIRST and studios[n] > 0)
    for _ in range(studios[night]):
        body = {
            "dateFrom": str(night),
            "dateTo": str(night + timedelta(days=1)),
            "lastName": "Full",
            "roomTypeId": STUDIOS,
        }
        control.call("POST", "/pms/book", body)
    return night


def abandon() -> None:
    """What a SIGKILL leaves of the first daemon in this process: nothing runs on (its push timer
    is cut; it is the only daemon of the test running yet)."""
    for task in asyncio.all_tasks():
        if task.get_name().startswith("roomsync-push"):
            task.cancel()


async def wait_for(check: Callable[[], bool], what: str, timeout: float = 60.0) -> None:
    loop = asyncio.get_running_loop()
    deadline = loop.time() + timeout
    while not await asyncio.to_thread(check):
        if loop.time() > deadline:
            raise AssertionError(f"timed out after {timeout} s waiting for {what}")
        await asyncio.sleep(0.05)


@pytest.mark.parametrize("left", ["waiting", "claimed"])
async def test_a_push_left_by_one_daemon_is_made_once_by_the_next(
    emulator: Emulator,
    control: Control,
    store_on: Store,
    database_url: str,
    tmp_path: Path,
    property_id: str,
    left: str,
) -> None:
    settings = settings_for(
        emulator.url,
        tmp_path,
        property_id=property_id,
        webhook_push_debounce_seconds=3600,  # the first daemon never gets to push by itself
        schedule_jitter_seconds=3600,
        shutdown_grace_seconds=30,
    )
    context = PropertyContext.of(settings)
    load_demo_mapping(store_on, settings, emulator.state)
    first = daemon_of(context, store_on, "replica-a")
    await first.open()
    assert (await sync_property(first.runs)).result == "ok"  # the ledger knows every listing
    night = book_every_studio(control)

    # the bridge reports the change through listing 41000002; then the first daemon dies
    await first.debouncer(property_id, STUDIOS, [night], source_listing_id="41000002")
    if left == "claimed":  # it died while pushing: claimed, not done
        assert len(store_on.pending_pushes.claim(property_id, "replica-a/flush-1", NOW)) == 1
    abandon()
    await first.close()
    assert store_on.pending_pushes.waiting(property_id) == 1
    control.clear_log()

    with open_store(database_url) as second_store:
        second = daemon_of(context, second_store, "replica-b")
        await second.open()
        second.start()
        try:
            await wait_for(lambda: second_store.pending_pushes.waiting(property_id) == 0, "the push")
            await second.wait_idle()
        finally:
            await second.stop()
            await second.close()

    pushes = store_on.sync_runs.recent_runs(property_id, kind="push_nights")
    assert [run.result for run in pushes] == ["ok"]  # made once, by the second daemon
    assert control.counts().get(PUT_INVENTORY) == 1  # the studio listing the change did not come through
    assert control.calendar("41000001", night, night)[night]["availability"] == "unavailable"
    # had the first daemon come back, it would find nothing left to push
    await first.debouncer.flush()
    assert len(store_on.sync_runs.recent_runs(property_id, kind="push_nights")) == 1
