"""What a channel reservation says, in the PMS's terms: its stay, its total, whether it is
cancelled, its PMS status and the customer it is booked for.

Pure translation, no request and no store: the bridge (:mod:`.bridge`) decides when to apply a
reservation and :mod:`.pms_reservations` sends what these functions compute.
"""

from __future__ import annotations

from datetime import date
from decimal import Decimal, InvalidOperation

from roomsync.adapters.webhooks.keys import channel_date
from roomsync.core.api.channel import Reservation as ChannelReservation
from roomsync.core.api.pms.customers import ReservationCustomer
from roomsync.core.api.pms.reservations import ReservationStatus

__all__ = ["CENT", "agreed_total", "amount", "customer_of", "is_cancelled", "pms_status", "stay_of"]

CENT = Decimal("0.01")


def amount(text: str | None, field: str) -> Decimal:
    """The channel's amount text ``field`` in cents (absent is zero); ValueError when unreadable."""
    try:
        return Decimal(text or "0").quantize(CENT)
    except InvalidOperation:
        raise ValueError(f"{field} {text!r} is not an amount") from None


def is_cancelled(reservation: ChannelReservation, action: str) -> bool:
    return action == "ReservationCancellationConfirmation" or reservation.status_type.startswith("cancel")


def agreed_total(reservation: ChannelReservation, cancelled: bool) -> Decimal:
    """What the guest pays the host: base price plus cleaning fee; once cancelled, the
    cancellation payout plus the host fee withheld from it (roomsync's choice, docs/webhooks.md)."""
    if cancelled:
        return amount(
            reservation.listing_cancellation_payout_accurate, "listingCancellationPayoutAccurate"
        ) + amount(reservation.listing_cancellation_host_fee_accurate, "listingCancellationHostFeeAccurate")
    return amount(reservation.listing_base_price_accurate, "listingBasePriceAccurate") + amount(
        reservation.listing_cleaning_fee_accurate, "listingCleaningFeeAccurate"
    )


def stay_of(reservation: ChannelReservation) -> tuple[date, int]:
    """First night and number of nights; the end date wins over ``nights`` when they disagree."""
    start = channel_date(reservation.start_date)
    try:
        nights = (channel_date(reservation.end_date) - start).days
    except ValueError:
        nights = reservation.nights
    return start, nights if nights >= 1 else reservation.nights


def pms_status(action: str, cancelled: bool, previous: int | None) -> ReservationStatus:
    """The PMS status the reservation converges to; ``previous`` is the one the PMS was given
    last: once the PMS shows it modified (10), only a cancellation changes that."""
    return (
        ReservationStatus.CANCELLED_FROM_CHANNEL
        if cancelled
        else ReservationStatus.MODIFIED_FROM_CHANNEL
        if action == "ReservationAlterationConfirmation" or previous == 10
        else ReservationStatus.CONFIRMED
    )


def customer_of(reservation: ChannelReservation) -> ReservationCustomer:
    """The PMS customer of a new reservation, cut to the PMS's field lengths; the notes keep the
    confirmation code, the party and the channel's guest id for the front desk."""
    code = reservation.confirmation_code
    guests = reservation.guest_details
    return ReservationCustomer.model_validate(
        {
            "last_name": (reservation.guest_last_name or "Guest")[:100],
            "first_name": reservation.guest_first_name[:100] or None,
            "email": reservation.guest_email[:50] or None,
            "phone": reservation.guest_phone_numbers[0][:50] if reservation.guest_phone_numbers else None,
            "notes": (
                f"{code}: {guests.adults} adults, {guests.children} children, {guests.infants} infants "
                f"(channel guest {reservation.guest_id})"
            )[:250],
        }
    )
