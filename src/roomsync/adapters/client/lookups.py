"""Finding out whether a create that timed out happened anyway.

When a create (catalog ``creates=True``) times out or loses its connection after it was sent,
the server may have made the object. Resending blindly could make it twice, so the client first
looks it up here, by what the caller sent, and only resends when it is not there. Each lookup is
one or two ordinary requests: budgeted, retried and counted like any other.

A lookup matches on every identifying field the caller set. An identical object that existed
before the create is indistinguishable from the one just made: the lookup then returns the
existing one (a duplicate reservation, customer or payment is the greater harm). Creates without
a lookup here (POS charges) end in :class:`~roomsync.adapters.client.errors.AmbiguousWrite`.
"""

from __future__ import annotations

from collections.abc import Awaitable, Callable, Iterable, Mapping
from datetime import timedelta
from typing import Any, Protocol

from pydantic import BaseModel
from pydantic_xml import BaseXmlModel

from roomsync.adapters.client.errors import AmbiguousWrite, NotFoundError
from roomsync.core.api.base import IdResult
from roomsync.core.api.channel import RuleSet, RuleSetCreate, RuleSetList
from roomsync.core.api.pms.contracts import ReservationContract, ReservationContractCreateRequest
from roomsync.core.api.pms.customers import CustomerCreateRequest, CustomerFilterRequest, CustomerList
from roomsync.core.api.pms.guests import GuestCreateRequest, GuestList
from roomsync.core.api.pms.payments import (
    PaymentCreateRequest,
    PaymentDescriptionCreateRequest,
    PaymentDescriptionList,
    PaymentList,
)
from roomsync.core.api.pms.reservations import (
    ReservationCreateRequest,
    ReservationDateType,
    ReservationExtendedList,
    ReservationExtraChargeCreateRequest,
    ReservationExtraChargeList,
    ReservationFilterRequest,
    ReservationIdsRequest,
    ReservationSearchResultList,
)
from roomsync.core.catalog.types import Priority

__all__ = ["Caller", "find_created", "has_lookup"]


class Caller(Protocol):
    """What a lookup needs of the client: its ``call`` (``BaseClient.call``; a protocol, so this
    module and the client's base do not import each other)."""

    async def call(
        self,
        operation: Any,
        *,
        params: Mapping[str, object] | None = None,
        body: BaseXmlModel | None = None,
        priority: Priority | None = None,
    ) -> Any: ...


Lookup = Callable[[Caller, Any, Mapping[str, object], Priority], Awaitable[BaseXmlModel | None]]
_LOOKUPS: dict[str, Lookup] = {}


def _lookup(operation: str) -> Callable[[Lookup], Lookup]:
    def register(function: Lookup) -> Lookup:
        _LOOKUPS[operation] = function
        return function

    return register


def has_lookup(operation: str) -> bool:
    """Whether a timed-out ``operation`` can be looked up instead of being left ambiguous."""
    return operation in _LOOKUPS


async def find_created(
    client: Caller,
    operation: str,
    body: BaseXmlModel | None,
    params: Mapping[str, object],
    priority: Priority,
) -> BaseXmlModel | None:
    """The response the create would have given if it happened (``IdResult``...), else None."""
    return await _LOOKUPS[operation](client, body, params, priority)


def _same(candidate: BaseModel, sent: BaseModel, fields: Iterable[str]) -> bool:
    """True when ``candidate`` has the value the caller sent for each of ``fields`` that was set."""
    return all(
        getattr(candidate, name, None) == getattr(sent, name)
        for name in fields
        if name in sent.model_fields_set and getattr(sent, name) is not None
    )


def _newest_id(ids: Iterable[int | None]) -> IdResult | None:
    known = [i for i in ids if i is not None]
    return IdResult(id=max(known)) if known else None


@_lookup("create_reservation")
async def _reservation(
    client: Caller, body: ReservationCreateRequest, params: Mapping[str, object], priority: Priority
) -> BaseXmlModel | None:
    code = body.booking_agency_reference_code
    if not code:
        raise AmbiguousWrite(
            "create_reservation: the request may have been processed and the reservation has no "
            "bookingAgencyReferenceCode to look it up by; check before sending it again",
            operation="create_reservation",
        )
    # "Contains" also finds longer codes, so the hits are read back and compared exactly.
    query = ReservationFilterRequest(
        booking_agency_reference_code_contains=code,
        booking_agency_id=body.booking_agency_id,
        date_type_id=ReservationDateType.ARRIVAL,
        date_from=body.date_from,
        date_to=body.date_from + timedelta(days=1),
    )
    hits: ReservationSearchResultList = await client.call(
        "filter_reservations", body=query, priority=priority
    )
    ids = [hit.reservation_id for hit in hits.root]
    if not ids:
        return None
    found: ReservationExtendedList = await client.call(
        "get_reservations",
        body=ReservationIdsRequest.model_validate({"reservation_ids": ids}),
        priority=priority,
    )
    return _newest_id(
        r.id
        for r in found.root
        if r.booking_agency_reference_code == code
        and r.date_from == body.date_from
        and r.date_to == body.date_to
        and r.room_type_id == body.room_type_id
    )


