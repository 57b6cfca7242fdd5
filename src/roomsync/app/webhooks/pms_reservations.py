"""The PMS side of a channel reservation: every request the reservation bridge sends the PMS.

:class:`PmsReservations` finds or claims, creates and updates the PMS reservation of one channel
reservation, and records its payouts as PMS payments; the bridge (:mod:`.bridge`) decides which,
and keeps what the PMS was given. A room is always one that a fresh ``POST /v1/Availability/Room``
shows free on every night of the stay, and the guest's holds in the availability view are
placed, settled or released with each change, so the guest checks answer from what is booked.
"""

from __future__ import annotations

import logging
from dataclasses import replace
from datetime import UTC, date, datetime, timedelta
from decimal import Decimal

from roomsync.adapters.store import Store
from roomsync.adapters.store.webhook_records import ChannelBooking
from roomsync.app.webhooks.availability import rooms_free_throughout
from roomsync.app.webhooks.protocols import Clock, PmsClient
from roomsync.app.webhooks.reservation_terms import amount, customer_of
from roomsync.core.api import webhooks as events
from roomsync.core.api.channel import Reservation as ChannelReservation
from roomsync.core.api.pms.availability import RoomAvailabilityRequest
from roomsync.core.api.pms.payments import PaymentCreateRequest
from roomsync.core.api.pms.reservations import (
    ReservationCreateRequest,
    ReservationDateType,
    ReservationFieldsUpdateRequest,
    ReservationFilterRequest,
    ReservationIdsRequest,
    ReservationStatus,
)
from roomsync.core.catalog.types import Priority
from roomsync.core.mapping import ListingMapping
from roomsync.core.sync.convert import room_nights
from roomsync.core.sync.desired import stay_nights
from roomsync.property_context import PropertyContext

__all__ = ["CANCELLED", "PmsReservations", "RetryLater"]

# the bridge's logger: what it sends the PMS is part of its story in the logs
log = logging.getLogger("roomsync.webhooks.bridge")

CANCELLED = "cancelled"


class RetryLater(Exception):
    """The event cannot be applied yet (no free room, not mapped, ...); the message says why."""


