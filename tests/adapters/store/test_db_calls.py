"""The webhook side's store threads: a booking waiting behind browsing guests is run first."""

from __future__ import annotations

import asyncio
import threading

import pytest

from roomsync.adapters.store import Store
from roomsync.adapters.store.db_calls import POSTGRES_THREADS


async def test_an_urgent_call_overtakes_the_ordinary_calls_still_waiting(store: Store, backend: str) -> None:
    db = store.db_calls
    threads = 1 if backend == "sqlite" else POSTGRES_THREADS
    release = threading.Event()
    inside = threading.Semaphore(0)
    ran: list[str] = []

    def blocker() -> None:
        inside.release()
        release.wait(30)

    def call(name: str) -> str:
        ran.append(name)
        return name

    busy = [asyncio.ensure_future(db(blocker)) for _ in range(threads)]
    for _ in range(threads):  # every thread is inside blocker(): whatever comes next must wait
        assert await asyncio.to_thread(inside.acquire, True, 30)
    ordinary = [asyncio.ensure_future(db(call, f"check {n}")) for n in range(5)]
    await asyncio.sleep(0.05)  # the ordinary calls are queued first (ensure_future submits on the next turn)
    urgent = asyncio.ensure_future(db.urgent(call, "booking"))
    await asyncio.sleep(0.05)
    assert ran == []
    release.set()
    results = await asyncio.gather(*busy, *ordinary, urgent)
    assert results[-1] == "booking"
    if threads == 1:
        assert ran == ["booking", *(f"check {n}" for n in range(5))]
    else:  # the threads freed at once take the queue's head together: the booking among them
        assert "booking" in ran[:threads]


async def test_an_error_reaches_the_caller_and_the_thread_goes_on(store: Store) -> None:
    def fails() -> None:
        raise ValueError("the call's own error")

    with pytest.raises(ValueError, match="the call's own error"):
        await store.db_calls(fails)
    assert await store.db_calls.urgent(lambda: 7) == 7
