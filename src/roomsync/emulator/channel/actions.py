"""What guests and hosts do on the channel's own website, as the control surface triggers it.

Each action changes the channel state the way the real channel would and sends the webhook
notifications of document 01. A guest booking runs the real checkout sequence: the channel's own
calendar check, ``CheckAvailability`` and ``MakeReservation`` (synchronous, 3-second timeout, no
retry; a failure means the guest is told the dates are gone), then the reservation blocks its
nights and ``ReservationAcceptanceConfirmation`` is queued.
"""

from __future__ import annotations

import zlib
from dataclasses import dataclass, replace
from datetime import date, datetime, timedelta
from decimal import Decimal
from typing import TYPE_CHECKING, Any

import httpx

from roomsync.core.api import webhooks as events
from roomsync.core.api.channel import ApprovalStatusCategory, SyncCategory
from roomsync.emulator.channel.calendar import NO_PRICE
from roomsync.emulator.channel.convert import TimeStyle, iso_instant, reservation_model
from roomsync.emulator.channel.records import (
    CONNECTED_DISCONNECTED,
    CONNECTED_LIMITED,
    HOST_CAPABILITIES,
    LISTING_CAPABILITIES,
    STATUS_APPROVED,
    ChannelReservation,
    GuestDetails,
    Listing,
    Review,
    SpecialOffer,
)
from roomsync.emulator.errors import conflict, invalid, not_found

if TYPE_CHECKING:
    from roomsync.emulator.state import EmulatorState

_CENT = Decimal("0.01")
HOST_FEE_RATE = Decimal("0.03")
GUEST_CANCELLATION_SHARE = Decimal("0.5")
"""Moderate policy: a guest's cancellation pays the host half of the base price."""


def _listing_by_id(state: EmulatorState, listing_id: str) -> Listing:
    listing = state.channel.listings.get(listing_id)
    if listing is None:
        raise not_found("listing", listing_id)
    state.channel.account(listing.account_id)
    return listing


def _emit(state: EmulatorState, event: events.WebhookPayload) -> dict[str, object]:
    return state.webhooks.enqueue_event(event).describe(with_payload=False)


def _nightly_total(listing: Listing, start: date, nights: int) -> Decimal:
    calendar = listing.calendar
    first, _ = calendar.covers(start, start + timedelta(days=max(nights, 1) - 1))
    cents = 0
    for offset in range(first, first + nights):
        price = calendar.price_cents[offset]
        cents += price if price != NO_PRICE else listing.default_price_cents
    return (Decimal(cents) / 100).quantize(_CENT)


def _cleaning_fee(listing: Listing) -> Decimal:
    settings = listing.pricing_settings
    fee = getattr(settings, "cleaning_fee", None)
    return Decimal(fee).quantize(_CENT) if fee is not None else Decimal("0.00")


def _guest_message(listing: Listing, state: EmulatorState, start: date, nights: int) -> str | None:
    """Why the channel itself would not sell the stay, None when it would."""
    account = state.channel.accounts[listing.account_id]
    if not listing.managed:
        return (
            f"listing {listing.listing_id} is not managed through the service (connected={listing.connected})"
        )
    if listing.status_category != STATUS_APPROVED or not listing.has_availability:
        return (
            f"listing {listing.listing_id} is not listed (approval {listing.status_category}, "
            f"hasAvailability {listing.has_availability})"
        )
    if account.safety_blocked or "accept_reservation" in account.suspended_capabilities:
        return f"host {account.id} may not accept reservations"
    if "accept_reservation" in listing.restricted_capabilities:
        return f"listing {listing.listing_id} may not accept reservations"
    if nights < 1:
        return "a stay is at least one night"
    blocked = state.channel.nights_sellable(listing, start, nights)
    if blocked:
        return f"the channel calendar has no unit left on {', '.join(d.isoformat() for d in blocked)}"
    return None


@dataclass
class Booking:
    listing_id: str
    start_date: date
    nights: int
    adults: int = 2
    children: int = 0
    infants: int = 0
    first_name: str = "Alex"
    last_name: str = "Guest"
    email: str = ""
    special_offer_id: str | None = None
    force: bool = False
    """Skip the channel's own calendar check (an overbooking race)."""


