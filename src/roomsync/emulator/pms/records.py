"""The records the emulated PMS keeps: plain dataclasses, independent of the API models.

Field names are the snake_case forms of the document-02 names, so a record converts to and from
an API model by name (see ``roomsync.emulator.pms.handlers.convert``). Records know nothing of
HTTP; the rules that depend on several records live in ``PmsState``.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from datetime import date, datetime, timedelta
from decimal import Decimal
from enum import IntEnum


class ReservationStatus(IntEnum):
    """``reservationStatusId`` values (document 02)."""

    TENTATIVE = 1
    CHANNEL_NEW = 2
    CONFIRMED = 3
    CHECKED_IN = 4
    CHECKED_OUT = 5
    EARLY_DEPARTURE = 6
    CONFIRMED_CANCELLED = 7
    TENTATIVE_CANCELLED = 8
    NO_SHOW = 9
    MODIFIED_FROM_CHANNEL = 10
    CANCELLED_FROM_CHANNEL = 11
    CHECKED_OUT_LATE = 12


STATUS_TITLES: dict[int, str] = {
    1: "Tentative",
    2: "Channel new",
    3: "Confirmed",
    4: "Checked-in",
    5: "Checked-out",
    6: "Early departure",
    7: "Confirmed cancelled",
    8: "Tentative cancelled",
    9: "Customer no-show",
    10: "Modified from channel",
    11: "Cancelled from channel",
    12: "Checked-out late",
}

RELEASED_STATUSES = frozenset({7, 8, 9, 11})
"""Cancelled and no-show reservations hold no room on any night."""

DEPARTED_STATUSES = frozenset({5, 6, 12})
"""The guest has left: the room is held only on the nights before the departure was recorded."""

CANCELLED_STATUSES = frozenset({7, 8, 11})

BOARDS: dict[str, str] = {
    "RO": "Room only",
    "BB": "Bed and breakfast",
    "HB": "Half board",
    "FB": "Full board",
    "AI": "All inclusive",
}


def nights(date_from: date, date_to: date) -> list[date]:
    """The nights of a stay: ``date_from`` up to, not including, the departure day ``date_to``."""
    return [date_from + timedelta(days=i) for i in range((date_to - date_from).days)]


@dataclass
class Title:
    title: str
    language_code: str = "en"
    is_main: int = 1


@dataclass
class RoomType:
    id: int
    titles: list[Title]

    @property
    def title(self) -> str:
        main = [t for t in self.titles if t.is_main] or self.titles
        return main[0].title if main else f"Room type {self.id}"


@dataclass
class RoomGroup:
    id: int
    title: str


@dataclass
class Room:
    id: int
    title: str
    room_type_id: int
    room_group_id: int | None = None
    is_enabled: int = 1
    clean_status: int = 1
    num_adults_base: int = 2
    num_adults_max: int = 2
    priority: int = 0


@dataclass
class BookingAgency:
    id: int
    title: str


@dataclass
class AgencyContract:
    """A booking agency's contract: which price list its sales use, and when it is valid.

    ``date_from``/``date_to`` are nights, ``date_to`` included (a validity range, not a stay).
    """

    id: int
    booking_agency_id: int | None
    price_list_id: int
    date_from: date
    date_to: date
    title: str = ""


@dataclass
class CustomerCategory:
    id: int
    title: str


@dataclass
class Customer:
    id: int
    last_name: str
    first_name: str | None = None
    email: str | None = None
    mobile: str | None = None
    phone: str | None = None
    billing_address1: str | None = None
    billing_address2: str | None = None
    billing_city: str | None = None
    billing_zip_code: str | None = None
    province_id: int | None = None
    country_code: str | None = None
    tax_id: str | None = None
    tax_id_additional: str | None = None
    is_sales_tax_exempt: int = 0
    occupation: str | None = None
    notes: str | None = None
    categories: list[CustomerCategory] = field(default_factory=list)


@dataclass
class Guest:
    id: int
    first_name: str
    last_name: str
    last_name2: str | None = None
    date_of_birth: date | None = None
    id_doc_issue_date: date | None = None
    id_doc_type: str | None = None
    id_doc_number: str | None = None
    id_doc_issue_country_id: str | None = None
    id_doc_expiration_date: date | None = None
    nationality_country_id: str | None = None
    province_id: int | None = None
    is_primary_guest: int = 0
    salutation_id: int | None = None
    reservation_id: int | None = None
    email: str | None = None
    phone_number: str | None = None
    phone_number2: str | None = None
    address_street: str | None = None
    address_street_number: str | None = None
    address_zip_code: str | None = None
    role: str | None = None
    spanish_province_code: str | None = None
    spanish_municipality_code: str | None = None
    country_alpha3_code: str | None = None
    residence_alpha3_code: str | None = None
    support_doc_number: str | None = None
    relationship_to_customer: str | None = None


@dataclass
class Reservation:
    id: int
    customer_id: int
    room_id: int
    room_type_id: int
    date_from: date
    date_to: date
    reservation_status_id: int
    price_list_id: int | None
    currency_code: str
    total_agreed_price: Decimal
    normal_price: Decimal
    create_date: datetime
    last_update: datetime
    actual_reservation_date: date
    board: str = "RO"
    num_adults: int = 1
    num_children: int = 0
    booking_agency_id: int | None = None
    booking_agency_reference_code: str | None = None
    contract_id: int | None = None
    notes: str | None = None
    channel_notes: str | None = None
    cancellation_fee_booking_agency: Decimal = Decimal("0")
    cancellation_reason_id: int | None = None
    group_id: str = ""
    invoice_id: int | None = None
    invoice_number: str | None = None
    external_system_id: str | None = None
    promo_code: str | None = None
    discount: Decimal = Decimal("0")
    commission: Decimal = Decimal("0")
    commission_booking_agency: Decimal = Decimal("0")
    exchange_rate: Decimal = Decimal("1")
    is_channel_reservation: int = 0
    is_locked: int = 0
    is_non_refundable: int = 0
    is_overriden: int = 0
    move_customer_told: int = 0
    reservation_source_id: int | None = None
    credit_card_token: str | None = None
    credit_card_rest_token: str | None = None
    credit_card_views: int = 0
    pre_cancellation_total_agreed_price: Decimal | None = None
    cancel_date: datetime | None = None
    departed_on: date | None = None
    """Day the guest left, recorded when the status becomes a departed one (5, 6, 12)."""
    create_user: str = "api"
    update_user: str = "api"
    guest_ids: list[int] = field(default_factory=list)

    @property
    def num_nights(self) -> int:
        return (self.date_to - self.date_from).days

    def holds_room(self) -> bool:
        return self.reservation_status_id not in RELEASED_STATUSES

    def held_nights(self) -> tuple[date, date] | None:
        """The nights this reservation keeps its room, as ``[first, end)``, or None for none.

        Cancelled and no-show reservations hold nothing; a departed guest (5, 6, 12) holds the
        nights before the recorded departure day; every other status holds the whole stay.
        """
        if not self.holds_room():
            return None
        end = self.date_to
        if self.reservation_status_id in DEPARTED_STATUSES and self.departed_on is not None:
            end = min(end, max(self.departed_on, self.date_from))
        if end <= self.date_from:
            return None
        return self.date_from, end

    def holds_night(self, night: date) -> bool:
        held = self.held_nights()
        return held is not None and held[0] <= night < held[1]


@dataclass
class ReservationContract:
    id: int
    reservation_id: int
    contract_start: date
    contract_end: date


@dataclass
class ExtraChargeCategory:
    id: int
    title: str


@dataclass
class ExtraChargeDescription:
    description: str
    language_code: str = "en"


@dataclass
class ExtraCharge:
    """An item of the extra-charge catalog."""

    id: int
    category_id: int
    unit_price: Decimal
    titles: list[Title]
    is_ibe_enabled: int = 0
    priority: int = 0
    descriptions: list[ExtraChargeDescription] = field(default_factory=list)

    @property
    def title(self) -> str:
        main = [t for t in self.titles if t.is_main] or self.titles
        return main[0].title if main else f"Extra charge {self.id}"


@dataclass
class ReservationExtraCharge:
    """An extra charge posted to a reservation (from the catalog, or a POS ticket line)."""

    id: int
    reservation_id: int
    extra_charge_id: int
    title: str
    quantity: Decimal
    unit_price: Decimal
    charge_date: date
    create_date: datetime
    notes: str | None = None
    pos_time_stamp: str | None = None
    """The POS ticket the line came from (its ``timeStamp`` as sent); None for other charges."""
    is_pos: bool = False

    @property
    def total(self) -> Decimal:
        return (self.quantity * self.unit_price).quantize(Decimal("0.01"))


@dataclass
class Payment:
    id: int
    reservation_id: int
    payment_date: date
    amount: Decimal
    currency_code: str
    amount_currency: Decimal
    exchange_rate: Decimal = Decimal("1")
    payment_method_id: int = 1
    invoice_id: int | None = None
    notes: str | None = None
    planned_payment_description: str | None = None


@dataclass
class PaymentDescription:
    id: int
    description: str
    is_enabled: int = 1
