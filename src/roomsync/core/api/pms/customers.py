"""Customers: the people reservations are registered to (document 02)."""

from __future__ import annotations

from pydantic import model_validator

from roomsync.core.api.base import ApiModel, RootXmlModel, element, wrapped
from roomsync.core.api.pms.common import Flag


class CustomerCategory(ApiModel, tag="Category"):
    id: int = element(tag="Id")
    title: str | None = element(tag="Title", default=None, nillable=True, max_length=50)


class CustomerFields(ApiModel, tag="Customer"):
    """Every Customer field but ``id``: the body of ``POST /v1/Customer`` and the base of the rest."""

    last_name: str | None = element(tag="LastName", default=None, nillable=True, max_length=100)
    first_name: str | None = element(tag="FirstName", default=None, nillable=True, max_length=100)
    email: str | None = element(tag="Email", default=None, nillable=True, max_length=50)
    mobile: str | None = element(tag="Mobile", default=None, nillable=True, max_length=20)
    """Without the international dialing code."""
    phone: str | None = element(tag="Phone", default=None, nillable=True, max_length=50)
    """Without the international dialing code."""
    billing_address1: str | None = element(tag="BillingAddress1", default=None, nillable=True, max_length=100)
    billing_address2: str | None = element(tag="BillingAddress2", default=None, nillable=True, max_length=100)
    billing_city: str | None = element(tag="BillingCity", default=None, nillable=True, max_length=100)
    billing_zip_code: str | None = element(tag="BillingZipCode", default=None, nillable=True, max_length=20)
    province_id: int | None = element(tag="ProvinceId", default=None, nillable=True)
    country_code: str | None = element(tag="CountryCode", default=None, nillable=True, max_length=2)
    """ISO 3166-1 alpha-2."""
    tax_id: str | None = element(tag="TaxId", default=None, nillable=True, max_length=50)
    tax_id_additional: str | None = element(tag="TaxIdAdditional", default=None, nillable=True, max_length=50)
    is_sales_tax_exempt: Flag | None = element(tag="IsSalesTaxExempt", default=None, nillable=True)
    occupation: str | None = element(tag="Occupation", default=None, nillable=True, max_length=50)
    notes: str | None = element(tag="Notes", default=None, nillable=True, max_length=250)
    categories: list[CustomerCategory] = wrapped("Categories", element(tag="Category", default_factory=list))


class Customer(CustomerFields, tag="Customer"):
    """A customer as the service returns it."""

    id: int | None = element(tag="Id", default=None, nillable=True)


class CustomerList(RootXmlModel[list[Customer]], tag="Customers"):
    root: list[Customer] = element(tag="Customer", default_factory=list)


class CustomerCreateRequest(CustomerFields, tag="Customer"):
    """``POST /v1/Customer``: a customer without ``id``; ``lastName`` is required."""

    last_name: str = element(tag="LastName", max_length=100)


class ReservationCustomer(CustomerFields, tag="Customer"):
    """The ``customer`` of ``POST /v1/Reservation``: an existing customer by its ``id`` alone, or a
    new one (no ``id``; ``lastName`` required, every other field optional and left out when unset)."""

    id: int | None = element(tag="Id", default=None, nillable=True)

    @model_validator(mode="after")
    def _existing_or_named(self) -> ReservationCustomer:
        if self.id is None and not self.last_name:
            raise ValueError("customer needs an id (existing customer) or a lastName (new customer)")
        return self


class CustomerUpdateRequest(Customer, tag="Customer"):
    """``PUT /v1/Customer``: ``id`` and ``lastName`` required; fields not sent are reset to defaults."""

    id: int = element(tag="Id")
    last_name: str = element(tag="LastName", max_length=100)


class CustomerDeleteRequest(ApiModel, tag="Customer"):
    """``DELETE /v1/Customer``: the customer's ``id`` in the body (02 does not say where it goes)."""

    id: int = element(tag="Id")


class CountryRef(ApiModel, tag="CountryIs"):
    """``CountryIs`` of the customer filter: ``{"Id": "GR"}``."""

    id: str = element(tag="Id", alias="Id", max_length=2)


class CustomerFilterRequest(ApiModel, tag="CustomerFilter"):
    """``POST /v1/Customers``: a customer matches when it matches every field given.

    Field names are PascalCase in JSON too, as documented.
    """

    customer_id: int | None = element(tag="CustomerId", alias="CustomerId", default=None, nillable=True)
    name_contains: str | None = element(tag="NameContains", alias="NameContains", default=None, nillable=True)
    """A substring of the first or the last name."""
    phone_contains: str | None = element(
        tag="PhoneContains", alias="PhoneContains", default=None, nillable=True
    )
    mobile_contains: str | None = element(
        tag="MobileContains", alias="MobileContains", default=None, nillable=True
    )
    country_is: CountryRef | None = element(tag="CountryIs", alias="CountryIs", default=None)
    tax_id_contains: str | None = element(
        tag="TaxIdContains", alias="TaxIdContains", default=None, nillable=True
    )


XML_NAME_EXCEPTIONS: dict[str, str] = {}
"""Every Customer field's XML name is the PascalCase of its JSON name."""
