"""The records the emulated rental channel keeps: plain dataclasses, independent of the API models.

Handlers (``roomsync.emulator.channel.handlers``) convert them to and from the document-01 models.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from datetime import date, datetime, timedelta
from decimal import Decimal
from typing import Any

from roomsync.emulator.channel.calendar import ListingCalendar

# Values of document 01.
STATUS_NEW = "new"
STATUS_READY_FOR_REVIEW = "ready_for_review"
STATUS_APPROVED = "approved"
STATUS_REJECTED = "rejected"

CONNECTED_LIMITED = "Limited"
CONNECTED_FULL = "Full"
CONNECTED_UNDECIDED = "Undecided"
CONNECTED_DISCONNECTED = "Disconnected"

MIN_HOURS_AHEAD = frozenset({*range(0, 25), 48, 72, 168})
MAX_DAYS_NOTICE = frozenset({-1, 0, *range(30, 331, 30), 365})
PREPARATION_TIME = frozenset({0, 1, 2})
ALLOW_REQUEST_TO_BOOK = frozenset({-1, 0, 1})
WEEKDAYS = frozenset(range(7))

LISTING_CAPABILITIES = ("listing_searchable", "listing_visible", "activate_listing", "accept_reservation")
HOST_CAPABILITIES = (
    "login",
    "send_message",
    "receive_payout",
    "accept_reservation",
    "create_listing",
    "listing_searchable",
    "listing_visible",
    "activate_listing",
    "make_payment",
    "ugc_visible",
    "message",
    "review_visible",
    "delete_account",
    "activate_us_listing_without_postal_verification",
)


@dataclass
class Account:
    id: str
    email: str
    first_name: str
    last_name: str
    phone: str | None = None
    picture_url: str | None = None
    picture_url_large: str | None = None
    error: str | None = None
    authorized: bool = True
    """False once the host revoked the service's permission or the account was unauthorized."""
    suspended_capabilities: list[str] = field(default_factory=list)
    safety_blocked: bool = False
    """The host missed the safety commitment: every calendar of the host is blocked."""


@dataclass
class AvailabilityRules:
    default_min_nights: int = 1
    default_max_nights: int = 1125
    min_hours_ahead: int = 0
    allow_request_to_book: int = -1
    max_days_notice: int = -1
    preparation_time: int = 0
    check_in_days: list[int] | None = None
    check_out_days: list[int] | None = None
    min_nights_for_check_in: list[tuple[int, int]] = field(default_factory=list)
    """``(dayOfWeek, minNights)`` pairs."""


@dataclass
class Listing:
    account_id: str
    listing_id: str
    name: str
    calendar: ListingCalendar
    property_group: str = "apartments"
    property_category: str = "apartment"
    room_category: str = "entire_home"
    bedrooms: int = 1
    bathrooms: Decimal = Decimal("1")
    beds: int | None = 1
    check_in_category: str = "keypad"
    check_in_instruction: str = "The code is sent on the day of arrival."
    status_category: str = STATUS_NEW
    status_notes: str = ""
    has_availability: bool = True
    permit_or_tax_id: str = ""
    apt: str = ""
    street: str = ""
    city: str = ""
    state: str = ""
    zip_code: str = ""
    country_code: str = "GR"
    latitude: str = "37.9755"
    longitude: str = "23.7348"
    user_defined_location: bool = False
    directions: str = ""
    person_capacity: int = 2
    connected: str = CONNECTED_UNDECIDED
    bathroom_shared: bool | None = None
    bathroom_shared_with_category: list[str] | None = None
    common_spaces_shared: bool | None = None
    common_spaces_shared_with_category: list[str] | None = None
    total_inventory_count: int | None = None
    property_external_id: str | None = None
    tier: str = "marketplace"
    display_exact_location_to_guest: bool = False
    currency: str = "EUR"
    default_price_cents: int = 10000
    rules: AvailabilityRules = field(default_factory=AvailabilityRules)
    pricing_settings: Any = None
    """The stored pricing-settings model (document 01 does not show its shape)."""
    published_once: bool = False
    room_type_inventory: bool = False
    """True for listings that sell a room type (``totalInventoryCount`` units), not one unit."""
    permit_required: bool = False
    """The listing's city requires ``permitOrTaxId`` before it can be published."""
    requires_manual_review: bool = False
    restricted_capabilities: list[str] = field(default_factory=list)
    pms_room_type_id: int | None = None
    """Scenario hint: the PMS room type this listing sells (the mapping is roomsync's config)."""
    pms_room_id: int | None = None
    """Scenario hint: the PMS room of a single-unit listing."""

    @property
    def managed(self) -> bool:
        """Managed through the service: connected and not disconnected or unlinked."""
        return self.connected in (CONNECTED_FULL, CONNECTED_LIMITED)

    @property
    def price(self) -> Decimal:
        return Decimal(self.default_price_cents) / 100


