"""Invoices: issued ones (the filter result) and the preview of a reservation's final invoice."""

from __future__ import annotations

from datetime import date, datetime
from enum import IntEnum, StrEnum

from pydantic import ValidationInfo, field_validator

from roomsync.core.api.base import ApiModel, Money, RootXmlModel, element, wrapped
from roomsync.core.api.pms.common import Flag, Number, require_ordered
from roomsync.core.api.pms.customers import CustomerCategory


class InvoiceType(IntEnum):
    INVOICE = 1
    RECEIPT = 2
    PAYMENT_RECEIPT = 3
    CREDIT_INVOICE = 4
    TAX_RECEIPT = 5


class InvoiceItemType(IntEnum):
    """``itemType`` of an invoice line."""

    ACCOMMODATION = 1
    BOARD = 2
    """Board/Food."""
    DISCOUNTS = 3
    TAXES = 4
    CANCELLATION_FEES = 5
    PAYMENT = 6
    EXTRA_CHARGES = 7
    NEGATIVE_VALUES_EXISTING_INVOICES = 8


class TaxBreakdownTitle(StrEnum):
    ACCOMMODATION_PERCENT = "accommodationpercent"
    NET_SUBTOTAL = "netsubtotal"
    BOARD_PERCENT = "boardpercent"


class InvoicePreviewRequest(ApiModel, tag="InvoicePreview"):
    """``POST /v1/Invoice/Preview``: the reservation whose final invoice to preview."""

    reservation_id: int = element(tag="ReservationId")


class InvoiceFilterRequest(ApiModel, tag="InvoiceFilter"):
    """``POST /v1/Invoices/Filter``: invoices issued from ``dateFrom`` to ``dateTo``."""

    date_from: date = element(tag="DateFrom")
    date_to: date = element(tag="DateTo")

    @field_validator("date_to")
    @classmethod
    def _range(cls, value: date, info: ValidationInfo) -> date:
        require_ordered(info.data.get("date_from"), value, strict=False)
        return value


class InvoiceCounter(ApiModel, tag="Counter"):
    id: int = element(tag="Id")
    title: str | None = element(tag="Title", default=None, nillable=True, max_length=50)


class InvoiceCustomer(ApiModel, tag="Customer"):
    """The customer as printed on the invoice."""

    id: int | None = element(tag="Id", default=None, nillable=True)
    first_name: str | None = element(tag="FirstName", default=None, nillable=True)
    last_name: str | None = element(tag="LastName", default=None, nillable=True)
    tax_id: str | None = element(tag="TaxId", default=None, nillable=True, max_length=50)
    tax_id_additional: str | None = element(tag="TaxIdAdditional", default=None, nillable=True, max_length=50)
    city: str | None = element(tag="City", default=None, nillable=True, max_length=50)
    zip_code: str | None = element(tag="ZipCode", default=None, nillable=True, max_length=20)
    address1: str | None = element(tag="Address1", default=None, nillable=True, max_length=255)
    address2: str | None = element(tag="Address2", default=None, nillable=True, max_length=255)
    country: str | None = element(tag="Country", default=None, nillable=True, max_length=50)
    occupation: str | None = element(tag="Occupation", default=None, nillable=True, max_length=50)
    categories: list[CustomerCategory] = wrapped("Categories", element(tag="Category", default_factory=list))


class InvoicePayment(ApiModel, tag="Payment"):
    """A payment on the invoice. Its date is ``Date`` in XML, ``paymentDate`` (and text) in JSON."""

    id: int | None = element(tag="Id", default=None, nillable=True)
    payment_date: date | None = element(tag="Date", default=None, nillable=True)
    payment_date_string: str | None = element(tag="PaymentDateString", default=None, nillable=True)
    """The same date as text, yyyy-mm-dd."""
    payment_method_id: int | None = element(tag="PaymentMethodId", default=None, nillable=True)
    amount: Money | None = element(tag="Amount", default=None, nillable=True)
    currency_code: str | None = element(tag="CurrencyCode", default=None, nillable=True)
    reservation_id: int | None = element(tag="ReservationId", default=None, nillable=True)


class TaxBreakdownItem(ApiModel, tag="BreakdownItem"):
    title: TaxBreakdownTitle = element(tag="Title")
    amount: Money = element(tag="Amount")


class TaxEntry(ApiModel, tag="Tax"):
    """A tax of an invoice or of an invoice line, by percentage."""

    amount: Money | None = element(tag="Amount", default=None, nillable=True)
    is_included: Flag | None = element(tag="IsIncluded", default=None, nillable=True)
    """0: on top of the price, 1: included in it."""
    percentage: Number | None = element(tag="Percentage", default=None, nillable=True)
    title: str | None = element(tag="Title", default=None, nillable=True, max_length=50)
    breakdown: list[TaxBreakdownItem] = wrapped(
        "Breakdown", element(tag="BreakdownItem", default_factory=list)
    )


class TaxEntryPreview(TaxEntry, tag="Tax"):
    """A tax entry of the preview, which also carries its type and the dates it covers."""

    tax_type: str | None = element(tag="TaxType", default=None, nillable=True)
    date_from: date | None = element(tag="DateFrom", default=None, nillable=True)
    date_to: date | None = element(tag="DateTo", default=None, nillable=True)


