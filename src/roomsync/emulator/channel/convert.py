"""Channel records as document-01 models (API responses and webhook payloads).

Timestamps follow document 01: the reservation retrieval example writes them month/day/year
12-hour (``4/15/2021 10:30:00 AM``); webhook payloads use ISO 8601 (``...Z`` for instants, a
date-time without offset for ``startDate``/``endDate``, a plain date for a pending reservation).
Amounts are strings with two decimals.
"""

from __future__ import annotations

from datetime import UTC, date, datetime
from decimal import Decimal
from enum import StrEnum

from roomsync.core.api import channel as api
from roomsync.emulator.channel.calendar import DayView
from roomsync.emulator.channel.records import Account, ChannelReservation, Listing

_CENT = Decimal("0.01")


class TimeStyle(StrEnum):
    RETRIEVAL = "retrieval"
    WEBHOOK = "webhook"
    PENDING = "pending"


def amount(value: Decimal) -> str:
    return str(value.quantize(_CENT))


def retrieval_time(moment: datetime) -> str:
    """``4/15/2021 10:30:00 AM``: the format of the reservation retrieval example."""
    hour = moment.hour % 12 or 12
    half = "AM" if moment.hour < 12 else "PM"
    return f"{moment.month}/{moment.day}/{moment.year} {hour}:{moment.minute:02d}:{moment.second:02d} {half}"


def iso_instant(moment: datetime) -> str:
    return moment.astimezone(UTC).strftime("%Y-%m-%dT%H:%M:%SZ")


def _instant(moment: datetime | None, style: TimeStyle) -> str | None:
    if moment is None:
        return None
    return retrieval_time(moment) if style is TimeStyle.RETRIEVAL else iso_instant(moment)


def _day(day: date, style: TimeStyle) -> str:
    if style is TimeStyle.RETRIEVAL:
        return retrieval_time(datetime(day.year, day.month, day.day, tzinfo=UTC))
    if style is TimeStyle.PENDING:
        return day.isoformat()
    return f"{day.isoformat()}T00:00:00"


def account_model(account: Account) -> api.Account:
    return api.Account(
        id=account.id,
        email=account.email,
        first_name=account.first_name,
        last_name=account.last_name,
        phone=account.phone,
        picture_url=account.picture_url,
        picture_url_large=account.picture_url_large,
        error=account.error,
    )


def _shared(values: list[str] | None) -> api.SharedWithCategoryList | None:
    if values is None:
        return None
    return api.SharedWithCategoryList(root=[api.SharedWithCategory(v) for v in values])


def listing_fields(listing: Listing) -> dict[str, object]:
    return {
        "account_id": listing.account_id,
        "listing_id": listing.listing_id,
        "name": listing.name,
        "property_group": listing.property_group,
        "property_category": listing.property_category,
        "room_category": listing.room_category,
        "bedrooms": listing.bedrooms,
        "bathrooms": listing.bathrooms,
        "beds": listing.beds,
        "check_in_option": api.CheckInOption(
            category=api.CheckInCategory(listing.check_in_category), instruction=listing.check_in_instruction
        ),
        "approval_status": api.ApprovalStatus(
            status_category=api.ApprovalStatusCategory(listing.status_category), notes=listing.status_notes
        ),
        "has_availability": listing.has_availability,
        "permit_or_tax_id": listing.permit_or_tax_id,
        "apt": listing.apt,
        "street": listing.street,
        "city": listing.city,
        "state": listing.state,
        "zip_code": listing.zip_code,
        "country_code": listing.country_code,
        "latitude": listing.latitude,
        "longitude": listing.longitude,
        "user_defined_location": listing.user_defined_location,
        "directions": listing.directions,
        "person_capacity": listing.person_capacity,
        "connected": api.SyncCategory(listing.connected),
        "bathroom_shared": listing.bathroom_shared,
        "bathroom_shared_with_category": _shared(listing.bathroom_shared_with_category),
        "common_spaces_shared": listing.common_spaces_shared,
        "common_spaces_shared_with_category": _shared(listing.common_spaces_shared_with_category),
        "total_inventory_count": listing.total_inventory_count,
        "property_external_id": listing.property_external_id if listing.room_type_inventory else None,
        "tier": api.Tier(listing.tier),
        "display_exact_location_to_guest": listing.display_exact_location_to_guest,
    }


