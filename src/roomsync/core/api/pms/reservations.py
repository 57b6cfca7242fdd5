"""Reservations: the basic, extended and version 2 objects, and every reservation operation's body.

The shapes 02 leaves "below"/not shown (add guest, CheckedIn, Status chunk, the two updates,
reservation extra charges, group/ungroup, payments of a reservation) are roomsync's choices,
written down in ``docs/shapes/property.md``.
"""

from __future__ import annotations

from datetime import date, datetime
from enum import IntEnum, StrEnum
from typing import Any

from pydantic import ValidationInfo, field_serializer, field_validator
from pydantic_xml import xml_field_serializer, xml_field_validator
from pydantic_xml.element import SearchMode, XmlElementReader, XmlElementWriter

from roomsync.core.api.base import ApiModel, Money, RootXmlModel, attr, element, wrapped
from roomsync.core.api.pms.common import Flag, Number, require_ordered
from roomsync.core.api.pms.customers import Customer, ReservationCustomer
from roomsync.core.api.pms.guests import Guest

STATUS_CHUNK_SIZE = 2000
"""Reservations per answer of ``POST /v2/Reservations/Status`` (01, Limits)."""


class ReservationStatus(IntEnum):
    """``reservationStatusId``: the states of a reservation."""

    TENTATIVE = 1
    CHANNEL_NEW = 2
    CONFIRMED = 3
    CHECKED_IN = 4
    CHECKED_OUT = 5
    EARLY_DEPARTURE = 6
    CONFIRMED_CANCELLED = 7
    TENTATIVE_CANCELLED = 8
    CUSTOMER_NO_SHOW = 9
    MODIFIED_FROM_CHANNEL = 10
    CANCELLED_FROM_CHANNEL = 11
    CHECKED_OUT_LATE = 12


class Board(StrEnum):
    ROOM_ONLY = "RO"
    BED_AND_BREAKFAST = "BB"
    HALF_BOARD = "HB"
    FULL_BOARD = "FB"
    ALL_INCLUSIVE = "AI"


class ReservationDateType(IntEnum):
    """``dateTypeId`` of the reservation filter: which date ``dateFrom``/``dateTo`` select on."""

    ARRIVAL = 1
    DEPARTURE = 2
    ACTUAL_RESERVATION = 3
    ACTUAL_CANCELLATION = 4
    CREATE = 5
    LAST_UPDATE = 6


class ReservationCore(ApiModel, tag="Reservation"):
    """The basic reservation fields shared by every reservation object (not ``customer``)."""

    id: int | None = element(tag="Id", default=None, nillable=True)
    actual_reservation_date: date | None = element(tag="ActualReservationDate", default=None, nillable=True)
    booking_agency_id: int | None = element(tag="BookingAgencyId", default=None, nillable=True)
    booking_agency_reference_code: str | None = element(
        tag="BookingAgencyReferenceCode", default=None, nillable=True, max_length=50
    )
    contract_id: int | None = element(tag="ContractId", default=None, nillable=True)
    currency_code: str | None = element(tag="CurrencyCode", default=None, nillable=True, max_length=5)
    date_from: date | None = element(tag="DateFrom", default=None, nillable=True)
    date_to: date | None = element(tag="DateTo", default=None, nillable=True)
    notes: str | None = element(tag="Notes", default=None, nillable=True, max_length=1000)
    price_list_id: int | None = element(tag="PriceListId", default=None, nillable=True)
    reservation_status_id: ReservationStatus | None = element(
        tag="ReservationStatusId", default=None, nillable=True
    )
    room_id: int | None = element(tag="RoomId", default=None, nillable=True)
    room_type_id: int | None = element(tag="RoomTypeId", default=None, nillable=True)
    total_agreed_price: Money | None = element(tag="TotalAgreedPrice", default=None, nillable=True)
    """What the customer pays; overrides the normal price."""
    board: Board | None = element(tag="Board", default=None, nillable=True)
    cancellation_fee_booking_agency: Money | None = element(
        tag="CancellationFeeBookingAgency", default=None, nillable=True
    )
    cancellation_reason_id: int | None = element(tag="CancellationReasonId", default=None, nillable=True)
    group_id: str | None = element(tag="GroupId", default=None, nillable=True)
    """GUID shared by the reservations of a multi-room booking; empty otherwise."""
    invoice_id: int | None = element(tag="InvoiceId", default=None, nillable=True)
    invoice_number: str | None = element(tag="InvoiceNumber", default=None, nillable=True)
    external_system_id: str | None = element(tag="ExternalSystemId", default=None, nillable=True)
    promo_code: str | None = element(tag="PromoCode", default=None, nillable=True)
    total_extra_taxes: Money | None = element(tag="TotalExtraTaxes", default=None, nillable=True)


