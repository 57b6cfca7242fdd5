"""A burst of webhook-driven occupancy changes becomes one targeted push per room type.

The reservation bridge calls :class:`PushDebouncer` (it is the bridge's ``NightsChanged``) after
each change it made in the PMS. Ten bookings of the same room type arriving within the debounce
window are pushed together: one PMS read and one ``PUT Inventory`` per other listing, instead of
ten of each. The call returns at once; the push runs after the window, through ``push`` (which
the daemon serialises with its other jobs). A push that fails is not retried here: the next poll
brings the listings in step anyway.
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
from collections.abc import Awaitable, Callable, Sequence
from dataclasses import dataclass, field
from datetime import date

log = logging.getLogger("roomsync.daemon.push")

Push = Callable[[int, list[date], str | None, int], Awaitable[None]]
"""``push(room_type_id, nights, exclude_listing_id, changes)``: push the nights now."""


@dataclass
class _Pending:
    nights: set[date] = field(default_factory=set)
    sources: set[str | None] = field(default_factory=set)
    changes: int = 0


class PushDebouncer:
    def __init__(self, push: Push, delay: float) -> None:
        self._push = push
        self._delay = delay
        self._pending: dict[int, _Pending] = {}
        self._timer: asyncio.Task[None] | None = None
        self._tasks: set[asyncio.Task[None]] = set()
        self._armed = False
        """A timer is waiting to push (changes arriving now join it)."""
        self._closed = False

    async def __call__(
        self,
        property_id: str,
        room_type_id: int,
        nights: Sequence[date],
        *,
        source_listing_id: str | None = None,
    ) -> None:
        if not nights:
            return
        pending = self._pending.setdefault(room_type_id, _Pending())
        pending.nights.update(nights)
        pending.sources.add(source_listing_id)
        pending.changes += 1
        if self._closed:
            await self.flush()  # shutting down: push now rather than lose it
        elif not self._armed:
            self._armed = True
            self._timer = asyncio.create_task(self._later(), name="roomsync-push-debounce")
            self._tasks.add(self._timer)
            self._timer.add_done_callback(self._tasks.discard)

    @property
    def waiting(self) -> int:
        """Room types with changes not pushed yet."""
        return len(self._pending)

    async def _later(self) -> None:
        try:
            await asyncio.sleep(self._delay)
        finally:
            self._armed = False  # changes from now on arm a new timer
        await self.flush()

    async def flush(self) -> None:
        """Push everything pending now (one push per room type)."""
        batch, self._pending = self._pending, {}
        for room_type_id, pending in sorted(batch.items()):
            sources = pending.sources - {None}
            exclude = next(iter(sources)) if len(pending.sources) == 1 and sources else None
            try:
                await self._push(room_type_id, sorted(pending.nights), exclude, pending.changes)
            except Exception:  # the next poll repairs it; keep the debouncer alive
                log.exception("targeted push of room type %d failed", room_type_id)

    async def close(self) -> None:
        """Stop waiting: push what is pending at once; later changes are pushed as they come."""
        self._closed = True
        if self._armed and self._timer is not None:
            self._timer.cancel()  # only the wait is cut short; pushes in flight are let finish
        for task in list(self._tasks):
            with contextlib.suppress(asyncio.CancelledError):
                await task
        await self.flush()
