"""The rental channel's state and its document-01 rules: accounts, listings and their transitions,
availability rules, per-day inventory, pricing settings, rule-sets and timelines, reservations.

Methods raise :class:`~roomsync.emulator.errors.ApiError` for what the service refuses and call
``emit(event)`` for every webhook notification a change causes.
"""

from __future__ import annotations

import random
import string
from array import array
from collections.abc import Callable, Iterable
from dataclasses import dataclass, field
from datetime import date, datetime, timedelta
from typing import Any

from roomsync.core.api.channel import ApprovalStatusCategory
from roomsync.core.api.webhooks import ListingApprovalStatusChanged, WebhookPayload
from roomsync.emulator.channel.calendar import AVAILABILITY_CODE, NO_PRICE, DayView
from roomsync.emulator.channel.records import (
    ALLOW_REQUEST_TO_BOOK,
    CONNECTED_DISCONNECTED,
    CONNECTED_FULL,
    MAX_DAYS_NOTICE,
    MIN_HOURS_AHEAD,
    PREPARATION_TIME,
    STATUS_APPROVED,
    STATUS_READY_FOR_REVIEW,
    STATUS_REJECTED,
    WEEKDAYS,
    Account,
    ChannelReservation,
    Listing,
    Review,
    RuleSet,
    SpecialOffer,
    TimelineEntry,
)
from roomsync.emulator.errors import ApiError, conflict, invalid, not_found

WINDOW_DAYS = 730
"""The channel calendar covers today up to 730 days ahead (03-conventions), both ends included."""

Emit = Callable[[WebhookPayload], object]


def _no_emit(event: WebhookPayload) -> None:
    return None


@dataclass
class InventoryChange:
    """One operation of a PUT Inventory, in plain values (flags as sent, None where absent)."""

    date_from: date
    date_to: date
    set_available: bool = False
    available: str | None = None
    count_eligible: bool = False
    count: int | None = None
    set_price: bool = False
    daily_price: int | None = None
    set_restrictions: bool = False
    min_nights: int | None = None
    max_nights: int | None = None
    closed_to_arrival: bool | None = None
    closed_to_departure: bool | None = None
    restrictions_given: frozenset[str] = frozenset(
        {"min_nights", "max_nights", "closed_to_arrival", "closed_to_departure"}
    )
    """Restrictions the operation carried: a given None unsets, one not given is left alone."""

    @property
    def changes_anything(self) -> bool:
        return self.set_available or self.count_eligible or self.set_price or self.set_restrictions


@dataclass
class ChannelSettings:
    manual_review_rate: float = 0.0
    """Probability that a connect stays ``ready_for_review`` (document 01's rare case)."""
    manual_review_next: int = 0
    """The next N connects stay ``ready_for_review`` regardless of the rate."""


