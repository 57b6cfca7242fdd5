"""The mapping of PMS room types to rental-channel listings and connected-channel price pushes.

Declared in a TOML file (``config/mapping.example.toml`` documents it), validated here with no
I/O: a mapping that could not be pushed (a currency that differs from the PMS's, a rule value the
channel does not allow, a weekday outside 0-6) is rejected before anything is sent, with an error
naming the listing and the field.
"""

from __future__ import annotations

from collections.abc import Collection
from decimal import Decimal
from typing import Annotated, Any

from pydantic import BaseModel, ConfigDict, Field, ValidationError, field_validator, model_validator

from roomsync.core.listing import ListingKey, listing_text
from roomsync.core.sync.calendar import ListingKind

Weekday = Annotated[int, Field(ge=0, le=6, description="0 = Sunday ... 6 = Saturday (document 01).")]

ALLOWED_MIN_HOURS_AHEAD = frozenset({*range(0, 25), 48, 72, 168})
ALLOWED_MAX_DAYS_NOTICE = frozenset({-1, 0, *range(30, 331, 30), 365})


class MappingError(ValueError):
    """A mapping that roomsync refuses to load; the message names the listing and the field."""


class _Strict(BaseModel):
    model_config = ConfigDict(extra="forbid", frozen=True)


class PriceRule(_Strict):
    """How a PMS nightly price becomes the channel's integer ``dailyPrice``: the configuration.

    The computation (rounded half up, refused when negative) is
    :class:`roomsync.core.sync.desired.PriceRule`, built from this by the sync.
    """

    markup_percent: Decimal = Field(Decimal(0), ge=-90, le=500)
    markup_amount: Decimal = Field(Decimal(0), ge=-100000, le=100000)


class Restrictions(_Strict):
    """Stay restrictions pushed with every night of the listing."""

    min_nights: int | None = Field(None, ge=1, le=365)
    max_nights: int | None = Field(None, ge=1, le=1125)
    closed_to_arrival: frozenset[Weekday] = frozenset()
    closed_to_departure: frozenset[Weekday] = frozenset()

    @model_validator(mode="after")
    def _min_not_above_max(self) -> Restrictions:
        if self.min_nights and self.max_nights and self.min_nights > self.max_nights:
            raise ValueError(f"min_nights {self.min_nights} is above max_nights {self.max_nights}")
        return self


class AvailabilityRules(_Strict):
    """Optional availability rules of a listing, checked against document 01's allowed values."""

    default_min_nights: int | None = Field(None, ge=1)
    default_max_nights: int | None = Field(None, ge=1)
    min_hours_ahead: int | None = None
    allow_request_to_book: int | None = Field(None, ge=-1, le=1)
    max_days_notice: int | None = None
    preparation_time: int | None = Field(None, ge=0, le=2)
    check_in_days: frozenset[Weekday] | None = None
    check_out_days: frozenset[Weekday] | None = None

    @field_validator("min_hours_ahead")
    @classmethod
    def _hours(cls, value: int | None) -> int | None:
        if value is not None and value not in ALLOWED_MIN_HOURS_AHEAD:
            raise ValueError("allowed values are 0-24, 48, 72, 168")
        return value

    @field_validator("max_days_notice")
    @classmethod
    def _notice(cls, value: int | None) -> int | None:
        if value is not None and value not in ALLOWED_MAX_DAYS_NOTICE:
            raise ValueError("allowed values are -1, 0, 30, 60, ..., 330, 365")
        return value


class ListingMapping(_Strict):
    """One PMS room type onto one rental-channel listing."""

    room_type_id: int = Field(gt=0)
    account_id: str = Field(min_length=1)
    listing_id: str = Field(min_length=1)
    kind: ListingKind
    currency: str = Field(pattern=r"^[A-Z]{3}$")
    price: PriceRule = PriceRule()
    restrictions: Restrictions = Restrictions()
    availability_rules: AvailabilityRules | None = None

    def listing_key(self, property_id: str) -> ListingKey:
        """The listing's key in the property whose mapping this is (its only key: a mapping entry
        has no identity of its own apart from the property it belongs to)."""
        return ListingKey(property_id, self.account_id, self.listing_id)

    @property
    def text(self) -> str:
        """``ACCOUNT/LISTING`` (:func:`~roomsync.core.listing.listing_text`)."""
        return listing_text(self.account_id, self.listing_id)


