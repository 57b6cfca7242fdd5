"""Rental channel resources and request bodies (document 01, "Rental channel").

Accounts, listings, availability rules, the per-day inventory, pricing settings, rule-sets and
their timelines, and the channel's reservations, under ``/v1/ChannelManager/{channel}/...``.

XML layout: document 01 says XML names are the JSON names in PascalCase, and no help page shows an
XML example for these resources, so every field is an element named ``PascalCase(jsonName)``.
Lists are a wrapper element of that name holding one item element per entry (item tags are
given per field: ``<CheckInDays><Day>1</Day></CheckInDays>``). A *nullable* list (``[T]?``) is
one of the small list classes below rather than a plain ``list``: pydantic-xml reads an empty
wrapper of a plain list as "absent", so only a list class keeps ``None`` (``xsi:nil``) and ``[]``
(an empty wrapper) apart. Its items are ``.root``.

Shapes the spec leaves open (pricing settings, rule-sets, timelines, standard fees, the inventory
update answer) are recorded in ``docs/shapes/channel.md``.
"""

from __future__ import annotations

import datetime as dt
from datetime import date
from enum import StrEnum
from typing import Annotated, Any, ClassVar, Literal

from pydantic import BeforeValidator, Field, ValidationInfo, field_validator, model_validator

from roomsync.core.api.base import ApiModel, Money, Number, RootXmlModel, element, wrapped

# --- value sets --------------------------------------------------------------------------------


class SyncCategory(StrEnum):
    """Synchronization category a host chose for a listing (``Listing.connected``)."""

    LIMITED = "Limited"
    FULL = "Full"
    UNDECIDED = "Undecided"
    DISCONNECTED = "Disconnected"


class ApprovalStatusCategory(StrEnum):
    """``approvalStatus.statusCategory``.

    Document 01 spells "ready for review" two ways (the field table with spaces, the connect
    description with underscores); both are accepted and each is written back as it came.
    """

    NEW = "new"
    READY_FOR_REVIEW = "ready for review"
    READY_FOR_REVIEW_UNDERSCORED = "ready_for_review"
    APPROVED = "approved"
    REJECTED = "rejected"

    @property
    def is_ready_for_review(self) -> bool:
        return self in (
            ApprovalStatusCategory.READY_FOR_REVIEW,
            ApprovalStatusCategory.READY_FOR_REVIEW_UNDERSCORED,
        )


class CheckInCategory(StrEnum):
    DOORMAN_ENTRY = "doorman_entry"
    LOCKBOX = "lockbox"
    SMARTLOCK = "smartlock"
    KEYPAD = "keypad"
    HOST_CHECKIN = "host_checkin"
    OTHER_CHECKIN = "other_checkin"


class Tier(StrEnum):
    LUX = "lux"
    MARKETPLACE = "marketplace"
    PLUS = "plus"


class SharedWithCategory(StrEnum):
    """Who a shared bathroom or shared common spaces are shared with."""

    HOST = "host"
    FAMILY_FRIENDS_ROOMMATES = "family_friends_roommates"
    OTHER_GUESTS = "other_guests"


class Availability(StrEnum):
    """Availability of one calendar day (``Inventory.availability``, ``InventoryOperation.available``)."""

    AVAILABLE = "available"
    UNAVAILABLE = "unavailable"
    DEFAULT = "default"


class ListingAction(StrEnum):
    """``action`` of ``PUT Listing``."""

    CONNECT = "connect"
    DISCONNECT = "disconnect"
    UPDATE = "update"


# --- documented limits -------------------------------------------------------------------------


def _int_from_text(value: object) -> object:
    # XML hands every value over as text, and a Literal of ints does not coerce "48" to 48.
    if isinstance(value, str):
        try:
            return int(value.strip())
        except ValueError:
            return value
    return value


MinHoursAhead = Annotated[
    Literal[
        0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15, 16, 17, 18, 19, 20, 21, 22, 23, 24,
        48, 72, 168,
    ],
    BeforeValidator(_int_from_text),
]
"""Minimum notice in hours: 0-24, 48, 72 or 168."""

MaxDaysNotice = Annotated[
    Literal[-1, 0, 30, 60, 90, 120, 150, 180, 210, 240, 270, 300, 330, 365],
    BeforeValidator(_int_from_text),
]
"""Maximum lead time in days: 30-330 in steps of 30, or 365; ``-1`` two years open, ``0`` all closed."""

