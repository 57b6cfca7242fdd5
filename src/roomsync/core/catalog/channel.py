"""Catalog entries of document 01: the rental channel (22 operations) and the channel manager (3).

Paths are those of document 01 with the rental channel's segment written ``{channel}``. Shapes
not shown by document 01 are recorded in ``docs/shapes/channel.md``.
"""

from __future__ import annotations

from roomsync.core.api.channel import (
    Account,
    AccountList,
    AvailabilityRule,
    AvailabilityRulesUpdate,
    InventoryList,
    InventoryQuery,
    InventoryUpdate,
    Listing,
    ListingDetail,
    ListingList,
    ListingUpdateRequest,
    PricingSettings,
    PricingSettingsUpdate,
    ReservationList,
    RuleSet,
    RuleSetCreate,
    RuleSetList,
    RuleSetTimelineApply,
    RuleSetTimelineList,
    RuleSetTimelineRemove,
    RuleSetUpdate,
    UpdatedDays,
)
from roomsync.core.api.channel_manager import ChannelList, ChannelNameList, ChannelResponse, PricesRequest
from roomsync.core.catalog.types import Operation, Priority, ShapeSource

_RC = "/v1/ChannelManager/{channel}"
_CM = "/v1/ChannelManager"

RENTAL_CHANNEL_OPERATIONS: tuple[Operation, ...] = (
    # --- accounts ---
    Operation(
        "list_accounts", "GET", f"{_RC}/Accounts", None, AccountList,
        "All authorized host accounts.", "01",
    ),
    Operation(
        "get_account", "GET", f"{_RC}/Account/{{id}}", None, Account,
        "One authorized host account.", "01",
    ),
    Operation(
        "delete_account", "DELETE", f"{_RC}/Account/{{id}}", None, None,
        "Unauthorize a host account; answers with an empty body.", "01",
        priority=Priority.AVAILABILITY,
    ),
    # --- listings ---
    Operation(
        "list_listings", "GET", f"{_RC}/Listings", None, ListingList,
        "Listings of all accounts.", "01",
    ),
    Operation(
        "list_account_listings", "GET", f"{_RC}/Listings/{{accountId}}", None, ListingList,
        "Listings of one account.", "01",
    ),
    Operation(
        "get_listing", "GET", f"{_RC}/Listing/{{accountId}}/{{listingId}}", None, ListingDetail,
        "One listing, with its currency and price.", "01",
    ),
    Operation(
        "update_listing", "PUT", f"{_RC}/Listing", ListingUpdateRequest, Listing,
        "Connect, disconnect, or update a listing (inventory count, property, hasAvailability).", "01",
        priority=Priority.AVAILABILITY,
    ),
    # --- availability rules ---
    Operation(
        "get_availability_rules", "GET", f"{_RC}/AvailabilityRules/{{accountId}}/{{listingId}}",
        None, AvailabilityRule,
        "Availability rules of a listing.", "01",
    ),
    Operation(
        "update_availability_rules", "PUT", f"{_RC}/AvailabilityRules", AvailabilityRulesUpdate, None,
        "Change the availability rules that are sent; HTTP 200, no object.", "01",
        priority=Priority.AVAILABILITY,
    ),
    # --- inventory ---
    Operation(
        "read_inventory", "POST", f"{_RC}/Inventory", InventoryQuery, InventoryList,
        "Availability, price and restrictions of a listing, one entry per day of the range.", "01",
    ),
    Operation(
        "update_inventory", "PUT", f"{_RC}/Inventory", InventoryUpdate, UpdatedDays,
        "Apply inventory operations (availability, count, price, restrictions) to day ranges.", "01",
        priority=Priority.AVAILABILITY, shape=ShapeSource.CONVENTIONS,
    ),
    # --- pricing settings ---
    Operation(
        "get_pricing_settings", "GET", f"{_RC}/PricingSettings/{{accountId}}/{{listingId}}",
        None, PricingSettings,
        "Pricing settings of a listing, default pricing rules included.", "01",
        shape=ShapeSource.ROOMSYNC,
    ),
    Operation(
        "update_pricing_settings", "PUT", f"{_RC}/PricingSettings", PricingSettingsUpdate, None,
        "Change the pricing settings that are sent; HTTP 200, no object.", "01",
        priority=Priority.PRICES, shape=ShapeSource.ROOMSYNC,
    ),
    # --- rule-sets ---
    Operation(
        "list_rule_sets", "GET", f"{_RC}/RuleSets/{{accountId}}", None, RuleSetList,
        "Rule-sets of an account.", "01",
        shape=ShapeSource.ROOMSYNC,
    ),
    Operation(
        "create_rule_set", "POST", f"{_RC}/RuleSet", RuleSetCreate, RuleSet,
        "Create a rule-set for an account; answers with the new rule-set.", "01",
        priority=Priority.AVAILABILITY, creates=True, shape=ShapeSource.ROOMSYNC,
    ),
    Operation(
        "update_rule_set", "PUT", f"{_RC}/RuleSet", RuleSetUpdate, None,
        "Change a rule-set; no rule-set is returned.", "01",
        priority=Priority.AVAILABILITY, shape=ShapeSource.ROOMSYNC,
    ),
    Operation(
        "delete_rule_set", "DELETE", f"{_RC}/RuleSet/{{accountId}}/{{ruleSetId}}", None, None,
        "Delete a rule-set.", "01",
        priority=Priority.AVAILABILITY,
    ),
    # --- rule-set timelines ---
    Operation(
        "get_rule_set_timeline", "GET", f"{_RC}/RuleSetTimeline/{{accountId}}/{{listingId}}",
        None, RuleSetTimelineList,
        "Rule-sets applied to a listing, with their date ranges.", "01",
        shape=ShapeSource.ROOMSYNC,
    ),
    Operation(
        "apply_rule_set_timeline", "POST", f"{_RC}/RuleSetTimeline", RuleSetTimelineApply, None,
        "Apply a rule-set to a listing for a date range; no timeline is returned.", "01",
        priority=Priority.AVAILABILITY, shape=ShapeSource.ROOMSYNC,
    ),
    Operation(
        "remove_rule_set_timeline", "PUT", f"{_RC}/RuleSetTimeline", RuleSetTimelineRemove, None,
        "Remove the rule-sets applied to a listing for a date range; no timeline is returned.", "01",
        priority=Priority.AVAILABILITY, shape=ShapeSource.ROOMSYNC,
    ),
    # --- reservations ---
    Operation(
        "get_channel_reservation", "GET", f"{_RC}/Reservation/{{accountId}}/{{confirmationCode}}",
        None, ReservationList,
        "A reservation by confirmation code (the documented example is an array).", "01",
    ),
    Operation(
        "list_listing_reservations", "GET", f"{_RC}/Reservations/{{accountId}}/{{listingId}}",
        None, ReservationList,
        "Future reservations of a listing.", "01",
    ),
)

CHANNEL_MANAGER_OPERATIONS: tuple[Operation, ...] = (
    Operation(
        "list_channel_names", "GET", f"{_CM}/ChannelNames", None, ChannelNameList,
        "Channels that can be managed through the service.", "01",
        shape=ShapeSource.HELP_PAGES,
    ),
    Operation(
        "list_connected_channels", "GET", f"{_CM}/Channels", None, ChannelList,
        "Channels connected to the property.", "01",
        shape=ShapeSource.HELP_PAGES,
    ),
    Operation(
        "push_prices", "POST", f"{_CM}/Prices", PricesRequest, ChannelResponse,
        "Enqueue prices of a room type and rate for date ranges to the connected channels.", "01",
        priority=Priority.PRICES,
    ),
)

OPERATIONS: tuple[Operation, ...] = RENTAL_CHANNEL_OPERATIONS + CHANNEL_MANAGER_OPERATIONS
