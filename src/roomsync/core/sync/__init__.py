"""The sync engine's pure core: desired state, diff, compile, apply and price detection.

Why it is pure (no I/O, no clock, no database; the engine needs only the standard library): a
sync is a function of what the PMS says and what the channel holds; keeping it a function makes it
exhaustively testable with generated calendars (tests/core/sync) and fast enough to plan a
thousand listings in under a second (benches/bench_compile.py). The adapters read and write;
this package decides.

Pipeline of one listing: :func:`desired_calendar` -> :func:`diff_calendar` against the current
calendar -> :func:`compile_operations` -> ``PUT Inventory`` requests; :func:`apply_operations` is
what the channel does with them. Connected channels: :func:`desired_connected_prices` ->
:func:`compile_price_ranges` against the ledger -> one ``POST Prices``. PMS prices are found with
the :mod:`.price_detection` planner. :mod:`.convert` (imported on its own, so the engine does not
load the API models) turns plans into API bodies and read ``Inventory`` days into engine days.
"""

from roomsync.core.sync.apply import apply_operations, apply_price_elements
from roomsync.core.sync.calendar import (
    BLANK_DAY,
    Availability,
    Calendar,
    DayState,
    Field,
    GroupValue,
    ListingKind,
    Restrictions,
    groups_of,
    shows_alike,
)
from roomsync.core.sync.compile import (
    DEFAULT_MAX_DATES_PER_REQUEST,
    compile_operations,
    compile_price_ranges,
    operations_from_diff,
)
from roomsync.core.sync.desired import (
    NightRun,
    PriceRule,
    RestrictionRule,
    RoomNights,
    RoomTypeNights,
    api_weekday,
    desired_calendar,
    desired_connected_prices,
    free_room_ids_per_night,
    free_rooms_per_night,
    horizon,
    stay_nights,
)
from roomsync.core.sync.diff import DiffField, DiffItem, DiffOperation, diff_calendar, whole_calendar
from roomsync.core.sync.plans import (
    MAX_PRICE_ELEMENT_SPAN_DAYS,
    InventoryRequestPlan,
    OperationPlan,
    PriceElement,
    PriceKey,
    PricePlan,
    RoomRateType,
)

__all__ = [
    "BLANK_DAY",
    "DEFAULT_MAX_DATES_PER_REQUEST",
    "MAX_PRICE_ELEMENT_SPAN_DAYS",
    "Availability",
    "Calendar",
    "DayState",
    "DiffField",
    "DiffItem",
    "DiffOperation",
    "Field",
    "GroupValue",
    "InventoryRequestPlan",
    "ListingKind",
    "NightRun",
    "OperationPlan",
    "PriceElement",
    "PriceKey",
    "PricePlan",
    "PriceRule",
    "RestrictionRule",
    "Restrictions",
    "RoomNights",
    "RoomRateType",
    "RoomTypeNights",
    "api_weekday",
    "apply_operations",
    "apply_price_elements",
    "compile_operations",
    "compile_price_ranges",
    "desired_calendar",
    "desired_connected_prices",
    "diff_calendar",
    "free_room_ids_per_night",
    "free_rooms_per_night",
    "groups_of",
    "horizon",
    "operations_from_diff",
    "shows_alike",
    "stay_nights",
    "whole_calendar",
]