PreparationTime = Annotated[Literal[0, 1, 2], BeforeValidator(_int_from_text)]
"""Days blocked between reservations: 0, 1 or 2."""

AllowRequestToBook = Annotated[Literal[-1, 0, 1], BeforeValidator(_int_from_text)]
"""``-1`` or ``0`` prohibit requests for bookings short of the notice, ``1`` allows them."""

DayOfWeek = Annotated[int, Field(ge=0, le=6)]
"""Day of week, 0 (Sunday) to 6 (Saturday)."""

DecimalNumber = Number
"""A ``decimal`` that is not an amount (``bathrooms``, the price factors): a JSON number, XML text
as given (amounts are ``Money``, two decimal digits in XML)."""


def _check_range(date_from: date | None, date_to: date) -> date:
    """``date_to`` if it does not precede ``date_from``: calendar ranges include both ends."""
    if date_from is None:  # dateFrom already failed; its own error is reported
        return date_to
    if date_to < date_from:
        raise ValueError(f"dateTo must not be before dateFrom ({date_from.isoformat()})")
    return date_to


# --- accounts ----------------------------------------------------------------------------------


class Account(ApiModel, tag="Account"):
    """An authorized host account of the rental channel."""

    id: str = element(tag="Id")
    email: str = element(tag="Email")
    first_name: str = element(tag="FirstName")
    last_name: str = element(tag="LastName")
    phone: str | None = element(tag="Phone", default=None, nillable=True)
    picture_url: str | None = element(tag="PictureUrl", default=None, nillable=True)
    """Present only if the host has a profile photo."""
    picture_url_large: str | None = element(tag="PictureUrlLarge", default=None, nillable=True)
    error: str | None = element(tag="Error", default=None, nillable=True)
    """Description of an error that occurred with this account."""


class AccountList(RootXmlModel[list[Account]], tag="Accounts"):
    root: list[Account] = element(tag="Account", default_factory=list)


# --- listings ----------------------------------------------------------------------------------


class CheckInOption(ApiModel, tag="CheckInOption"):
    category: CheckInCategory = element(tag="Category")
    instruction: str = element(tag="Instruction")
    """Shared only with confirmed guests."""


class ApprovalStatus(ApiModel, tag="ApprovalStatus"):
    status_category: ApprovalStatusCategory = element(tag="StatusCategory")
    notes: str = element(tag="Notes", default="")
    """Why a publish failed or how a review was decided; empty while there is nothing to say."""


class SharedWithCategoryList(RootXmlModel, tag="SharedWithCategories"):
    """Nullable list of :class:`SharedWithCategory` (``<Category>`` items)."""

    root: list[SharedWithCategory] = element(tag="Category", default_factory=list)


class Listing(ApiModel, tag="Listing"):
    """A listing as the list responses and ``PUT Listing`` return it."""

    account_id: str = element(tag="AccountId")
    listing_id: str = element(tag="ListingId")
    name: str = element(tag="Name")
    property_group: str = element(tag="PropertyGroup")
    property_category: str = element(tag="PropertyCategory")
    room_category: str = element(tag="RoomCategory")
    bedrooms: int = element(tag="Bedrooms")
    bathrooms: DecimalNumber = element(tag="Bathrooms")
    beds: int | None = element(tag="Beds", default=None, nillable=True)
    check_in_option: CheckInOption = element(tag="CheckInOption")
    approval_status: ApprovalStatus = element(tag="ApprovalStatus")
    has_availability: bool = element(tag="HasAvailability")
    """False: the listing does not appear on the channel. Never set false before the first publish."""
    permit_or_tax_id: str = element(tag="PermitOrTaxId")
    apt: str = element(tag="Apt")
    street: str = element(tag="Street")
    city: str = element(tag="City")
    state: str = element(tag="State")
    zip_code: str = element(tag="ZipCode")
    country_code: str = element(tag="CountryCode")
    """ISO 3166-1 alpha-2, capitalized."""
    latitude: str = element(tag="Latitude")
    longitude: str = element(tag="Longitude")
    user_defined_location: bool = element(tag="UserDefinedLocation")
    directions: str = element(tag="Directions")
    person_capacity: int = element(tag="PersonCapacity")
    connected: SyncCategory = element(tag="Connected")
    bathroom_shared: bool | None = element(tag="BathroomShared", default=None, nillable=True)
    bathroom_shared_with_category: SharedWithCategoryList | None = element(
        tag="BathroomSharedWithCategory", default=None, nillable=True
    )
    """Ignored for ``entire_home`` listings."""
    common_spaces_shared: bool | None = element(tag="CommonSpacesShared", default=None, nillable=True)
    common_spaces_shared_with_category: SharedWithCategoryList | None = element(
        tag="CommonSpacesSharedWithCategory", default=None, nillable=True
    )
    total_inventory_count: int | None = element(tag="TotalInventoryCount", default=None, nillable=True)
    """Room-type inventory only: rooms of the room type."""
    property_external_id: str | None = element(tag="PropertyExternalId", default=None, nillable=True)
    """Room-type inventory only (the service may leave it out otherwise): the listing's property."""
    tier: Tier = element(tag="Tier")
    display_exact_location_to_guest: bool = element(tag="DisplayExactLocationToGuest", default=False)


