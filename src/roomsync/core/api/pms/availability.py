"""Availability of rooms and room types over a window of nights (document 02, 03-conventions)."""

from __future__ import annotations

from datetime import date

from pydantic import ValidationInfo, field_validator

from roomsync.core.api.base import ApiModel, Money, RootXmlModel, attr, element, wrapped
from roomsync.core.api.pms.common import Flag, require_ordered


class RoomAvailabilityRequest(ApiModel, tag="Availability"):
    """``POST /v1/Availability/Room``: ``dateFrom`` and ``dateTo`` are both nights of the window."""

    date_from: date = element(tag="DateFrom")
    date_to: date = element(tag="DateTo")
    group_dates: Flag = element(tag="GroupDates", default=1)
    """1: runs of nights with the same availability; 0: one run per night."""

    @field_validator("date_to")
    @classmethod
    def _window(cls, value: date, info: ValidationInfo) -> date:
        require_ordered(info.data.get("date_from"), value, strict=False)
        return value


class DateRange(ApiModel, tag="DateRange"):
    """``{"from": .., "to": ..}``; both ends belong to the run."""

    date_from: date = element(tag="From", alias="from")
    date_to: date = element(tag="To", alias="to")


class AvailabilityDateRange(ApiModel, tag="AvailabilityDateRange"):
    date_ranges: list[DateRange] = wrapped("DateRanges", element(tag="DateRange", default_factory=list))
    is_available: Flag = element(tag="IsAvailable")


class RoomAvailability(ApiModel, tag="AvailabilityResponseRoom"):
    """One room's runs of available and unavailable nights."""

    room_id: int = element(tag="RoomId")
    room_type_id: int | None = element(tag="RoomTypeId", default=None, nillable=True)
    availability_date_ranges: list[AvailabilityDateRange] = wrapped(
        "AvailabilityDateRanges", element(tag="AvailabilityDateRange", default_factory=list)
    )


class RoomAvailabilityList(RootXmlModel[list[RoomAvailability]], tag="AvailabilityResponse"):
    root: list[RoomAvailability] = element(tag="AvailabilityResponseRoom", default_factory=list)


class RoomTypeAvailabilityRequest(ApiModel, tag="Availability"):
    """``POST /v1/Availability/RoomType/Combined``: a stay of nights ``dateFrom`` .. ``dateTo`` - 1."""

    date_from: date = element(tag="DateFrom")
    date_to: date = element(tag="DateTo")
    booking_agency_id: int | None = element(tag="BookingAgencyId", default=None, nillable=True)

    @field_validator("date_to")
    @classmethod
    def _nights(cls, value: date, info: ValidationInfo) -> date:
        require_ordered(info.data.get("date_from"), value, strict=True)
        return value


class RoomTypeAvailabilityExtendedRequest(RoomTypeAvailabilityRequest, tag="Availability"):
    """``POST /v1/Availability/RoomType/CombinedExtended``: also prices the stay."""

    promo_code: str | None = element(tag="PromoCode", default=None, nillable=True)
    currency_code: str | None = element(tag="CurrencyCode", default=None, nillable=True)


class AvailableRoom(ApiModel, tag="AvailableRoom"):
    """XML: ``<AvailableRoom roomTypeId="2" isPropertyClosed="0" isRoomTypeClosed="0">3</AvailableRoom>``."""

    room_type_id: int = attr(name="roomTypeId")
    is_property_closed: Flag = attr(name="isPropertyClosed", default=0)
    is_room_type_closed: Flag = attr(name="isRoomTypeClosed", default=0)
    available: int = 0
    """Rooms of the type free on every night of the window."""


class AvailableRoomExtended(AvailableRoom, tag="AvailableRoom"):
    """An available room type with the price of the stay for one unit (03-conventions)."""

    price: Money | None = attr(name="price", default=None)
    currency_code: str | None = attr(name="currencyCode", default=None)


class AvailabilityContract(ApiModel, tag="Contract"):
    date_range: DateRange = element(tag="DateRange")
    contract_id: int = element(tag="ContractId")
    price_list_id: int | None = element(tag="PriceListId", default=None, nillable=True)


class RoomTypeAvailability(ApiModel, tag="RoomTypeAvailability"):
    """The answer of ``Combined``: free rooms per type, contracts, closed and sold-out runs."""

    available_rooms: list[AvailableRoom] = wrapped(
        "AvailableRooms", element(tag="AvailableRoom", default_factory=list)
    )
    contracts: list[AvailabilityContract] = wrapped(
        "Contracts", element(tag="Contract", default_factory=list)
    )
    closed_dates: list[DateRange] = wrapped("ClosedDates", element(tag="DateRange", default_factory=list))
    sold_out_dates: list[DateRange] = wrapped("SoldOutDates", element(tag="DateRange", default_factory=list))
    """Element shape not shown in 02: roomsync uses date ranges like ``closedDates``."""


class RoomTypeAvailabilityExtended(ApiModel, tag="RoomTypeAvailability"):
    """The answer of ``CombinedExtended``: as ``Combined``, with price and currency per room type."""

    available_rooms: list[AvailableRoomExtended] = wrapped(
        "AvailableRooms", element(tag="AvailableRoom", default_factory=list)
    )
    contracts: list[AvailabilityContract] = wrapped(
        "Contracts", element(tag="Contract", default_factory=list)
    )
    closed_dates: list[DateRange] = wrapped("ClosedDates", element(tag="DateRange", default_factory=list))
    sold_out_dates: list[DateRange] = wrapped("SoldOutDates", element(tag="DateRange", default_factory=list))


XML_NAME_EXCEPTIONS: dict[str, str] = {
    "AvailableRoom.room_type_id": "@roomTypeId",
    "AvailableRoom.is_property_closed": "@isPropertyClosed",
    "AvailableRoom.is_room_type_closed": "@isRoomTypeClosed",
    "AvailableRoom.available": "#text",
    "AvailableRoomExtended.room_type_id": "@roomTypeId",
    "AvailableRoomExtended.is_property_closed": "@isPropertyClosed",
    "AvailableRoomExtended.is_room_type_closed": "@isRoomTypeClosed",
    "AvailableRoomExtended.available": "#text",
    "AvailableRoomExtended.price": "@price",
    "AvailableRoomExtended.currency_code": "@currencyCode",
}
"""Fields whose XML name is not the PascalCase of the JSON name: ``@attr``, ``#text`` (element text)."""
