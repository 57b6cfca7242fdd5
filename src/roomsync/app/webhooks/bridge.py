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

This module is the dispatch: which event means what, and what was applied. What a channel
reservation means in PMS terms is in :mod:`.reservation_terms`; every request to the PMS is in
:mod:`.pms_reservations`.
"""

from __future__ import annotations

import logging
from dataclasses import replace
from datetime import date

from roomsync.adapters.store import Store
from roomsync.adapters.store.webhook_records import ChannelBooking
from roomsync.adapters.webhooks.keys import channel_instant
from roomsync.app.webhooks.mapping_index import CachedMapping
from roomsync.app.webhooks.pms_reservations import PmsReservations, RetryLater
from roomsync.app.webhooks.protocols import Clock, NightsChanged, PmsClient
from roomsync.app.webhooks.reservation_terms import agreed_total, is_cancelled, pms_status, stay_of
from roomsync.core.api import webhooks as events
from roomsync.core.api.channel import Reservation as ChannelReservation
from roomsync.core.mapping import ListingMapping
from roomsync.core.sync.desired import stay_nights
from roomsync.property_context import PropertyContext

# RetryLater is raised by the PMS side too; callers catch it from here, where events are applied
__all__ = ["STAGE", "ReservationBridge", "ReservationEvent", "RetryLater"]

log = logging.getLogger("roomsync.webhooks.bridge")

STAGE = {
    "ReservationAcceptanceConfirmation": 1,
    "ReservationAlterationConfirmation": 2,
    "ReservationCancellationConfirmation": 3,
}
"""How far along its life an event shows a reservation; breaks ties of equal ``updatedAt``."""

ReservationEvent = events.ReservationConfirmationEvent | events.PayoutNotification


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
        self._property_id = context.property_id
        self._store = store
        self._pms = PmsReservations(context, store, client, clock)
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
            done.append(await self._pms.record_payout(event, attempt))
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
        status = pms_status(action, cancelled, prev.pms_status if prev else None)
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
        if cancelled and prev is not None and not prev.status_type.startswith("cancel"):
            # recorded cancelled before the PMS frees the room: a sync run counts this channel's
            # own reservations in a count only while this record holds them (app/sync/
            # own_reservations.py), and between the two it then offers one room fewer, never one
            # more than the PMS has
            await self._db(self.records.save_booking, booking)
        link = await self._db(self._store.reservation_links.get_link, self._property_id, code)
        pms_id = link.pms_reservation_id if link is not None else None
        if pms_id is None:
            pms_id = await self._pms.find_or_claim(code, listing, start, claimed=link is not None)
        if pms_id is None:
            booking, changed, summary = await self._pms.create(
                reservation, listing, booking, status, total, new_nights, cancelled
            )
        else:
            recovered = booking.pms_status is None
            if recovered:
                booking = await self._pms.seed_from_pms(pms_id, booking)
            booking, changed, summary = await self._pms.update(
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
