"""Customers (document 02): read, filter, create, replace, delete."""

from __future__ import annotations

from typing import Any

from roomsync.core.api.base import IdResult
from roomsync.core.api.pms import customers as api
from roomsync.emulator.errors import conflict, invalid
from roomsync.emulator.pms import records
from roomsync.emulator.pms.handlers.common import path_id, pms, required_text
from roomsync.emulator.pms.handlers.convert import all_fields, to_model
from roomsync.emulator.pms.state import PmsState
from roomsync.emulator.registry import Call, handles


def customer_model(customer: records.Customer) -> api.Customer:
    return to_model(api.Customer, customer)


def _categories(state: PmsState, sent: list[api.CustomerCategory]) -> list[records.CustomerCategory]:
    """The categories named by id; an unknown id is an error (categories are configured, not created)."""
    chosen = []
    for index, category in enumerate(sent):
        known = state.customer_categories.get(category.id)
        if known is None:
            raise invalid(f"categories.{index}.id", f"customer category {category.id} does not exist")
        chosen.append(known)
    return chosen


def customer_from_fields(state: PmsState, customer_id: int, body: api.CustomerFields) -> records.Customer:
    """A customer record holding exactly what ``body`` says; fields not sent take their defaults."""
    values: dict[str, Any] = all_fields(body)
    values.pop("id", None)
    values["last_name"] = required_text(values.get("last_name"), "lastName")
    values["categories"] = _categories(state, body.categories)
    if values.get("is_sales_tax_exempt") is None:
        values["is_sales_tax_exempt"] = 0
    if values.get("country_code"):
        values["country_code"] = values["country_code"].upper()
    return records.Customer(id=customer_id, **values)


@handles("get_customer")
def get_customer(call: Call) -> api.Customer:
    return customer_model(pms(call).customer(path_id(call)))


@handles("list_customers")
def list_customers(call: Call) -> api.CustomerList:
    customers = pms(call).customers
    return api.CustomerList(root=[customer_model(customers[i]) for i in sorted(customers)])


def _contains(value: str | None, needle: str | None) -> bool:
    return needle is None or (value is not None and needle.casefold() in value.casefold())


@handles("filter_customers")
def filter_customers(call: Call) -> api.CustomerList:
    body: api.CustomerFilterRequest = call.body
    found = []
    for customer_id in sorted(pms(call).customers):
        customer = pms(call).customers[customer_id]
        if body.customer_id is not None and customer.id != body.customer_id:
            continue
        if body.name_contains is not None and not (
            _contains(customer.first_name, body.name_contains)
            or _contains(customer.last_name, body.name_contains)
        ):
            continue
        if not (
            _contains(customer.phone, body.phone_contains)
            and _contains(customer.mobile, body.mobile_contains)
            and _contains(customer.tax_id, body.tax_id_contains)
        ):
            continue
        if (
            body.country_is is not None
            and (customer.country_code or "").upper() != body.country_is.id.upper()
        ):
            continue
        found.append(customer_model(customer))
    return api.CustomerList(root=found)


@handles("create_customer")
def create_customer(call: Call) -> IdResult:
    state = pms(call)
    customer = customer_from_fields(state, state.allocate_id("customer"), call.body)
    state.customers[customer.id] = customer
    return IdResult(id=customer.id)


@handles("update_customer")
def update_customer(call: Call) -> None:
    state = pms(call)
    body: api.CustomerUpdateRequest = call.body
    state.customer(body.id, "id")
    state.customers[body.id] = customer_from_fields(state, body.id, body)


@handles("delete_customer")
def delete_customer(call: Call) -> None:
    state = pms(call)
    body: api.CustomerDeleteRequest = call.body
    customer = state.customer(body.id, "id")
    holding = sorted(r.id for r in state.reservations.values() if r.customer_id == customer.id)
    if holding:
        shown = ", ".join(map(str, holding[:5])) + (" ..." if len(holding) > 5 else "")
        raise conflict(f"customer {customer.id} has reservations ({shown}) and cannot be deleted", "id")
    del state.customers[customer.id]
