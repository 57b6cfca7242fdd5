"""The three guest-facing checks, answered while the guest waits (3 seconds, not retried).

``CheckAvailability`` and ``MakeReservation`` pass when the listing is mapped and not paused, the
stay keeps the listing's restrictions (minimum and maximum nights, no arrival or departure on a
closed weekday), no night is one the PMS closed (the room type or the property, as the syncs
located it) and the view has a room of the listing's room type on every night.
``MakeReservation`` then holds that room (race-free, see the store's availability view), so two
guests asking for the last room get one yes and one no. ``UpdateReservation`` checks daily
availability only, as document 01 says, with the reservation's own current nights counted as
available to it. Every answer is recorded with its reason (``checkout_answer``); the channel
only ever hears ``succeed`` true or false, ``failure_code`` staying null.

Why one trip: the usual check finds its view fresh, and then storing the event, looking up the
listing, its state and the view, holding the room and recording the answer happen in ONE call off
the event loop. Each extra hop between the loop and a worker thread costs a GIL hand-off, which
under load is what dominates the answer time, not the database. Only a check that needs a PMS read
makes a second trip, after the read.
"""

from __future__ import annotations

import logging
import threading
import time
from dataclasses import dataclass
from datetime import date, datetime, timedelta

from sqlalchemy.exc import OperationalError

from roomsync.adapters.store.availability_view import SqlAvailabilityView, ViewNight
from roomsync.adapters.store.db_calls import DbCalls
from roomsync.adapters.store.webhook_records import CheckoutAnswer, SqlWebhookRecords
from roomsync.adapters.webhooks.ports import Answered, Clock, GuestCheck, Verdict
from roomsync.app.webhooks.availability import AvailabilityService
from roomsync.app.webhooks.mapping_index import CachedClosures, CachedListingStates, CachedMapping
from roomsync.core.api import webhooks as events
from roomsync.core.mapping import ListingMapping
from roomsync.core.ports import AcceptedDelivery, NewDelivery, WebhookInbox
from roomsync.core.sync.desired import api_weekday, stay_nights

log = logging.getLogger("roomsync.webhooks.checkout")

HOLD_DEADLINE_SECONDS = 2.5
"""A MakeReservation still unanswered this long after it arrived is refused without a hold."""
CALENDAR_DAYS = 730
"""The channel calendar covers today up to 730 days ahead (03-conventions): no stay reaches further."""

@dataclass(frozen=True)
class _NeedsRead:
    """The decision waits for a PMS read of ``first..last`` for ``room_type_id``."""

    room_type_id: int
    first: date
    last: date


class AnswerLog:
    """The answers given, written to ``checkout_answer`` in bulk.

    One insert per answer would be one of the costliest parts of a guest check, so answers are
    gathered and written together: by the check that finds ``FLUSH_SECONDS`` passed or
    ``FLUSH_COUNT`` waiting, by the flush the receiver schedules ``FLUSH_SECONDS`` after a check,
    and when the receiver stops. A crash loses at most that much of this record; the checks
    themselves are in the inbox, stored before any answer was given.
    """

    FLUSH_SECONDS = 0.25
    FLUSH_COUNT = 100

    def __init__(self, records: SqlWebhookRecords) -> None:
        self._records = records
        self._pending: list[CheckoutAnswer] = []
        self._since = 0.0
        self._lock = threading.Lock()

    def add(self, answer: CheckoutAnswer) -> None:
        """Gather an answer; write the batch when it is due. Never raises: the answer is given
        whether or not its record could be written (a failed batch waits for the next flush)."""
        with self._lock:
            if not self._pending:
                self._since = time.monotonic()
            self._pending.append(answer)
            due = (
                len(self._pending) >= self.FLUSH_COUNT or time.monotonic() - self._since >= self.FLUSH_SECONDS
            )
        if due:
            try:
                self.flush()
            except Exception:
                log.exception("the guest-check answers could not be written; the next flush tries again")

    def flush(self) -> int:
        """Write what is waiting; returns how many were written. Safe from any thread.

        When the database is unreachable (``OperationalError``) the whole batch waits for the next
        flush and the error is raised. When it refuses the batch for its content (a value no
        column holds, such as a 40-digit ``nights`` from a malformed check), the answers are
        written one by one and each one refused is logged with its content and dropped: one bad
        record must not keep every later answer unwritten. The check itself is in the inbox.
        """
        with self._lock:
            batch, self._pending = self._pending, []
        if not batch:
            return 0
        try:
            self._records.record_answers(batch)
            return len(batch)
        except OperationalError:
            self._requeue(batch)
            raise
        except Exception:
            log.warning("a batch of %d guest-check answers was refused; writing them one by one", len(batch))
        written = 0
        for index, answer in enumerate(batch):
            try:
                self._records.record_answers([answer])
                written += 1
            except OperationalError:
                self._requeue(batch[index:])
                raise
            except Exception as error:
                log.error(
                    "the answer to inbox event %s (%s, listing %s, %s +%s nights: %s) cannot be "
                    "recorded and is dropped: %s",
                    answer.inbox_id,
                    answer.action,
                    answer.listing_id,
                    answer.start_date,
                    answer.nights,
                    "yes" if answer.succeed else "no",
                    str(error).splitlines()[0][:300],
                )
        return written

    def _requeue(self, batch: list[CheckoutAnswer]) -> None:
        with self._lock:  # kept for the next flush; the answers were given all the same
            self._pending[:0] = batch


