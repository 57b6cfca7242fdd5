"""A burst of webhook-driven occupancy changes becomes one targeted push per room type.

The reservation bridge calls :class:`PushDebouncer` (it is the bridge's ``NightsChanged``) after
each change it made in the PMS. Ten bookings of the same room type arriving within the debounce
window are pushed together: one PMS read and one ``PUT Inventory`` per other listing, instead of
ten of each. The call records the change in the store (``pending_push``) and returns; the push
runs after the window, through ``push`` (which the daemon serialises with its other jobs).

The changes wait in the store, not in this process: a flush claims them, pushes, and deletes
them. A replica that takes the property over (or this one after a restart) calls
:meth:`PushDebouncer.take_over`, which releases the claims of the previous owner and pushes what
it left, so a change is never lost to a takeover, and one that was pushed and deleted is not
pushed again. A push that fails is not retried here: the next poll brings the listings in step.
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
import uuid
from collections.abc import Awaitable, Callable, Coroutine, Sequence
from dataclasses import dataclass, field
from datetime import UTC, date, datetime
from typing import Any

from roomsync.core.ports import PendingPush, PendingPushStore

log = logging.getLogger("roomsync.daemon.push")

Push = Callable[[int, list[date], str | None, int], Awaitable[None]]
"""``push(room_type_id, nights, exclude_listing_id, changes)``: push the nights now."""


def utc_now() -> datetime:
    return datetime.now(UTC)


@dataclass
class _RoomTypeBatch:
    nights: set[date] = field(default_factory=set)
    sources: set[str | None] = field(default_factory=set)
    changes: int = 0

    @property
    def exclude(self) -> str | None:
        """The one listing every change came through (its own calendar is in step already)."""
        sources = self.sources - {None}
        return next(iter(sources)) if len(self.sources) == 1 and sources else None


def batches(pending: Sequence[PendingPush]) -> dict[int, _RoomTypeBatch]:
    """The claimed changes, one batch per room type."""
    found: dict[int, _RoomTypeBatch] = {}
    for change in pending:
        batch = found.setdefault(change.room_type_id, _RoomTypeBatch())
        batch.nights.update(change.nights)
        batch.sources.add(change.source_listing_id)
        batch.changes += 1
    return found


class PushDebouncer:
    def __init__(
        self,
        push: Push,
        delay: float,
        pending: PendingPushStore,
        property_id: str,
        *,
        claimant: str = "roomsync",
        clock: Callable[[], datetime] = utc_now,
    ) -> None:
        self._push = push
        self._delay = delay
        self._pending = pending
        self._property_id = property_id
        self._claimant = claimant
        self._clock = clock
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
        if property_id != self._property_id:
            raise ValueError(f"this debouncer pushes property {self._property_id!r}, not {property_id!r}")
        await asyncio.to_thread(
            self._pending.record, property_id, room_type_id, list(nights), source_listing_id, self._clock()
        )
        if self._closed:
            await self.flush()  # shutting down: push now rather than leave it to the next owner
        elif not self._armed:
            self._armed = True
            self._timer = self._spawn(self._later(), "roomsync-push-debounce")

    def take_over(self) -> None:
        """Push at once what a previous owner of the property recorded and did not finish (it
        stopped, or died, before deleting it). Call when this process starts owning the property."""
        self._spawn(self._take_over(), "roomsync-push-takeover")

    async def _take_over(self) -> None:
        released = await asyncio.to_thread(self._pending.release_claims, self._property_id)
        if released:
            log.warning("%d targeted push(es) a previous owner had begun are made again", released)
        await self.flush()

    async def waiting(self) -> int:
        """Changes recorded and not pushed yet (claimed or not)."""
        return await asyncio.to_thread(self._pending.waiting, self._property_id)

    def _spawn(self, step: Coroutine[Any, Any, None], name: str) -> asyncio.Task[None]:
        task = asyncio.create_task(step, name=name)
        self._tasks.add(task)
        task.add_done_callback(self._tasks.discard)
        return task

    async def _later(self) -> None:
        try:
            await asyncio.sleep(self._delay)
        finally:
            self._armed = False  # changes from now on arm a new timer
        await self.flush()

    async def flush(self) -> None:
        """Push everything waiting now (one push per room type).

        The changes are claimed first, so that two flushes never push the same change; they are
        deleted only once every push was tried, so a flush cut short (the process killed, or
        cancelled at shutdown) leaves them to the next owner."""
        claimant = f"{self._claimant}/{uuid.uuid4().hex[:12]}"
        claimed = await asyncio.to_thread(self._pending.claim, self._property_id, claimant, self._clock())
        if not claimed:
            return
        for room_type_id, batch in sorted(batches(claimed).items()):
            try:
                await self._push(room_type_id, sorted(batch.nights), batch.exclude, batch.changes)
            except Exception:  # the next poll repairs it; keep the debouncer alive
                log.exception("targeted push of room type %d failed", room_type_id)
        await asyncio.to_thread(self._pending.done, self._property_id, claimant)

    async def close(self) -> None:
        """Stop waiting: push what is pending at once; later changes are pushed as they come."""
        self._closed = True
        if self._armed and self._timer is not None:
            self._timer.cancel()  # only the wait is cut short; pushes in flight are let finish
        for task in list(self._tasks):
            with contextlib.suppress(asyncio.CancelledError):
                await task
        await self.flush()