class Reservation(ReservationCore, tag="Reservation"):
    """The basic reservation object; ``GET /v1/Reservation/{id}`` carries ``customerId``, not ``customer``."""

    customer: Customer | None = element(tag="Customer", default=None)
    customer_id: int | None = element(tag="CustomerId", default=None, nillable=True)


class ReservationUpdateRequest(Reservation, tag="Reservation"):
    """``PUT /v1/Reservation``: the basic object of an existing reservation, ``id`` required."""

    id: int = element(tag="Id")

    @field_validator("date_to")
    @classmethod
    def _nights(cls, value: date | None, info: ValidationInfo) -> date | None:
        require_ordered(info.data.get("date_from"), value, strict=True)
        return value


class ReservationFieldsUpdateRequest(Reservation, tag="Reservation"):
    """``PUT /v1/Reservation/{id}``: only the fields that are set are sent and changed."""

    partial_update = True

    @field_validator("date_to")
    @classmethod
    def _nights(cls, value: date | None, info: ValidationInfo) -> date | None:
        require_ordered(info.data.get("date_from"), value, strict=True)
        return value


class GroupedReservation(ApiModel, tag="Reservation"):
    """One other reservation of the group: ``{"<id>": {"roomTypeId": 4}}`` / ``<Reservation id="..">``."""

    id: int = attr(name="id")
    room_type_id: int | None = element(tag="RoomTypeId", default=None, nillable=True)