class CheckoutDesk:
    def __init__(
        self,
        property_id: str,
        inbox: WebhookInbox,
        mapping: CachedMapping,
        listing_states: CachedListingStates,
        closures: CachedClosures,
        availability: AvailabilityService,
        view: SqlAvailabilityView,
        records: SqlWebhookRecords,
        clock: Clock,
        db: DbCalls,
    ) -> None:
        self._property_id = property_id
        self._inbox = inbox
        self._db = db
        self._mapping = mapping
        self._states = listing_states
        self._closures = closures
        self._availability = availability
        self._view = view
        self._records = records
        self._clock = clock
        self.answers = AnswerLog(records)

    async def receive(self, event: GuestCheck, delivery: NewDelivery) -> Answered:
        """Store the check in the inbox, then answer it (the module docstring says how).

        A guest asking to book or to change a booking goes before the guests still asking whether
        a stay is free (``DbCalls``: the 3 s are the same for both, the money is not)."""
        db = self._db if isinstance(event, events.CheckAvailability) else self._db.urgent
        accepted, decided = await db(self._first_trip, event, delivery)
        if isinstance(decided, _NeedsRead):
            note = await self._availability.refresh(decided.first, decided.last, decided.room_type_id)
            decided = await db(self._second_trip, event, delivery, accepted, note)
        code = None if isinstance(event, events.CheckAvailability) else event.confirmation_code
        log.info(
            "%s listing %s %s +%d night(s)%s: %s (%s)",
            event.action,
            event.listing_id,
            event.start_date,
            event.nights,
            f" {code}" if code else "",
            "yes" if decided.succeed else "no",
            decided.reason,
        )
        return Answered(accepted, decided)

    # --- the two trips off the event loop -------------------------------------------------------

    def _first_trip(
        self, event: GuestCheck, delivery: NewDelivery
    ) -> tuple[AcceptedDelivery, Verdict | _NeedsRead]:
        accepted = self._inbox.accept_delivery(delivery)
        decided = self._decide(event, note=None, may_wait=True, received_at=delivery.received_at)
        if isinstance(decided, Verdict):
            self._record(event, decided, accepted.id)
        return accepted, decided

    def _second_trip(
        self, event: GuestCheck, delivery: NewDelivery, accepted: AcceptedDelivery, note: str | None
    ) -> Verdict:
        decided = self._decide(event, note=note, may_wait=False, received_at=delivery.received_at)
        assert isinstance(decided, Verdict)
        self._record(event, decided, accepted.id)
        return decided

    def _record(self, event: GuestCheck, verdict: Verdict, inbox_id: int) -> None:
        self.answers.add(
            CheckoutAnswer(
                property_id=self._property_id,
                action=event.action,
                listing_id=str(event.listing_id),
                start_date=event.start_date,
                nights=event.nights,
                succeed=verdict.succeed,
                reason=verdict.reason,
                answered_at=self._clock(),
                confirmation_code=None
                if isinstance(event, events.CheckAvailability)
                else event.confirmation_code,
                inbox_id=inbox_id,
            )
        )

    # --- the decision (runs off the event loop: it reads and writes the store) -----------------

    def _decide(
        self, event: GuestCheck, note: str | None, may_wait: bool, received_at: datetime | None = None
    ) -> Verdict | _NeedsRead:
        if event.nights < 1:
            return Verdict(False, f"a stay is at least one night, got nights={event.nights}")
        today = self._clock().date()
        if event.nights > CALENDAR_DAYS or event.start_date > today + timedelta(days=CALENDAR_DAYS):
            return Verdict(False, f"the stay lies beyond the channel calendar ({CALENDAR_DAYS} days ahead)")
        index = self._mapping.current()
        listing = index.listing(event.listing_id)
        if listing is None:
            return Verdict(False, f"listing {event.listing_id} is not in the mapping")
        state = self._states.get(index.key(listing))
        if state.paused:
            return Verdict(False, f"listing {listing.listing_id} is paused: {state.pause_reason}")
        if event.start_date < today:
            return Verdict(False, f"the stay starts on {event.start_date}, before today {today}")
        nights = stay_nights(event.start_date, event.nights)
        if isinstance(event, events.UpdateReservation):
            needed = [n for n in nights if n not in self._own_nights(event.confirmation_code, listing)]
            if not needed:
                return Verdict(True, "the new stay lies within the reservation's own nights")
        else:
            if isinstance(event, events.MakeReservation) and self._view.holds_of(
                self._property_id, event.confirmation_code
            ):
                return Verdict(True, f"{event.confirmation_code} already holds its room")
            broken = _broken_restriction(listing, event.start_date, event.nights)
            if broken:
                return Verdict(False, broken)
            needed = nights
        closed = self._closures.first_closed(listing.room_type_id, needed)
        if closed:
            return Verdict(False, closed)
        rows = self._view.read_nights(self._property_id, listing.room_type_id, needed)
        stale = self._availability.stale_nights(rows, needed)
        if stale and may_wait:
            return _NeedsRead(listing.room_type_id, stale[0], stale[-1])
        short = _first_short_night(rows, needed, listing.room_type_id, note)
        if short:
            return Verdict(False, short)
        if not isinstance(event, events.UpdateReservation):  # an alteration: daily availability (01)
            rooms = self._view.rooms_free_throughout(self._property_id, listing.room_type_id, needed)
            if rooms is not None and not rooms:
                return Verdict(False, _no_single_room(listing.room_type_id, needed))
        if not isinstance(event, events.MakeReservation):
            return Verdict(True, f"a room of type {listing.room_type_id} is free on every night asked for")
        now = self._clock()
        if received_at is not None and (now - received_at).total_seconds() > HOLD_DEADLINE_SECONDS:
            # The channel gives up after 3 s and tells the guest the dates are gone: a room held
            # now would wait for a confirmation that never comes.
            return Verdict(
                False, f"too late to hold a room: the check waited over {HOLD_DEADLINE_SECONDS:g} s"
            )
        outcome = self._view.try_hold(
            self._property_id, event.confirmation_code, listing.room_type_id, nights, now
        )
        if outcome.already:
            return Verdict(True, f"{event.confirmation_code} already holds its room")
        if outcome.no_single_room:
            return Verdict(False, _no_single_room(listing.room_type_id, nights))
        if not outcome.held:
            return Verdict(
                False,
                f"another booking took the last room of type {listing.room_type_id} on {outcome.full_night}",
            )
        return Verdict(True, f"held a room of type {listing.room_type_id} for {event.confirmation_code}")

    def _own_nights(self, confirmation_code: str, listing: ListingMapping) -> set[date]:
        """The nights the reservation holds now: its holds, and its stay as last applied."""
        own = {
            n
            for n, t in self._view.holds_of(self._property_id, confirmation_code).items()
            if t == listing.room_type_id
        }
        booking = self._records.get_booking(self._property_id, confirmation_code)
        if booking is not None and booking.listing_id == listing.listing_id:
            own.update(stay_nights(booking.start_date, booking.nights))
        return own


def _no_single_room(room_type_id: int, nights: list[date]) -> str:
    return (
        f"no single room of type {room_type_id} is free on every night {nights[0]}..{nights[-1]} "
        "(each night has one, but a stay needs the same room throughout)"
    )


def _first_short_night(
    rows: dict[date, ViewNight], nights: list[date], room_type_id: int, note: str | None
) -> str | None:
    for night in nights:
        found = rows.get(night)
        if found is None:
            why = f" ({note})" if note else ""
            return f"roomsync has no PMS availability of {night} for room type {room_type_id}{why}"
        if found.bookable < 1:
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