class InvoiceLine(ApiModel, tag="InvoiceLine"):
    id: int | None = element(tag="Id", default=None, nillable=True)
    """-1 in a preview."""
    item_type: InvoiceItemType | None = element(tag="ItemType", default=None, nillable=True)
    quantity: Number | None = element(tag="Quantity", default=None, nillable=True)
    net_unit_price: Money | None = element(tag="NetUnitPrice", default=None, nillable=True)
    gross_unit_price: Money | None = element(tag="GrossUnitPrice", default=None, nillable=True)
    gross_subtotal: Money | None = element(tag="GrossSubtotal", default=None, nillable=True)
    net_subtotal: Money | None = element(tag="NetSubtotal", default=None, nillable=True)
    taxes_by_percentage: list[TaxEntry] = wrapped(
        "TaxesByPercentage", element(tag="Tax", default_factory=list)
    )
    booking_agency_reference_code: str | None = element(
        tag="BookingAgencyReferenceCode", default=None, nillable=True
    )
    num_adults: int | None = element(tag="NumAdults", default=None, nillable=True)
    num_children: int | None = element(tag="NumChildren", default=None, nillable=True)
    description: str | None = element(tag="Description", default=None, nillable=True)
    reservation_id: int | None = element(tag="ReservationId", default=None, nillable=True)


class TaxBreakdown(ApiModel, tag="TaxBreakdown"):
    """Amounts by breakdown title (``extraTaxBreakdown``/``taxBreakdown``; shape: roomsync's choice)."""

    accommodation_percent: Money | None = element(
        tag="Accommodationpercent", alias="accommodationpercent", default=None, nillable=True
    )
    net_subtotal: Money | None = element(tag="Netsubtotal", alias="netsubtotal", default=None, nillable=True)
    board_percent: Money | None = element(
        tag="Boardpercent", alias="boardpercent", default=None, nillable=True
    )


class InvoiceCore(ApiModel, tag="Invoice"):
    """The fields an issued invoice and a preview share."""

    issue_date: date | None = element(tag="IssueDate", default=None, nillable=True)
    create_date: datetime | None = element(tag="CreateDate", default=None, nillable=True)
    invoice_type: InvoiceType | None = element(tag="Type", alias="type", default=None, nillable=True)
    number: str | None = element(tag="Number", default=None, nillable=True, max_length=30)
    """The invoice number as on paper; unique."""
    counter: InvoiceCounter | None = element(tag="Counter", default=None)
    customer: InvoiceCustomer | None = element(tag="Customer", default=None)
    payments: list[InvoicePayment] = wrapped("Payments", element(tag="Payment", default_factory=list))
    total_net_value: Money | None = element(tag="TotalNetValue", default=None, nillable=True)
    total_extra_taxes: Money | None = element(tag="TotalExtraTaxes", default=None, nillable=True)
    total_taxes: Money | None = element(tag="TotalTaxes", default=None, nillable=True)
    total_gross_value: Money | None = element(tag="TotalGrossValue", default=None, nillable=True)
    invoice_lines: list[InvoiceLine] = wrapped(
        "InvoiceLines", element(tag="InvoiceLine", default_factory=list)
    )


class Invoice(InvoiceCore, tag="Invoice"):
    """An issued invoice as ``POST /v1/Invoices/Filter`` returns it (its id is ``invoiceId`` there)."""

    invoice_id: int | None = element(tag="InvoiceId", default=None, nillable=True)
    taxes_by_percentage: list[TaxEntry] = wrapped(
        "TaxesByPercentage", element(tag="Tax", default_factory=list)
    )
    """Taxes included in the prices."""
    extra_taxes_by_percentage: list[TaxEntry] = wrapped(
        "ExtraTaxesByPercentage", element(tag="Tax", default_factory=list)
    )
    """Element shape not shown in 02: roomsync uses tax entries."""


class InvoiceList(RootXmlModel[list[Invoice]], tag="Invoices"):
    root: list[Invoice] = element(tag="Invoice", default_factory=list)


class InvoicePreview(InvoiceCore, tag="Invoice"):
    """``POST /v1/Invoice/Preview``: the final invoice the reservation would get now."""

    id: int | None = element(tag="Id", default=None, nillable=True)
    taxes_by_percentage: list[TaxEntryPreview] = wrapped(
        "TaxesByPercentage", element(tag="Tax", default_factory=list)
    )
    extra_taxes_by_percentage: list[TaxEntryPreview] = wrapped(
        "ExtraTaxesByPercentage", element(tag="Tax", default_factory=list)
    )
    total_gross_value_before_extra_taxes: Money | None = element(
        tag="TotalGrossValueBeforeExtraTaxes", default=None, nillable=True
    )
    currency_code: str | None = element(tag="CurrencyCode", default=None, nillable=True)
    language_code: str | None = element(tag="LanguageCode", default=None, nillable=True)
    notes: str | None = element(tag="Notes", default=None, nillable=True)
    extra_tax_breakdown: TaxBreakdown | None = element(tag="ExtraTaxBreakdown", default=None)
    tax_breakdown: TaxBreakdown | None = element(tag="TaxBreakdown", default=None)


XML_NAME_EXCEPTIONS: dict[str, str] = {
    "InvoicePayment.payment_date": "Date",
}
"""Fields whose XML name is not the PascalCase of the JSON name (02: the payment date is ``date``)."""
