"""The three guest-facing checks, answered while the guest waits (3 seconds, not retried).

``CheckAvailability`` and ``MakeReservation`` pass when the listing is mapped and not paused, the
stay keeps the listing's restrictions (minimum and maximum nights, no arrival or departure on a
closed weekday) and the view has a room of the listing's room type on every night.
``MakeReservation`` then holds that room (race-free, see the store's availability view), so two
guests asking for the last room get one yes and one no. ``UpdateReservation`` checks daily
availability only, as document 01 says, with the reservation's own current nights counted as
available to it. Every answer is recorded with its reason (``checkout_answer``); the channel
only ever hears ``succeed`` true or false, ``failure_code`` staying null.
"""

from __future__ import annotations

import asyncio
import logging
from dataclasses import dataclass
from datetime import date, timedelta

from roomsync.adapters.store.availability_view import SqlAvailabilityView
from roomsync.adapters.store.webhook_records import CheckoutAnswer, SqlWebhookRecords
from roomsync.adapters.webhooks.availability import AvailabilityService, NightsView
from roomsync.adapters.webhooks.keys import stay_nights
from roomsync.adapters.webhooks.mapping_index import CachedMapping
from roomsync.adapters.webhooks.protocols import Clock
from roomsync.core.api import webhooks as events
from roomsync.core.mapping import ListingMapping
from roomsync.core.ports import ListingStateStore
from roomsync.core.sync.desired import api_weekday

log = logging.getLogger("roomsync.webhooks.checkout")

GuestCheck = events.CheckAvailability | events.MakeReservation | events.UpdateReservation


@dataclass(frozen=True)
class Verdict:
    succeed: bool
    reason: str


class CheckoutDesk:
    def __init__(
        self,
        property_id: str,
        mapping: CachedMapping,
        listing_states: ListingStateStore,
        availability: AvailabilityService,
        view: SqlAvailabilityView,
        records: SqlWebhookRecords,
        clock: Clock,
    ) -> None:
        self._property_id = property_id
        self._mapping = mapping
        self._states = listing_states
        self._availability = availability
        self._view = view
        self._records = records
        self._clock = clock

    async def answer(self, event: GuestCheck, inbox_id: int | None = None) -> Verdict:
        verdict = await self._decide(event)
        code = None if isinstance(event, events.CheckAvailability) else event.confirmation_code
        log.info(
            "%s listing %s %s +%d night(s)%s: %s (%s)",
            event.action,
            event.listing_id,
            event.start_date,
            event.nights,
            f" {code}" if code else "",
            "yes" if verdict.succeed else "no",
            verdict.reason,
        )
        answer = CheckoutAnswer(
            property_id=self._property_id,
            action=event.action,
            listing_id=str(event.listing_id),
            start_date=event.start_date,
            nights=event.nights,
            succeed=verdict.succeed,
            reason=verdict.reason,
            answered_at=self._clock(),
            confirmation_code=code,
            inbox_id=inbox_id,
        )
        await asyncio.to_thread(self._records.record_answer, answer)
        return verdict

    async def _decide(self, event: GuestCheck) -> Verdict:
        if event.nights < 1:
            return Verdict(False, f"a stay is at least one night, got nights={event.nights}")
        index = await asyncio.to_thread(self._mapping.current)
        listing = index.listing(event.listing_id)
        if listing is None:
            return Verdict(False, f"listing {event.listing_id} is not in the mapping")
        state = await asyncio.to_thread(self._states.get_listing_state, index.key(listing))
        if state.paused:
            return Verdict(False, f"listing {listing.listing_id} is paused: {state.pause_reason}")
        today = self._clock().date()
        if event.start_date < today:
            return Verdict(False, f"the stay starts on {event.start_date}, before today {today}")
        nights = stay_nights(event.start_date, event.nights)
        if isinstance(event, events.UpdateReservation):
            return await self._alteration(event, listing, nights)
        broken = _broken_restriction(listing, event.start_date, event.nights)
        if broken:
            return Verdict(False, broken)
        view = await self._availability.nights(listing.room_type_id, nights)
        short = _first_short_night(view, nights, listing.room_type_id)
        if short:
            return Verdict(False, short)
        if isinstance(event, events.CheckAvailability):
            return Verdict(True, f"a room of type {listing.room_type_id} is free on every night")
        outcome = await asyncio.to_thread(
            self._view.try_hold,
            self._property_id,
            event.confirmation_code,
            listing.room_type_id,
            nights,
            self._clock(),
        )
        if outcome.already:
            return Verdict(True, f"{event.confirmation_code} already holds its room")
        if not outcome.held:
            return Verdict(
                False,
                f"another booking took the last room of type {listing.room_type_id} on {outcome.full_night}",
            )
        return Verdict(True, f"held a room of type {listing.room_type_id} for {event.confirmation_code}")

    async def _alteration(
        self, event: events.UpdateReservation, listing: ListingMapping, nights: list[date]
    ) -> Verdict:
        own = await asyncio.to_thread(self._view.holds_of, self._property_id, event.confirmation_code)
        own_nights = {night for night, room_type in own.items() if room_type == listing.room_type_id}
        booking = await asyncio.to_thread(
            self._records.get_booking, self._property_id, event.confirmation_code
        )
        if booking is not None and booking.listing_id == listing.listing_id:
            own_nights.update(stay_nights(booking.start_date, booking.nights))
        added = [night for night in nights if night not in own_nights]
        if not added:
            return Verdict(True, "the new stay lies within the reservation's own nights")
        view = await self._availability.nights(listing.room_type_id, added)
        short = _first_short_night(view, added, listing.room_type_id)
        if short:
            return Verdict(False, short)
        return Verdict(True, f"a room of type {listing.room_type_id} is free on every added night")


def _first_short_night(view: NightsView, nights: list[date], room_type_id: int) -> str | None:
    for night in nights:
        bookable = view.bookable(night)
        if bookable is None:
            why = f" ({view.note})" if view.note else ""
            return f"roomsync has no PMS availability of {night} for room type {room_type_id}{why}"
        if bookable < 1:
            return f"no room of type {room_type_id} is left on {night}"
    return None


def _broken_restriction(listing: ListingMapping, start: date, nights: int) -> str | None:
    rules = listing.restrictions
    if rules.min_nights is not None and nights < rules.min_nights:
        return f"listing {listing.listing_id} needs at least {rules.min_nights} nights, got {nights}"
    if rules.max_nights is not None and nights > rules.max_nights:
        return f"listing {listing.listing_id} allows at most {rules.max_nights} nights, got {nights}"
    if api_weekday(start) in rules.closed_to_arrival:
        return f"listing {listing.listing_id} is closed to arrival on {start} (weekday {api_weekday(start)})"
    end = start + timedelta(days=nights)
    if api_weekday(end) in rules.closed_to_departure:
        return f"listing {listing.listing_id} is closed to departure on {end} (weekday {api_weekday(end)})"
    return None
