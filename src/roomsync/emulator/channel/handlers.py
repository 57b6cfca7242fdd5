"""Handlers of every document-01 operation: the rental channel and the channel manager."""

from __future__ import annotations

from decimal import Decimal
from typing import Any

from roomsync.core.api import channel as api
from roomsync.core.api import channel_manager as cm
from roomsync.emulator.channel import convert
from roomsync.emulator.channel.convert import TimeStyle
from roomsync.emulator.channel.manager import PriceElement, Problem
from roomsync.emulator.channel.records import Listing
from roomsync.emulator.channel.state import ChannelState, InventoryChange
from roomsync.emulator.errors import ApiError
from roomsync.emulator.registry import Call, handles


def _channel(call: Call) -> ChannelState:
    return call.state.channel


# --- accounts ----------------------------------------------------------------------------------


@handles("list_accounts")
def list_accounts(call: Call) -> api.AccountList:
    return api.AccountList(root=[convert.account_model(a) for a in _channel(call).authorized_accounts()])


@handles("get_account")
def get_account(call: Call) -> api.Account:
    return convert.account_model(_channel(call).account(call.params["id"]))


@handles("delete_account")
def delete_account(call: Call) -> None:
    _channel(call).unauthorize(call.params["id"])


# --- listings ----------------------------------------------------------------------------------


@handles("list_listings")
def list_listings(call: Call) -> api.ListingList:
    return api.ListingList(root=[convert.listing_model(item) for item in _channel(call).listings_of()])


@handles("list_account_listings")
def list_account_listings(call: Call) -> api.ListingList:
    listings = _channel(call).listings_of(call.params["accountId"])
    return api.ListingList(root=[convert.listing_model(item) for item in listings])


@handles("get_listing")
def get_listing(call: Call) -> api.ListingDetail:
    listing = _channel(call).listing(call.params["accountId"], call.params["listingId"])
    return convert.listing_detail_model(listing)


@handles("update_listing")
def update_listing(call: Call) -> api.Listing:
    body: api.ListingUpdateRequest = call.body
    channel = _channel(call)
    listing = channel.listing(body.account_id, body.listing_id)
    if body.action is api.ListingAction.CONNECT:
        channel.connect(listing, body.total_inventory_count, body.property_external_id, body.has_availability)
    elif body.action is api.ListingAction.DISCONNECT:
        channel.disconnect(listing)
    else:
        channel.update(listing, body.total_inventory_count, body.property_external_id, body.has_availability)
    return convert.listing_model(listing)


# --- availability rules ------------------------------------------------------------------------


@handles("get_availability_rules")
def get_availability_rules(call: Call) -> api.AvailabilityRule:
    listing = _channel(call).listing(call.params["accountId"], call.params["listingId"])
    return convert.rules_model(listing)


_RULE_FIELDS = (
    "default_min_nights",
    "default_max_nights",
    "min_hours_ahead",
    "allow_request_to_book",
    "max_days_notice",
    "preparation_time",
    "check_in_days",
    "check_out_days",
    "min_nights_for_check_in",
)


@handles("update_availability_rules")
def update_availability_rules(call: Call) -> None:
    body: api.AvailabilityRulesUpdate = call.body
    channel = _channel(call)
    listing = channel.managed_listing(body.account_id, body.listing_id)
    changes: dict[str, Any] = {}
    for name in _RULE_FIELDS:
        if name not in body.model_fields_set:
            continue
        value = getattr(body, name)
        if name in ("check_in_days", "check_out_days"):
            value = None if value is None else list(value.root)
        elif name == "min_nights_for_check_in":
            value = [] if value is None else [(item.day_of_week, item.min_nights) for item in value.root]
        elif value is None:
            # A null scalar rule goes back to the channel's default for that rule.
            value = _RULE_DEFAULTS[name]
        changes[name] = value
    channel.set_rules(listing, changes)


_RULE_DEFAULTS: dict[str, object] = {
    "default_min_nights": 1,
    "default_max_nights": 1125,
    "min_hours_ahead": 0,
    "allow_request_to_book": -1,
    "max_days_notice": -1,
    "preparation_time": 0,
}


# --- inventory ---------------------------------------------------------------------------------


@handles("read_inventory")
def read_inventory(call: Call) -> api.InventoryList:
    body: api.InventoryQuery = call.body
    channel = _channel(call)
    listing = channel.listing(body.account_id, body.listing_id)
    days = channel.read_inventory(listing, call.today, body.date_from, body.date_to)
    return api.InventoryList.model_construct(root=[convert.inventory_model(day) for day in days])


_RESTRICTIONS = ("min_nights", "max_nights", "closed_to_arrival", "closed_to_departure")


