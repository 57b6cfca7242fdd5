"""One call of every catalog operation against the seeded demo property, in an order that works.

Each :class:`Step` names an operation and builds the arguments of the client's typed method from
what earlier steps found (``ctx``): the demo's first host account and its studio listing, a room,
a reservation, and the objects the sweep itself creates (a customer, a reservation for it, its
guest, payment, contract, extra charge, a rule-set, a payment description), which later steps
update and delete. ``keep`` stores what a step's answer adds to ``ctx``.

``refusal`` documents the 4xx the emulator answers on purpose to a valid request (the emulated
property's own rules), with the HTTP status the test expects as a typed error.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from datetime import date, timedelta
from decimal import Decimal
from typing import Any

from roomsync.core.api import channel, channel_manager
from roomsync.core.api.pms import (
    availability,
    contracts,
    customers,
    extra_charges,
    guests,
    invoices,
    payments,
    reservations,
)

Ctx = dict[str, Any]

STUDIO = "41000001"
"""The demo's single-unit listing of host 2001, approved and connected."""
DOUBLES = "41000003"
"""The demo's room-type listing of host 2001 (double rooms)."""
SECOND_HOST = "2002"


@dataclass(frozen=True)
class Step:
    operation: str
    args: Callable[[Ctx], tuple[Any, ...]]
    keep: Callable[[Ctx, Any], None] | None = None
    refusal: tuple[int, str] | None = None
    """(status, why) when the emulator refuses this valid-looking request by the property's rules."""


def _day(ctx: Ctx, offset: int) -> date:
    today: date = ctx["today"]
    return today + timedelta(days=offset)


def _set(key: str, pick: Callable[[Any], Any]) -> Callable[[Ctx, Any], None]:
    def keep(ctx: Ctx, result: Any) -> None:
        ctx[key] = pick(result)

    return keep


def _new_reservation(ctx: Ctx) -> reservations.ReservationCreateRequest:
    return reservations.ReservationCreateRequest.model_validate(
        {
            "booking_agency_reference_code": ctx["reference"],
            "customer": {"id": ctx["customer_id"]},
            "currency_code": "EUR",
            "date_from": _day(ctx, 200),
            "date_to": _day(ctx, 203),
            "num_adults": 2,
            "reservation_status": reservations.ReservationStatus(3),
            "room_type_id": ctx["room_type_id"],
            "total_agreed_price": Decimal("300.00"),
            "board": reservations.Board("RO"),
        }
    )


def _keep_in_house(ctx: Ctx, found: list[reservations.ReservationExtended]) -> None:
    """A checked-in reservation: POS charges find it by its room title and its customer's last name."""
    in_house = next(r for r in found if r.reservation_status_id == reservations.ReservationStatus.CHECKED_IN)
    ctx["some_reservation_id"] = in_house.id
    ctx["in_house_room_title"] = in_house.room_title
    ctx["in_house_last_name"] = in_house.customer_last_name


