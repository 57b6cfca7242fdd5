"""Where the webhook package runs its blocking store calls: threads of its own, per database.

On SQLite every write takes the database's one write lock, and a writer that finds it taken is
put to sleep by SQLite's busy handler in growing steps (1, 2, 5, 10 ... 100 ms), not woken when
the lock frees. The receiver and the worker write a lot (each delivery is stored, each guest
answer recorded, each event marked done), so letting them collide is what made answers slow.
One thread per SQLite database serialises those calls in the process, so they never wait on each
other inside SQLite; on Postgres, whose row locks let writers proceed side by side, a few threads
run them at once. The receiver and the worker of one store share the same threads, whichever
event loop each runs in.

The threads take the waiting calls by urgency, then in order of arrival. In a checkout burst a
hundred availability checks may be queued when the first guest asks to book: the booking is
answered next (``db.urgent``), not after the hundred, because the channel gives every guest
check 3 s and a booking that waits behind the browsers is refused for being late however free
the room was (the last-room race on a loaded machine, 2026-11-27: 0 of 200 booked).
"""

from __future__ import annotations

import asyncio
import functools
import itertools
import queue
import threading
import weakref
from collections.abc import Callable
from concurrent.futures import Future
from typing import Any, ParamSpec, TypeVar

from sqlalchemy.engine import Engine

P = ParamSpec("P")
T = TypeVar("T")

POSTGRES_THREADS = 4

URGENT, ORDINARY = 0, 1
_STOP = 2  # after every waiting call: a shut-down pool finishes what it was given


class _UrgencyPool:
    """A fixed set of threads that run the most urgent waiting call first, FIFO within one
    urgency (a ThreadPoolExecutor with a priority queue)."""

    def __init__(self, threads: int) -> None:
        self._waiting: queue.PriorityQueue[tuple[int, int, Callable[[], Any] | None, Future[Any] | None]]
        self._waiting = queue.PriorityQueue()
        self._arrival = itertools.count()
        self._threads = threads
        for n in range(threads):
            threading.Thread(target=self._work, name=f"roomsync-webhooks-db-{n}", daemon=True).start()

    def submit(self, urgency: int, call: Callable[[], T]) -> Future[T]:
        future: Future[T] = Future()
        self._waiting.put((urgency, next(self._arrival), call, future))
        return future

    def shutdown(self) -> None:
        for _ in range(self._threads):
            self._waiting.put((_STOP, next(self._arrival), None, None))

    def _work(self) -> None:
        while True:
            _, _, call, future = self._waiting.get()
            if call is None or future is None:
                return
            if not future.set_running_or_notify_cancel():
                continue
            try:
                result = call()
            except BaseException as error:  # handed to the awaiting caller, as an executor does
                future.set_exception(error)
            else:
                future.set_result(result)


_pools: weakref.WeakKeyDictionary[Engine, _UrgencyPool] = weakref.WeakKeyDictionary()
_lock = threading.Lock()


def _pool_for(engine: Engine) -> _UrgencyPool:
    with _lock:
        found = _pools.get(engine)
        if found is None:
            found = _UrgencyPool(1 if engine.dialect.name == "sqlite" else POSTGRES_THREADS)
            _pools[engine] = found
            weakref.finalize(engine, found.shutdown)
        return found


class DbCalls:
    """``await db(fn, *args)`` runs ``fn(*args)`` on the store's threads; ``await
    db.urgent(fn, *args)`` runs it before every ordinary call still waiting."""

    def __init__(self, engine: Engine) -> None:
        self._pool = _pool_for(engine)

    async def __call__(self, fn: Callable[P, T], *args: P.args, **kwargs: P.kwargs) -> T:
        return await self._run(ORDINARY, functools.partial(fn, *args, **kwargs))

    async def urgent(self, fn: Callable[P, T], *args: P.args, **kwargs: P.kwargs) -> T:
        return await self._run(URGENT, functools.partial(fn, *args, **kwargs))

    async def _run(self, urgency: int, call: Callable[[], T]) -> T:
        return await asyncio.wrap_future(self._pool.submit(urgency, call))
