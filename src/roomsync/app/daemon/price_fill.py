"""The nights whose PMS price roomsync has not read yet, and when they will be.

A property's first full sync reads every night's price once (one ``CombinedExtended`` read per
night: the PMS has no nightly price read, docs/cost-model.md). When the day's budget affords it
(a paid licence) that is done in the first run; when it does not (a free licence, a day nearly
spent, a horizon longer than the budget) the rest is read by later runs, nearest nights first, and
the unread nights are shown (``status``, the admin API, the console, the
``roomsync_prices_unread_nights`` gauge) with the date they should all be read by. Meanwhile the
channel shows what ``unread_price_nights`` says (keep its own price, or close the night).
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from datetime import date, timedelta

from roomsync.adapters.store import Store
from roomsync.app.daemon_view import PriceFillStatus
from roomsync.app.sync.prices import cached_night_prices, unread_nights
from roomsync.property_context import PropertyContext


@dataclass(frozen=True)
class UnreadPrices:
    nights: int
    first_night: date | None
    horizon_nights: int


def stored_unread_prices(store: Store, context: PropertyContext, today: date) -> UnreadPrices:
    """The horizon's nights with no cached PMS price for a room type whose prices are synced (the
    mapped listings' and the connected channels'), from the store (no request)."""
    first = today
    last = today + timedelta(days=context.settings.horizon_days - 1)
    horizon = (last - first).days + 1
    mapping = store.mappings.load_mapping(context.property_id)
    if mapping is None:
        return UnreadPrices(0, None, horizon)
    types = sorted({e.room_type_id for e in mapping.listings} | {p.room_type_id for p in mapping.connected})
    prices = cached_night_prices(store.pms_prices, context.property_id, types, first, last, mapping.currency)
    unread = unread_nights(prices, types, first, last)
    return UnreadPrices(len(unread), unread[0] if unread else None, horizon)


def read_by_date(unread: int, reads_per_day: int, today: date) -> date | None:
    """The day the last of ``unread`` nights (some) is read at ``reads_per_day``."""
    if reads_per_day <= 0:
        return None
    return today + timedelta(days=math.ceil(unread / reads_per_day) - 1)


def fill_status(unread: UnreadPrices, reads_per_day: int | None, today: date, policy: str) -> PriceFillStatus:
    if unread.nights == 0:
        text = f"every night's PMS price of the {unread.horizon_nights}-night horizon has been read"
        read_by = None
    else:
        read_by = read_by_date(unread.nights, reads_per_day or 0, today)
        shown = (
            "the channel keeps its own price on them"
            if policy == "keep"
            else "the channel shows them unavailable until their price is read"
        )
        when = (
            f"all read by {read_by.isoformat()} at {reads_per_day} reads a day"
            if read_by is not None
            else "not before the budget allows price reads"
        )
        since = unread.first_night.isoformat() if unread.first_night else "?"
        text = (
            f"{unread.nights} of {unread.horizon_nights} nights have no PMS price read yet, from "
            f"{since} (nearest first; {when}); {shown}"
        )
    return PriceFillStatus(
        horizon_nights=unread.horizon_nights,
        unread_nights=unread.nights,
        first_unread_night=unread.first_night,
        read_by=read_by,
        reads_per_day=reads_per_day,
        policy=policy,
        explanation=text,
    )