async def guest_books(state: EmulatorState, booking: Booking) -> dict[str, Any]:
    """The guest checks out: channel check, CheckAvailability, MakeReservation, then the booking."""
    listing = _listing_by_id(state, booking.listing_id)
    if not booking.force:
        reason = _guest_message(listing, state, booking.start_date, booking.nights)
        if reason:
            return {"booked": False, "stage": "channel", "reason": reason, "checks": []}
    code = state.channel.new_confirmation_code()
    base_price = _nightly_total(listing, booking.start_date, booking.nights)
    guests = booking.adults + booking.children
    checks: list[dict[str, object]] = []
    async with httpx.AsyncClient() as client:
        check = await state.webhooks.call_sync(
            client,
            events.CheckAvailability(
                start_date=booking.start_date, nights=booking.nights, listing_id=int(listing.listing_id)
            ),
        )
        checks.append({"action": "CheckAvailability", **check.describe()})
        if not check.succeed:
            return {"booked": False, "stage": "CheckAvailability", "checks": checks}
        make = await state.webhooks.call_sync(
            client,
            events.MakeReservation(
                confirmation_code=code,
                start_date=booking.start_date,
                nights=booking.nights,
                listing_id=int(listing.listing_id),
                number_of_guests=guests,
                guest_details=events.BookingGuestDetails(
                    localized_description=f"{guests} guests",
                    adults=booking.adults,
                    children=booking.children,
                    infants=booking.infants,
                ),
                listing_base_price=str(base_price),
                guest_id=_guest_id(booking),
                special_offer_id=booking.special_offer_id,
            ),
        )
        checks.append({"action": "MakeReservation", **make.describe()})
        if not make.succeed:
            return {"booked": False, "stage": "MakeReservation", "checks": checks}
    now = state.clock.now()
    reservation = replace(
        _new_reservation(listing, booking, code, base_price, now),
        guest_email=booking.email,
        cleaning_fee=_cleaning_fee(listing),
        special_offer_id=booking.special_offer_id,
        booked_at=now,
    )
    state.channel.add_reservation(reservation)
    delivery = _emit(
        state,
        events.ReservationAcceptanceConfirmation(
            reservation=reservation_model(reservation, TimeStyle.WEBHOOK)
        ),
    )
    return {"booked": True, "confirmationCode": code, "checks": checks, "delivery": delivery}


def _new_reservation(
    listing: Listing, booking: Booking, code: str, base_price: Decimal, now: datetime
) -> ChannelReservation:
    """What a booking and a request to book create alike (each adds its own fields)."""
    return ChannelReservation(
        confirmation_code=code,
        account_id=listing.account_id,
        listing_id=listing.listing_id,
        start_date=booking.start_date,
        nights=booking.nights,
        guest_id=_guest_id(booking),
        guest_first_name=booking.first_name,
        guest_last_name=booking.last_name,
        guest_details=GuestDetails(booking.adults, booking.children, booking.infants),
        currency=listing.currency,
        base_price=base_price,
        host_fee=(base_price * HOST_FEE_RATE).quantize(_CENT),
        thread_id=f"T{code}",
        created_at=now,
        updated_at=now,
    )


def _guest_id(booking: Booking) -> str:
    return str(zlib.crc32(f"{booking.first_name}|{booking.last_name}|{booking.email}".encode()))


def _reservation(state: EmulatorState, code: str) -> ChannelReservation:
    reservation = state.channel.reservations.get(code)
    if reservation is None:
        raise not_found("reservation", code)
    return reservation