class ListingDetail(Listing, tag="Listing"):
    """``GET Listing/{accountId}/{listingId}``: a listing plus its currency and price."""

    currency: str = element(tag="Currency")
    price: str = element(tag="Price")


class ListingList(RootXmlModel[list[Listing]], tag="Listings"):
    root: list[Listing] = element(tag="Listing", default_factory=list)


class ListingUpdateRequest(ApiModel, tag="Listing"):
    """Body of ``PUT Listing``: connect, disconnect, or update a listing.

    ``update`` changes one or more of totalInventoryCount, propertyExternalId and hasAvailability;
    only the fields that were set are sent.
    """

    partial_update: ClassVar[bool] = True
    nullable_fields: ClassVar[frozenset[str]] = frozenset(
        {"total_inventory_count", "property_external_id", "has_availability"}
    )

    account_id: str = element(tag="AccountId")
    listing_id: str = element(tag="ListingId")
    action: ListingAction = element(tag="Action")
    total_inventory_count: int | None = element(tag="TotalInventoryCount", default=None, nillable=True, gt=0)
    # Declared int? but described as a string naming the property, and Listing returns a string.
    property_external_id: str | None = element(
        tag="PropertyExternalId", default=None, nillable=True, coerce_numbers_to_str=True
    )
    has_availability: bool | None = element(tag="HasAvailability", default=None, nillable=True)


# --- availability rules ------------------------------------------------------------------------


class MinNightsForCheckIn(ApiModel, tag="MinNightsForCheckIn"):
    """Minimum nights of a stay that starts on ``dayOfWeek``."""

    day_of_week: DayOfWeek = element(tag="DayOfWeek")
    min_nights: int = element(tag="MinNights")


class DayOfWeekList(RootXmlModel, tag="Days"):
    """Nullable list of days of week (``<Day>`` items)."""

    root: list[DayOfWeek] = element(tag="Day", default_factory=list)


class MinNightsForCheckInList(RootXmlModel[list[MinNightsForCheckIn]], tag="MinNightsForCheckIn"):
    """Nullable list of :class:`MinNightsForCheckIn` (``<Day>`` items)."""

    root: list[MinNightsForCheckIn] = element(tag="Day", default_factory=list)


class AvailabilityRule(ApiModel, tag="AvailabilityRule"):
    """Availability rules of a listing (``GET AvailabilityRules``)."""

    default_min_nights: int = element(tag="DefaultMinNights")
    default_max_nights: int = element(tag="DefaultMaxNights")
    min_hours_ahead: MinHoursAhead = element(tag="MinHoursAhead")
    allow_request_to_book: AllowRequestToBook = element(tag="AllowRequestToBook", default=-1)
    max_days_notice: MaxDaysNotice = element(tag="MaxDaysNotice")
    preparation_time: PreparationTime = element(tag="PreparationTime")
    check_in_days: list[DayOfWeek] = wrapped("CheckInDays", element(tag="Day", default_factory=list))
    """Days check-in is allowed on; empty means any day."""
    check_out_days: list[DayOfWeek] = wrapped("CheckOutDays", element(tag="Day", default_factory=list))
    """Days check-out is allowed on; empty means any day."""
    min_nights_for_check_in: list[MinNightsForCheckIn] = wrapped(
        "MinNightsForCheckIn", element(tag="Day", default_factory=list)
    )


