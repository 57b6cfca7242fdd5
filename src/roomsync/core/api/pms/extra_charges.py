"""Extra charges, their categories and the point-of-sale charge bodies (document 02)."""

from __future__ import annotations

from typing import Any

from pydantic import ValidationInfo, field_validator, model_validator

from roomsync.core.api.base import ApiModel, Money, RootXmlModel, attr, element, wrapped
from roomsync.core.api.pms.common import DateOrDateTime, ElementText, Flag, Number


class ExtraChargeTitle(ApiModel, tag="Title"):
    """A localized title: XML ``<Title languageCode="en" isMain="1">Wine</Title>``."""

    language_code: str | None = attr(name="languageCode", default=None)
    is_main: Flag | None = attr(name="isMain", default=None)
    title: ElementText = ""


class ExtraChargeDescription(ApiModel, tag="Description"):
    """A localized description; roomsync's shape (02: "element shape: not shown"), like a title."""

    language_code: str | None = attr(name="languageCode", default=None)
    description: ElementText = ""


class ExtraCharge(ApiModel, tag="ExtraCharge"):
    """An item that can be charged to a reservation; identifiers are XML attributes."""

    id: int = attr(name="id")
    category_id: int | None = attr(name="categoryId", default=None)
    is_ibe_enabled: Flag | None = attr(name="isIbeEnabled", default=None)
    """0: not listed in the booking engine's options, 1: listed."""
    priority: int | None = attr(name="priority", default=None)
    unit_price: Money | None = element(tag="UnitPrice", default=None, nillable=True)
    titles: list[ExtraChargeTitle] = wrapped("Titles", element(tag="Title", default_factory=list))
    descriptions: list[ExtraChargeDescription] = wrapped(
        "Descriptions", element(tag="Description", default_factory=list)
    )


class ExtraChargeList(RootXmlModel[list[ExtraCharge]], tag="ExtraCharges"):
    root: list[ExtraCharge] = element(tag="ExtraCharge", default_factory=list)


class ExtraChargeCategory(ApiModel, tag="ExtraChargeCategory"):
    id: int = element(tag="Id")
    title: str | None = element(tag="Title", default=None, nillable=True)


class ExtraChargeCategoryList(RootXmlModel[list[ExtraChargeCategory]], tag="ExtraChargeCategories"):
    root: list[ExtraChargeCategory] = element(tag="ExtraChargeCategory", default_factory=list)


class PosItem(ApiModel, tag="Items"):
    """One sold item; its names are PascalCase in JSON too, and XML repeats ``Items`` elements."""

    name: str = element(tag="Name", alias="Name")
    price: Money = element(tag="Price", alias="Price")
    quantity: Number = element(tag="Quantity", alias="Quantity")


class PosChargeUpdateRequest(ApiModel, tag="PosCharge"):
    """``PUT /v1/ExtraCharge/UpdatePos``: the POST body without ``sum``.

    The reservation is found by room title; ``timeStamp`` or ``lastName`` or both must be sent.
    """

    items: list[PosItem] = element(tag="Items", min_length=1)
    room_title: str = element(tag="RoomTitle")
    last_name: str | None = element(tag="LastName", default=None, nillable=True)
    time_stamp: DateOrDateTime | None = element(tag="TimeStamp", default=None, nillable=True)
    """Documented as yyyy-MM-dd; the public example sends an ISO 8601 date-time with offset."""

    @model_validator(mode="before")
    @classmethod
    def _time_stamp_always_given(cls, data: Any) -> Any:
        # An absent timeStamp must still reach its validator, and under its API name so that the
        # violation names "timeStamp" (a validated default would be reported as "time_stamp").
        if isinstance(data, dict) and "timeStamp" not in data and "time_stamp" not in data:
            return {**data, "timeStamp": None}
        return data

    @field_validator("time_stamp")
    @classmethod
    def _time_stamp_or_last_name(cls, value: Any, info: ValidationInfo) -> Any:
        # Declared after lastName so that lastName is already in info.data.
        if value is None and not info.data.get("last_name"):
            raise ValueError("timeStamp or lastName (or both) must be sent")
        return value


class PosChargeRequest(PosChargeUpdateRequest, tag="PosCharge"):
    """``POST /v1/ExtraCharge/Pos``: charge items to the reservation occupying a room."""

    sum: Money = element(tag="Sum")
    """Total price of the items."""


XML_NAME_EXCEPTIONS: dict[str, str] = {
    "ExtraChargeTitle.language_code": "@languageCode",
    "ExtraChargeTitle.is_main": "@isMain",
    "ExtraChargeTitle.title": "#text",
    "ExtraChargeDescription.language_code": "@languageCode",
    "ExtraChargeDescription.description": "#text",
    "ExtraCharge.id": "@id",
    "ExtraCharge.category_id": "@categoryId",
    "ExtraCharge.is_ibe_enabled": "@isIbeEnabled",
    "ExtraCharge.priority": "@priority",
}
"""Fields whose XML name is not the PascalCase of the JSON name: ``@attr``, ``#text`` (element text)."""