def cancel(state: EmulatorState, code: str, by: str) -> dict[str, Any]:
    """The guest or the host cancels; again with the other party sends another notification."""
    if by not in ("guest", "host"):
        raise invalid("by", f"by must be guest or host, got {by!r}")
    reservation = _reservation(state, code)
    status = f"cancelled_by_{by}"
    if reservation.status_type == status:
        raise conflict(f"reservation {code} is already {status}")
    if not (reservation.active or reservation.status_type.startswith("cancelled_by_")):
        raise conflict(
            f"reservation {code} is {reservation.status_type}; only an accepted one can be cancelled"
        )
    if by == "guest":
        reservation.cancellation_payout = (reservation.base_price * GUEST_CANCELLATION_SHARE).quantize(_CENT)
        reservation.cancellation_host_fee = (reservation.cancellation_payout * HOST_FEE_RATE).quantize(_CENT)
    else:
        reservation.cancellation_payout = Decimal("0")
        reservation.cancellation_host_fee = Decimal("0")
    state.channel.set_reservation_status(reservation, status, state.clock.now())
    delivery = _emit(
        state,
        events.ReservationCancellationConfirmation(
            reservation=reservation_model(reservation, TimeStyle.WEBHOOK)
        ),
    )
    return {"cancelled": True, "statusType": status, "delivery": delivery}


async def alter(
    state: EmulatorState, code: str, start: date | None, nights: int | None, guests: int | None
) -> dict[str, Any]:
    """Guest and host agreed an alteration: UpdateReservation, then the alteration confirmation."""
    channel = state.channel
    reservation = _reservation(state, code)
    if not reservation.active:
        raise conflict(
            f"reservation {code} is {reservation.status_type}; only an accepted one can be altered"
        )
    listing = _listing_by_id(state, reservation.listing_id)
    new_start = start or reservation.start_date
    new_nights = nights or reservation.nights
    details = reservation.guest_details
    number_of_guests = guests if guests is not None else details.adults + details.children
    # The channel checks the new nights as if the reservation did not hold its own.
    channel.hold(reservation, -1)
    blocked = channel.nights_sellable(listing, new_start, new_nights)
    channel.hold(reservation, +1)
    if blocked:
        return {"altered": False, "stage": "channel", "reason": f"no unit left on {blocked[0].isoformat()}"}
    base_price = _nightly_total(listing, new_start, new_nights)
    async with httpx.AsyncClient() as client:
        check = await state.webhooks.call_sync(
            client,
            events.UpdateReservation(
                confirmation_code=code,
                start_date=new_start,
                nights=new_nights,
                listing_id=int(listing.listing_id),
                number_of_guests=number_of_guests,
                listing_base_price=str(base_price),
            ),
        )
    if not check.succeed:
        return {"altered": False, "stage": "UpdateReservation", "checks": [check.describe()]}
    previous = {"startDate": reservation.start_date.isoformat(), "nights": reservation.nights}
    reservation.base_price = base_price
    reservation.host_fee = (base_price * HOST_FEE_RATE).quantize(_CENT)
    details.adults = max(1, number_of_guests - details.children)
    channel.move_reservation(reservation, new_start, new_nights, state.clock.now())
    delivery = _emit(
        state,
        events.ReservationAlterationConfirmation(
            reservation=reservation_model(reservation, TimeStyle.WEBHOOK)
        ),
    )
    return {"altered": True, "checks": [check.describe()], "delivery": delivery, "previous": previous}


def request_booking(state: EmulatorState, booking: Booking, message: str | None) -> dict[str, Any]:
    """A request to book: a pending reservation (it holds nothing) and ReservationRequested."""
    listing = _listing_by_id(state, booking.listing_id)
    now = state.clock.now()
    code = state.channel.new_confirmation_code()
    base_price = _nightly_total(listing, booking.start_date, booking.nights)
    reservation = replace(_new_reservation(listing, booking, code, base_price, now), status_type="pending")
    state.channel.add_reservation(reservation)
    delivery = _emit(
        state,
        events.ReservationRequested(
            message_to_host=message, reservation=reservation_model(reservation, TimeStyle.PENDING)
        ),
    )
    return {"confirmationCode": code, "delivery": delivery}