class ReservationExtendedCore(ReservationCore, tag="Reservation"):
    """The extended reservation fields that versions 1 and 2 share."""

    agreed_price: Money | None = element(tag="AgreedPrice", default=None, nillable=True)
    balance: Money | None = element(tag="Balance", default=None, nillable=True)
    commission: Money | None = element(tag="Commission", default=None, nillable=True)
    commission_booking_agency: Money | None = element(
        tag="CommissionBookingAgency", default=None, nillable=True
    )
    channel_notes: str | None = element(tag="ChannelNotes", default=None, nillable=True)
    # 02 gives no type for createDate and lastUpdate: they are kept as the text the service sent.
    create_date: str | None = element(tag="CreateDate", default=None, nillable=True)
    create_user: str | None = element(tag="CreateUser", default=None, nillable=True)
    credit_card_rest_token: str | None = element(tag="CreditCardRestToken", default=None, nillable=True)
    credit_card_token: str | None = element(tag="CreditCardToken", default=None, nillable=True)
    credit_card_views: int | None = element(tag="CreditCardViews", default=None, nillable=True)
    discount: Money | None = element(tag="Discount", default=None, nillable=True)
    exchange_rate: Number | None = element(tag="ExchangeRate", default=None, nillable=True)
    other_reservations_in_group: list[GroupedReservation] | None = element(
        tag="OtherReservationsInGroup", default=None
    )
    """JSON: an object keyed by reservation id; XML: ``Reservation`` elements with attribute id."""
    is_channel_reservation: Flag | None = element(tag="IsChannelReservation", default=None, nillable=True)
    is_locked: Flag | None = element(tag="IsLocked", default=None, nillable=True)
    is_non_refundable: Flag | None = element(tag="IsNonRefundable", default=None, nillable=True)
    is_overriden: Flag | None = element(tag="IsOverriden", default=None, nillable=True)
    move_customer_told: Flag | None = element(tag="MoveCustomerTold", default=None, nillable=True)
    last_update: str | None = element(tag="LastUpdate", default=None, nillable=True)
    normal_price: Money | None = element(tag="NormalPrice", default=None, nillable=True)
    num_adults: int | None = element(tag="NumAdults", default=None, nillable=True)
    num_children: int | None = element(tag="NumChildren", default=None, nillable=True)
    num_nights: int | None = element(tag="NumNights", default=None, nillable=True)
    pre_cancellation_total_agreed_price: Money | None = element(
        tag="PreCancellationTotalAgreedPrice", default=None, nillable=True
    )
    reservation_source_id: int | None = element(tag="ReservationSourceId", default=None, nillable=True)
    status: int | str | None = element(tag="Status", default=None, nillable=True)
    """Payment status: an integer in JSON, a word in XML (02)."""
    total_agreed_price_currency: Money | None = element(
        tag="TotalAgreedPriceCurrency", default=None, nillable=True
    )
    total_extra_charges: Money | None = element(tag="TotalExtraCharges", default=None, nillable=True)
    total_normal_price: Money | None = element(tag="TotalNormalPrice", default=None, nillable=True)
    total_normal_price_currency: Money | None = element(
        tag="TotalNormalPriceCurrency", default=None, nillable=True
    )
    total_payments: Money | None = element(tag="TotalPayments", default=None, nillable=True)
    update_user: str | None = element(tag="UpdateUser", default=None, nillable=True)
    board_title: str | None = element(tag="BoardTitle", default=None, nillable=True)
    booking_agency_customer_first_name: str | None = element(
        tag="BookingAgencyCustomerFirstName", default=None, nillable=True
    )
    booking_agency_customer_id: int | None = element(
        tag="BookingAgencyCustomerId", default=None, nillable=True
    )
    booking_agency_customer_last_name: str | None = element(
        tag="BookingAgencyCustomerLastName", default=None, nillable=True
    )
    booking_agency_title: str | None = element(tag="BookingAgencyTitle", default=None, nillable=True)
    guests: list[Guest] = wrapped("Guests", element(tag="Guest", default_factory=list))
    reservation_status_title: str | None = element(tag="ReservationStatusTitle", default=None, nillable=True)
    room_title: str | None = element(tag="RoomTitle", default=None, nillable=True)
    room_type_title: str | None = element(tag="RoomTypeTitle", default=None, nillable=True)

    @field_validator("status", mode="before")
    @classmethod
    def _numeric_status_as_int(cls, value: Any) -> Any:
        # XML text "3" is the number 3 (so a model survives XML); a word stays a word.
        if isinstance(value, str):
            try:
                number = int(value)
            except ValueError:
                return value
            return number if str(number) == value else value
        return value

    @field_validator("other_reservations_in_group", mode="before")
    @classmethod
    def _group_from_object(cls, value: Any) -> Any:
        if isinstance(value, dict):
            return [{**(entry or {}), "id": key} for key, entry in value.items()]
        return value

    @field_validator("other_reservations_in_group")
    @classmethod
    def _group_ids_unique(cls, value: list[GroupedReservation] | None) -> list[GroupedReservation] | None:
        if value is not None:
            ids = [grouped.id for grouped in value]
            if len(ids) != len(set(ids)):
                raise ValueError(f"a reservation id appears twice in the group: {ids}")
        return value

    @field_serializer("other_reservations_in_group")
    def _group_as_object(self, value: list[GroupedReservation] | None) -> dict[str, Any] | None:
        if value is None:
            return None
        return {
            str(grouped.id): grouped.model_dump(mode="json", by_alias=True, exclude={"id"})
            for grouped in value
        }

    @xml_field_serializer("other_reservations_in_group")
    def _group_to_xml(
        self, element: XmlElementWriter, value: list[GroupedReservation] | None, field_name: str
    ) -> None:
        # The JSON serializer above turns the list into an object, which pydantic-xml would then
        # try to write as a list; so the XML form is written here from the list itself.
        if value is None:
            return
        wrapper = element.make_element("OtherReservationsInGroup", nsmap=None)
        for grouped in value:
            wrapper.append_element(type(element).from_native(grouped.to_xml_tree()))
        element.append_element(wrapper)

    @xml_field_validator("other_reservations_in_group")
    @classmethod
    def _group_from_xml(cls, element: XmlElementReader, field_name: str) -> list[GroupedReservation] | None:
        wrapper = element.pop_element("OtherReservationsInGroup", search_mode=SearchMode.UNORDERED)
        if wrapper is None:
            return None
        return [
            GroupedReservation.from_xml_tree(child.to_native(), empty_as_string=True)
            for child in wrapper.pop_elements()
        ]


class ReservationExtended(ReservationExtendedCore, tag="Reservation"):
    """The extended object of future-reservations and ``POST /v1/Reservations``: flat customer fields."""

    customer_country: str | None = element(tag="CustomerCountry", default=None, nillable=True)
    customer_country_code: str | None = element(tag="CustomerCountryCode", default=None, nillable=True)
    customer_first_name: str | None = element(tag="CustomerFirstName", default=None, nillable=True)
    customer_last_name: str | None = element(tag="CustomerLastName", default=None, nillable=True)
    customer_notes: str | None = element(tag="CustomerNotes", default=None, nillable=True)
    customer_mobile: str | None = element(tag="CustomerMobile", default=None, nillable=True)
    customer_email: str | None = element(tag="CustomerEmail", default=None, nillable=True)
    customer_id: int | None = element(tag="CustomerId", default=None, nillable=True)


class ReservationExtendedList(RootXmlModel[list[ReservationExtended]], tag="Reservations"):
    root: list[ReservationExtended] = element(tag="Reservation", default_factory=list)


