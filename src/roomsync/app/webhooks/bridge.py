"""The reservation bridge: the channel's reservation events, applied to the PMS exactly once.

Every reservation event carries the whole channel reservation, so the bridge converges the PMS
to the state the event shows instead of replaying deltas:

* the first event of a confirmation code creates the PMS reservation (one request: the customer
  travels inside ``POST /v1/Reservation``), after ``reservation_links.claim_link`` made this
  worker the only one allowed to; its room is one that a fresh ``POST /v1/Availability/Room``
  shows free on every night. Status 3 (Confirmed) on acceptance, 11 when the first news is a
  cancellation; ``bookingAgencyReferenceCode`` is the confirmation code;
* an alteration moves the dates (same room when it is free on the added nights, else another
  free one) and sets status 10; a cancellation sets status 11 and the cancellation amounts, again
  when a later cancellation notice changes the payout; nothing is ever created twice;
* an event older (``updatedAt``) than the one applied last is recorded and skipped, so deliveries
  that arrive out of order cannot undo a newer state;
* a payout becomes one PMS payment of the amount paid since the last one recorded.

What the PMS was given is kept in ``channel_reservation``; a retry compares against it and sends
only what is still missing. After each change of occupancy the nights that changed are passed to
:class:`NightsChanged` (the overbooking guard); nights whose push failed are kept and pushed again
on the next try.
"""

from __future__ import annotations

import logging
from dataclasses import replace
from datetime import UTC, date, datetime, timedelta
from decimal import Decimal, InvalidOperation

from roomsync.adapters.store import Store
from roomsync.adapters.store.webhook_records import ChannelBooking
from roomsync.adapters.webhooks.keys import channel_date, channel_instant
from roomsync.app.webhooks.availability import rooms_free_throughout
from roomsync.app.webhooks.mapping_index import CachedMapping
from roomsync.app.webhooks.protocols import Clock, NightsChanged, PmsClient
from roomsync.core.api import webhooks as events
from roomsync.core.api.channel import Reservation as ChannelReservation
from roomsync.core.api.pms.availability import RoomAvailabilityRequest
from roomsync.core.api.pms.customers import ReservationCustomer
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
from roomsync.property import PropertyContext

log = logging.getLogger("roomsync.webhooks.bridge")

CANCELLED = "cancelled"
STAGE = {
    "ReservationAcceptanceConfirmation": 1,
    "ReservationAlterationConfirmation": 2,
    "ReservationCancellationConfirmation": 3,
}
"""How far along its life an event shows a reservation; breaks ties of equal ``updatedAt``."""
CENT = Decimal("0.01")

ReservationEvent = events.ReservationConfirmationEvent | events.PayoutNotification


class RetryLater(Exception):
    """The event cannot be applied yet (no free room, not mapped, ...); the message says why."""


def _amount(text: str | None, field: str) -> Decimal:
    try:
        return Decimal(text or "0").quantize(CENT)
    except InvalidOperation:
        raise ValueError(f"{field} {text!r} is not an amount") from None


def is_cancelled(reservation: ChannelReservation, action: str) -> bool:
    return action == "ReservationCancellationConfirmation" or reservation.status_type.startswith("cancel")


def agreed_total(reservation: ChannelReservation, cancelled: bool) -> Decimal:
    """What the guest pays the host: base price plus cleaning fee; once cancelled, the
    cancellation payout plus the host fee withheld from it (roomsync's choice, docs/webhooks.md)."""
    if cancelled:
        return _amount(
            reservation.listing_cancellation_payout_accurate, "listingCancellationPayoutAccurate"
        ) + _amount(reservation.listing_cancellation_host_fee_accurate, "listingCancellationHostFeeAccurate")
    return _amount(reservation.listing_base_price_accurate, "listingBasePriceAccurate") + _amount(
        reservation.listing_cleaning_fee_accurate, "listingCleaningFeeAccurate"
    )


def stay_of(reservation: ChannelReservation) -> tuple[date, int]:
    """First night and number of nights; the end date wins over ``nights`` when they disagree."""
    start = channel_date(reservation.start_date)
    try:
        nights = (channel_date(reservation.end_date) - start).days
    except ValueError:
        nights = reservation.nights
    return start, nights if nights >= 1 else reservation.nights


def _nights_text(nights: set[date]) -> str | None:
    return ",".join(sorted(n.isoformat() for n in nights)) or None


def _nights_of(text: str | None) -> set[date]:
    return {date.fromisoformat(part) for part in text.split(",")} if text else set()