@handles("update_inventory")
def update_inventory(call: Call) -> api.UpdatedDays:
    body: api.InventoryUpdate = call.body
    channel = _channel(call)
    listing = channel.managed_listing(body.account_id, body.listing_id)
    changes = [
        InventoryChange(
            date_from=op.date_from,
            date_to=op.date_to,
            set_available=op.set_available,
            available=op.available.value if op.available is not None else None,
            count_eligible=op.count_eligible,
            count=op.count,
            set_price=op.set_price,
            daily_price=op.daily_price,
            set_restrictions=op.set_restrictions,
            min_nights=op.min_nights,
            max_nights=op.max_nights,
            closed_to_arrival=op.closed_to_arrival,
            closed_to_departure=op.closed_to_departure,
            restrictions_given=frozenset(name for name in _RESTRICTIONS if name in op.model_fields_set),
        )
        for op in body.operations
    ]
    return api.UpdatedDays(updated_days=channel.apply_inventory(listing, call.today, changes))


# --- pricing settings --------------------------------------------------------------------------


def _pricing(listing: Listing) -> api.PricingSettings:
    stored: api.PricingSettings | None = listing.pricing_settings
    if stored is None:
        stored = api.PricingSettings(listing_currency=listing.currency, default_pricing_rules=[])
    # The default daily price and the currency live on the listing (the calendar reads them).
    return stored.model_copy(
        update={"listing_currency": listing.currency, "default_daily_price": listing.price}
    )


@handles("get_pricing_settings")
def get_pricing_settings(call: Call) -> api.PricingSettings:
    listing = _channel(call).listing(call.params["accountId"], call.params["listingId"])
    return _pricing(listing)


@handles("update_pricing_settings")
def update_pricing_settings(call: Call) -> None:
    body: api.PricingSettingsUpdate = call.body
    listing = _channel(call).managed_listing(body.account_id, body.listing_id)
    current = _pricing(listing)
    changes: dict[str, Any] = {}
    for name in body.model_fields_set - {"account_id", "listing_id"}:
        value = getattr(body, name)
        if name == "default_pricing_rules":
            value = [] if value is None else list(value.root)
        changes[name] = value
    price = changes.get("default_daily_price", current.default_daily_price)
    if price is None or price <= 0:
        raise ApiError(
            400, "INVALID_VALUE", f"defaultDailyPrice must be positive, got {price}", "defaultDailyPrice"
        )
    currency = changes.get("listing_currency") or current.listing_currency
    if len(currency) != 3 or not currency.isalpha():
        raise ApiError(
            400,
            "INVALID_VALUE",
            f"listingCurrency must be a 3-letter code, got {currency!r}",
            "listingCurrency",
        )
    changes["listing_currency"] = currency.upper()
    changes["default_daily_price"] = price
    updated = api.PricingSettings.model_validate({**current.model_dump(), **changes})
    listing.pricing_settings = updated
    listing.currency = updated.listing_currency
    listing.default_price_cents = int(Decimal(price) * 100)


# --- rule-sets and timelines -------------------------------------------------------------------


@handles("list_rule_sets")
def list_rule_sets(call: Call) -> api.RuleSetList:
    channel = _channel(call)
    account_id = call.params["accountId"]
    channel.account(account_id)
    found = [r.model for r in channel.rule_sets.values() if r.account_id == account_id]
    return api.RuleSetList(root=found)


@handles("create_rule_set")
def create_rule_set(call: Call) -> api.RuleSet:
    body: api.RuleSetCreate = call.body
    _check_rule_set_nights(body.min_nights, body.max_nights)
    channel = _channel(call)
    rule_set = channel.add_rule_set(body.account_id, None)
    rule_set.model = api.RuleSet(
        id=rule_set.id,
        title=body.title,
        color=body.color,
        min_nights=body.min_nights,
        max_nights=body.max_nights,
        pricing_rules=list(body.pricing_rules),
    )
    return rule_set.model


@handles("update_rule_set")
def update_rule_set(call: Call) -> None:
    body: api.RuleSetUpdate = call.body
    rule_set = _channel(call).rule_set(body.account_id, body.rule_set_id)
    changes: dict[str, Any] = {}
    for name in body.model_fields_set - {"account_id", "rule_set_id"}:
        value = getattr(body, name)
        if name == "pricing_rules":
            value = [] if value is None else list(value.root)
        elif name == "title" and not value:
            raise ApiError(400, "INVALID_VALUE", "a rule-set needs a title", "title")
        changes[name] = value
    updated = rule_set.model.model_copy(update=changes)
    _check_rule_set_nights(updated.min_nights, updated.max_nights)
    rule_set.model = api.RuleSet.model_validate(updated.model_dump())