@dataclass
class ChannelState:
    accounts: dict[str, Account] = field(default_factory=dict)
    listings: dict[str, Listing] = field(default_factory=dict)
    """By listing id (listing ids are unique across accounts)."""
    reservations: dict[str, ChannelReservation] = field(default_factory=dict)
    """By confirmation code."""
    rule_sets: dict[str, RuleSet] = field(default_factory=dict)
    timelines: list[TimelineEntry] = field(default_factory=list)
    settings: ChannelSettings = field(default_factory=ChannelSettings)
    rng: random.Random = field(default_factory=random.Random)
    offers: dict[str, SpecialOffer] = field(default_factory=dict)
    reviews: dict[str, Review] = field(default_factory=dict)
    """By ``<confirmation code>:<reviewer role>``."""
    emit: Emit = _no_emit
    next_rule_set: int = 1
    next_serial: int = 1

    def new_id(self, prefix: str) -> str:
        self.next_serial += 1
        return f"{prefix}{self.next_serial:06d}"

    # --- lookups ------------------------------------------------------------------------------
    def account(self, account_id: str) -> Account:
        account = self.accounts.get(account_id)
        if account is None or not account.authorized:
            raise not_found("account", account_id)
        return account

    def authorized_accounts(self) -> list[Account]:
        return [a for a in self.accounts.values() if a.authorized]

    def listing(self, account_id: str, listing_id: str) -> Listing:
        self.account(account_id)
        listing = self.listings.get(listing_id)
        if listing is None or listing.account_id != account_id:
            raise not_found("listing", f"{listing_id} of account {account_id}")
        return listing

    def listings_of(self, account_id: str | None = None) -> list[Listing]:
        if account_id is not None:
            self.account(account_id)
        authorized = {a.id for a in self.authorized_accounts()}
        return [
            listing
            for listing in self.listings.values()
            if listing.account_id in authorized and (account_id is None or listing.account_id == account_id)
        ]

    def managed_listing(self, account_id: str, listing_id: str) -> Listing:
        """A listing whose calendar and settings the service may change."""
        listing = self.listing(account_id, listing_id)
        if not listing.managed:
            raise conflict(
                f"listing {listing_id} is not managed through the service (connected={listing.connected}); "
                "connect it first",
                "listingId",
            )
        return listing

    # --- accounts -----------------------------------------------------------------------------
    def unauthorize(self, account_id: str) -> None:
        """DELETE Account: the service may no longer manage the account's listings."""
        account = self.account(account_id)
        account.authorized = False
        for listing in self.listings.values():
            if listing.account_id == account_id:
                listing.connected = CONNECTED_DISCONNECTED

    # --- listing transitions (document 01) ------------------------------------------------------
    def publish_problems(self, listing: Listing) -> list[str]:
        problems: list[str] = []
        if not listing.name.strip():
            problems.append("The listing needs a name.")
        if not (listing.street and listing.city and listing.country_code):
            problems.append("The listing needs a street, a city and a country.")
        if listing.person_capacity < 1:
            problems.append("personCapacity must be at least 1.")
        if listing.permit_required and not listing.permit_or_tax_id.strip():
            problems.append(f"A permit or tax ID (permitOrTaxId) is required in {listing.city}.")
        if listing.room_type_inventory and not listing.total_inventory_count:
            problems.append("Room-type inventory needs totalInventoryCount greater than 0.")
        if "activate_listing" in listing.restricted_capabilities:
            problems.append("The listing is suspended and may not be activated.")
        account = self.accounts[listing.account_id]
        if "activate_listing" in account.suspended_capabilities:
            problems.append("The host is suspended and may not activate listings.")
        return problems

    def connect(
        self,
        listing: Listing,
        total_inventory_count: int | None,
        property_external_id: str | None,
        has_availability: bool | None = None,
    ) -> None:
        """Publish the listing: approved, or ``ready_for_review`` in the rare case, or failed with notes."""
        if has_availability is False and not listing.published_once:
            raise self._first_publish_rule()
        if has_availability is not None:
            listing.has_availability = has_availability
        if total_inventory_count is not None:
            self._set_inventory_count(listing, total_inventory_count, property_external_id)
        elif property_external_id is not None:
            listing.property_external_id = property_external_id
        problems = self.publish_problems(listing)
        if problems:
            listing.status_notes = " ".join(problems)
            return
        listing.connected = CONNECTED_FULL
        if self._goes_to_manual_review(listing):
            listing.status_category = STATUS_READY_FOR_REVIEW
            listing.status_notes = "The listing is waiting for a manual review."
            return
        self.set_approval(listing, STATUS_APPROVED, "")

    def _goes_to_manual_review(self, listing: Listing) -> bool:
        if listing.status_category == STATUS_APPROVED:
            return False
        if listing.requires_manual_review:
            return True
        if self.settings.manual_review_next > 0:
            self.settings.manual_review_next -= 1
            return True
        return self.settings.manual_review_rate > 0 and self.rng.random() < self.settings.manual_review_rate

    def set_approval(self, listing: Listing, status: str, notes: str) -> None:
        """Change the approval status; approved/rejected are announced by webhook."""
        changed = listing.status_category != status or listing.status_notes != notes
        listing.status_category = status
        listing.status_notes = notes
        if status == STATUS_APPROVED:
            listing.published_once = True
        if changed and status in (STATUS_APPROVED, STATUS_REJECTED):
            self.emit(
                ListingApprovalStatusChanged(
                    host_id=listing.account_id,
                    listing_id=listing.listing_id,
                    status_category=ApprovalStatusCategory(status),
                    notes=notes,
                )
            )

    def disconnect(self, listing: Listing) -> None:
        listing.connected = CONNECTED_DISCONNECTED

    def update(
        self,
        listing: Listing,
        total_inventory_count: int | None,
        property_external_id: str | None,
        has_availability: bool | None,
    ) -> None:
        if total_inventory_count is None and property_external_id is None and has_availability is None:
            raise invalid(
                None, "action update needs totalInventoryCount, propertyExternalId or hasAvailability"
            )
        if has_availability is False and not listing.published_once:
            raise self._first_publish_rule()
        if total_inventory_count is not None:
            self._set_inventory_count(listing, total_inventory_count, property_external_id)
        elif property_external_id is not None:
            if not listing.room_type_inventory:
                raise invalid(
                    "propertyExternalId",
                    "propertyExternalId is used only with totalInventoryCount (room-type inventory)",
                )
            listing.property_external_id = property_external_id
        if has_availability is not None:
            listing.has_availability = has_availability

    @staticmethod
    def _first_publish_rule() -> ApiError:
        return conflict(
            "hasAvailability may not be set to false before the listing is published for the first "
            "time (it would reset the review process)",
            "hasAvailability",
        )

    @staticmethod
    def _set_inventory_count(listing: Listing, count: int, property_external_id: str | None) -> None:
        if count <= 0:
            raise invalid("totalInventoryCount", f"totalInventoryCount must be greater than 0, got {count}")
        listing.total_inventory_count = count
        listing.room_type_inventory = True
        if property_external_id is not None:
            listing.property_external_id = property_external_id

    # --- availability rules ---------------------------------------------------------------------
    def set_rules(self, listing: Listing, changes: dict[str, Any]) -> None:
        """Change the given rule fields (snake_case names); all checked before any is applied."""
        rules = listing.rules
        merged = {name: getattr(rules, name) for name in vars(rules)}
        merged.update(changes)
        _check_rules(merged)
        for name, value in changes.items():
            setattr(rules, name, value)

    # --- inventory ------------------------------------------------------------------------------
    def check_window(self, today: date, first: date, last: date, prefix: str = "") -> None:
        if first > last:
            raise invalid(f"{prefix}dateFrom", f"dateFrom {first} is after dateTo {last}")
        if first < today:
            raise invalid(f"{prefix}dateFrom", f"dateFrom {first} is before today ({today})")
        horizon = today + timedelta(days=WINDOW_DAYS)
        if last > horizon:
            raise invalid(
                f"{prefix}dateTo", f"dateTo {last} is after the end of the channel calendar ({horizon})"
            )

    def read_inventory(self, listing: Listing, today: date, first: date, last: date) -> list[DayView]:
        self.check_window(today, first, last)
        start, end = listing.calendar.covers(first, last)
        rules = listing.rules
        view = listing.calendar.view
        room_type = listing.room_type_inventory
        return [
            view(
                offset,
                room_type=room_type,
                total_inventory=listing.total_inventory_count,
                default_price_cents=listing.default_price_cents,
                default_min_nights=rules.default_min_nights,
                default_max_nights=rules.default_max_nights,
            )
            for offset in range(start, end + 1)
        ]

    def apply_inventory(self, listing: Listing, today: date, changes: list[InventoryChange]) -> int:
        """Apply the operations in order (later wins); all are checked first. Returns updatedDays."""
        for index, change in enumerate(changes):
            self._check_change(listing, today, change, f"operations.{index}.")
        calendar = listing.calendar
        touched: set[int] = set()
        for change in changes:
            if not change.changes_anything:
                continue
            start, end = calendar.covers(change.date_from, change.date_to)
            span = end - start + 1
            touched.update(range(start, end + 1))
            if change.set_available:
                code = AVAILABILITY_CODE[change.available or "default"]
                calendar.availability[start : end + 1] = bytes([code]) * span
            if change.count_eligible:
                calendar.count[start : end + 1] = array("l", [change.count or 0]) * span
            if change.set_price:
                cents = NO_PRICE if change.daily_price is None else change.daily_price * 100
                calendar.price_cents[start : end + 1] = array("q", [cents]) * span
            if change.set_restrictions:
                given = change.restrictions_given
                if "min_nights" in given:
                    calendar.min_nights[start : end + 1] = array("l", [change.min_nights or 0]) * span
                if "max_nights" in given:
                    calendar.max_nights[start : end + 1] = array("l", [change.max_nights or 0]) * span
                if "closed_to_arrival" in given:
                    cta = bytes([bool(change.closed_to_arrival)]) * span
                    calendar.closed_to_arrival[start : end + 1] = cta
                if "closed_to_departure" in given:
                    ctd = bytes([bool(change.closed_to_departure)]) * span
                    calendar.closed_to_departure[start : end + 1] = ctd
        return len(touched)

    def _check_change(self, listing: Listing, today: date, change: InventoryChange, prefix: str) -> None:
        self.check_window(today, change.date_from, change.date_to, prefix)
        if change.set_available and change.available not in AVAILABILITY_CODE:
            raise invalid(
                f"{prefix}available",
                f"available must be one of available, unavailable, default when setAvailable is true, "
                f"got {change.available!r}",
            )
        if change.count_eligible:
            if not listing.room_type_inventory:
                raise invalid(
                    f"{prefix}countEligible",
                    f"listing {listing.listing_id} uses single-unit inventory: count cannot be set",
                )
            if change.count is None or change.count < 0:
                raise invalid(
                    f"{prefix}count", f"count must be 0 or more when countEligible, got {change.count}"
                )
            total = listing.total_inventory_count or 0
            if change.count > total:
                raise invalid(
                    f"{prefix}count",
                    f"count {change.count} exceeds the listing's totalInventoryCount {total}",
                )
        if change.set_price and (change.daily_price is None or change.daily_price <= 0):
            raise invalid(
                f"{prefix}dailyPrice",
                f"dailyPrice must be a positive whole amount when setPrice is true, got {change.daily_price}",
            )
        if change.set_restrictions:
            if change.min_nights is not None and change.min_nights < 1:
                raise invalid(f"{prefix}minNights", f"minNights must be at least 1, got {change.min_nights}")
            if change.max_nights is not None and change.max_nights < 1:
                raise invalid(f"{prefix}maxNights", f"maxNights must be at least 1, got {change.max_nights}")
            if (
                change.min_nights is not None
                and change.max_nights is not None
                and change.max_nights < change.min_nights
            ):
                raise invalid(
                    f"{prefix}maxNights",
                    f"maxNights {change.max_nights} is less than minNights {change.min_nights}",
                )

    # --- reservations -----------------------------------------------------------------------------
    def new_confirmation_code(self) -> str:
        alphabet = string.ascii_uppercase + string.digits
        while True:
            code = "HM" + "".join(self.rng.choice(alphabet) for _ in range(8))
            if code not in self.reservations:
                return code

    def nights_sellable(self, listing: Listing, start: date, nights: int) -> list[date]:
        """The nights of the stay that the channel would not sell (empty: the stay can be booked)."""
        calendar = listing.calendar
        first, _ = calendar.covers(start, start + timedelta(days=max(nights, 1) - 1))
        blocked: list[date] = []
        for i in range(nights):
            if not calendar.sellable(
                first + i,
                room_type=listing.room_type_inventory,
                total_inventory=listing.total_inventory_count,
            ):
                blocked.append(start + timedelta(days=i))
        return blocked

    def add_reservation(self, reservation: ChannelReservation) -> None:
        self.reservations[reservation.confirmation_code] = reservation
        if reservation.active:
            self._hold(reservation, +1)

    def set_reservation_status(self, reservation: ChannelReservation, status: str, now: datetime) -> None:
        was_active = reservation.active
        reservation.status_type = status
        reservation.updated_at = now
        if was_active and not reservation.active:
            self._hold(reservation, -1)
        elif reservation.active and not was_active:
            self._hold(reservation, +1)
            reservation.booked_at = now

    def move_reservation(
        self, reservation: ChannelReservation, start: date, nights: int, now: datetime
    ) -> None:
        if reservation.active:
            self._hold(reservation, -1)
        reservation.start_date = start
        reservation.nights = nights
        reservation.updated_at = now
        if reservation.active:
            self._hold(reservation, +1)

    def hold(self, reservation: ChannelReservation, delta: int) -> None:
        """Add ``delta`` to the nights an active reservation holds (the alteration check uses it)."""
        if reservation.active:
            self._hold(reservation, delta)

    def _hold(self, reservation: ChannelReservation, delta: int) -> None:
        listing = self.listings.get(reservation.listing_id)
        if listing is not None:
            listing.calendar.hold(reservation.start_date, reservation.nights, delta)

    def reservation(self, account_id: str, confirmation_code: str) -> ChannelReservation:
        self.account(account_id)
        reservation = self.reservations.get(confirmation_code)
        if reservation is None or reservation.account_id != account_id:
            raise not_found("reservation", f"{confirmation_code} of account {account_id}")
        return reservation

    def future_reservations(self, listing: Listing, today: date) -> list[ChannelReservation]:
        found = [
            r for r in self.reservations.values() if r.listing_id == listing.listing_id and r.end_date > today
        ]
        return sorted(found, key=lambda r: (r.start_date, r.confirmation_code))

    # --- rule-sets and timelines ------------------------------------------------------------------
    def add_rule_set(self, account_id: str, model: Any) -> RuleSet:
        self.account(account_id)
        rule_set = RuleSet(id=str(self.next_rule_set), account_id=account_id, model=model)
        self.next_rule_set += 1
        self.rule_sets[rule_set.id] = rule_set
        return rule_set

    def rule_set(self, account_id: str, rule_set_id: str) -> RuleSet:
        self.account(account_id)
        rule_set = self.rule_sets.get(rule_set_id)
        if rule_set is None or rule_set.account_id != account_id:
            raise not_found("rule-set", f"{rule_set_id} of account {account_id}")
        return rule_set

    def delete_rule_set(self, account_id: str, rule_set_id: str) -> None:
        self.rule_set(account_id, rule_set_id)
        del self.rule_sets[rule_set_id]
        self.timelines = [t for t in self.timelines if t.rule_set_id != rule_set_id]

    def apply_rule_set(self, listing: Listing, rule_set: RuleSet, first: date, last: date) -> None:
        if first > last:
            raise invalid("endDate", f"the end {last} is before the start {first}")
        # A later application replaces earlier ones on the days they share.
        self.remove_timeline(listing, first, last)
        self.timelines.append(TimelineEntry(listing.listing_id, rule_set.id, first, last))

    def remove_timeline(self, listing: Listing, first: date, last: date) -> None:
        kept: list[TimelineEntry] = []
        for entry in self.timelines:
            if entry.listing_id != listing.listing_id or entry.date_to < first or entry.date_from > last:
                kept.append(entry)
                continue
            if entry.date_from < first:
                kept.append(
                    TimelineEntry(entry.listing_id, entry.rule_set_id, entry.date_from, first - timedelta(1))
                )
            if entry.date_to > last:
                kept.append(
                    TimelineEntry(entry.listing_id, entry.rule_set_id, last + timedelta(1), entry.date_to)
                )
        self.timelines = kept

    def timeline_of(self, listing: Listing) -> list[TimelineEntry]:
        return sorted(
            (t for t in self.timelines if t.listing_id == listing.listing_id), key=lambda t: t.date_from
        )

    # --- host-side changes (control surface) ------------------------------------------------------
    def listings_for_ids(self, account_id: str, listing_ids: Iterable[str]) -> list[Listing]:
        return [self.listing(account_id, listing_id) for listing_id in listing_ids]