def decide_request(state: EmulatorState, code: str, accept: bool) -> dict[str, Any]:
    """The host accepts a request (acceptance confirmation) or it is voided (request voided)."""
    reservation = _reservation(state, code)
    if reservation.status_type != "pending":
        raise conflict(f"reservation {code} is {reservation.status_type}, not a pending request")
    now = state.clock.now()
    if accept:
        state.channel.set_reservation_status(reservation, "accept", now)
        event: events.WebhookPayload = events.ReservationAcceptanceConfirmation(
            reservation=reservation_model(reservation, TimeStyle.WEBHOOK)
        )
    else:
        state.channel.set_reservation_status(reservation, "pending_voided", now)
        event = events.ReservationRequestVoided(reservation=reservation_model(reservation, TimeStyle.PENDING))
    return {"statusType": reservation.status_type, "delivery": _emit(state, event)}


# --- host actions -------------------------------------------------------------------------------


def unlink(state: EmulatorState, account_id: str, listing_ids: list[str]) -> dict[str, Any]:
    listings = state.channel.listings_for_ids(account_id, listing_ids)
    for listing in listings:
        listing.connected = CONNECTED_DISCONNECTED
    event = events.ListingsUnlinked(host_id=account_id, listing_ids=[x.listing_id for x in listings])
    return {"delivery": _emit(state, event)}


def revoke(state: EmulatorState, account_id: str) -> dict[str, Any]:
    channel = state.channel
    managed = [x.listing_id for x in channel.listings_of(account_id) if x.managed]
    channel.unauthorize(account_id)
    return {"delivery": _emit(state, events.AuthorizationRevoked(host_id=account_id, listing_ids=managed))}


def suspend_listing(state: EmulatorState, listing_id: str, capabilities: list[str]) -> dict[str, Any]:
    wrong = [c for c in capabilities if c not in LISTING_CAPABILITIES]
    if wrong or not capabilities:
        raise invalid(
            "capabilities", f"listing capabilities must be some of {LISTING_CAPABILITIES}, got {wrong}"
        )
    listing = _listing_by_id(state, listing_id)
    listing.restricted_capabilities = sorted(set(listing.restricted_capabilities) | set(capabilities))
    event = events.ListingSuspension(
        listing_id=listing_id,
        restricted_capability_types=[events.ListingCapability(c) for c in listing.restricted_capabilities],
    )
    return {"delivery": _emit(state, event)}


def suspend_host(state: EmulatorState, account_id: str, capabilities: list[str]) -> dict[str, Any]:
    wrong = [c for c in capabilities if c not in HOST_CAPABILITIES]
    if wrong or not capabilities:
        raise invalid("capabilities", f"host capabilities must be some of {HOST_CAPABILITIES}, got {wrong}")
    account = state.channel.account(account_id)
    account.suspended_capabilities = sorted(set(account.suspended_capabilities) | set(capabilities))
    event = events.HostSuspension(
        host_id=account_id,
        capability_types=[events.HostCapability(c) for c in account.suspended_capabilities],
    )
    return {"delivery": _emit(state, event)}


def safety_suspension(state: EmulatorState, account_id: str) -> dict[str, Any]:
    account = state.channel.account(account_id)
    account.safety_blocked = True
    deadline = (state.clock.today() - timedelta(days=1)).isoformat()
    event = events.SafetyCommitmentSuspension(
        host_id=account_id,
        capability_type_restricted=events.HostCapability.ACCEPT_RESERVATION,
        message=f"The safety commitment was not accepted by {deadline}; all calendars are blocked.",
    )
    return {"delivery": _emit(state, event)}


def reactivate(state: EmulatorState, account_id: str) -> dict[str, Any]:
    """The host accepts the safety commitment; listing and host restrictions are lifted too."""
    account = state.channel.account(account_id)
    account.safety_blocked = False
    account.suspended_capabilities = []
    for listing in state.channel.listings_of(account_id):
        listing.restricted_capabilities = []
    event = events.SafetyCommitmentReactivation(
        host_id=account_id,
        capability_type_reactivated=events.HostCapability.ACCEPT_RESERVATION,
        message="The safety commitment was accepted; calendars are unblocked.",
    )
    return {"delivery": _emit(state, event)}