class AvailabilityRulesUpdate(ApiModel, tag="AvailabilityRules"):
    """Body of ``PUT AvailabilityRules``: only the rules that were set are sent and changed."""

    partial_update: ClassVar[bool] = True
    nullable_fields: ClassVar[frozenset[str]] = frozenset(
        {
            "default_min_nights",
            "default_max_nights",
            "min_hours_ahead",
            "allow_request_to_book",
            "max_days_notice",
            "preparation_time",
            "check_in_days",
            "check_out_days",
            "min_nights_for_check_in",
        }
    )

    account_id: str = element(tag="AccountId")
    listing_id: str = element(tag="ListingId")
    default_min_nights: int | None = element(tag="DefaultMinNights", default=None, nillable=True)
    default_max_nights: int | None = element(tag="DefaultMaxNights", default=None, nillable=True)
    min_hours_ahead: MinHoursAhead | None = element(tag="MinHoursAhead", default=None, nillable=True)
    allow_request_to_book: AllowRequestToBook | None = element(
        tag="AllowRequestToBook", default=None, nillable=True
    )
    max_days_notice: MaxDaysNotice | None = element(tag="MaxDaysNotice", default=None, nillable=True)
    preparation_time: PreparationTime | None = element(tag="PreparationTime", default=None, nillable=True)
    check_in_days: DayOfWeekList | None = element(tag="CheckInDays", default=None, nillable=True)
    check_out_days: DayOfWeekList | None = element(tag="CheckOutDays", default=None, nillable=True)
    min_nights_for_check_in: MinNightsForCheckInList | None = element(
        tag="MinNightsForCheckIn", default=None, nillable=True
    )


# --- inventory ---------------------------------------------------------------------------------


class Inventory(ApiModel, tag="Inventory"):
    """One day of a listing's calendar: availability, price and restrictions."""

    date: dt.date = element(tag="Date")  # dt.: a field called "date" hides the type in the class body
    daily_price: Money | None = element(tag="DailyPrice", default=None, nillable=True)
    """The custom price of the day, else the default daily price."""
    availability: Availability = element(tag="Availability")
    availability_type: str = element(tag="AvailabilityType")
    availability_sub_type: str | None = element(tag="AvailabilitySubType", default=None, nillable=True)
    available_count: int | None = element(tag="AvailableCount", default=None, nillable=True)
    """Room-type inventory only: rooms of the type the channel may hold; bookings do not lower it."""
    min_nights: int = element(tag="MinNights")
    max_nights: int = element(tag="MaxNights")
    closed_to_arrival: bool = element(tag="ClosedToArrival")
    closed_to_departure: bool = element(tag="ClosedToDeparture")
    notes: str = element(tag="Notes", default="")


class InventoryList(RootXmlModel[list[Inventory]], tag="Inventories"):
    root: list[Inventory] = element(tag="Inventory", default_factory=list)


class InventoryQuery(ApiModel, tag="Inventory"):
    """Body of ``POST Inventory``: the days ``dateFrom``..``dateTo`` (both included) of a listing."""

    account_id: str = element(tag="AccountId")
    listing_id: str = element(tag="ListingId")
    date_from: date = element(tag="DateFrom")
    date_to: date = element(tag="DateTo")

    @field_validator("date_to")
    @classmethod
    def _range_is_ordered(cls, date_to: date, info: ValidationInfo) -> date:
        return _check_range(info.data.get("date_from"), date_to)


_FLAGGED_VALUES = (
    ("set_available", "setAvailable", "available", "available"),
    ("count_eligible", "countEligible", "count", "count"),
    ("set_price", "setPrice", "daily_price", "dailyPrice"),
)
"""(flag field, its JSON name, value field, its JSON name) of the inventory operation groups."""


def _is_true(flag: object) -> bool:
    """Whether a flag as given (a bool, or XML text) reads as true."""
    if isinstance(flag, str):
        return flag.strip().lower() in {"1", "true", "t", "yes", "y", "on"}
    return flag is True or flag == 1


