"""Payments of reservations and the payment descriptions of planned payments (document 02).

Amounts: ``amount`` is in ``currencyCode`` (default: the reservation's currency);
``exchangeRate`` is units of that currency per unit of the hotel's currency (default: the
emulator's rate table); ``amountCurrency``, the amount in the hotel's currency, defaults to
``amount / exchangeRate``.
"""

from __future__ import annotations

from decimal import Decimal
from typing import Any

from roomsync.core.api.base import IdResult
from roomsync.core.api.pms import payments as api
from roomsync.emulator.errors import conflict, invalid
from roomsync.emulator.pms import records
from roomsync.emulator.pms.handlers.common import path_id, pms, required_text
from roomsync.emulator.pms.handlers.convert import as_decimal, sent_fields, to_model
from roomsync.emulator.pms.invoices import money
from roomsync.emulator.pms.state import PmsState, not_found
from roomsync.emulator.registry import Call, handles


def _check_payment(state: PmsState, values: dict[str, Any]) -> None:
    """Rules of a payment's fields, on whichever of them ``values`` holds."""
    for name, label in (
        ("payment_date", "paymentDate"),
        ("amount", "amount"),
        ("payment_method_id", "paymentMethodId"),
        ("currency_code", "currencyCode"),
    ):
        if name in values and values[name] is None:
            raise invalid(label, f"{label} may not be null", "REQUIRED")
    if values.get("amount") is not None and Decimal(str(values["amount"])) == 0:
        raise invalid("amount", "amount may not be 0")
    if values.get("payment_method_id") is not None and values["payment_method_id"] < 1:
        raise invalid("paymentMethodId", "paymentMethodId must be a positive id")
    if (
        values.get("currency_code") is not None
        and values["currency_code"].upper() not in state.exchange_rates
    ):
        raise invalid("currencyCode", f"unknown currency {values['currency_code']!r}")
    if values.get("exchange_rate") is not None and Decimal(str(values["exchange_rate"])) <= 0:
        raise invalid("exchangeRate", "exchangeRate must be greater than 0")
    if values.get("invoice_id") is not None and values["invoice_id"] not in state.invoices:
        raise not_found("invoice", values["invoice_id"], "invoiceId")


@handles("create_payment")
def create_payment(call: Call) -> IdResult:
    state = pms(call)
    body: api.PaymentCreateRequest = call.body
    values = {
        name: value for name, value in sent_fields(body).items() if value is not None
    }  # null: not given
    reservation = state.reservation(body.reservation_id, "reservationId")
    _check_payment(state, values)
    planned = body.planned_payment_description
    if planned is not None:
        enabled = {d.description for d in state.payment_descriptions.values() if d.is_enabled}
        if planned not in enabled:
            raise invalid(
                "plannedPaymentDescription",
                f"{planned!r} is not an enabled payment description ({', '.join(sorted(enabled)) or 'none'})",
            )
    currency = (body.currency_code or reservation.currency_code).upper()
    rate = as_decimal(body.exchange_rate) or state.exchange_rates[currency]
    amount = money(Decimal(str(body.amount)))
    payment = records.Payment(
        id=state.allocate_id("payment"),
        reservation_id=reservation.id,
        payment_date=body.payment_date,
        amount=amount,
        currency_code=currency,
        amount_currency=money(as_decimal(body.amount_currency) or amount / rate),
        exchange_rate=rate,
        payment_method_id=body.payment_method_id,
        invoice_id=body.invoice_id,
        notes=body.notes,
        planned_payment_description=planned,
    )
    state.payments[payment.id] = payment
    return IdResult(id=payment.id)


@handles("update_payment")
def update_payment(call: Call) -> None:
    state = pms(call)
    body: api.PaymentUpdateRequest = call.body
    payment = state.payments.get(body.id)
    if payment is None:
        raise not_found("payment", body.id, "id")
    changes = sent_fields(body)
    changes.pop("id", None)
    _check_payment(state, changes)
    for name in ("amount", "amount_currency", "exchange_rate"):
        if changes.get(name) is not None:
            changes[name] = Decimal(str(changes[name]))
    if changes.get("currency_code"):
        changes["currency_code"] = changes["currency_code"].upper()
    for name, value in changes.items():
        setattr(payment, name, value)
    if "amount_currency" not in changes and ({"amount", "exchange_rate"} & changes.keys()):
        payment.amount_currency = money(payment.amount / payment.exchange_rate)
    payment.amount = money(payment.amount)


@handles("delete_payment")
def delete_payment(call: Call) -> None:
    state = pms(call)
    payment_id = path_id(call)
    if payment_id not in state.payments:
        raise not_found("payment", payment_id)
    del state.payments[payment_id]


def _description_model(description: records.PaymentDescription) -> api.PaymentDescription:
    return to_model(api.PaymentDescription, description)


def _unique(state: PmsState, text: str, own_id: int | None) -> str:
    text = required_text(text, "Description").strip()
    for other in state.payment_descriptions.values():
        if other.id != own_id and other.description.casefold() == text.casefold():
            raise conflict(f"payment description {text!r} exists already (id {other.id})", "Description")
    return text


@handles("list_payment_descriptions")
def list_payment_descriptions(call: Call) -> api.PaymentDescriptionList:
    descriptions = pms(call).payment_descriptions
    return api.PaymentDescriptionList(
        root=[_description_model(descriptions[i]) for i in sorted(descriptions)]
    )


@handles("create_payment_description")
def create_payment_description(call: Call) -> IdResult:
    state = pms(call)
    body: api.PaymentDescriptionCreateRequest = call.body
    text = _unique(state, body.description, None)
    description = records.PaymentDescription(state.allocate_id("payment_description"), text, body.is_enabled)
    state.payment_descriptions[description.id] = description
    return IdResult(id=description.id)


@handles("update_payment_description")
def update_payment_description(call: Call) -> None:
    state = pms(call)
    body: api.PaymentDescription = call.body
    description = state.payment_descriptions.get(body.id)
    if description is None:
        raise not_found("payment description", body.id, "Id")
    description.description = _unique(state, body.description, description.id)
    description.is_enabled = body.is_enabled


@handles("delete_payment_description")
def delete_payment_description(call: Call) -> None:
    state = pms(call)
    description_id = path_id(call)
    if description_id not in state.payment_descriptions:
        raise not_found("payment description", description_id)
    del state.payment_descriptions[description_id]