def change_approval(state: EmulatorState, listing_id: str, status: str, notes: str) -> dict[str, Any]:
    try:
        ApprovalStatusCategory(status)
    except ValueError:
        raise invalid("statusCategory", f"unknown statusCategory {status!r}") from None
    listing = _listing_by_id(state, listing_id)
    before = len(state.webhooks.deliveries)
    state.channel.set_approval(listing, status, notes)
    sent = state.webhooks.deliveries[before:]
    return {"statusCategory": status, "deliveries": [d.describe(with_payload=False) for d in sent]}


def sync_settings(state: EmulatorState, account_id: str, listing_ids: list[str]) -> dict[str, Any]:
    listings = state.channel.listings_for_ids(account_id, listing_ids)
    for listing in listings:
        listing.connected = CONNECTED_LIMITED
    event = events.ListingSynchronizationSettingsUpdated(
        host_id=account_id,
        updates=[
            events.SyncSettingUpdate(listing_id=x.listing_id, sync_category=SyncCategory.LIMITED)
            for x in listings
        ],
    )
    return {"delivery": _emit(state, event)}


def payout(state: EmulatorState, code: str) -> dict[str, Any]:
    reservation = _reservation(state, code)
    if reservation.status_type == "pending" or reservation.status_type == "pending_voided":
        raise conflict(f"reservation {code} is {reservation.status_type}: nothing to pay out")
    reservation.total_paid = reservation.expected_payout
    event = events.PayoutNotification(
        confirmed_at=state.clock.unix(), reservation=reservation_model(reservation, TimeStyle.WEBHOOK)
    )
    return {"delivery": _emit(state, event)}


def edit_listing(state: EmulatorState, listing_id: str, changes: dict[str, Any]) -> dict[str, Any]:
    """The host edits the listing on the channel's website (e.g. adds the missing permit)."""
    listing = _listing_by_id(state, listing_id)
    allowed = {"name", "permit_or_tax_id", "street", "city", "person_capacity", "requires_manual_review"}
    unknown = set(changes) - allowed
    if unknown:
        raise invalid(None, f"cannot edit {sorted(unknown)}; editable: {sorted(allowed)}")
    for name, value in changes.items():
        setattr(listing, name, value)
    return {"listingId": listing_id, "changed": sorted(changes)}


def special_offer(
    state: EmulatorState, booking: Booking, offer_type: str, total_price: int
) -> dict[str, Any]:
    if offer_type not in ("preapproval", "special_offer"):
        raise invalid("offerType", f"offerType must be preapproval or special_offer, got {offer_type!r}")
    listing = _listing_by_id(state, booking.listing_id)
    channel = state.channel
    now = state.clock.now()
    offer = SpecialOffer(
        id=channel.new_id("SO"),
        listing_id=listing.listing_id,
        start_date=booking.start_date,
        nights=booking.nights,
        adults=booking.adults,
        children=booking.children,
        infants=booking.infants,
        offer_type=offer_type,
        total_price=total_price,
        thread_id=channel.new_id("T"),
        created_at=now,
        expires_at=now + timedelta(days=1),
    )
    channel.offers[offer.id] = offer
    return {"specialOfferId": offer.id, "delivery": _emit(state, _offer_event(offer, created=True))}


def void_offer(state: EmulatorState, offer_id: str) -> dict[str, Any]:
    offer = state.channel.offers.get(offer_id)
    if offer is None:
        raise not_found("special offer", offer_id)
    if not offer.is_active:
        raise conflict(f"special offer {offer_id} is already void")
    offer.is_active = False
    offer.rescinded_at = state.clock.now()
    return {"delivery": _emit(state, _offer_event(offer, created=False))}


def _offer_event(offer: SpecialOffer, *, created: bool) -> events.WebhookPayload:
    fields: dict[str, Any] = {
        "special_offer_id": offer.id,
        "is_active": offer.is_active,
        "listing_id": offer.listing_id,
        "nights": offer.nights,
        "number_of_guests": offer.adults + offer.children,
        "offer_type": events.OfferType(offer.offer_type),
        "rescinded_at": iso_instant(offer.rescinded_at) if offer.rescinded_at else None,
        "start_date": offer.start_date.isoformat(),
        "thread_id": offer.thread_id,
        "total_price": offer.total_price,
        "block_instant_booking": offer.block_instant_booking,
        "created_at": iso_instant(offer.created_at),
        "expires_at": iso_instant(offer.expires_at),
        "number_of_adults": offer.adults,
        "number_of_children": offer.children,
        "number_of_infants": offer.infants,
    }
    return events.SpecialOfferCreated(**fields) if created else events.SpecialOfferVoided(**fields)


