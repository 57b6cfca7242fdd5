"""Invoices (document 02): the preview of a reservation's final invoice, and issued invoices."""

from __future__ import annotations

from decimal import Decimal
from typing import Any

from roomsync.core.api.pms import invoices as api
from roomsync.core.api.pms.customers import CustomerCategory
from roomsync.emulator.pms import records
from roomsync.emulator.pms.handlers.common import pms
from roomsync.emulator.pms.handlers.convert import to_model
from roomsync.emulator.pms.invoices import InvoiceDocument, TaxAmount
from roomsync.emulator.registry import Call, handles


def _cut(text: str | None, length: int) -> str | None:
    """The invoice prints shorter customer fields than the customer record holds."""
    return None if text is None else text[:length]


def invoice_customer(customer: records.Customer) -> api.InvoiceCustomer:
    return api.InvoiceCustomer(
        id=customer.id,
        first_name=customer.first_name,
        last_name=customer.last_name,
        tax_id=customer.tax_id,
        tax_id_additional=customer.tax_id_additional,
        city=_cut(customer.billing_city, 50),
        zip_code=customer.billing_zip_code,
        address1=customer.billing_address1,
        address2=customer.billing_address2,
        country=customer.country_code,
        occupation=customer.occupation,
        categories=[CustomerCategory(id=c.id, title=c.title) for c in customer.categories],
    )


def _payments(document: InvoiceDocument) -> list[api.InvoicePayment]:
    return [
        api.InvoicePayment(
            id=p.id,
            payment_date=p.payment_date,
            payment_date_string=p.payment_date.isoformat(),
            payment_method_id=p.payment_method_id,
            amount=p.amount,
            currency_code=p.currency_code,
            reservation_id=p.reservation_id,
        )
        for p in document.payments
    ]


def _breakdown(tax: TaxAmount) -> list[api.TaxBreakdownItem]:
    return [
        api.TaxBreakdownItem(title=api.TaxBreakdownTitle(title), amount=amount)
        for title, amount in tax.breakdown
    ]


def _tax(tax: TaxAmount) -> api.TaxEntry:
    return api.TaxEntry(
        amount=tax.amount,
        is_included=tax.is_included,
        percentage=tax.percentage,
        title=tax.title,
        breakdown=_breakdown(tax),
    )


def _preview_tax(tax: TaxAmount) -> api.TaxEntryPreview:
    return api.TaxEntryPreview(
        amount=tax.amount,
        is_included=tax.is_included,
        percentage=tax.percentage,
        title=tax.title,
        breakdown=_breakdown(tax),
        tax_type=tax.tax_type,
        date_from=tax.date_from,
        date_to=tax.date_to,
    )


def _lines(document: InvoiceDocument) -> list[api.InvoiceLine]:
    return [
        api.InvoiceLine(
            id=line.id,
            item_type=api.InvoiceItemType(line.item_type),
            quantity=line.quantity,
            net_unit_price=line.net_unit_price,
            gross_unit_price=line.gross_unit_price,
            gross_subtotal=line.gross_subtotal,
            net_subtotal=line.net_subtotal,
            taxes_by_percentage=[_tax(tax) for tax in line.taxes],
            booking_agency_reference_code=line.booking_agency_reference_code,
            num_adults=line.num_adults,
            num_children=line.num_children,
            description=line.description,
            reservation_id=line.reservation_id,
        )
        for line in document.lines
    ]


def _tax_breakdown(taxes: list[TaxAmount]) -> api.TaxBreakdown | None:
    if not taxes:
        return None
    sums: dict[str, Decimal] = {}
    for tax in taxes:
        for title, amount in tax.breakdown:
            sums[title] = sums.get(title, Decimal("0")) + amount
    return to_model(
        api.TaxBreakdown,
        accommodation_percent=sums.get("accommodationpercent"),
        net_subtotal=sums.get("netsubtotal"),
        board_percent=sums.get("boardpercent"),
    )


def _shared_fields(document: InvoiceDocument) -> dict[str, Any]:
    """What an invoice and its preview both show of ``document``."""
    return dict(
        issue_date=document.issue_date,
        create_date=document.create_date,
        invoice_type=api.InvoiceType(document.type),
        number=document.number,
        counter=api.InvoiceCounter(id=document.counter_id, title=document.counter_title),
        customer=invoice_customer(document.customer),
        payments=_payments(document),
        total_net_value=document.total_net_value,
        total_extra_taxes=document.total_extra_taxes,
        total_taxes=document.total_taxes,
        total_gross_value=document.total_gross_value,
        invoice_lines=_lines(document),
    )


def preview_model(document: InvoiceDocument) -> api.InvoicePreview:
    return to_model(
        api.InvoicePreview,
        id=document.id,
        **_shared_fields(document),
        taxes_by_percentage=[_preview_tax(tax) for tax in document.taxes],
        extra_taxes_by_percentage=[_preview_tax(tax) for tax in document.extra_taxes],
        total_gross_value_before_extra_taxes=document.total_gross_value_before_extra_taxes,
        currency_code=document.currency_code,
        language_code=document.language_code,
        notes=document.notes,
        extra_tax_breakdown=_tax_breakdown(document.extra_taxes),
        tax_breakdown=_tax_breakdown(document.taxes),
    )


def invoice_model(document: InvoiceDocument) -> api.Invoice:
    return to_model(
        api.Invoice,
        invoice_id=document.id,
        **_shared_fields(document),
        taxes_by_percentage=[_tax(tax) for tax in document.taxes],
        extra_taxes_by_percentage=[_tax(tax) for tax in document.extra_taxes],
    )


@handles("preview_invoice")
def preview_invoice(call: Call) -> api.InvoicePreview:
    state = pms(call)
    body: api.InvoicePreviewRequest = call.body
    reservation = state.reservation(body.reservation_id, "reservationId")
    return preview_model(state.invoice_preview(reservation, today=call.today, now=call.now))


@handles("filter_invoices")
def filter_invoices(call: Call) -> api.InvoiceList:
    state = pms(call)
    body: api.InvoiceFilterRequest = call.body
    issued = sorted(
        (d for d in state.invoices.values() if body.date_from <= d.issue_date <= body.date_to),
        key=lambda d: (d.issue_date, d.id or 0),
    )
    return api.InvoiceList(root=[invoice_model(d) for d in issued])