class ReservationV2(ReservationExtendedCore, tag="Reservation"):
    """The version 2 extended object: one ``customer`` object instead of the flat customer fields."""

    customer: Customer | None = element(tag="Customer", default=None)


class ReservationV2List(RootXmlModel[list[ReservationV2]], tag="Reservations"):
    root: list[ReservationV2] = element(tag="Reservation", default_factory=list)


class ReservationCreateRequest(ApiModel, tag="Reservation"):
    """``POST /v1/Reservation``; answered with the new ``id``. ``id`` itself must not be sent.

    ``customer``: a new customer (``lastName`` required) or an existing one (only ``id`` needed).
    """

    booking_agency_id: int | None = element(tag="BookingAgencyId", default=None, nillable=True)
    booking_agency_reference_code: str | None = element(
        tag="BookingAgencyReferenceCode", default=None, nillable=True, max_length=50
    )
    customer: ReservationCustomer = element(tag="Customer")
    currency_code: str | None = element(tag="CurrencyCode", default=None, nillable=True, max_length=5)
    price_list_id: int | None = element(tag="PriceListId", alias="PriceListId", default=None, nillable=True)
    """Spelled PascalCase in JSON too; mandatory unless the property has a Rack Rate."""
    date_from: date = element(tag="DateFrom")
    date_to: date = element(tag="DateTo")
    num_adults: int | None = element(tag="NumAdults", default=None, nillable=True, ge=0)
    reservation_status: ReservationStatus = element(tag="ReservationStatus")
    """The status the reservation is created in."""
    room_id: int | None = element(tag="RoomId", default=None, nillable=True)
    room_type_id: int = element(tag="RoomTypeId")
    total_agreed_price: Money | None = element(tag="TotalAgreedPrice", default=None, nillable=True)
    board: Board | None = element(tag="Board", default=None, nillable=True)
    contract_id: int | None = element(tag="ContractId", default=None, nillable=True)

    @field_validator("date_to")
    @classmethod
    def _nights(cls, value: date, info: ValidationInfo) -> date:
        require_ordered(info.data.get("date_from"), value, strict=True)
        return value


class ReservationIdsRequest(ApiModel, tag="Reservations"):
    """``POST /v1/Reservations`` and ``/v2/Reservations``: ``{"ReservationIds": [..]}``.

    XML: repeated ``id`` elements under ``Reservations``, as 02 writes it (``Id`` is read too).
    """

    reservation_ids: list[int] = element(tag="id", alias="ReservationIds", default_factory=list)

    @xml_field_validator("reservation_ids")
    @classmethod
    def _ids_from_xml(cls, element: XmlElementReader, field_name: str) -> list[str]:
        # Any other child element is ignored, as unknown fields are everywhere.
        return [child.pop_text() or "" for child in element.pop_elements() if child.tag in ("id", "Id")]


class ReservationGroupRequest(ReservationIdsRequest, tag="Reservations"):
    """``POST /v1/Reservations/Group``: the reservations to group, two or more."""

    reservation_ids: list[int] = element(tag="id", alias="ReservationIds", min_length=2)


class ReservationGroupResult(ApiModel, tag="ReservationGroup"):
    """The answer to grouping: the GUID the grouped reservations now share as ``groupId``."""

    group_id: str = element(tag="GroupId")


class ReservationUngroupRequest(ReservationIdsRequest, tag="Reservations"):
    """``POST /v1/Reservations/Ungroup``: the reservations to take out of their group (one or more)."""

    reservation_ids: list[int] = element(tag="id", alias="ReservationIds", min_length=1)


class ReservationFilterRequest(ApiModel, tag="ReservationFilter"):
    """``POST /v1/Reservations/Filter``: a reservation matches when it satisfies every field given."""

    customer_name_contains: str | None = element(tag="CustomerNameContains", default=None, nillable=True)
    email_contains: str | None = element(tag="EmailContains", default=None, nillable=True)
    booking_agency_id: int | None = element(tag="BookingAgencyId", default=None, nillable=True)
    booking_agency_reference_code_contains: str | None = element(
        tag="BookingAgencyReferenceCodeContains", default=None, nillable=True
    )
    date_type_id: ReservationDateType | None = element(tag="DateTypeId", default=None, nillable=True)
    date_from: date | None = element(tag="DateFrom", default=None, nillable=True)
    """Default: today."""
    date_to: date | None = element(tag="DateTo", default=None, nillable=True)
    """Default: today plus 30 days."""
    reservation_status_id: ReservationStatus | None = element(
        tag="ReservationStatusId", default=None, nillable=True
    )

    @field_validator("date_to")
    @classmethod
    def _range(cls, value: date | None, info: ValidationInfo) -> date | None:
        require_ordered(info.data.get("date_from"), value, strict=False)
        return value