REVIEW_STAGES = ("created", "submitted", "published", "expired", "response")


def review(
    state: EmulatorState,
    code: str,
    stage: str,
    reviewer_role: str = "guest",
    rating: int = 5,
    text: str = "Lovely stay.",
) -> dict[str, Any]:
    """Move the review of a reservation through created, submitted, published, expired, response."""
    if stage not in REVIEW_STAGES:
        raise invalid("stage", f"stage must be one of {REVIEW_STAGES}, got {stage!r}")
    if reviewer_role not in ("guest", "host"):
        raise invalid("reviewerRole", f"reviewerRole must be guest or host, got {reviewer_role!r}")
    if not 1 <= rating <= 5:
        raise invalid("rating", f"rating must be 1-5, got {rating}")
    reservation = _reservation(state, code)
    channel = state.channel
    now = state.clock.now()
    key = f"{code}:{reviewer_role}"
    found = channel.reviews.get(key)
    if found is None:
        if stage != "created":
            raise conflict(f"no {reviewer_role} review of {code} yet: create it first")
        by_guest = reviewer_role == "guest"
        found = Review(
            id=channel.new_id("R"),
            reservation_code=code,
            reviewer_role=reviewer_role,
            reviewer_id=reservation.guest_id if by_guest else reservation.account_id,
            reviewee_role="host" if by_guest else "guest",
            reviewee_id=reservation.account_id if by_guest else reservation.guest_id,
            listing_id=reservation.listing_id if by_guest else None,
            created_at=now,
        )
        channel.reviews[key] = found
    elif stage == "created":
        raise conflict(f"the {reviewer_role} review of {code} exists already")
    if stage == "submitted":
        categories = (
            ("accuracy", "cleanliness", "checkin", "communication", "location", "value")
            if reviewer_role == "guest"
            else ("cleanliness", "communication", "respect_house_rules")
        )
        found.submitted, found.submitted_at = True, now
        found.overall_rating, found.public_review = rating, text
        found.private_feedback = "Thanks!"
        found.category_ratings = [
            (c, rating, None if rating == 5 else "Could be better.") for c in categories
        ]
    elif stage == "published":
        found.hidden = False
    elif stage == "response":
        found.reviewee_response, found.responded_at = "Thank you for staying with us.", now
    event_type = {
        "created": events.ReviewCreated,
        "submitted": events.ReviewSubmitted,
        "published": events.ReviewPublished,
        "expired": events.ReviewExpired,
        "response": events.ReviewResponseSubmitted,
    }[stage]
    event = event_type(
        review_id=found.id,
        reviewer_role=found.reviewer_role,
        reviewer_id=found.reviewer_id,
        reviewee_role=found.reviewee_role,
        reviewee_id=found.reviewee_id,
        listing_id=found.listing_id,
        reservation_confirmation_code=code,
        hidden=found.hidden,
        submitted=found.submitted,
        overall_rating=found.overall_rating,
        public_review=found.public_review,
        private_feedback=found.private_feedback,
        reviewee_response=found.reviewee_response,
        category_ratings=[
            events.CategoryRating(category=events.ReviewCategory(c), rating=r, comment=comment)
            for c, r, comment in found.category_ratings
        ],
        expires_at=iso_instant(found.created_at + timedelta(days=14)),
        first_completed_at=iso_instant(found.submitted_at) if found.submitted_at else None,
        submitted_at=iso_instant(found.submitted_at) if found.submitted_at else None,
        responded_at=iso_instant(found.responded_at) if found.responded_at else None,
    )
    return {"reviewId": found.id, "delivery": _emit(state, event)}