class InventoryOperation(ApiModel, tag="Operation"):
    """One change of ``PUT Inventory`` over ``dateFrom``..``dateTo`` (both included).

    Only the groups whose flag is true change: ``setAvailable`` (``available``), ``countEligible``
    (``count``), ``setPrice`` (``dailyPrice``), ``setRestrictions`` (min/max nights, closed to
    arrival/departure; ``None`` unsets a restriction). A value is needed when its flag is set.
    """

    nullable_fields: ClassVar[frozenset[str]] = frozenset(
        {"min_nights", "max_nights", "closed_to_arrival", "closed_to_departure"}
    )

    date_from: date = element(tag="DateFrom")
    date_to: date = element(tag="DateTo")
    set_available: bool = element(tag="SetAvailable", default=False)
    available: Availability | None = element(tag="Available", default=None, nillable=True)
    count_eligible: bool = element(tag="CountEligible", default=False)
    count: int | None = element(tag="Count", default=None, nillable=True)
    set_price: bool = element(tag="SetPrice", default=False)
    daily_price: int | None = element(tag="DailyPrice", default=None, nillable=True)
    """Nightly price; document 01 declares it an int."""
    set_restrictions: bool = element(tag="SetRestrictions", default=False)
    min_nights: int | None = element(tag="MinNights", default=None, nillable=True)
    max_nights: int | None = element(tag="MaxNights", default=None, nillable=True)
    closed_to_arrival: bool | None = element(tag="ClosedToArrival", default=None, nillable=True)
    closed_to_departure: bool | None = element(tag="ClosedToDeparture", default=None, nillable=True)

    @field_validator("date_to")
    @classmethod
    def _range_is_ordered(cls, date_to: date, info: ValidationInfo) -> date:
        return _check_range(info.data.get("date_from"), date_to)

    @model_validator(mode="before")
    @classmethod
    def _flagged_values_are_checked(cls, data: Any) -> Any:
        # A field left out is not validated, so "setPrice without dailyPrice" would pass unseen.
        # Given as None, the value meets its field validator, which refuses it under its own name.
        if not isinstance(data, dict):
            return data
        for flag_name, flag_alias, value_name, value_alias in _FLAGGED_VALUES:
            flag = data.get(flag_alias, data.get(flag_name))
            if _is_true(flag) and value_alias not in data and value_name not in data:
                data = {**data, value_alias: None}
        return data

    @field_validator("available")
    @classmethod
    def _available_given_when_flagged(
        cls, available: Availability | None, info: ValidationInfo
    ) -> Availability | None:
        if available is None and info.data.get("set_available"):
            raise ValueError("is needed when setAvailable is true")
        return available

    @field_validator("count")
    @classmethod
    def _count_given_when_flagged(cls, count: int | None, info: ValidationInfo) -> int | None:
        if count is None and info.data.get("count_eligible"):
            raise ValueError("is needed when countEligible is true")
        return count

    @field_validator("daily_price")
    @classmethod
    def _price_given_when_flagged(cls, daily_price: int | None, info: ValidationInfo) -> int | None:
        if daily_price is None and info.data.get("set_price"):
            raise ValueError("is needed when setPrice is true")
        return daily_price


class InventoryUpdate(ApiModel, tag="Inventory"):
    """Body of ``PUT Inventory``: operations applied in order, a later one winning on shared days.

    Sent as set: an operation carries only the fields its caller gave, so a restriction given as
    ``None`` is unset while one not given is left alone.
    """

    partial_update: ClassVar[bool] = True

    account_id: str = element(tag="AccountId")
    listing_id: str = element(tag="ListingId")
    operations: list[InventoryOperation] = wrapped(
        "Operations", element(tag="Operation", default_factory=list)
    )


class UpdatedDays(ApiModel, tag="UpdatedDays"):
    """Answer of ``PUT Inventory`` (03-conventions).

    JSON ``{"updatedDays": N}``; XML ``<UpdatedDays>N</UpdatedDays>``, like ``IdResult``.
    """

    updated_days: int = Field(ge=0)


# --- pricing settings (shape chosen by roomsync, docs/shapes/channel.md) -----------------------