def _check_rule_set_nights(min_nights: int | None, max_nights: int | None) -> None:
    if min_nights is not None and min_nights < 1:
        raise ApiError(400, "INVALID_VALUE", f"minNights must be at least 1, got {min_nights}", "minNights")
    if max_nights is not None and (max_nights < 1 or (min_nights is not None and max_nights < min_nights)):
        raise ApiError(400, "INVALID_VALUE", f"maxNights {max_nights} is below minNights or 1", "maxNights")


@handles("delete_rule_set")
def delete_rule_set(call: Call) -> None:
    _channel(call).delete_rule_set(call.params["accountId"], call.params["ruleSetId"])


@handles("get_rule_set_timeline")
def get_rule_set_timeline(call: Call) -> api.RuleSetTimelineList:
    channel = _channel(call)
    listing = channel.listing(call.params["accountId"], call.params["listingId"])
    return api.RuleSetTimelineList(
        root=[
            api.RuleSetTimeline(rule_set_id=t.rule_set_id, date_from=t.date_from, date_to=t.date_to)
            for t in channel.timeline_of(listing)
        ]
    )


@handles("apply_rule_set_timeline")
def apply_rule_set_timeline(call: Call) -> None:
    body: api.RuleSetTimelineApply = call.body
    channel = _channel(call)
    listing = channel.managed_listing(body.account_id, body.listing_id)
    rule_set = channel.rule_set(body.account_id, body.rule_set_id)
    channel.check_window(call.today, body.date_from, body.date_to)
    channel.apply_rule_set(listing, rule_set, body.date_from, body.date_to)


@handles("remove_rule_set_timeline")
def remove_rule_set_timeline(call: Call) -> None:
    body: api.RuleSetTimelineRemove = call.body
    channel = _channel(call)
    listing = channel.managed_listing(body.account_id, body.listing_id)
    channel.check_window(call.today, body.date_from, body.date_to)
    channel.remove_timeline(listing, body.date_from, body.date_to)


# --- reservations ------------------------------------------------------------------------------


@handles("get_channel_reservation")
def get_channel_reservation(call: Call) -> api.ReservationList:
    reservation = _channel(call).reservation(call.params["accountId"], call.params["confirmationCode"])
    return api.ReservationList(root=[convert.reservation_model(reservation, TimeStyle.RETRIEVAL)])


@handles("list_listing_reservations")
def list_listing_reservations(call: Call) -> api.ReservationList:
    channel = _channel(call)
    listing = channel.listing(call.params["accountId"], call.params["listingId"])
    found = channel.future_reservations(listing, call.today)
    return api.ReservationList(root=[convert.reservation_model(r, TimeStyle.RETRIEVAL) for r in found])


# --- channel manager ---------------------------------------------------------------------------


@handles("list_channel_names")
def list_channel_names(call: Call) -> cm.ChannelNameList:
    return cm.ChannelNameList(root=[cm.ChannelName(id=n.id, name=n.name) for n in call.state.manager.names])


@handles("list_connected_channels")
def list_connected_channels(call: Call) -> cm.ChannelList:
    return cm.ChannelList(
        root=[
            cm.Channel(
                id=c.id,
                is_reservations_only=cm.ConnectionKind(c.is_reservations_only),
                channel_property_id=c.channel_property_id,
                channel_name_id=c.channel_name_id,
                title=c.title,
                parameters=[cm.ChannelParameter(name=name, value=value) for name, value in c.parameters],
            )
            for c in call.state.manager.channels
        ]
    )


def _messages(problems: list[Problem]) -> list[cm.ChannelMessage]:
    return [cm.ChannelMessage(channel_id=p.channel_id, code=p.code, message=_where(p)) for p in problems]


def _where(problem: Problem) -> str:
    if problem.element is None:
        return problem.message
    return f"pricesForDateRanges.{problem.element}: {problem.message}"


@handles("push_prices")
def push_prices(call: Call) -> cm.ChannelResponse:
    body: cm.PricesRequest = call.body
    pms = call.state.pms
    elements = [
        PriceElement(
            date_from=e.date_from,
            date_to=e.date_to,
            room_type_id=e.room_type_id,
            room_rate_type=int(e.room_rate_type),
            price=Decimal(e.price),
        )
        for e in body.prices_for_date_ranges
    ]
    answer = call.state.manager.submit(
        elements,
        today=call.today,
        received_at=call.now.isoformat(),
        room_type_exists=lambda room_type_id: room_type_id in pms.room_types,
    )
    return cm.ChannelResponse(
        result=cm.ChannelResult(answer.result),
        channel_errors=_messages(answer.channel_errors),
        channel_warnings=_messages(answer.channel_warnings),
        service_errors=_messages(answer.service_errors),
    )
