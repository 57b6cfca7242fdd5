"""Payments of reservations and payment descriptions (document 02)."""

from __future__ import annotations

from datetime import date

from roomsync.core.api.base import ApiModel, Money, RootXmlModel, element
from roomsync.core.api.pms.common import Flag, Number


class PaymentChange(ApiModel, tag="Payment"):
    """The payment fields ``PUT /v1/Payment`` may change: the base of every payment shape."""

    payment_date: date | None = element(tag="PaymentDate", default=None, nillable=True)
    invoice_id: int | None = element(tag="InvoiceId", default=None, nillable=True)
    payment_method_id: int | None = element(tag="PaymentMethodId", default=None, nillable=True)
    amount: Money | None = element(tag="Amount", default=None, nillable=True)
    amount_currency: Money | None = element(tag="AmountCurrency", default=None, nillable=True)
    """The amount in the hotel's currency."""
    currency_code: str | None = element(tag="CurrencyCode", default=None, nillable=True)
    """Currency of ``amount``."""
    exchange_rate: Number | None = element(tag="ExchangeRate", default=None, nillable=True)
    notes: str | None = element(tag="Notes", default=None, nillable=True)


class Payment(PaymentChange, tag="Payment"):
    """A payment as the service returns it (``GET /v1/Reservation/{id}/Payments``)."""

    id: int | None = element(tag="Id", default=None, nillable=True)
    reservation_id: int | None = element(tag="ReservationId", default=None, nillable=True)
    # The public help page's XML example writes this one element camelCase.
    planned_payment_description: str | None = element(
        tag="plannedPaymentDescription", default=None, nillable=True
    )
    """The planned payment of the reservation that this payment settles (sent on create only)."""


class PaymentList(RootXmlModel[list[Payment]], tag="Payments"):
    root: list[Payment] = element(tag="Payment", default_factory=list)


class PaymentCreateRequest(PaymentChange, tag="Payment"):
    """``POST /v1/Payment``; answered with the new ``id``.

    02 does not say which fields are required: roomsync requires what a payment cannot be
    recorded without (date, reservation, method, amount).
    """

    payment_date: date = element(tag="PaymentDate")
    reservation_id: int = element(tag="ReservationId")
    payment_method_id: int = element(tag="PaymentMethodId")
    amount: Money = element(tag="Amount")
    planned_payment_description: str | None = element(
        tag="plannedPaymentDescription", default=None, nillable=True
    )


class PaymentUpdateRequest(PaymentChange, tag="Payment"):
    """``PUT /v1/Payment``: ``id`` plus the fields to change; only the fields set are sent."""

    partial_update = True

    id: int = element(tag="Id")


class PaymentDescriptionCreateRequest(ApiModel, tag="PaymentDescription"):
    """``POST /v1/PaymentDescription``; names are PascalCase in JSON too, as documented."""

    description: str = element(tag="Description", alias="Description")
    is_enabled: Flag = element(tag="IsEnabled", alias="IsEnabled", default=1)


class PaymentDescription(ApiModel, tag="PaymentDescription"):
    """A description that ties a payment to a planned payment of a reservation; the PUT body."""

    id: int = element(tag="Id", alias="Id")
    description: str = element(tag="Description", alias="Description")
    is_enabled: Flag = element(tag="IsEnabled", alias="IsEnabled", default=1)
    """0: disabled, 1: enabled."""


class PaymentDescriptionList(RootXmlModel[list[PaymentDescription]], tag="PaymentDescriptions"):
    root: list[PaymentDescription] = element(tag="PaymentDescription", default_factory=list)


XML_NAME_EXCEPTIONS: dict[str, str] = {
    "Payment.planned_payment_description": "plannedPaymentDescription",
    "PaymentCreateRequest.planned_payment_description": "plannedPaymentDescription",
}
"""Fields whose XML name is not the PascalCase of the JSON name (as the help page's example shows)."""
