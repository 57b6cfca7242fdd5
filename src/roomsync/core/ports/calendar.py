"""The ports of what was pushed to the channel and what was read from the PMS: the calendar and
price ledgers, the PMS price cache, the mapping and each listing's state."""

from __future__ import annotations

from collections.abc import Collection, Mapping, Sequence
from dataclasses import dataclass
from datetime import date, datetime
from decimal import Decimal
from typing import Protocol

from roomsync.core.listing import ListingKey
from roomsync.core.mapping import Mapping as PropertyMapping


@dataclass(frozen=True)
class ChannelDay:
    """What holds on the channel for one listing and day; None means "not known"."""

    day: date
    available: str | None = None
    """``available``, ``unavailable`` or ``default`` (the channel's words)."""
    count: int | None = None
    """Room-type listings: the count the channel holds (``availableCount``)."""
    price: Decimal | None = None
    min_nights: int | None = None
    max_nights: int | None = None
    cta: bool | None = None
    """Closed to arrival."""
    ctd: bool | None = None
    """Closed to departure."""


@dataclass(frozen=True)
class LedgerEntry:
    state: ChannelDay
    confirmed_at: datetime
    """When the channel last confirmed a write to this day."""


class CalendarLedger(Protocol):
    def read_days(self, listing: ListingKey, date_from: date, date_to: date) -> dict[date, LedgerEntry]:
        """The recorded days of ``date_from..date_to`` (both included); unrecorded days are absent."""
        ...

    def record_confirmed(
        self, listing: ListingKey, days: Sequence[ChannelDay], confirmed_at: datetime
    ) -> None:
        """Record days the channel confirmed, in one transaction.

        A field given as None keeps what was recorded before, so a price-only write records
        only prices. Call it only after the channel confirmed the write.
        """
        ...

    def forget_days(
        self, listing: ListingKey, date_from: date | None = None, date_to: date | None = None
    ) -> int:
        """Drop recorded days (all of the listing's when no range is given); returns how many."""
        ...


@dataclass(frozen=True)
class RateKey:
    """One rate of one room type on the property's connected channels."""

    property_id: str
    room_type_id: int
    room_rate_type: int
    """``1`` standard, ``2`` non-refundable."""


@dataclass(frozen=True)
class PushedPrice:
    price: Decimal
    pushed_at: datetime


class ChannelPriceLedger(Protocol):
    def read_pushed_prices(self, rate: RateKey, date_from: date, date_to: date) -> dict[date, PushedPrice]:
        """Prices last pushed for ``date_from..date_to`` (both included)."""
        ...

    def record_pushed_prices(
        self, rate: RateKey, prices: Mapping[date, Decimal], pushed_at: datetime
    ) -> None:
        """Record prices the service accepted, in one transaction (2 decimal places at most)."""
        ...


@dataclass(frozen=True)
class NightPrice:
    price: Decimal
    currency: str
    read_at: datetime


@dataclass(frozen=True)
class WindowTotal:
    """The PMS's total price of one stay: ``date_from`` first night, ``date_to`` departure day."""

    date_from: date
    date_to: date
    total: Decimal
    currency: str
    read_at: datetime


class PmsPriceCache(Protocol):
    def save_night_prices(
        self,
        property_id: str,
        room_type_id: int,
        prices: Mapping[date, Decimal],
        currency: str,
        read_at: datetime,
    ) -> None: ...

    def save_prices_of_types(
        self,
        property_id: str,
        prices: Mapping[int, Mapping[date, Decimal]],
        currency: str,
        read_at: datetime,
    ) -> None:
        """``save_night_prices`` of several room types, in one transaction."""
        ...

    def read_night_prices(
        self, property_id: str, room_type_id: int, first_night: date, last_night: date
    ) -> dict[date, NightPrice]:
        """Cached nightly prices of ``first_night..last_night`` (both included)."""
        ...

    def read_prices_of_types(
        self,
        property_id: str,
        room_type_ids: Collection[int],
        first_night: date,
        last_night: date,
        currency: str,
    ) -> dict[int, dict[date, Decimal]]:
        """The cached prices per room type of ``first_night..last_night`` in ``currency`` (any
        case), alone: what every run reads for its whole horizon (every type of ``room_type_ids``
        is a key, with no nights when none is cached)."""
        ...

    def save_window_total(self, property_id: str, room_type_id: int, total: WindowTotal) -> None: ...

    def read_window_total(
        self, property_id: str, room_type_id: int, date_from: date, date_to: date
    ) -> WindowTotal | None: ...

    def clear_pms_prices(self, property_id: str, room_type_id: int | None = None) -> None:
        """Forget cached prices and totals of one room type, or of the whole property."""
        ...


class MappingStore(Protocol):
    def replace_mapping(self, property_id: str, mapping: PropertyMapping) -> None:
        """Make ``mapping`` (as ``roomsync.core.mapping.parse_mapping`` returns it) the property's
        whole mapping, in one transaction."""
        ...

    def load_mapping(self, property_id: str) -> PropertyMapping | None:
        """The property's mapping, None when none was ever loaded."""
        ...

    def count_listings(self, property_id: str) -> int:
        """How many listings the property's mapping holds (0 without a mapping)."""
        ...


@dataclass(frozen=True)
class ListingState:
    listing: ListingKey
    paused: bool = False
    pause_reason: str | None = None
    approval_status: str | None = None
    """The channel's ``approvalStatus.statusCategory``, as last seen."""
    sync_category: str | None = None
    has_availability: bool | None = None
    last_synced_at: datetime | None = None
    last_sync_result: str | None = None


class ListingStateStore(Protocol):
    def get_listing_state(self, listing: ListingKey) -> ListingState:
        """The recorded state, or the default state of a listing never seen."""
        ...

    def list_listing_states(self, property_id: str) -> list[ListingState]: ...

    def set_paused(self, listing: ListingKey, paused: bool, reason: str | None = None) -> None: ...

    def set_approval_status(self, listing: ListingKey, status: str) -> None: ...

    def set_sync_category(self, listing: ListingKey, category: str) -> None: ...

    def set_has_availability(self, listing: ListingKey, has_availability: bool) -> None: ...

    def record_listing_sync(self, listing: ListingKey, at: datetime, result: str) -> None: ...
