"""A burst of webhook changes becomes one push per room type, the changes waiting in the store (a
real SQLite file); job health is logged only when it changes."""

from __future__ import annotations

import asyncio
import logging
from collections.abc import Iterator
from datetime import UTC, date, datetime, timedelta
from pathlib import Path

import pytest

from roomsync.adapters.store import Store, open_store
from roomsync.app.daemon.debounce import Push, PushDebouncer
from roomsync.app.daemon.health import HealthLog

D = date(2027, 5, 1)


@pytest.fixture
def store(tmp_path: Path) -> Iterator[Store]:
    with open_store(f"sqlite:///{tmp_path / 'roomsync.db'}", upgrade=True) as opened:
        yield opened


def debouncer_on(store: Store, push: Push, delay: float) -> PushDebouncer:
    return PushDebouncer(push, delay, store.pending_pushes, "p")


def nights(*offsets: int) -> list[date]:
    return [D + timedelta(days=n) for n in offsets]


class Recorder:
    """The push the debouncer calls; sets ``done`` once ``expected`` pushes arrived."""

    def __init__(self, expected: int) -> None:
        self.calls: list[tuple[int, list[date], str | None, int]] = []
        self.expected = expected
        self.done = asyncio.Event()

    async def __call__(
        self, room_type_id: int, wanted: list[date], exclude: str | None, changes: int
    ) -> None:
        self.calls.append((room_type_id, wanted, exclude, changes))
        if len(self.calls) >= self.expected:
            self.done.set()


async def test_a_burst_collapses_into_one_push_per_room_type(store: Store) -> None:
    push = Recorder(expected=2)
    debouncer = debouncer_on(store, push, delay=0.05)
    for offsets in ((1, 2), (2, 3), (10,), (1,), (4, 5)):
        await debouncer("p", 7, nights(*offsets), source_listing_id="41000003")
    await debouncer("p", 9, nights(3), source_listing_id="41000001")
    await debouncer("p", 9, nights(3, 4), source_listing_id="41000002")
    await asyncio.wait_for(push.done.wait(), 5)
    assert push.calls == [
        (7, nights(1, 2, 3, 4, 5, 10), "41000003", 5),  # one source: its own listing is left out
        (9, nights(3, 4), None, 2),  # two sources: every listing of the type is pushed
    ]
    await debouncer.close()
    assert await debouncer.waiting() == 0  # pushed: nothing is left for a next owner


async def test_changes_during_a_push_get_a_push_of_their_own(store: Store) -> None:
    release = asyncio.Event()
    started = asyncio.Event()
    calls: list[list[date]] = []
    second = asyncio.Event()

    async def slow_push(room_type_id: int, wanted: list[date], exclude: str | None, changes: int) -> None:
        calls.append(wanted)
        if len(calls) == 1:
            started.set()
            await release.wait()
        else:
            second.set()

    debouncer = debouncer_on(store, slow_push, delay=0.01)
    await debouncer("p", 7, nights(1))
    await asyncio.wait_for(started.wait(), 5)  # the first push is in flight, waiting for ``release``
    await debouncer("p", 7, nights(2))
    release.set()
    await asyncio.wait_for(second.wait(), 5)
    assert calls == [nights(1), nights(2)]


async def test_closing_pushes_what_waits_at_once(store: Store) -> None:
    push = Recorder(expected=1)
    debouncer = debouncer_on(store, push, delay=3600)
    await debouncer("p", 7, nights(1, 2), source_listing_id=None)
    assert push.calls == [] and await debouncer.waiting() == 1
    await debouncer.close()
    assert push.calls == [(7, nights(1, 2), None, 1)]
    await debouncer("p", 8, nights(5))  # after closing, a change is pushed as it comes
    assert push.calls[-1] == (8, nights(5), None, 1)


def test_health_is_logged_when_it_changes(caplog: pytest.LogCaptureFixture) -> None:
    health = HealthLog(logging.getLogger("roomsync.test.health"))
    start = datetime(2027, 5, 1, tzinfo=UTC)
    with caplog.at_level(logging.INFO, logger="roomsync.test.health"):
        health.success("poll", start)
        for minute in range(3):
            health.failure("poll", "get_x: the service failed with 503", start + timedelta(minutes=minute))
        health.failure("poll", "the day's budget is spent", start + timedelta(minutes=3))
        health.success("poll", start + timedelta(minutes=10))
        health.success("poll", start + timedelta(minutes=12))
    assert [(r.levelname, r.getMessage()) for r in caplog.records] == [
        ("WARNING", "poll failed: get_x: the service failed with 503"),
        ("WARNING", "poll failed: the day's budget is spent"),
        ("INFO", "poll recovered after 4 failed run(s) over 600 s"),
    ]
    assert health.healthy("poll")


async def test_what_one_debouncer_left_is_pushed_once_by_the_next_owner(store: Store, tmp_path: Path) -> None:
    """The first owner records changes and stops before its timer fires (as if killed): the next
    one, on another connection to the same file, pushes them at once, and once only."""
    first_push = Recorder(expected=1)
    first = debouncer_on(store, first_push, delay=3600)
    await first("p", 7, nights(1), source_listing_id="41000003")
    await first("p", 7, nights(2), source_listing_id="41000003")
    with open_store(f"sqlite:///{tmp_path / 'roomsync.db'}") as other:
        second_push = Recorder(expected=1)
        second = debouncer_on(other, second_push, delay=3600)
        second.take_over()
        await asyncio.wait_for(second_push.done.wait(), 5)
        await second.close()
        assert second_push.calls == [(7, nights(1, 2), "41000003", 2)]
        assert await second.waiting() == 0
    await first.close()  # were the first to come back and stop, it would find nothing left to push
    assert first_push.calls == []