class ConnectedPush(_Strict):
    """Which room type's prices go to the connected channels, and at which rate types."""

    room_type_id: int = Field(gt=0)
    standard: bool = True
    """Push ``roomRateType`` 1 (standard rate) at the PMS price."""
    non_refundable_discount_percent: Decimal | None = Field(None, gt=0, lt=100)
    """When set, also push ``roomRateType`` 2 at the PMS price less this percent."""


class Mapping(_Strict):
    """The whole mapping of one property."""

    currency: str = Field(pattern=r"^[A-Z]{3}$", description="The PMS's currency.")
    listings: tuple[ListingMapping, ...] = Field(default=(), alias="listing")
    connected: tuple[ConnectedPush, ...] = ()

    model_config = ConfigDict(extra="forbid", frozen=True, populate_by_name=True)

    @model_validator(mode="after")
    def _consistent(self) -> Mapping:
        seen: set[str] = set()
        for listing in self.listings:
            if listing.text in seen:
                raise ValueError(f"listing {listing.text} is mapped twice")
            seen.add(listing.text)
            if listing.currency != self.currency:
                raise ValueError(
                    f"listing {listing.text}: currency {listing.currency} "
                    f"differs from the PMS currency {self.currency}; prices cannot be converted"
                )
        types = [push.room_type_id for push in self.connected]
        if len(types) != len(set(types)):
            raise ValueError("a room type appears twice under [[connected]]")
        return self


def parse_mapping(data: dict[str, Any], source: str = "mapping") -> Mapping:
    """Validate a parsed TOML mapping; ``MappingError`` names the place and the rule."""
    try:
        return Mapping.model_validate(data)
    except ValidationError as error:
        first = error.errors(include_url=False)[0]
        where = _describe_location(data, first["loc"])
        message = first["msg"].removeprefix("Value error, ")
        raise MappingError(f"{source}: {where}: {message}" if where else f"{source}: {message}") from None


def _describe_location(data: dict[str, Any], loc: tuple[int | str, ...]) -> str:
    parts: list[str] = []
    node: Any = data
    for part in loc:
        if isinstance(part, int) and isinstance(node, list) and part < len(node):
            node = node[part]
            ident = node.get("listing_id") if isinstance(node, dict) else None
            parts[-1] = f"{parts[-1]}[{part}]" + (f" (listing {ident})" if ident else "")
            continue
        parts.append(str(part))
        node = node.get(part) if isinstance(node, dict) else None
    return ".".join(parts)


def mapping_problems(
    mapping: Mapping,
    *,
    property_id: str,
    pms_currency: str,
    room_type_ids: Collection[int],
    listings: Collection[ListingKey],
) -> list[str]:
    """What in ``mapping`` (property ``property_id``'s) the service does not have, one line per
    wrong entry (empty: none).

    ``room_type_ids`` are the PMS's room types, ``listings`` the channel's listings as the
    property's client sees them; an account none of them belongs to is reported as such (not
    authorized, or mistyped).
    """
    problems: list[str] = []
    if mapping.currency != pms_currency:
        problems.append(
            f"currency {mapping.currency} differs from the PMS currency {pms_currency}; "
            "roomsync does not convert prices: map listings priced in the PMS currency"
        )
    types = set(room_type_ids)
    known = set(listings)
    accounts = {key.account_id for key in known}
    shown_types = ", ".join(str(t) for t in sorted(types)) or "none"
    shown_accounts = ", ".join(sorted(accounts)) or "none"
    for entry in mapping.listings:
        where = f"listing {entry.text}"
        if entry.account_id not in accounts:
            problems.append(
                f"{where}: account {entry.account_id} is not among the channel's authorized accounts "
                f"({shown_accounts})"
            )
        elif entry.listing_key(property_id) not in known:
            problems.append(f"{where}: the channel has no such listing under account {entry.account_id}")
        if entry.room_type_id not in types:
            problems.append(
                f"{where}: room type {entry.room_type_id} does not exist in the PMS "
                f"(room types: {shown_types})"
            )
    for push in mapping.connected:
        if push.room_type_id not in types:
            problems.append(
                f"[[connected]] room type {push.room_type_id} does not exist in the PMS "
                f"(room types: {shown_types})"
            )
    return problems