class DefaultPricingRule(ApiModel, tag="DefaultPricingRule"):
    """A length-of-stay or booking-window price adjustment."""

    rule_type: str = element(tag="RuleType")
    """E.g. ``STAYED_AT_LEAST_X_DAYS``, ``BOOKED_BEYOND_AT_LEAST_X_DAYS``,
    ``BOOKED_WITHIN_AT_MOST_X_DAYS``."""
    price_change: int = element(tag="PriceChange")
    """Negative for a discount."""
    price_change_type: str = element(tag="PriceChangeType", default="PERCENT")
    threshold_one: int = element(tag="ThresholdOne")
    threshold_two: int | None = element(tag="ThresholdTwo", default=None, nillable=True)
    threshold_three: int | None = element(tag="ThresholdThree", default=None, nillable=True)


class DefaultPricingRuleList(RootXmlModel[list[DefaultPricingRule]], tag="DefaultPricingRules"):
    """Nullable list of :class:`DefaultPricingRule`."""

    root: list[DefaultPricingRule] = element(tag="DefaultPricingRule", default_factory=list)


class PricingSettings(ApiModel, tag="PricingSettings"):
    """Pricing settings of a listing (``GET PricingSettings``)."""

    listing_currency: str = element(tag="ListingCurrency")
    default_daily_price: Money | None = element(tag="DefaultDailyPrice", default=None, nillable=True)
    weekend_price: Money | None = element(tag="WeekendPrice", default=None, nillable=True)
    guests_included: int | None = element(tag="GuestsIncluded", default=None, nillable=True)
    price_per_extra_person: Money | None = element(tag="PricePerExtraPerson", default=None, nillable=True)
    security_deposit: Money | None = element(tag="SecurityDeposit", default=None, nillable=True)
    cleaning_fee: Money | None = element(tag="CleaningFee", default=None, nillable=True)
    weekly_price_factor: DecimalNumber | None = element(
        tag="WeeklyPriceFactor", default=None, nillable=True
    )
    monthly_price_factor: DecimalNumber | None = element(
        tag="MonthlyPriceFactor", default=None, nillable=True
    )
    default_pricing_rules: list[DefaultPricingRule] = wrapped(
        "DefaultPricingRules", element(tag="DefaultPricingRule", default_factory=list)
    )


class PricingSettingsUpdate(ApiModel, tag="PricingSettings"):
    """Body of ``PUT PricingSettings``: only the settings that were set are sent and changed."""

    partial_update: ClassVar[bool] = True

    account_id: str = element(tag="AccountId")
    listing_id: str = element(tag="ListingId")
    listing_currency: str | None = element(tag="ListingCurrency", default=None, nillable=True)
    default_daily_price: Money | None = element(tag="DefaultDailyPrice", default=None, nillable=True)
    weekend_price: Money | None = element(tag="WeekendPrice", default=None, nillable=True)
    guests_included: int | None = element(tag="GuestsIncluded", default=None, nillable=True)
    price_per_extra_person: Money | None = element(tag="PricePerExtraPerson", default=None, nillable=True)
    security_deposit: Money | None = element(tag="SecurityDeposit", default=None, nillable=True)
    cleaning_fee: Money | None = element(tag="CleaningFee", default=None, nillable=True)
    weekly_price_factor: DecimalNumber | None = element(
        tag="WeeklyPriceFactor", default=None, nillable=True
    )
    monthly_price_factor: DecimalNumber | None = element(
        tag="MonthlyPriceFactor", default=None, nillable=True
    )
    default_pricing_rules: DefaultPricingRuleList | None = element(
        tag="DefaultPricingRules", default=None, nillable=True
    )


# --- rule-sets and their timelines (shape chosen by roomsync, docs/shapes/channel.md) -----------


class RuleSet(ApiModel, tag="RuleSet"):
    """A named set of pricing and availability rules of an account, applied to listings by date."""

    id: str = element(tag="Id")
    title: str = element(tag="Title")
    color: str | None = element(tag="Color", default=None, nillable=True)
    min_nights: int | None = element(tag="MinNights", default=None, nillable=True)
    max_nights: int | None = element(tag="MaxNights", default=None, nillable=True)
    pricing_rules: list[DefaultPricingRule] = wrapped(
        "PricingRules", element(tag="PricingRule", default_factory=list)
    )


class RuleSetList(RootXmlModel[list[RuleSet]], tag="RuleSets"):
    root: list[RuleSet] = element(tag="RuleSet", default_factory=list)