_CUSTOMER_KEYS = ("last_name", "first_name", "email", "mobile", "phone", "tax_id")


@_lookup("create_customer")
async def _customer(
    client: Caller, body: CustomerCreateRequest, params: Mapping[str, object], priority: Priority
) -> BaseXmlModel | None:
    query = CustomerFilterRequest.model_validate(
        {"name_contains": body.last_name, "phone_contains": body.phone, "mobile_contains": body.mobile}
    )
    found: CustomerList = await client.call("filter_customers", body=query, priority=priority)
    return _newest_id(c.id for c in found.root if _same(c, body, _CUSTOMER_KEYS))


_GUEST_KEYS = (
    "first_name",
    "last_name",
    "last_name2",
    "date_of_birth",
    "id_doc_number",
    "email",
    "phone_number",
)


@_lookup("create_guest")
async def _guest(
    client: Caller, body: GuestCreateRequest, params: Mapping[str, object], priority: Priority
) -> BaseXmlModel | None:
    if body.reservation_id is None:
        raise AmbiguousWrite(
            "create_guest: the request may have been processed and a guest without a reservation "
            "cannot be looked up; check before sending it again",
            operation="create_guest",
        )
    found: GuestList = await client.call(
        "list_reservation_guests", params={"reservationId": body.reservation_id}, priority=priority
    )
    return _newest_id(g.id for g in found.root if _same(g, body, _GUEST_KEYS))


_PAYMENT_KEYS = ("payment_date", "payment_method_id", "amount", "currency_code", "invoice_id", "notes")


@_lookup("create_payment")
async def _payment(
    client: Caller, body: PaymentCreateRequest, params: Mapping[str, object], priority: Priority
) -> BaseXmlModel | None:
    found: PaymentList = await client.call(
        "list_reservation_payments", params={"id": body.reservation_id}, priority=priority
    )
    return _newest_id(
        p.id
        for p in found.root
        if p.reservation_id in (None, body.reservation_id) and _same(p, body, _PAYMENT_KEYS)
    )


@_lookup("create_reservation_contract")
async def _contract(
    client: Caller,
    body: ReservationContractCreateRequest,
    params: Mapping[str, object],
    priority: Priority,
) -> BaseXmlModel | None:
    try:
        found: ReservationContract = await client.call(
            "get_reservation_contract", params={"reservationId": body.reservation_id}, priority=priority
        )
    except NotFoundError:
        return None
    if found.contract_start == body.contract_start and found.contract_end == body.contract_end:
        return _newest_id([found.id])
    return None


_EXTRA_CHARGE_KEYS = ("extra_charge_id", "charge_date", "quantity", "unit_price", "notes")


@_lookup("add_reservation_extra_charge")
async def _extra_charge(
    client: Caller,
    body: ReservationExtraChargeCreateRequest,
    params: Mapping[str, object],
    priority: Priority,
) -> BaseXmlModel | None:
    found: ReservationExtraChargeList = await client.call(
        "list_reservation_extra_charges", params={"id": params["id"]}, priority=priority
    )
    return _newest_id(c.id for c in found.root if _same(c, body, _EXTRA_CHARGE_KEYS))


@_lookup("create_payment_description")
async def _payment_description(
    client: Caller,
    body: PaymentDescriptionCreateRequest,
    params: Mapping[str, object],
    priority: Priority,
) -> BaseXmlModel | None:
    found: PaymentDescriptionList = await client.call("list_payment_descriptions", priority=priority)
    return _newest_id(d.id for d in found.root if d.description == body.description)


@_lookup("create_rule_set")
async def _rule_set(
    client: Caller, body: RuleSetCreate, params: Mapping[str, object], priority: Priority
) -> BaseXmlModel | None:
    found: RuleSetList = await client.call(
        "list_rule_sets", params={"accountId": body.account_id}, priority=priority
    )
    matches: list[RuleSet] = [
        r for r in found.root if _same(r, body, ("title", "color", "min_nights", "max_nights"))
    ]
    return matches[-1] if matches else None