class ReservationBridge:
    def __init__(
        self,
        context: PropertyContext,
        store: Store,
        client: PmsClient,
        mapping: CachedMapping,
        nights_changed: NightsChanged,
        clock: Clock,
    ) -> None:
        settings = context.settings
        self._settings = settings
        self._property_id = context.property_id
        self._store = store
        self._client = client
        self._mapping = mapping
        self._nights_changed = nights_changed
        self._clock = clock
        self.view = store.availability_view
        self.records = store.webhook_records
        self._db = store.db_calls

    # --- requests to book -------------------------------------------------------------------

    async def record_request(self, event: events.ReservationRequestEvent) -> str:
        """A request or its voiding is recorded; it holds nothing, so the PMS is not told."""
        reservation = event.reservation
        code = reservation.confirmation_code
        prev = await self._db(self.records.get_booking, self._property_id, code)
        if prev is not None and not prev.status_type.startswith("pending"):
            return f"{code} is {prev.status_type} already; the request notice changes nothing"
        start, nights = stay_of(reservation)
        await self._db(
            self.records.save_booking,
            ChannelBooking(
                property_id=self._property_id,
                confirmation_code=code,
                listing_id=reservation.listing_id,
                start_date=start,
                nights=nights,
                status_type=reservation.status_type or "pending",
                last_action=event.action,
                updated_at=self._clock(),
                channel_updated_at=channel_instant(reservation.updated_at),
            ),
        )
        return f"request {code} recorded ({event.action})"

    # --- confirmations and payouts ----------------------------------------------------------

    async def apply(self, event: ReservationEvent, attempt: int) -> str:
        reservation = event.reservation
        code = reservation.confirmation_code
        index = await self._db(self._mapping.current)
        listing = index.listing(reservation.listing_id)
        if listing is None:
            raise RetryLater(f"listing {reservation.listing_id} of {code} is not in the mapping")
        prev = await self._db(self.records.get_booking, self._property_id, code)
        link = await self._db(self._store.reservation_links.get_link, self._property_id, code)
        done: list[str] = []
        if isinstance(event, events.PayoutNotification):
            if link is None or link.pms_reservation_id is None or prev is None:
                done.append(await self._converge(event.action, reservation, listing, prev))
            done.append(await self._payout(event, attempt))
        elif self._is_stale(event.action, reservation, prev):
            assert prev is not None
            return (
                f"{event.action} of {code} is older than the {prev.last_action} applied already; "
                "nothing to do"
            )
        else:
            done.append(await self._converge(event.action, reservation, listing, prev))
        return "; ".join(done)

    def _is_stale(self, action: str, reservation: ChannelReservation, prev: ChannelBooking | None) -> bool:
        """Whether the event shows an older state than the one applied (it is then skipped)."""
        if prev is None or prev.status_type.startswith("pending"):
            return False
        updated = channel_instant(reservation.updated_at)
        known = prev.channel_updated_at
        if updated is not None and known is not None and updated != known:
            return updated < known
        # Same second (or no timestamps): a reservation only moves forward, accepted -> altered ->
        # cancelled, so an event of an earlier stage than the one applied is the older one.
        return STAGE.get(action, 0) < STAGE.get(prev.last_action, 0)

    async def _converge(
        self,
        action: str,
        reservation: ChannelReservation,
        listing: ListingMapping,
        prev: ChannelBooking | None,
    ) -> str:
        code = reservation.confirmation_code
        cancelled = is_cancelled(reservation, action)
        start, nights = stay_of(reservation)
        new_nights = set(stay_nights(start, nights))
        status = (
            ReservationStatus.CANCELLED_FROM_CHANNEL
            if cancelled
            else ReservationStatus.MODIFIED_FROM_CHANNEL
            if action == "ReservationAlterationConfirmation" or (prev is not None and prev.pms_status == 10)
            else ReservationStatus.CONFIRMED
        )
        total = agreed_total(reservation, cancelled)
        booking = ChannelBooking(
            property_id=self._property_id,
            confirmation_code=code,
            listing_id=listing.listing_id,
            room_type_id=listing.room_type_id,
            start_date=start,
            nights=nights,
            status_type=reservation.status_type,
            last_action=action,
            updated_at=self._clock(),
            channel_updated_at=channel_instant(reservation.updated_at),
            pms_status=prev.pms_status if prev else None,
            pms_room_id=prev.pms_room_id if prev else None,
            pms_date_from=prev.pms_date_from if prev else None,
            pms_date_to=prev.pms_date_to if prev else None,
            pms_total=prev.pms_total if prev else None,
            unpushed_nights=prev.unpushed_nights if prev else None,
        )
        link = await self._db(self._store.reservation_links.get_link, self._property_id, code)
        pms_id = link.pms_reservation_id if link is not None else None
        if pms_id is None:
            pms_id = await self._find_or_claim(code, listing, start, claimed=link is not None)
        if pms_id is None:
            booking, changed, summary = await self._create(
                reservation, listing, booking, status, total, new_nights, cancelled
            )
        else:
            recovered = booking.pms_status is None
            if recovered:
                booking = await self._seed_from_pms(pms_id, booking)
            booking, changed, summary = await self._update(
                pms_id, listing, booking, status, total, new_nights, cancelled, reservation
            )
            if recovered and not cancelled:
                changed |= new_nights  # whether the attempt that created it pushed them is unknown
        pending = changed | _nights_of(booking.unpushed_nights)
        booking = replace(booking, unpushed_nights=_nights_text(pending))
        await self._db(self.records.save_booking, booking)
        if pending:
            await self._push(listing, pending)
            await self._db(self.records.save_booking, replace(booking, unpushed_nights=None))
        return summary

    async def _find_or_claim(
        self, code: str, listing: ListingMapping, start: date, *, claimed: bool
    ) -> int | None:
        """The PMS id of the reservation when an earlier attempt made it, None when this worker
        holds the claim to create it; RetryLater when another worker does."""
        now = self._clock()
        if not claimed:
            if await self._db(
                self._store.reservation_links.claim_link, self._property_id, code, listing.listing_id, now
            ):
                return None
            raise RetryLater(f"another worker is creating {code} in the PMS")
        # claimed earlier but never recorded as created: a worker died between the two
        found = await self._look_up(code, start)
        if found is not None:
            await self._db(
                self._store.reservation_links.record_created, self._property_id, code, found, None, now
            )
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

    async def _create(
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
            await self._db(
                self.view.place_holds,
                self._property_id,
                code,
                listing.room_type_id,
                sorted(nights),
                self._clock(),
            )
            held = await self._db(self.view.held_room, self._property_id, code)
            room = await self._free_room(listing, nights, prefer=held)
        guests = reservation.guest_details
        customer = ReservationCustomer.model_validate(
            {
                "last_name": (reservation.guest_last_name or "Guest")[:100],
                "first_name": reservation.guest_first_name[:100] or None,
                "email": reservation.guest_email[:50] or None,
                "phone": reservation.guest_phone_numbers[0][:50] if reservation.guest_phone_numbers else None,
                "notes": (
                    f"{code}: {guests.adults} adults, {guests.children} children, {guests.infants} infants "
                    f"(channel guest {reservation.guest_id})"
                )[:250],
            }
        )
        created = await self._client.create_reservation(
            ReservationCreateRequest(
                booking_agency_id=self._settings.channel_booking_agency_id,
                booking_agency_reference_code=code,
                customer=customer,
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
        links = self._store.reservation_links
        await self._db(links.record_created, self._property_id, code, created.id, None, now)
        if cancelled:
            await self._db(links.set_link_status, self._property_id, code, CANCELLED, now)
        await self._db(self.view.settle_holds, self._property_id, code, [] if cancelled else nights, now)
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

    async def _seed_from_pms(self, pms_id: int, booking: ChannelBooking) -> ChannelBooking:
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

    async def _update(
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
            await self._db(
                self.view.place_holds,
                self._property_id,
                code,
                listing.room_type_id,
                sorted(nights),
                self._clock(),
            )
            added = nights - old_nights
            if room is None or added:
                room = await self._free_room(listing, nights, keep=room, added=added if room else None)
            changes.update(date_from=date_from, date_to=date_to, room_id=room)
        if not changes:
            if not cancelled:  # holds an attempt placed before it died are settled all the same
                await self._db(self.view.settle_holds, self._property_id, code, nights, self._clock())
            return booking, set(), f"PMS reservation {pms_id} already shows {code} as it is"
        if cancelled:
            changes["cancellation_fee_booking_agency"] = _amount(
                reservation.listing_cancellation_host_fee_accurate, "listingCancellationHostFeeAccurate"
            )
        await self._client.update_reservation_fields(
            pms_id, ReservationFieldsUpdateRequest.model_validate(changes), priority=Priority.GUEST
        )
        now = self._clock()
        if cancelled:
            await self._db(self.view.release_holds, self._property_id, code)
            await self._db(
                self._store.reservation_links.set_link_status, self._property_id, code, CANCELLED, now
            )
            changed = set() if was_cancelled else old_nights
        else:
            await self._db(self.view.settle_holds, self._property_id, code, nights, now)
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

    async def _push(self, listing: ListingMapping, nights: set[date]) -> None:
        ordered = sorted(nights)
        log.info(
            "pushing %d night(s) of room type %d (%s..%s) after a change through listing %s",
            len(ordered),
            listing.room_type_id,
            ordered[0],
            ordered[-1],
            listing.listing_id,
        )
        await self._nights_changed(
            self._property_id, listing.room_type_id, ordered, source_listing_id=listing.listing_id
        )

    async def _payout(self, event: events.PayoutNotification, attempt: int) -> str:
        reservation = event.reservation
        code = reservation.confirmation_code
        links = self._store.reservation_links
        link = await self._db(links.get_link, self._property_id, code)
        if link is None or link.pms_reservation_id is None:
            raise RetryLater(f"{code} is not in the PMS yet; its payout waits")
        paid = _amount(reservation.total_paid_amount_accurate, "totalPaidAmountAccurate")
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
        await self._db(links.set_link_status, self._property_id, code, link.status, self._clock(), paid)
        return (
            f"payment {existing} of {paid - recorded} recorded on PMS reservation {link.pms_reservation_id}"
        )