class RuleSetCreate(ApiModel, tag="RuleSet"):
    """Body of ``POST RuleSet``; answered by the new :class:`RuleSet`."""

    account_id: str = element(tag="AccountId")
    title: str = element(tag="Title")
    color: str | None = element(tag="Color", default=None, nillable=True)
    min_nights: int | None = element(tag="MinNights", default=None, nillable=True)
    max_nights: int | None = element(tag="MaxNights", default=None, nillable=True)
    pricing_rules: list[DefaultPricingRule] = wrapped(
        "PricingRules", element(tag="PricingRule", default_factory=list)
    )


class RuleSetUpdate(ApiModel, tag="RuleSet"):
    """Body of ``PUT RuleSet``: only the fields that were set are sent and changed."""

    partial_update: ClassVar[bool] = True

    account_id: str = element(tag="AccountId")
    rule_set_id: str = element(tag="RuleSetId")
    title: str | None = element(tag="Title", default=None, nillable=True)
    color: str | None = element(tag="Color", default=None, nillable=True)
    min_nights: int | None = element(tag="MinNights", default=None, nillable=True)
    max_nights: int | None = element(tag="MaxNights", default=None, nillable=True)
    pricing_rules: DefaultPricingRuleList | None = element(tag="PricingRules", default=None, nillable=True)


class RuleSetTimeline(ApiModel, tag="RuleSetTimeline"):
    """A rule-set applied to a listing over ``dateFrom``..``dateTo`` (both included)."""

    rule_set_id: str = element(tag="RuleSetId")
    date_from: date = element(tag="DateFrom")
    date_to: date = element(tag="DateTo")

    @field_validator("date_to")
    @classmethod
    def _range_is_ordered(cls, date_to: date, info: ValidationInfo) -> date:
        return _check_range(info.data.get("date_from"), date_to)


class RuleSetTimelineList(RootXmlModel[list[RuleSetTimeline]], tag="RuleSetTimelines"):
    root: list[RuleSetTimeline] = element(tag="RuleSetTimeline", default_factory=list)


class RuleSetTimelineApply(ApiModel, tag="RuleSetTimeline"):
    """Body of ``POST RuleSetTimeline``: apply a rule-set to a listing for a date range."""

    account_id: str = element(tag="AccountId")
    listing_id: str = element(tag="ListingId")
    rule_set_id: str = element(tag="RuleSetId")
    date_from: date = element(tag="DateFrom")
    date_to: date = element(tag="DateTo")

    @field_validator("date_to")
    @classmethod
    def _range_is_ordered(cls, date_to: date, info: ValidationInfo) -> date:
        return _check_range(info.data.get("date_from"), date_to)


class RuleSetTimelineRemove(ApiModel, tag="RuleSetTimeline"):
    """Body of ``PUT RuleSetTimeline``: remove the rule-sets applied to a listing in a date range."""

    account_id: str = element(tag="AccountId")
    listing_id: str = element(tag="ListingId")
    date_from: date = element(tag="DateFrom")
    date_to: date = element(tag="DateTo")

    @field_validator("date_to")
    @classmethod
    def _range_is_ordered(cls, date_to: date, info: ValidationInfo) -> date:
        return _check_range(info.data.get("date_from"), date_to)


# --- reservations ------------------------------------------------------------------------------


class GuestDetails(ApiModel, tag="GuestDetails"):
    adults: int = element(tag="Adults")
    children: int = element(tag="Children")
    infants: int = element(tag="Infants")


class StandardFeeDetail(ApiModel, tag="StandardFee"):
    """One standard fee of a reservation; document 01 does not show the element (roomsync's shape)."""

    fee_type: str = element(tag="FeeType")
    amount: str = element(tag="Amount")
    """Two decimals, host currency, like every amount of the reservation."""


