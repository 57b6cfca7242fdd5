"""Guests: further people staying in a reserved room besides the customer (document 02)."""

from __future__ import annotations

from datetime import date
from enum import IntEnum, StrEnum
from typing import Annotated, Any

from pydantic import BeforeValidator, model_validator

from roomsync.core.api.base import ApiModel, RootXmlModel, element
from roomsync.core.api.pms.common import Flag, int_as_text


class IdDocType(StrEnum):
    """``idDocType``. The Spanish police types share 1 (PAS), 2 (NIF) and 5 (NIE) and add 9, 10."""

    PASSPORT = "1"
    NATIONAL_ID = "2"
    DRIVING_LICENSE = "3"
    NATIONAL_ID_OTHER_COUNTRY = "4"
    RESIDENCE_PERMIT = "5"
    RESIDENCE_PERMIT_OTHER_COUNTRY = "6"
    FOREIGNER_ID = "7"
    DIPLOMATIC_CARD = "8"
    CIF = "9"
    """Spanish police type: Código de identificación fiscal."""
    OTHER = "10"
    """Spanish police type: OTRO (another document)."""


class Salutation(IntEnum):
    MR = 1
    MRS = 2
    MS = 3
    DR_MALE = 4
    DR_FEMALE = 5


class GuestRole(StrEnum):
    CONTRACT_HOLDER = "TI"
    TRAVELER = "VI"


class RelationshipToCustomer(StrEnum):
    GRANDPARENT = "AB"
    GREAT_GRANDPARENT = "BA"
    GREAT_GRANDCHILD = "BN"
    BROTHER_OR_SISTER_IN_LAW = "CD"
    SPOUSE = "CY"
    CHILD = "HJ"
    SIBLING = "HR"
    GRANDCHILD = "NI"
    OTHER = "OT"
    PARENT = "PM"
    NEPHEW_OR_NIECE = "SB"
    PARENT_IN_LAW = "SG"
    UNCLE_OR_AUNT = "TI"
    GUARDIAN = "TU"
    SON_OR_DAUGHTER_IN_LAW = "YN"


_TABLE_SPELLINGS = {
    "IdDocIssueCountryId": "idDocIssueCountryId",
    "IdDocExpirationDate": "idDocExpirationDate",
}
"""JSON names as 02's Guest table spells them, and the camelCase the service's examples use."""

IdDocTypeText = Annotated[IdDocType, BeforeValidator(int_as_text)]
"""``idDocType`` is a string (50); a number sent for it is read as its text."""


class GuestFields(ApiModel, tag="Guest"):
    """Every Guest field but ``id``: the base of the guest, its create and its update body."""

    first_name: str | None = element(tag="FirstName", default=None, nillable=True, max_length=100)
    last_name: str | None = element(tag="LastName", default=None, nillable=True, max_length=100)
    last_name2: str | None = element(tag="LastName2", default=None, nillable=True, max_length=100)
    date_of_birth: date | None = element(tag="DateOfBirth", default=None, nillable=True)
    id_doc_issue_date: date | None = element(tag="IdDocIssueDate", default=None, nillable=True)
    id_doc_type: IdDocTypeText | None = element(tag="IdDocType", default=None, nillable=True)
    id_doc_number: str | None = element(tag="IdDocNumber", default=None, nillable=True, max_length=50)
    # 02 writes these two PascalCase in its table and camelCase in its JSON examples: JSON is
    # written camelCase like every other JSON name; the PascalCase spelling is read as well.
    id_doc_issue_country_id: str | None = element(
        tag="IdDocIssueCountryId", default=None, nillable=True, max_length=2
    )
    """Issue country of the document, ISO 3166-1 alpha-2."""
    id_doc_expiration_date: date | None = element(tag="IdDocExpirationDate", default=None, nillable=True)
    nationality_country_id: str | None = element(
        tag="NationalityCountryId", default=None, nillable=True, max_length=2
    )
    """ISO 3166-1 alpha-2."""
    province_id: int | None = element(tag="ProvinceId", default=None, nillable=True)
    is_primary_guest: Flag | None = element(tag="IsPrimaryGuest", default=None, nillable=True)
    salutation_id: Salutation | None = element(tag="SalutationId", default=None, nillable=True)
    reservation_id: int | None = element(tag="ReservationId", default=None, nillable=True)
    """With a reservation id, a new guest is connected to that reservation."""
    email: str | None = element(tag="Email", default=None, nillable=True)
    phone_number: str | None = element(tag="PhoneNumber", default=None, nillable=True)
    phone_number2: str | None = element(tag="PhoneNumber2", default=None, nillable=True)
    address_street: str | None = element(tag="AddressStreet", default=None, nillable=True)
    address_street_number: str | None = element(tag="AddressStreetNumber", default=None, nillable=True)
    address_zip_code: str | None = element(tag="AddressZipCode", default=None, nillable=True)
    role: GuestRole | None = element(tag="Role", default=None, nillable=True)
    spanish_province_code: str | None = element(
        tag="SpanishProvinceCode", default=None, nillable=True, max_length=2
    )
    spanish_municipality_code: str | None = element(
        tag="SpanishMunicipalityCode", default=None, nillable=True, max_length=3
    )
    country_alpha3_code: str | None = element(
        tag="CountryAlpha3Code", default=None, nillable=True, max_length=3
    )
    """Nationality, ISO 3166-1 alpha-3."""
    residence_alpha3_code: str | None = element(
        tag="ResidenceAlpha3Code", default=None, nillable=True, max_length=3
    )
    """Issue country of the document, ISO 3166-1 alpha-3."""
    support_doc_number: str | None = element(tag="SupportDocNumber", default=None, nillable=True)
    relationship_to_customer: RelationshipToCustomer | None = element(
        tag="RelationshipToCustomer", default=None, nillable=True
    )

    @model_validator(mode="before")
    @classmethod
    def _read_table_spelling(cls, data: Any) -> Any:
        if isinstance(data, dict):
            for documented, camel in _TABLE_SPELLINGS.items():
                if documented in data and camel not in data:
                    data = {**data, camel: data[documented]}
                    del data[documented]
        return data


class Guest(GuestFields, tag="Guest"):
    """A guest as the service returns it."""

    id: int | None = element(tag="Id", default=None, nillable=True)


class GuestList(RootXmlModel[list[Guest]], tag="Guests"):
    root: list[Guest] = element(tag="Guest", default_factory=list)


class GuestCreateRequest(GuestFields, tag="Guest"):
    """``POST /v1/Guest``: ``firstName`` and ``lastName`` required; answered with the new ``id``."""

    first_name: str = element(tag="FirstName", max_length=100)
    last_name: str = element(tag="LastName", max_length=100)


class GuestUpdateRequest(Guest, tag="Guest"):
    """``PUT /v1/Guest``: ``id`` required; only the fields sent change."""

    partial_update = True

    id: int = element(tag="Id")


XML_NAME_EXCEPTIONS: dict[str, str] = {}
"""Every Guest field's XML name is the PascalCase of its JSON name."""