def listing_model(listing: Listing) -> api.Listing:
    return api.Listing.model_validate(listing_fields(listing))


def listing_detail_model(listing: Listing) -> api.ListingDetail:
    fields = {**listing_fields(listing), "currency": listing.currency, "price": amount(listing.price)}
    return api.ListingDetail.model_validate(fields)


def rules_model(listing: Listing) -> api.AvailabilityRule:
    rules = listing.rules
    return api.AvailabilityRule.model_validate(
        {
            "default_min_nights": rules.default_min_nights,
            "default_max_nights": rules.default_max_nights,
            "min_hours_ahead": rules.min_hours_ahead,
            "allow_request_to_book": rules.allow_request_to_book,
            "max_days_notice": rules.max_days_notice,
            "preparation_time": rules.preparation_time,
            "check_in_days": list(rules.check_in_days or []),
            "check_out_days": list(rules.check_out_days or []),
            "min_nights_for_check_in": [
                api.MinNightsForCheckIn(day_of_week=day, min_nights=nights)
                for day, nights in rules.min_nights_for_check_in
            ],
        }
    )


def inventory_model(view: DayView) -> api.Inventory:
    # model_construct: these values come from the emulator's own arrays, already valid; skipping
    # validation keeps a 731-day read fast (benches/bench_emulator.py).
    return api.Inventory.model_construct(
        date=view.day,
        daily_price=Decimal(view.price_cents) / 100,
        availability=api.Availability(view.availability),
        availability_type=view.availability_type,
        availability_sub_type=view.availability_sub_type,
        available_count=view.available_count,
        min_nights=view.min_nights,
        max_nights=view.max_nights,
        closed_to_arrival=view.closed_to_arrival,
        closed_to_departure=view.closed_to_departure,
        notes=view.notes or "",
    )


def reservation_model(reservation: ChannelReservation, style: TimeStyle) -> api.Reservation:
    r = reservation
    return api.Reservation.model_validate(
        {
            "cancellation_policy_category": r.cancellation_policy_category,
            "confirmation_code": r.confirmation_code,
            "created_at": _instant(r.created_at, style),
            "updated_at": _instant(r.updated_at, style),
            "booked_at": _instant(r.booked_at, style),
            "start_date": _day(r.start_date, style),
            "end_date": _day(r.end_date, style),
            "guest_details": api.GuestDetails(
                adults=r.guest_details.adults,
                children=r.guest_details.children,
                infants=r.guest_details.infants,
            ),
            "guest_email": r.guest_email,
            "guest_first_name": r.guest_first_name,
            "guest_id": r.guest_id,
            "guest_last_name": r.guest_last_name,
            "guest_phone_numbers": list(r.guest_phone_numbers),
            "guest_preferred_locale": r.guest_preferred_locale,
            "host_currency": r.currency,
            "host_id": r.account_id,
            "expected_payout_amount_accurate": amount(r.expected_payout),
            "listing_base_price_accurate": amount(r.base_price),
            "listing_host_fee_accurate": amount(r.host_fee),
            "listing_security_price_accurate": amount(r.security_price),
            "listing_cleaning_fee_accurate": amount(r.cleaning_fee),
            "listing_cancellation_payout_accurate": amount(r.cancellation_payout),
            "listing_cancellation_host_fee_accurate": amount(r.cancellation_host_fee),
            "listing_id": r.listing_id,
            "special_offer_id": r.special_offer_id,
            "nights": r.nights,
            "pass_through_tax_amount_paid_to_host_accurate": amount(r.pass_through_tax),
            "status_type": r.status_type,
            "standard_fees_details_list": (
                [api.StandardFeeDetail(fee_type="PASS_THROUGH_CLEANING_FEE", amount=amount(r.cleaning_fee))]
                if r.cleaning_fee
                else []
            ),
            "thread_id": r.thread_id,
            "total_paid_amount_accurate": amount(r.total_paid),
        }
    )
