"""What the application's webhook logic needs from the rest of roomsync, as small protocols.

``NightsChanged`` is the overbooking guard: after the bridge changes a room type's occupancy in
the PMS (a channel booking made, moved or cancelled), it calls it with exactly the nights whose
occupancy changed, and the application pushes those nights to the OTHER listings of that room
type at once, at the top budget priority. The daemon wires it to its ``PushDebouncer``, which pushes
through ``roomsync.app.sync.runs.push``.

``PmsClient`` is the part of :class:`roomsync.adapters.client.ServiceClient` the bridge and the
availability view use; any object with these methods will do (the service client is one).
"""

from __future__ import annotations

from collections.abc import Sequence
from datetime import date
from typing import Protocol

from roomsync.adapters.webhooks.ports import Clock
from roomsync.core.api.base import IdResult
from roomsync.core.api.pms.availability import RoomAvailability, RoomAvailabilityRequest
from roomsync.core.api.pms.payments import Payment, PaymentCreateRequest
from roomsync.core.api.pms.reservations import (
    Reservation,
    ReservationCreateRequest,
    ReservationExtended,
    ReservationFieldsUpdateRequest,
    ReservationFilterRequest,
    ReservationIdsRequest,
    ReservationSearchResult,
)
from roomsync.core.catalog.types import Priority

__all__ = ["Clock", "NightsChanged", "PmsClient"]


class NightsChanged(Protocol):
    """Called after the PMS occupancy of ``room_type_id`` changed on ``nights`` (sorted, unique).

    ``source_listing_id`` is the listing the change came through (its own channel calendar moved
    with the booking); the other listings of the room type are the ones to push.
    """

    async def __call__(
        self,
        property_id: str,
        room_type_id: int,
        nights: Sequence[date],
        *,
        source_listing_id: str | None = None,
    ) -> None: ...


class PmsClient(Protocol):
    async def room_availability(
        self, body: RoomAvailabilityRequest, *, priority: Priority | None = None
    ) -> list[RoomAvailability]: ...

    async def create_reservation(
        self, body: ReservationCreateRequest, *, priority: Priority | None = None
    ) -> IdResult: ...

    async def update_reservation_fields(
        self, id: str | int, body: ReservationFieldsUpdateRequest, *, priority: Priority | None = None
    ) -> None: ...

    async def get_reservation(self, id: str | int, *, priority: Priority | None = None) -> Reservation: ...

    async def filter_reservations(
        self, body: ReservationFilterRequest, *, priority: Priority | None = None
    ) -> list[ReservationSearchResult]: ...

    async def get_reservations(
        self, body: ReservationIdsRequest, *, priority: Priority | None = None
    ) -> list[ReservationExtended]: ...

    async def create_payment(
        self, body: PaymentCreateRequest, *, priority: Priority | None = None
    ) -> IdResult: ...

    async def list_reservation_payments(
        self, id: str | int, *, priority: Priority | None = None
    ) -> list[Payment]: ...
