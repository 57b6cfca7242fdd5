"""Invoices derived from a reservation: accommodation, extra charges, payments and taxes.

Document 02 shows an invoice's fields but not how the service computes them. The emulator's rule
(docs/emulator-pms.md):

* one accommodation line (``itemType`` 1) per reservation: quantity = nights, gross subtotal = the
  reservation's ``totalAgreedPrice``;
* one extra-charge line (``itemType`` 7) per extra charge posted to the reservation;
* the property's VAT is included in every gross amount (``isIncluded`` 1):
  ``net = round(gross / (1 + vat/100), 2)``, ``tax = gross - net``, per line; a customer with
  ``isSalesTaxExempt`` 1 pays no VAT (net = gross);
* an optional extra tax (a city tax) is a percentage of the accommodation's gross, not included
  (``isIncluded`` 0), added on top: ``totalGrossValue = totalGrossValueBeforeExtraTaxes +
  totalExtraTaxes``;
* the reservation's payments are listed in ``payments``; they are not lines.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field
from datetime import date, datetime
from decimal import ROUND_HALF_UP, Decimal

from roomsync.emulator.pms.records import Customer, Payment, Reservation, ReservationExtraCharge

_CENT = Decimal("0.01")
PREVIEW_LINE_ID = -1

ITEM_ACCOMMODATION = 1
ITEM_EXTRA_CHARGE = 7


def money(value: Decimal) -> Decimal:
    return value.quantize(_CENT, rounding=ROUND_HALF_UP)


@dataclass
class TaxAmount:
    title: str
    percentage: Decimal
    amount: Decimal
    is_included: int
    tax_type: str
    date_from: date
    date_to: date
    breakdown: list[tuple[str, Decimal]] = field(default_factory=list)


@dataclass
class InvoiceLine:
    id: int
    item_type: int
    description: str
    quantity: Decimal
    gross_unit_price: Decimal
    net_unit_price: Decimal
    gross_subtotal: Decimal
    net_subtotal: Decimal
    taxes: list[TaxAmount]
    reservation_id: int
    booking_agency_reference_code: str | None
    num_adults: int
    num_children: int


@dataclass
class InvoiceDocument:
    """An invoice: a preview (id None, lines -1) or an issued one."""

    id: int | None
    reservation_ids: list[int]
    customer: Customer
    issue_date: date
    create_date: datetime
    type: int
    number: str | None
    counter_id: int
    counter_title: str
    currency_code: str
    language_code: str
    notes: str | None
    lines: list[InvoiceLine]
    payments: list[Payment]
    taxes: list[TaxAmount]
    extra_taxes: list[TaxAmount]
    total_net_value: Decimal
    total_taxes: Decimal
    total_extra_taxes: Decimal
    total_gross_value_before_extra_taxes: Decimal
    total_gross_value: Decimal


@dataclass(frozen=True)
class TaxSettings:
    vat_title: str = "VAT"
    vat_percentage: Decimal = Decimal("13")
    extra_tax_title: str = "City tax"
    extra_tax_percentage: Decimal = Decimal("0")
    tax_type: str = "GR"
    counter_id: int = 1
    counter_title: str = "Invoices A"
    language_code: str = "en"


def derive_invoice(
    reservation: Reservation,
    customer: Customer,
    room_type_title: str,
    extra_charges: Sequence[ReservationExtraCharge],
    payments: Sequence[Payment],
    taxes: TaxSettings,
    *,
    issue_date: date,
    create_date: datetime,
    invoice_type: int = 1,
) -> InvoiceDocument:
    """The invoice of ``reservation`` as it would be issued on ``issue_date`` (a preview)."""
    vat = Decimal("0") if customer.is_sales_tax_exempt else taxes.vat_percentage
    stay = (reservation.date_from, reservation.date_to)
    lines = [
        _line(
            ITEM_ACCOMMODATION,
            f"Accommodation {room_type_title} {reservation.date_from.isoformat()} to "
            f"{reservation.date_to.isoformat()}",
            Decimal(reservation.num_nights),
            reservation.total_agreed_price,
            reservation,
            vat,
            taxes,
            stay,
        )
    ]
    for charge in extra_charges:
        lines.append(
            _line(
                ITEM_EXTRA_CHARGE, charge.title, charge.quantity, charge.total, reservation, vat, taxes, stay
            )
        )
    total_gross = sum((line.gross_subtotal for line in lines), Decimal("0"))
    total_net = sum((line.net_subtotal for line in lines), Decimal("0"))
    total_vat = total_gross - total_net
    accommodation_gross = lines[0].gross_subtotal
    vat_entry = TaxAmount(
        taxes.vat_title,
        vat,
        money(total_vat),
        1,
        taxes.tax_type,
        *stay,
        breakdown=[
            ("accommodationpercent", money(lines[0].gross_subtotal - lines[0].net_subtotal)),
            ("netsubtotal", money(total_net)),
        ],
    )
    extra_taxes: list[TaxAmount] = []
    total_extra = Decimal("0.00")
    if taxes.extra_tax_percentage > 0:
        total_extra = money(accommodation_gross * taxes.extra_tax_percentage / 100)
        extra_taxes.append(
            TaxAmount(
                taxes.extra_tax_title,
                taxes.extra_tax_percentage,
                total_extra,
                0,
                taxes.tax_type,
                *stay,
                breakdown=[("accommodationpercent", total_extra)],
            )
        )
    return InvoiceDocument(
        id=None,
        reservation_ids=[reservation.id],
        customer=customer,
        issue_date=issue_date,
        create_date=create_date,
        type=invoice_type,
        number=None,
        counter_id=taxes.counter_id,
        counter_title=taxes.counter_title,
        currency_code=reservation.currency_code,
        language_code=taxes.language_code,
        notes=reservation.notes,
        lines=lines,
        payments=list(payments),
        taxes=[vat_entry],
        extra_taxes=extra_taxes,
        total_net_value=money(total_net),
        total_taxes=money(total_vat),
        total_extra_taxes=total_extra,
        total_gross_value_before_extra_taxes=money(total_gross),
        total_gross_value=money(total_gross + total_extra),
    )


def _line(
    item_type: int,
    description: str,
    quantity: Decimal,
    gross_subtotal: Decimal,
    reservation: Reservation,
    vat: Decimal,
    taxes: TaxSettings,
    stay: tuple[date, date],
) -> InvoiceLine:
    gross = money(gross_subtotal)
    net = money(gross / (1 + vat / 100))
    divisor = quantity if quantity else Decimal("1")
    return InvoiceLine(
        id=PREVIEW_LINE_ID,
        item_type=item_type,
        description=description,
        quantity=quantity,
        gross_unit_price=money(gross / divisor),
        net_unit_price=money(net / divisor),
        gross_subtotal=gross,
        net_subtotal=net,
        taxes=[TaxAmount(taxes.vat_title, vat, gross - net, 1, taxes.tax_type, *stay)],
        reservation_id=reservation.id,
        booking_agency_reference_code=reservation.booking_agency_reference_code,
        num_adults=reservation.num_adults,
        num_children=reservation.num_children,
    )