class ReservationSearchResult(ApiModel, tag="Reservation"):
    """One filter hit. XML: ``<Reservation createDate=".." lastUpdateDate="..">123</Reservation>``."""

    reservation_id: int
    create_date: datetime | None = attr(name="createDate", default=None)
    last_update_date: datetime | None = attr(name="lastUpdateDate", default=None)


class ReservationSearchResultList(RootXmlModel[list[ReservationSearchResult]], tag="Reservations"):
    root: list[ReservationSearchResult] = element(tag="Reservation", default_factory=list)


class ReservationGuestLink(ApiModel, tag="Guest"):
    """``POST /v1/Reservation/{reservationId}/Guest``: the existing guest to add to the reservation."""

    id: int = element(tag="Id")
    """The guest's id."""
    is_primary_guest: Flag | None = element(tag="IsPrimaryGuest", default=None, nillable=True)


class CheckedInRequest(ApiModel, tag="CheckedIn"):
    """``POST /v2/Reservations/CheckedIn``: reservations checked in between the two dates.

    02 mentions further parameters without naming them; none is modelled.
    """

    date_from: date = element(tag="DateFrom")
    date_to: date = element(tag="DateTo")

    @field_validator("date_to")
    @classmethod
    def _range(cls, value: date, info: ValidationInfo) -> date:
        require_ordered(info.data.get("date_from"), value, strict=False)
        return value


class ReservationStatusChunkRequest(ApiModel, tag="ReservationStatusChunk"):
    """``POST /v2/Reservations/Status``: which chunk of (at most 2000) reservations to return.

    The chunk holds the reservations with an id above ``lastReservationId``, in id order;
    0 asks for the first chunk, the last id of a chunk asks for the next one.
    """

    last_reservation_id: int = element(tag="LastReservationId", default=0, ge=0)


class ReservationStatusEntry(ApiModel, tag="Reservation"):
    reservation_id: int = element(tag="ReservationId")
    reservation_status_id: ReservationStatus = element(tag="ReservationStatusId")


class ReservationStatusChunk(ApiModel, tag="ReservationStatusChunk"):
    """The answer of ``POST /v2/Reservations/Status``: up to 2000 reservation ids with their status."""

    reservations: list[ReservationStatusEntry] = wrapped(
        "Reservations", element(tag="Reservation", default_factory=list, max_length=STATUS_CHUNK_SIZE)
    )


class ReservationExtraCharge(ApiModel, tag="ReservationExtraCharge"):
    """An extra charge booked on a reservation (roomsync's shape; 02: "shape below", not shown)."""

    id: int | None = element(tag="Id", default=None, nillable=True)
    extra_charge_id: int = element(tag="ExtraChargeId")
    """Which configured extra charge (``GET /v1/ExtraCharges``)."""
    charge_date: date | None = element(tag="ChargeDate", default=None, nillable=True)
    quantity: Number = element(tag="Quantity", default=1, gt=0)
    unit_price: Money | None = element(tag="UnitPrice", default=None, nillable=True)
    """None: the extra charge's own unit price."""
    notes: str | None = element(tag="Notes", default=None, nillable=True)


class ReservationExtraChargeList(RootXmlModel[list[ReservationExtraCharge]], tag="ReservationExtraCharges"):
    root: list[ReservationExtraCharge] = element(tag="ReservationExtraCharge", default_factory=list)


class ReservationExtraChargeCreateRequest(ReservationExtraCharge, tag="ReservationExtraCharge"):
    """``POST /v1/Reservation/{id}/ExtraCharge``; answered with the new charge's ``id``."""

    @field_validator("id")
    @classmethod
    def _no_id(cls, value: int | None) -> int | None:
        if value is not None:
            raise ValueError("id must not be sent when adding an extra charge")
        return value


XML_NAME_EXCEPTIONS: dict[str, str] = {
    "GroupedReservation.id": "@id",
    "ReservationIdsRequest.reservation_ids": "id",
    "ReservationGroupRequest.reservation_ids": "id",
    "ReservationUngroupRequest.reservation_ids": "id",
    "ReservationSearchResult.reservation_id": "#text",
    "ReservationSearchResult.create_date": "@createDate",
    "ReservationSearchResult.last_update_date": "@lastUpdateDate",
}
"""Fields whose XML name is not the PascalCase of the JSON name: ``@attr``, ``#text`` (element text)."""