class Reservation(ApiModel, tag="Reservation"):
    """A reservation on the rental channel; also the reservation object of the webhooks.

    Amounts are strings with two decimals in the host's currency. Timestamps stay strings: the
    service writes them in different formats (month/day/year 12-hour on retrieval, ISO 8601 in
    webhooks, a plain date for pending reservations).
    """

    cancellation_policy_category: str = element(tag="CancellationPolicyCategory")
    confirmation_code: str = element(tag="ConfirmationCode")
    created_at: str | None = element(tag="CreatedAt", default=None, nillable=True)
    updated_at: str | None = element(tag="UpdatedAt", default=None, nillable=True)
    booked_at: str | None = element(tag="BookedAt", default=None, nillable=True)
    start_date: str = element(tag="StartDate")
    end_date: str = element(tag="EndDate")
    guest_details: GuestDetails = element(tag="GuestDetails")
    guest_email: str = element(tag="GuestEmail", default="")
    """Anonymized; may be empty."""
    guest_first_name: str = element(tag="GuestFirstName")
    guest_id: str = element(tag="GuestId")
    guest_last_name: str = element(tag="GuestLastName")
    guest_phone_numbers: list[str] = wrapped(
        "GuestPhoneNumbers", element(tag="PhoneNumber", default_factory=list)
    )
    guest_preferred_locale: str = element(tag="GuestPrefferedLocale", alias="guestPrefferedLocale")
    """The service spells the field ``guestPrefferedLocale``."""
    host_currency: str = element(tag="HostCurrency")
    host_id: str = element(tag="HostId")
    expected_payout_amount_accurate: str = element(tag="ExpectedPayoutAmountAccurate")
    listing_base_price_accurate: str = element(tag="ListingBasePriceAccurate")
    listing_host_fee_accurate: str = element(tag="ListingHostFeeAccurate")
    listing_security_price_accurate: str = element(tag="ListingSecurityPriceAccurate")
    listing_cleaning_fee_accurate: str = element(tag="ListingCleaningFeeAccurate")
    listing_cancellation_payout_accurate: str = element(tag="ListingCancellationPayoutAccurate")
    listing_cancellation_host_fee_accurate: str = element(tag="ListingCancellationHostFeeAccurate")
    listing_id: str = element(tag="ListingId")
    special_offer_id: str | None = element(tag="SpecialOfferId", default=None, nillable=True)
    nights: int = element(tag="Nights")
    pass_through_tax_amount_paid_to_host_accurate: str = element(
        tag="PassThroughTaxAmountPaidToHostAccurate", alias="PassThroughTaxAmountPaidToHostAccurate"
    )
    """The service capitalizes this field name."""
    status_type: str = element(tag="StatusType")
    """Values seen: ``accept``, ``cancelled_by_guest``, ``pending_voided`` (not a closed set)."""
    standard_fees_details_list: list[StandardFeeDetail] = wrapped(
        "StandardFeesDetailsList", element(tag="StandardFee", default_factory=list)
    )
    thread_id: str = element(tag="ThreadId")
    total_paid_amount_accurate: str = element(tag="TotalPaidAmountAccurate")


class ReservationList(RootXmlModel[list[Reservation]], tag="Reservations"):
    root: list[Reservation] = element(tag="Reservation", default_factory=list)


__all__ = [
    "Account",
    "AccountList",
    "AllowRequestToBook",
    "ApprovalStatus",
    "ApprovalStatusCategory",
    "Availability",
    "AvailabilityRule",
    "AvailabilityRulesUpdate",
    "CheckInCategory",
    "CheckInOption",
    "DayOfWeek",
    "DayOfWeekList",
    "DefaultPricingRule",
    "DefaultPricingRuleList",
    "GuestDetails",
    "Inventory",
    "InventoryList",
    "InventoryOperation",
    "InventoryQuery",
    "InventoryUpdate",
    "Listing",
    "ListingAction",
    "ListingDetail",
    "ListingList",
    "ListingUpdateRequest",
    "MaxDaysNotice",
    "MinHoursAhead",
    "MinNightsForCheckIn",
    "MinNightsForCheckInList",
    "PreparationTime",
    "PricingSettings",
    "PricingSettingsUpdate",
    "Reservation",
    "ReservationList",
    "RuleSet",
    "RuleSetCreate",
    "RuleSetList",
    "RuleSetTimeline",
    "RuleSetTimelineApply",
    "RuleSetTimelineList",
    "RuleSetTimelineRemove",
    "RuleSetUpdate",
    "SharedWithCategory",
    "SharedWithCategoryList",
    "StandardFeeDetail",
    "SyncCategory",
    "Tier",
    "UpdatedDays",
]

XML_NAME_EXCEPTIONS: dict[str, str] = {
    # "Model.jsonName": the XML name used instead of PascalCase(jsonName); "#text" is the text of
    # the model's own element. List items are not fields and are not listed here.
    "UpdatedDays.updatedDays": "#text",
}
"""Deliberate deviations from "XML name = PascalCase(JSON name)" in this module."""
