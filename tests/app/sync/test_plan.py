"""The plan (``roomsync.app.sync.runs.plan``): a full sync or a resync as a dry run, against the
emulator over loopback HTTP. That nothing is written is judged on the emulator's request log and
channel read-backs; what the sync after it costs, on the emulator's own closures (sync_harness).
"""

from __future__ import annotations

from sync_harness import (
    FIRST,
    LAST,
    READ_INVENTORY,
    Control,
    Emulator,
    SyncFactory,
    assert_converged,
    closure_check_reads,
    load_demo_mapping,
    pushed_types,
)

from roomsync.adapters.store import Store
from roomsync.app.sync import PricesResult
from roomsync.app.sync.runs.full_sync import sync_property
from roomsync.app.sync.runs.plan import plan


async def test_plan_sends_no_write_and_the_sync_after_it_reads_nothing_twice(
    emulator: Emulator, control: Control, make_sync: SyncFactory, sqlite_store: Store
) -> None:
    sync = make_sync(sqlite_store)
    load_demo_mapping(sqlite_store, sync.settings, emulator.state)
    before = control.calendar("41000001", FIRST, LAST)

    planned = await plan(sync)

    assert (
        planned.result == "planned"
        and planned.planned_operations > 0
        and planned.prices.result is PricesResult.PLANNED
    )
    assert control.writes() == 0 and control.calendar("41000001", FIRST, LAST) == before
    assert sqlite_store.sync_runs.recent_runs(sync.property_id) == []
    reads = control.total()
    assert planned.requests == reads
    control.clear_log()
    report = await sync_property(sync)
    # the channel reads, the cold price cache and the closures' locating were paid by the plan:
    # what is left is the free rooms and the closure check around the closures it located
    check = closure_check_reads(emulator.state, pushed_types(emulator), FIRST, LAST)
    assert control.counts().get(READ_INVENTORY, 0) == 0 and control.total() - control.writes() == 1 + check
    assert report.operations == planned.planned_operations
    assert_converged(emulator, control)