STEPS: tuple[Step, ...] = (
    # --- the service ---------------------------------------------------------------------------
    Step("request_token", lambda ctx: ()),
    Step("get_usage", lambda ctx: ()),
    Step("list_rooms", lambda ctx: (), _set("room_type_id", lambda r: r[0].room_type.id)),
    # --- the rental channel --------------------------------------------------------------------
    Step("list_accounts", lambda ctx: (), _set("account", lambda r: r[0].id)),
    Step("get_account", lambda ctx: (ctx["account"],)),
    Step("list_listings", lambda ctx: ()),
    Step("list_account_listings", lambda ctx: (ctx["account"],)),
    Step("get_listing", lambda ctx: (ctx["account"], STUDIO)),
    Step(
        "update_listing",
        lambda ctx: (
            channel.ListingUpdateRequest.model_validate(
                {
                    "account_id": ctx["account"],
                    "listing_id": STUDIO,
                    "action": "update",
                    "has_availability": True,
                }
            ),
        ),
    ),
    Step("get_availability_rules", lambda ctx: (ctx["account"], STUDIO)),
    Step(
        "update_availability_rules",
        lambda ctx: (
            channel.AvailabilityRulesUpdate.model_validate(
                {"account_id": ctx["account"], "listing_id": STUDIO, "default_min_nights": 2}
            ),
        ),
    ),
    Step(
        "read_inventory",
        lambda ctx: (
            channel.InventoryQuery.model_validate(
                {
                    "account_id": ctx["account"],
                    "listing_id": STUDIO,
                    "date_from": _day(ctx, 0),
                    "date_to": _day(ctx, 6),
                }
            ),
        ),
    ),
    Step(
        "update_inventory",
        lambda ctx: (
            channel.InventoryUpdate.model_validate(
                {
                    "account_id": ctx["account"],
                    "listing_id": STUDIO,
                    "operations": [
                        {
                            "date_from": _day(ctx, 150),
                            "date_to": _day(ctx, 152),
                            "set_price": True,
                            "daily_price": 120,
                        }
                    ],
                }
            ),
        ),
    ),
    Step("get_pricing_settings", lambda ctx: (ctx["account"], STUDIO)),
    Step(
        "update_pricing_settings",
        lambda ctx: (
            channel.PricingSettingsUpdate.model_validate(
                {"account_id": ctx["account"], "listing_id": STUDIO, "cleaning_fee": Decimal("25.00")}
            ),
        ),
    ),
    Step("list_rule_sets", lambda ctx: (ctx["account"],)),
    Step(
        "create_rule_set",
        lambda ctx: (
            channel.RuleSetCreate.model_validate(
                {"account_id": ctx["account"], "title": "Sweep season", "min_nights": 2}
            ),
        ),
        _set("rule_set_id", lambda r: r.id),
    ),
    Step(
        "update_rule_set",
        lambda ctx: (
            channel.RuleSetUpdate.model_validate(
                {"account_id": ctx["account"], "rule_set_id": ctx["rule_set_id"], "title": "Sweep season 2"}
            ),
        ),
    ),
    Step("get_rule_set_timeline", lambda ctx: (ctx["account"], STUDIO)),
    Step(
        "apply_rule_set_timeline",
        lambda ctx: (
            channel.RuleSetTimelineApply.model_validate(
                {
                    "account_id": ctx["account"],
                    "listing_id": STUDIO,
                    "rule_set_id": ctx["rule_set_id"],
                    "date_from": _day(ctx, 160),
                    "date_to": _day(ctx, 170),
                }
            ),
        ),
    ),
    Step(
        "remove_rule_set_timeline",
        lambda ctx: (
            channel.RuleSetTimelineRemove.model_validate(
                {
                    "account_id": ctx["account"],
                    "listing_id": STUDIO,
                    "date_from": _day(ctx, 160),
                    "date_to": _day(ctx, 170),
                }
            ),
        ),
    ),
    Step("delete_rule_set", lambda ctx: (ctx["account"], ctx["rule_set_id"])),
    Step(
        "list_listing_reservations",
        lambda ctx: (ctx["account"], DOUBLES),
        _set("confirmation_code", lambda r: r[0].confirmation_code if r else "HMNOTHERE"),
    ),
    Step("get_channel_reservation", lambda ctx: (ctx["account"], ctx["confirmation_code"])),
    # --- the channel manager -------------------------------------------------------------------
    Step("list_channel_names", lambda ctx: ()),
    Step("list_connected_channels", lambda ctx: ()),
    Step(
        "push_prices",
        lambda ctx: (
            channel_manager.PricesRequest.model_validate(
                {
                    "prices_for_date_ranges": [
                        {
                            "date_from": _day(ctx, 30),
                            "date_to": _day(ctx, 36),
                            "room_type_id": ctx["room_type_id"],
                            "room_rate_type": 1,
                            "price": Decimal("99.00"),
                        }
                    ]
                }
            ),
        ),
    ),
    # --- extra charges, rooms ------------------------------------------------------------------
    Step("list_extra_charges", lambda ctx: (), _set("extra_charge_id", lambda r: r[0].id)),
    Step("list_extra_charge_categories", lambda ctx: ()),
    Step("list_rooms_extended", lambda ctx: ()),
    # --- customers -----------------------------------------------------------------------------
    Step("list_customers", lambda ctx: (), _set("some_customer_id", lambda r: r[0].id)),
    Step("get_customer", lambda ctx: (ctx["some_customer_id"],)),
    Step(
        "filter_customers",
        lambda ctx: (customers.CustomerFilterRequest.model_validate({"name_contains": "a"}),),
    ),
    Step(
        "create_customer",
        lambda ctx: (
            customers.CustomerCreateRequest.model_validate(
                {
                    "last_name": "Sweepson",
                    "first_name": "Ada",
                    "email": "ada@example.com",
                    "mobile": "6900000001",
                }
            ),
        ),
        _set("customer_id", lambda r: r.id),
    ),
    Step(
        "update_customer",
        lambda ctx: (
            customers.CustomerUpdateRequest.model_validate(
                {"id": ctx["customer_id"], "last_name": "Sweepson", "first_name": "Ada", "notes": "updated"}
            ),
        ),
    ),
    # --- reservations --------------------------------------------------------------------------
    Step("list_future_reservations", lambda ctx: (), lambda ctx, r: _keep_in_house(ctx, r)),
    Step("get_reservation", lambda ctx: (ctx["some_reservation_id"],)),
    Step("create_reservation", lambda ctx: (_new_reservation(ctx),), _set("reservation_id", lambda r: r.id)),
    Step(
        "get_reservations",
        lambda ctx: (
            reservations.ReservationIdsRequest.model_validate({"reservation_ids": [ctx["reservation_id"]]}),
        ),
    ),
    Step(
        "get_reservations_v2",
        lambda ctx: (
            reservations.ReservationIdsRequest.model_validate({"reservation_ids": [ctx["reservation_id"]]}),
        ),
    ),
    Step(
        "filter_reservations",
        lambda ctx: (
            reservations.ReservationFilterRequest.model_validate(
                {
                    "booking_agency_reference_code_contains": ctx["reference"],
                    "date_type_id": 1,
                    "date_from": _day(ctx, 199),
                    "date_to": _day(ctx, 201),
                }
            ),
        ),
    ),
    Step(
        "update_reservation",
        lambda ctx: (
            reservations.ReservationUpdateRequest.model_validate(
                {
                    "id": ctx["reservation_id"],
                    "booking_agency_reference_code": ctx["reference"],
                    "customer_id": ctx["customer_id"],
                    "currency_code": "EUR",
                    "date_from": _day(ctx, 200),
                    "date_to": _day(ctx, 204),
                    "reservation_status_id": 3,
                    "room_type_id": ctx["room_type_id"],
                    "total_agreed_price": Decimal("400.00"),
                    "board": "RO",
                }
            ),
        ),
    ),
    Step(
        "update_reservation_fields",
        lambda ctx: (
            ctx["reservation_id"],
            reservations.ReservationFieldsUpdateRequest.model_validate({"notes": "late arrival"}),
        ),
    ),
    Step(
        "create_reservation_contract",
        lambda ctx: (
            contracts.ReservationContractCreateRequest.model_validate(
                {
                    "contract_start": _day(ctx, 200),
                    "contract_end": _day(ctx, 204),
                    "reservation_id": ctx["reservation_id"],
                }
            ),
        ),
        _set("contract_id", lambda r: r.id),
    ),
    Step("get_reservation_contract", lambda ctx: (ctx["reservation_id"],)),
    Step(
        "update_reservation_contract",
        lambda ctx: (
            contracts.ReservationContractUpdateRequest.model_validate(
                {
                    "id": ctx["contract_id"],
                    "contract_start": _day(ctx, 200),
                    "contract_end": _day(ctx, 203),
                    "reservation_id": ctx["reservation_id"],
                }
            ),
        ),
    ),
    Step("delete_reservation_contract", lambda ctx: (ctx["contract_id"],)),
    # --- guests ----------------------------------------------------------------------------------
    Step("list_guests", lambda ctx: ()),
    Step(
        "create_guest",
        lambda ctx: (
            guests.GuestCreateRequest.model_validate(
                {"first_name": "Bea", "last_name": "Sweepson", "reservation_id": ctx["reservation_id"]}
            ),
        ),
        _set("guest_id", lambda r: r.id),
    ),
    Step("get_guest", lambda ctx: (ctx["guest_id"],)),
    Step("list_reservation_guests", lambda ctx: (ctx["reservation_id"],)),
    Step(
        "update_guest",
        lambda ctx: (
            guests.GuestUpdateRequest.model_validate({"id": ctx["guest_id"], "email": "bea@example.com"}),
        ),
    ),
    Step(
        "add_reservation_guest",
        lambda ctx: (
            ctx["some_reservation_id"],
            reservations.ReservationGuestLink.model_validate({"id": ctx["guest_id"]}),
        ),
    ),
    # --- reservation queries, extra charges, groups --------------------------------------------
    Step(
        "list_checked_in_v2",
        lambda ctx: (
            reservations.CheckedInRequest.model_validate(
                {"date_from": _day(ctx, -7), "date_to": _day(ctx, 0)}
            ),
        ),
    ),
    Step(
        "list_reservation_statuses_v2",
        lambda ctx: (reservations.ReservationStatusChunkRequest.model_validate({"last_reservation_id": 0}),),
    ),
    Step("list_reservation_extra_charges", lambda ctx: (ctx["reservation_id"],)),
    Step(
        "add_reservation_extra_charge",
        lambda ctx: (
            ctx["reservation_id"],
            reservations.ReservationExtraChargeCreateRequest.model_validate(
                {"extra_charge_id": ctx["extra_charge_id"], "quantity": 2, "charge_date": _day(ctx, 201)}
            ),
        ),
        _set("reservation_extra_charge_id", lambda r: r.id),
    ),
    Step(
        "delete_reservation_extra_charge",
        lambda ctx: (ctx["reservation_id"], ctx["reservation_extra_charge_id"]),
    ),
    Step(
        "post_pos_charge",
        lambda ctx: (
            extra_charges.PosChargeRequest.model_validate(
                {
                    "items": [{"name": "Minibar", "price": Decimal("4.50"), "quantity": 2}],
                    "sum": Decimal("9.00"),
                    "room_title": ctx["in_house_room_title"],
                    "last_name": ctx["in_house_last_name"],
                }
            ),
        ),
    ),
    Step(
        "update_pos_charge",
        lambda ctx: (
            extra_charges.PosChargeUpdateRequest.model_validate(
                {
                    "items": [{"name": "Minibar", "price": Decimal("4.50"), "quantity": 3}],
                    "room_title": ctx["in_house_room_title"],
                    "last_name": ctx["in_house_last_name"],
                }
            ),
        ),
    ),
    Step(
        "group_reservations",
        lambda ctx: (
            reservations.ReservationGroupRequest.model_validate(
                {"reservation_ids": [ctx["reservation_id"], ctx["some_reservation_id"]]}
            ),
        ),
    ),
    Step(
        "ungroup_reservations",
        lambda ctx: (
            reservations.ReservationUngroupRequest.model_validate(
                {"reservation_ids": [ctx["reservation_id"], ctx["some_reservation_id"]]}
            ),
        ),
    ),
    # --- payments --------------------------------------------------------------------------------
    Step(
        "create_payment",
        lambda ctx: (
            payments.PaymentCreateRequest.model_validate(
                {
                    "payment_date": _day(ctx, 0),
                    "reservation_id": ctx["reservation_id"],
                    "payment_method_id": 1,
                    "amount": Decimal("50.00"),
                    "currency_code": "EUR",
                }
            ),
        ),
        _set("payment_id", lambda r: r.id),
    ),
    Step("list_reservation_payments", lambda ctx: (ctx["reservation_id"],)),
    Step(
        "update_payment",
        lambda ctx: (
            payments.PaymentUpdateRequest.model_validate({"id": ctx["payment_id"], "notes": "deposit"}),
        ),
    ),
    Step("delete_payment", lambda ctx: (ctx["payment_id"],)),
    Step("list_payment_descriptions", lambda ctx: ()),
    Step(
        "create_payment_description",
        lambda ctx: (
            payments.PaymentDescriptionCreateRequest.model_validate({"description": "Sweep deposit"}),
        ),
        _set("payment_description_id", lambda r: r.id),
    ),
    Step(
        "update_payment_description",
        lambda ctx: (
            payments.PaymentDescription.model_validate(
                {"id": ctx["payment_description_id"], "description": "Sweep deposit 30%", "is_enabled": 1}
            ),
        ),
    ),
    Step("delete_payment_description", lambda ctx: (ctx["payment_description_id"],)),
    # --- availability and invoices ---------------------------------------------------------------
    Step(
        "room_availability",
        lambda ctx: (
            availability.RoomAvailabilityRequest.model_validate(
                {"date_from": _day(ctx, 10), "date_to": _day(ctx, 20), "group_dates": 1}
            ),
        ),
    ),
    Step(
        "room_type_availability",
        lambda ctx: (
            availability.RoomTypeAvailabilityRequest.model_validate(
                {"date_from": _day(ctx, 10), "date_to": _day(ctx, 13)}
            ),
        ),
    ),
    Step(
        "room_type_availability_extended",
        lambda ctx: (
            availability.RoomTypeAvailabilityExtendedRequest.model_validate(
                {"date_from": _day(ctx, 10), "date_to": _day(ctx, 13), "currency_code": "EUR"}
            ),
        ),
    ),
    Step(
        "preview_invoice",
        lambda ctx: (
            invoices.InvoicePreviewRequest.model_validate({"reservation_id": ctx["reservation_id"]}),
        ),
    ),
    Step(
        "filter_invoices",
        lambda ctx: (
            invoices.InvoiceFilterRequest.model_validate(
                {"date_from": _day(ctx, -60), "date_to": _day(ctx, 0)}
            ),
        ),
    ),
    # --- deletes last ----------------------------------------------------------------------------
    Step("delete_guest", lambda ctx: (ctx["guest_id"],)),
    Step(
        "delete_customer",
        lambda ctx: (customers.CustomerDeleteRequest.model_validate({"id": ctx["customer_id"]}),),
        refusal=(409, "the customer still holds the sweep's reservation"),
    ),
    Step("delete_account", lambda ctx: (SECOND_HOST,)),
)
"""Every catalog operation, once."""