@dataclass
class GuestDetails:
    adults: int = 2
    children: int = 0
    infants: int = 0


@dataclass
class ChannelReservation:
    confirmation_code: str
    account_id: str
    listing_id: str
    start_date: date
    nights: int
    guest_id: str
    guest_first_name: str
    guest_last_name: str
    guest_email: str = ""
    guest_phone_numbers: list[str] = field(default_factory=list)
    guest_preferred_locale: str = "en"
    guest_details: GuestDetails = field(default_factory=GuestDetails)
    status_type: str = "accept"
    cancellation_policy_category: str = "moderate"
    currency: str = "EUR"
    base_price: Decimal = Decimal("0")
    cleaning_fee: Decimal = Decimal("0")
    security_price: Decimal = Decimal("0")
    host_fee: Decimal = Decimal("0")
    pass_through_tax: Decimal = Decimal("0")
    cancellation_payout: Decimal = Decimal("0")
    cancellation_host_fee: Decimal = Decimal("0")
    total_paid: Decimal = Decimal("0")
    special_offer_id: str | None = None
    thread_id: str = ""
    created_at: datetime | None = None
    updated_at: datetime | None = None
    booked_at: datetime | None = None

    @property
    def end_date(self) -> date:
        return self.start_date + timedelta(days=self.nights)

    @property
    def active(self) -> bool:
        """Holds its nights: accepted (a request or a cancellation holds nothing)."""
        return self.status_type == "accept"

    @property
    def expected_payout(self) -> Decimal:
        if self.status_type.startswith("cancelled"):
            return self.cancellation_payout - self.cancellation_host_fee
        return self.base_price + self.cleaning_fee - self.host_fee


@dataclass
class RuleSet:
    id: str
    account_id: str
    model: Any
    """The stored rule-set model as last written (document 01 does not show its shape)."""


@dataclass
class TimelineEntry:
    listing_id: str
    rule_set_id: str
    date_from: date
    date_to: date


@dataclass
class SpecialOffer:
    id: str
    listing_id: str
    start_date: date
    nights: int
    adults: int
    children: int
    infants: int
    offer_type: str
    total_price: int
    thread_id: str
    created_at: datetime
    expires_at: datetime
    block_instant_booking: bool = False
    is_active: bool = True
    rescinded_at: datetime | None = None


@dataclass
class Review:
    id: str
    reservation_code: str
    reviewer_role: str
    reviewer_id: str
    reviewee_role: str
    reviewee_id: str
    listing_id: str | None
    created_at: datetime
    submitted: bool = False
    hidden: bool = True
    overall_rating: int | None = None
    public_review: str | None = None
    private_feedback: str | None = None
    reviewee_response: str | None = None
    category_ratings: list[tuple[str, int, str | None]] = field(default_factory=list)
    submitted_at: datetime | None = None
    responded_at: datetime | None = None
