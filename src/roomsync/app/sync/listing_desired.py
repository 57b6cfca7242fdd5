"""The desired calendar of one mapped listing, from the PMS facts of one sync.

A thin layer over ``roomsync.core.sync.desired_calendar`` that turns the mapping's settings
(``roomsync.core.mapping``) into the core's rules and adds four decisions of its own:

* A listing whose mapping sets no restrictions at all does not manage them: each desired day
  keeps the restrictions the channel holds, so roomsync never rewrites what the host set there.
  Setting any restriction manages all four (one that is left out is then unset, ``null``).
* A night whose price would not be positive gets no price (the channel refuses ``dailyPrice``
  of 0 or less, which would reject the whole request): the channel keeps its price.
* A room-type listing's count is capped at its ``totalInventoryCount`` when known (the channel
  refuses a larger count).
* With ``close_unpriced`` (``unread_price_nights = "close"``), a night whose PMS price is not
  known (not read yet, or the PMS gives none) is unavailable, as a closed night is: the channel
  never sells it at a price the hotel did not set.
"""

from __future__ import annotations

from collections.abc import Collection, Mapping, Sequence
from datetime import date
from decimal import Decimal

from roomsync.core import mapping as config
from roomsync.core.sync import BLANK_DAY, DayState, ListingKind, PriceRule, RestrictionRule
from roomsync.core.sync.desired import RoomTypeNights, desired_calendar


def engine_kind(kind: config.ListingKind) -> ListingKind:
    return ListingKind(kind.value)


def price_rule(rule: config.PriceRule) -> PriceRule:
    return PriceRule(markup_percent=rule.markup_percent, fixed_amount=rule.markup_amount)


def restriction_rule(rules: config.Restrictions) -> RestrictionRule | None:
    """The core rule, or None when the mapping sets no restriction (they are not managed)."""
    if rules == config.Restrictions():
        return None
    return RestrictionRule(
        min_nights=rules.min_nights,
        max_nights=rules.max_nights,
        closed_to_arrival_weekdays=frozenset(rules.closed_to_arrival),
        closed_to_departure_weekdays=frozenset(rules.closed_to_departure),
    )


def pushable_prices(rule: PriceRule, nightly: Mapping[date, Decimal]) -> Mapping[date, Decimal]:
    """The nights whose channel price would be positive."""
    if rule.markup_percent >= 0 and rule.fixed_amount >= 0 and all(price > 0 for price in nightly.values()):
        return nightly  # every price stays positive: nothing to leave out (the usual case, and fast)
    kept: dict[date, Decimal] = {}
    for night, price in nightly.items():
        try:
            if rule.daily_price(price) > 0:
                kept[night] = price
        except ValueError:
            continue
    return kept


def listing_desired(
    listing: config.ListingMapping,
    nights: Sequence[date],
    *,
    free_rooms: Mapping[date, int],
    closed: Collection[date],
    property_closed: Collection[date],
    nightly_prices: Mapping[date, Decimal],
    own_reserved_rooms: Mapping[date, int],
    current: Mapping[date, DayState],
    count_cap: int | None = None,
    close_unpriced: bool = False,
) -> dict[date, DayState]:
    rule = price_rule(listing.price)
    if close_unpriced:
        unpriced = [night for night in nights if night not in nightly_prices]
        if unpriced:
            closed = {*closed, *unpriced}
    restrictions = restriction_rule(listing.restrictions)
    kind = engine_kind(listing.kind)
    desired = desired_calendar(
        kind,
        nights,
        RoomTypeNights(
            free_rooms=free_rooms, closed=closed, nightly_prices=pushable_prices(rule, nightly_prices)
        ),
        property_closed=property_closed,
        own_reserved_rooms=own_reserved_rooms if kind is ListingKind.ROOM_TYPE else None,
        price_rule=rule,
        restrictions=restrictions,
    )
    if restrictions is None or count_cap is not None:
        for night, state in desired.items():
            # built directly rather than with dataclasses.replace: this runs for every listing-night
            have = current.get(night, BLANK_DAY) if restrictions is None else state
            count = state.count
            if count_cap is not None and count is not None and count > count_cap:
                count = count_cap
            desired[night] = DayState(
                state.available,
                count,
                state.price,
                have.min_nights,
                have.max_nights,
                have.closed_to_arrival,
                have.closed_to_departure,
            )
    return desired
