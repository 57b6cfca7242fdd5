"""Channel manager resources (document 01, "Channel manager"): channel names, the property's
connected channels, and the price batch pushed to them.

XML follows the public help page https://api.hoteliga.com/help/resources/channelManager/channels/
where it shows a layout: ``<ChannelName id="1">BookingCom</ChannelName>``, ``<Channel id=".."
isReservationsOnly=".." channelPropertyId=".." channelNameId=".."><Title>..</Title><Parameters>
<Parameter name="..">value</Parameter></Parameters></Channel>``. Document 01 itself fixes the
price request: ``<Request><PricesForDateRanges><PriceForDateRange dateFrom=".." .../>``. The
channel response has no XML example anywhere; roomsync writes its fields as elements.
"""

from __future__ import annotations

from datetime import date
from enum import IntEnum

from pydantic import ValidationInfo, field_validator

from roomsync.core.api.base import ApiModel, Money, RootXmlModel, attr, element, wrapped

MAX_PRICE_RANGE_DAYS = 365
"""``dateTo - dateFrom`` of one price element may not exceed this many days (document 01)."""


class ConnectionKind(IntEnum):
    """``Channel.isReservationsOnly``."""

    TWO_WAY = 0
    ONE_WAY = 1
    """Reservations only: the channel sends reservations but takes no prices or availability."""


class RoomRateType(IntEnum):
    STANDARD = 1
    NON_REFUNDABLE = 2


class ChannelResult(IntEnum):
    """``ChannelResponse.result``."""

    OK = 1
    OK_WITH_WARNINGS = 2
    ERROR = 3


class ChannelName(ApiModel, tag="ChannelName"):
    """A channel that can be managed through the service: ``<ChannelName id="1">BookingCom</ChannelName>``."""

    id: int = attr(name="id")
    name: str


class ChannelNameList(RootXmlModel[list[ChannelName]], tag="ChannelNames"):
    root: list[ChannelName] = element(tag="ChannelName", default_factory=list)


class ChannelParameter(ApiModel, tag="Parameter"):
    """A special parameter of a channel connection: ``<Parameter name="..">value</Parameter>``."""

    name: str = attr(name="name")
    value: str


class Channel(ApiModel, tag="Channel"):
    """A channel connected to the property."""

    id: int = attr(name="id")
    """ID of the channel in the service."""
    is_reservations_only: ConnectionKind = attr(name="isReservationsOnly")
    channel_property_id: str = attr(name="channelPropertyId")
    """The property's ID at the channel."""
    channel_name_id: int = attr(name="channelNameId")
    title: str = element(tag="Title")
    parameters: list[ChannelParameter] = wrapped(
        "Parameters", element(tag="Parameter", default_factory=list)
    )


class ChannelList(RootXmlModel[list[Channel]], tag="Channels"):
    root: list[Channel] = element(tag="Channel", default_factory=list)


class PriceForDateRange(ApiModel, tag="PriceForDateRange"):
    """One price for a room type and rate over ``dateFrom``..``dateTo`` (both included).

    In XML every field is an attribute of ``<PriceForDateRange>`` (document 01).
    """

    date_from: date = attr(name="dateFrom")
    date_to: date = attr(name="dateTo")
    room_type_id: int = attr(name="roomTypeId")
    room_rate_type: RoomRateType = attr(name="roomRateType")
    price: Money = attr(name="price", decimal_places=2)

    @field_validator("date_to")
    @classmethod
    def _range_is_ordered_and_short(cls, date_to: date, info: ValidationInfo) -> date:
        date_from: date | None = info.data.get("date_from")
        if date_from is None:  # dateFrom already failed; its own error is reported
            return date_to
        if date_to < date_from:
            raise ValueError(f"dateTo must not be before dateFrom ({date_from.isoformat()})")
        if (date_to - date_from).days > MAX_PRICE_RANGE_DAYS:
            raise ValueError(
                f"dateTo may be at most {MAX_PRICE_RANGE_DAYS} days after dateFrom "
                f"({date_from.isoformat()}); split the range"
            )
        return date_to


class PricesRequest(ApiModel, tag="Request"):
    """Body of ``POST /v1/ChannelManager/Prices``; the service enqueues it.

    The contracts of the channels to update must use the same price list.
    """

    prices_for_date_ranges: list[PriceForDateRange] = wrapped(
        "PricesForDateRanges", element(tag="PriceForDateRange", default_factory=list)
    )


class ChannelMessage(ApiModel, tag="Message"):
    """One error or warning of a channel response (document 01 does not show its fields)."""

    channel_id: int | None = element(tag="ChannelId", default=None, nillable=True)
    """The connected channel it concerns; None for the service's own errors."""
    code: str | None = element(tag="Code", default=None, nillable=True)
    message: str = element(tag="Message")


class ChannelResponse(ApiModel, tag="ChannelResponse"):
    """Answer of ``POST Prices``: 1 OK, 2 OK with warnings, 3 error, with the details."""

    result: ChannelResult = element(tag="Result")
    channel_errors: list[ChannelMessage] = wrapped(
        "ChannelErrors", element(tag="ChannelError", default_factory=list)
    )
    channel_warnings: list[ChannelMessage] = wrapped(
        "ChannelWarnings", element(tag="ChannelWarning", default_factory=list)
    )
    service_errors: list[ChannelMessage] = wrapped(
        "ServiceErrors", element(tag="ServiceError", default_factory=list)
    )


XML_NAME_EXCEPTIONS: dict[str, str] = {
    # "Model.jsonName": the XML name used instead of PascalCase(jsonName). "@x" is an attribute x
    # of the model's element, "#text" the element's text. From the help page (channel names,
    # channels) and document 01 (price elements).
    "ChannelName.id": "@id",
    "ChannelName.name": "#text",
    "ChannelParameter.name": "@name",
    "ChannelParameter.value": "#text",
    "Channel.id": "@id",
    "Channel.isReservationsOnly": "@isReservationsOnly",
    "Channel.channelPropertyId": "@channelPropertyId",
    "Channel.channelNameId": "@channelNameId",
    "PriceForDateRange.dateFrom": "@dateFrom",
    "PriceForDateRange.dateTo": "@dateTo",
    "PriceForDateRange.roomTypeId": "@roomTypeId",
    "PriceForDateRange.roomRateType": "@roomRateType",
    "PriceForDateRange.price": "@price",
}
"""Deliberate deviations from "XML name = PascalCase(JSON name)" in this module."""
