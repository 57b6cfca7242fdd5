"""Where the webhook package runs its blocking store calls: threads of its own, per database.

On SQLite every write takes the database's one write lock, and a writer that finds it taken is
put to sleep by SQLite's busy handler in growing steps (1, 2, 5, 10 ... 100 ms), not woken when
the lock frees. The receiver and the worker write a lot (each delivery is stored, each guest
answer recorded, each event marked done), so letting them collide is what made answers slow.
One thread per SQLite database serialises those calls in the process, so they never wait on each
other inside SQLite; on Postgres, whose row locks let writers proceed side by side, a few threads
run them at once. The receiver and the worker of one store share the same threads, whichever
event loop each runs in.
"""

from __future__ import annotations

import asyncio
import functools
import threading
import weakref
from collections.abc import Callable
from concurrent.futures import ThreadPoolExecutor
from typing import ParamSpec, TypeVar

from sqlalchemy.engine import Engine

P = ParamSpec("P")
T = TypeVar("T")

POSTGRES_THREADS = 4

_executors: weakref.WeakKeyDictionary[Engine, ThreadPoolExecutor] = weakref.WeakKeyDictionary()
_lock = threading.Lock()


def _executor_for(engine: Engine) -> ThreadPoolExecutor:
    with _lock:
        found = _executors.get(engine)
        if found is None:
            threads = 1 if engine.dialect.name == "sqlite" else POSTGRES_THREADS
            found = ThreadPoolExecutor(max_workers=threads, thread_name_prefix="roomsync-webhooks-db")
            _executors[engine] = found
            weakref.finalize(engine, found.shutdown, wait=False)
        return found


class DbCalls:
    """``await db(fn, *args)`` runs ``fn(*args)`` on the store's threads."""

    def __init__(self, engine: Engine) -> None:
        self._executor = _executor_for(engine)

    async def __call__(self, fn: Callable[P, T], *args: P.args, **kwargs: P.kwargs) -> T:
        loop = asyncio.get_running_loop()
        return await loop.run_in_executor(self._executor, functools.partial(fn, *args, **kwargs))
