"""Rooms of the property, with their room type and room group (document 02, public help pages)."""

from __future__ import annotations

from pydantic_xml import xml_field_validator
from pydantic_xml.element import XmlElementReader

from roomsync.core.api.base import ApiModel, RootXmlModel, attr, element, wrapped
from roomsync.core.api.pms.common import ElementText, Flag


class RoomTypeTitle(ApiModel, tag="Title"):
    """XML: ``<Title languageCode="en">Double</Title>``."""

    language_code: str | None = attr(name="languageCode", default=None)
    title: ElementText = ""

    @xml_field_validator("language_code")
    @classmethod
    def _language_code_any_case(cls, element: XmlElementReader, field_name: str) -> str | None:
        # The help page's /v1/Rooms example writes the attribute "languagecode".
        value = element.pop_attrib("languageCode")
        return value if value is not None else element.pop_attrib("languagecode")


class RoomType(ApiModel, tag="RoomType"):
    """The room type of a room in ``GET /v1/Rooms``: XML ``<RoomType><Id>2</Id><Titles>..``."""

    id: int = element(tag="Id")
    titles: list[RoomTypeTitle] = wrapped("Titles", element(tag="Title", default_factory=list))


class ExtendedRoomType(RoomType, tag="RoomType"):
    """The room type of a room in ``GET /v1/RoomsExtended``: XML ``<RoomType id="2"><Titles>..``."""

    id: int = attr(name="id")


class RoomGroup(ApiModel, tag="RoomGroup"):
    id: int = element(tag="Id")
    title: str | None = element(tag="Title", default=None, nillable=True)


class Room(ApiModel, tag="Room"):
    """A room as ``GET /v1/Rooms`` lists it."""

    id: int = element(tag="Id")
    title: str | None = element(tag="Title", default=None, nillable=True, max_length=255)
    room_type: RoomType | None = element(tag="RoomType", default=None)
    room_group: RoomGroup | None = element(tag="RoomGroup", default=None)


class RoomList(RootXmlModel[list[Room]], tag="Rooms"):
    root: list[Room] = element(tag="Room", default_factory=list)


class RoomExtended(Room, tag="RoomExtended"):
    """A room as ``GET /v1/RoomsExtended`` lists it, with all fields."""

    room_type: ExtendedRoomType | None = element(tag="RoomType", default=None)
    clean_status: Flag | None = element(tag="CleanStatus", default=None, nillable=True)
    """0: not cleaned, 1: cleaned."""
    is_enabled: Flag | None = element(tag="IsEnabled", default=None, nillable=True)
    num_adults_base: int | None = element(tag="NumAdultsBase", default=None, nillable=True)
    num_adults_max: int | None = element(tag="NumAdultsMax", default=None, nillable=True)
    priority: int | None = element(tag="Priority", default=None, nillable=True)


class RoomExtendedList(RootXmlModel[list[RoomExtended]], tag="RoomsExtended"):
    root: list[RoomExtended] = element(tag="RoomExtended", default_factory=list)


XML_NAME_EXCEPTIONS: dict[str, str] = {
    "RoomTypeTitle.language_code": "@languageCode",
    "RoomTypeTitle.title": "#text",
    "ExtendedRoomType.id": "@id",
}
"""Fields whose XML name is not the PascalCase of the JSON name: ``@attr``, ``#text`` (element text)."""
