"""The availability view as the guest checks use it: read from the store, refreshed from the PMS
when too old.

A night's view is fresh while its PMS read is younger than ``availability_view_max_age_seconds``
and nothing marked it stale. Otherwise one ``POST /v1/Availability/Room`` over the stale nights
(guest priority) refreshes every room type at once. Concurrent checks that need the same window
share one read, so a burst of guests costs one request. The guest waits at most
``checkout_read_timeout_seconds`` for it; a read that is refused by the budget, fails or is late
leaves the answer to the view as it is (logged), and the late read still lands for the next guest.
"""

from __future__ import annotations

import asyncio
import logging
from collections.abc import Iterable, Sequence
from datetime import date, datetime, timedelta

from roomsync.adapters.client.errors import QuotaExhausted, ServiceError
from roomsync.adapters.store.availability_view import SqlAvailabilityView, ViewNight
from roomsync.adapters.store.db_calls import DbCalls
from roomsync.app.webhooks.protocols import Clock, PmsClient
from roomsync.core.api.pms.availability import RoomAvailabilityRequest
from roomsync.core.catalog.types import Priority
from roomsync.core.sync.convert import room_nights
from roomsync.core.sync.desired import RoomNights, free_room_ids_per_night

log = logging.getLogger("roomsync.webhooks.availability")


def rooms_free_throughout(
    rooms: Iterable[RoomNights], room_type_id: int, nights: Sequence[date]
) -> list[int]:
    """Ids of the rooms of the type free on every one of ``nights``, lowest first."""
    free: list[int] = []
    wanted = set(nights)
    for room in rooms:
        if room.room_type_id != room_type_id:
            continue
        available: set[date] = set()
        busy: set[date] = set()
        for run in room.runs:
            span = {
                run.first_night + timedelta(days=i)
                for i in range((run.last_night - run.first_night).days + 1)
            }
            (available if run.is_available else busy).update(span & wanted)
        if wanted <= available - busy:
            free.append(room.room_id)
    return sorted(free)


class AvailabilityService:
    def __init__(
        self,
        view: SqlAvailabilityView,
        client: PmsClient | None,
        property_id: str,
        *,
        max_age: timedelta,
        read_timeout: float,
        clock: Clock,
        db: DbCalls,
    ) -> None:
        self.view = view
        self._db = db
        self._client = client
        self._property_id = property_id
        self._max_age = max_age
        self._read_timeout = read_timeout
        self._clock = clock
        self._reads: dict[tuple[date, date], asyncio.Task[None]] = {}

    def use_client(self, client: PmsClient | None) -> None:
        """Refresh through ``client`` from now on (the receiver makes it when it starts)."""
        self._client = client

    def stale_nights(self, rows: dict[date, ViewNight], nights: Sequence[date]) -> list[date]:
        """The nights of ``nights`` whose view is missing, marked stale or older than the max age."""
        oldest_fresh = self._clock() - self._max_age
        return [n for n in nights if n not in rows or rows[n].stale or rows[n].read_at < oldest_fresh]

    async def refresh(self, first: date, last: date, room_type_id: int | None = None) -> str | None:
        """Read ``first..last`` from the PMS into the view; None when done, else why not."""
        if self._client is None:
            return "no PMS client: the view is not refreshed"
        key = (first, last)
        task = self._reads.get(key)
        if task is None or task.done():
            task = asyncio.create_task(self._read(first, last, room_type_id))
            self._reads[key] = task
            task.add_done_callback(lambda done: self._forget(key, done))
        try:
            # shielded: a guest who stops waiting does not cancel the read the next guest needs
            await asyncio.wait_for(asyncio.shield(task), timeout=self._read_timeout)
        except TimeoutError:
            log.warning("PMS availability read %s..%s is late; answering from the view as it is", first, last)
            return f"the PMS read was not back within {self._read_timeout:g} s"
        except QuotaExhausted as error:
            log.warning("PMS availability read refused by the budget (%s); answering from the view", error)
            return "the day's request budget does not allow a PMS read"
        except ServiceError as error:
            log.warning("PMS availability read failed (%s); answering from the view", error)
            return f"the PMS read failed: {error}"
        return None

    def _forget(self, key: tuple[date, date], task: asyncio.Task[None]) -> None:
        if self._reads.get(key) is task:
            del self._reads[key]
        if (
            not task.cancelled()
            and task.exception() is not None
            and not isinstance(task.exception(), ServiceError)
        ):
            log.error("PMS availability read %s..%s failed", *key, exc_info=task.exception())

    async def _read(self, first: date, last: date, room_type_id: int | None) -> None:
        assert self._client is not None
        started: datetime = self._clock()
        entries = await self._client.room_availability(
            RoomAvailabilityRequest(date_from=first, date_to=last, group_dates=1), priority=Priority.GUEST
        )
        rooms = free_room_ids_per_night(room_nights(entries), first, last)
        if room_type_id is not None and room_type_id not in rooms:
            # a mapped type with no room at all: record "none" so it is not read again at once
            span = range((last - first).days + 1)
            rooms[room_type_id] = {first + timedelta(days=i): frozenset() for i in span}
        free = {t: {night: len(ids) for night, ids in per_night.items()} for t, per_night in rooms.items()}
        await self._db(self.view.save_read, self._property_id, started, free, rooms)