class PmsReservations:
    """The PMS reservations (and payments) of one property's channel reservations."""

    def __init__(self, context: PropertyContext, store: Store, client: PmsClient, clock: Clock) -> None:
        self._settings = context.settings
        self._property_id = context.property_id
        self._links = store.reservation_links
        self._view = store.availability_view
        self._client = client
        self._clock = clock
        self._db = store.db_calls

    async def find_or_claim(
        self, code: str, listing: ListingMapping, start: date, *, claimed: bool
    ) -> int | None:
        """The PMS id of the reservation when an earlier attempt made it, None when this worker
        holds the claim to create it; RetryLater when another worker does."""
        now = self._clock()
        if not claimed:
            if await self._db(self._links.claim_link, self._property_id, code, listing.listing_id, now):
                return None
            raise RetryLater(f"another worker is creating {code} in the PMS")
        # claimed earlier but never recorded as created: a worker died between the two
        found = await self._look_up(code, start)
        if found is not None:
            await self._db(self._links.record_created, self._property_id, code, found, None, now)
            log.info(
                "%s was created in the PMS by an attempt that died before recording it (id %d)", code, found
            )
        return found

    async def _look_up(self, code: str, start: date) -> int | None:
        hits = await self._client.filter_reservations(
            ReservationFilterRequest(
                booking_agency_reference_code_contains=code,
                date_type_id=ReservationDateType.ARRIVAL,
                date_from=start - timedelta(days=400),
                date_to=start + timedelta(days=400),
            ),
            priority=Priority.GUEST,
        )
        if not hits:
            return None
        found = await self._client.get_reservations(
            ReservationIdsRequest.model_validate({"reservation_ids": [h.reservation_id for h in hits]}),
            priority=Priority.GUEST,
        )
        exact = [r.id for r in found if r.booking_agency_reference_code == code and r.id is not None]
        return max(exact) if exact else None

    async def _hold(self, code: str, room_type_id: int, nights: set[date]) -> None:
        """Hold ``nights`` for the reservation ``code`` in the guests' availability view (a
        reservation the channel confirmed: unconditionally), before a room is chosen for it."""
        await self._db(
            self._view.place_holds, self._property_id, code, room_type_id, sorted(nights), self._clock()
        )

    async def _free_room(
        self,
        listing: ListingMapping,
        nights: set[date],
        keep: int | None = None,
        added: set[date] | None = None,
        prefer: int | None = None,
    ) -> int:
        """A room of the listing's type free on every one of ``nights`` (one room for the whole
        stay, the rule the guest was answered by): ``keep`` when it is free on the ``added``
        nights, else ``prefer`` (the room the guest's hold kept) when free, else the lowest."""
        ordered = sorted(nights)
        entries = await self._client.room_availability(
            RoomAvailabilityRequest(date_from=ordered[0], date_to=ordered[-1], group_dates=1),
            priority=Priority.GUEST,
        )
        rooms = room_nights(entries)
        if (
            keep is not None
            and added is not None
            and keep in rooms_free_throughout(rooms, listing.room_type_id, sorted(added))
        ):
            return keep
        free = [r for r in rooms_free_throughout(rooms, listing.room_type_id, ordered) if r != keep]
        if prefer is not None and prefer in free:
            return prefer
        if not free:
            raise RetryLater(
                f"no room of type {listing.room_type_id} is free in the PMS on every night "
                f"{ordered[0]}..{ordered[-1]} (overbooked; retried until one frees up)"
            )
        return free[0]

    async def create(
        self,
        reservation: ChannelReservation,
        listing: ListingMapping,
        booking: ChannelBooking,
        status: ReservationStatus,
        total: Decimal,
        nights: set[date],
        cancelled: bool,
    ) -> tuple[ChannelBooking, set[date], str]:
        code = reservation.confirmation_code
        start, count = booking.start_date, booking.nights
        room: int | None = None
        if not cancelled:
            await self._hold(code, listing.room_type_id, nights)
            held = await self._db(self._view.held_room, self._property_id, code)
            room = await self._free_room(listing, nights, prefer=held)
        created = await self._client.create_reservation(
            ReservationCreateRequest(
                booking_agency_id=self._settings.channel_booking_agency_id,
                booking_agency_reference_code=code,
                customer=customer_of(reservation),
                currency_code=reservation.host_currency or None,
                date_from=start,
                date_to=start + timedelta(days=count),
                num_adults=max(1, reservation.guest_details.adults),
                reservation_status=status,
                room_id=room,
                room_type_id=listing.room_type_id,
                total_agreed_price=total,
            ),
            priority=Priority.GUEST,
        )
        now = self._clock()
        await self._db(self._links.record_created, self._property_id, code, created.id, None, now)
        if cancelled:
            await self._db(self._links.set_link_status, self._property_id, code, CANCELLED, now)
        await self._db(self._view.settle_holds, self._property_id, code, [] if cancelled else nights, now)
        booking = replace(
            booking,
            pms_status=int(status),
            pms_room_id=room,
            pms_date_from=start,
            pms_date_to=start + timedelta(days=count),
            pms_total=total,
        )
        return (
            booking,
            (set() if cancelled else nights),
            (f"created PMS reservation {created.id} for {code} (status {int(status)}, room {room})"),
        )

    async def seed_from_pms(self, pms_id: int, booking: ChannelBooking) -> ChannelBooking:
        """What the PMS holds for a reservation roomsync has no record of applying (a worker died
        after creating it, or the record was lost): read it once and start from there."""
        found = await self._client.get_reservation(pms_id, priority=Priority.GUEST)
        return replace(
            booking,
            pms_status=int(found.reservation_status_id) if found.reservation_status_id is not None else None,
            pms_room_id=found.room_id,
            pms_date_from=found.date_from,
            pms_date_to=found.date_to,
            pms_total=found.total_agreed_price,
        )

    async def update(
        self,
        pms_id: int,
        listing: ListingMapping,
        booking: ChannelBooking,
        status: ReservationStatus,
        total: Decimal,
        nights: set[date],
        cancelled: bool,
        reservation: ChannelReservation,
    ) -> tuple[ChannelBooking, set[date], str]:
        code = booking.confirmation_code
        was_cancelled = booking.pms_status == ReservationStatus.CANCELLED_FROM_CHANNEL
        old_nights: set[date] = set()
        if booking.pms_date_from is not None and booking.pms_date_to is not None:
            old_nights = set(
                stay_nights(booking.pms_date_from, (booking.pms_date_to - booking.pms_date_from).days)
            )
        date_from, date_to = booking.start_date, booking.start_date + timedelta(days=booking.nights)
        moved = not cancelled and (booking.pms_date_from, booking.pms_date_to) != (date_from, date_to)
        changes: dict[str, object] = {}
        if booking.pms_status != status:
            changes["reservation_status_id"] = status
        if booking.pms_total != total:
            changes["total_agreed_price"] = total
        room = booking.pms_room_id
        if moved:
            await self._hold(code, listing.room_type_id, nights)
            added = nights - old_nights
            if room is None or added:
                room = await self._free_room(listing, nights, keep=room, added=added if room else None)
            changes.update(date_from=date_from, date_to=date_to, room_id=room)
        if not changes:
            if not cancelled:  # holds an attempt placed before it died are settled all the same
                await self._db(self._view.settle_holds, self._property_id, code, nights, self._clock())
            return booking, set(), f"PMS reservation {pms_id} already shows {code} as it is"
        if cancelled:
            changes["cancellation_fee_booking_agency"] = amount(
                reservation.listing_cancellation_host_fee_accurate, "listingCancellationHostFeeAccurate"
            )
        await self._client.update_reservation_fields(
            pms_id, ReservationFieldsUpdateRequest.model_validate(changes), priority=Priority.GUEST
        )
        now = self._clock()
        if cancelled:
            await self._db(self._view.release_holds, self._property_id, code)
            await self._db(self._links.set_link_status, self._property_id, code, CANCELLED, now)
            changed = set() if was_cancelled else old_nights
        else:
            await self._db(self._view.settle_holds, self._property_id, code, nights, now)
            changed = (old_nights ^ nights) if moved else set()
        booking = replace(
            booking,
            pms_status=int(status),
            pms_room_id=room,
            pms_total=total,
            pms_date_from=date_from if moved else booking.pms_date_from,
            pms_date_to=date_to if moved else booking.pms_date_to,
        )
        return booking, changed, f"updated PMS reservation {pms_id} of {code} ({', '.join(sorted(changes))})"

    async def record_payout(self, event: events.PayoutNotification, attempt: int) -> str:
        reservation = event.reservation
        code = reservation.confirmation_code
        link = await self._db(self._links.get_link, self._property_id, code)
        if link is None or link.pms_reservation_id is None:
            raise RetryLater(f"{code} is not in the PMS yet; its payout waits")
        paid = amount(reservation.total_paid_amount_accurate, "totalPaidAmountAccurate")
        recorded = link.last_payout or Decimal("0.00")
        if paid <= recorded:
            return f"payouts of {code} up to {paid} are recorded already"
        confirmed = datetime.fromtimestamp(event.confirmed_at, UTC)
        note = f"Channel payout {code} confirmed {confirmed.isoformat()}"
        existing = None
        if attempt > 1:  # an earlier attempt may have created the payment and died before recording it
            payments = await self._client.list_reservation_payments(
                link.pms_reservation_id, priority=Priority.GUEST
            )
            existing = next((p.id for p in payments if p.notes == note), None)
        if existing is None:
            created = await self._client.create_payment(
                PaymentCreateRequest(
                    payment_date=confirmed.date(),
                    reservation_id=link.pms_reservation_id,
                    payment_method_id=self._settings.payout_payment_method_id,
                    amount=paid - recorded,
                    currency_code=reservation.host_currency or None,
                    notes=note,
                ),
                priority=Priority.GUEST,
            )
            existing = created.id
        await self._db(self._links.set_link_status, self._property_id, code, link.status, self._clock(), paid)
        return (
            f"payment {existing} of {paid - recorded} recorded on PMS reservation {link.pms_reservation_id}"
        )