def _check_rules(rules: dict[str, Any]) -> None:
    """The allowed values of document 01, on the merged rule fields."""

    def bad(field_name: str, message: str) -> ApiError:
        return invalid(field_name, message)

    min_n, max_n = rules["default_min_nights"], rules["default_max_nights"]
    if min_n < 1:
        raise bad("defaultMinNights", f"defaultMinNights must be at least 1, got {min_n}")
    if max_n < min_n:
        raise bad("defaultMaxNights", f"defaultMaxNights {max_n} is less than defaultMinNights {min_n}")
    if rules["min_hours_ahead"] not in MIN_HOURS_AHEAD:
        raise bad(
            "minHoursAhead", f"minHoursAhead must be 0-24, 48, 72 or 168, got {rules['min_hours_ahead']}"
        )
    if rules["allow_request_to_book"] not in ALLOW_REQUEST_TO_BOOK:
        raise bad(
            "allowRequestToBook",
            f"allowRequestToBook must be -1, 0 or 1, got {rules['allow_request_to_book']}",
        )
    if rules["max_days_notice"] not in MAX_DAYS_NOTICE:
        raise bad(
            "maxDaysNotice",
            f"maxDaysNotice must be -1, 0, 30, 60, ... 330 or 365, got {rules['max_days_notice']}",
        )
    if rules["preparation_time"] not in PREPARATION_TIME:
        raise bad("preparationTime", f"preparationTime must be 0, 1 or 2, got {rules['preparation_time']}")
    for name, api in (("check_in_days", "checkInDays"), ("check_out_days", "checkOutDays")):
        days = rules[name] or []
        wrong = [d for d in days if d not in WEEKDAYS]
        if wrong:
            raise bad(api, f"{api} values must be days of week 0-6, got {wrong}")
    for index, (day, nights) in enumerate(rules["min_nights_for_check_in"]):
        if day not in WEEKDAYS:
            raise bad(f"minNightsForCheckIn.{index}.dayOfWeek", f"dayOfWeek must be 0-6, got {day}")
        if nights < 1:
            raise bad(f"minNightsForCheckIn.{index}.minNights", f"minNights must be at least 1, got {nights}")
