"""This channel's own reservations that the PMS holds, per listing and night.

A room-type listing's count is the type's free rooms plus the rooms this channel's own active
reservations occupy (03-conventions): the channel does not lower ``availableCount`` when it books,
so it sells ``count`` minus its own reservations. Only reservations the PMS already holds may be
added back: one the PMS has not received yet has not taken a free room.

A run reads these twice, before and after its read of the free rooms, and counts a night's
reservation only when both reads hold it (:func:`fewest`). The bridge places a reservation in the
PMS and then records it: read only after the free rooms, a reservation placed during that read is
counted while the free rooms still show its room, and the channel is offered one room more than
the PMS has until the next run (one of two windows that give the count test_daemon_day once failed
on under faults; tests/app/sync/test_poll_in_between.py). Read on both sides, a reservation is
counted only when it was recorded, so placed, before the free rooms were read. A cancellation
is recorded before the PMS frees the room (:mod:`roomsync.app.webhooks.bridge`), so it is counted
no more once its room may show free. A move is recorded after the PMS moved it: its old nights
can still be counted with their room shown free, only if the record lags the PMS's answer by the
whole free-rooms read, and the next run corrects that.

The source is the webhook bridge's record of what the PMS was given (``channel_reservation``,
``SqlWebhookRecords.list_bookings``): the nights the PMS reservation holds, while its status
holds a room. It costs no request. A channel reservation that reached the PMS some other way is
not counted, which errs on the safe side: the channel then offers one room fewer, never one more.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from datetime import date, timedelta

from roomsync.adapters.store.webhook_records import ChannelBooking
from roomsync.core.api.pms.reservations import ReservationStatus

_FREE_STATUSES = frozenset(
    {
        ReservationStatus.CONFIRMED_CANCELLED,
        ReservationStatus.TENTATIVE_CANCELLED,
        ReservationStatus.CUSTOMER_NO_SHOW,
        ReservationStatus.CANCELLED_FROM_CHANNEL,
    }
)
"""PMS statuses under which a reservation holds no room."""


def holds_a_room(booking: ChannelBooking) -> bool:
    if booking.status_type.startswith("cancel") or booking.status_type.endswith("voided"):
        return False
    if booking.pms_status is None or booking.pms_date_from is None or booking.pms_date_to is None:
        return False
    return booking.pms_status not in _FREE_STATUSES


def own_reserved_rooms(bookings: Iterable[ChannelBooking]) -> dict[str, dict[date, int]]:
    """Per listing id, the rooms its reservations that the PMS holds occupy on each night."""
    per_listing: dict[str, dict[date, int]] = {}
    for booking in bookings:
        if not holds_a_room(booking):
            continue
        assert booking.pms_date_from is not None and booking.pms_date_to is not None
        counts = per_listing.setdefault(booking.listing_id, {})
        night = booking.pms_date_from
        while night < booking.pms_date_to:
            counts[night] = counts.get(night, 0) + 1
            night += timedelta(days=1)
    return per_listing


OwnReserved = Mapping[str, Mapping[date, int]]
"""Per listing id, the rooms its own reservations occupy on each night."""


def fewest(before: OwnReserved, after: OwnReserved) -> dict[str, dict[date, int]]:
    """Per listing and night, the fewer rooms of two reads (see the module docstring)."""
    fewer: dict[str, dict[date, int]] = {}
    for listing_id, nights in before.items():
        both = {night: min(count, nights.get(night, 0)) for night, count in after.get(listing_id, {}).items()}
        kept = {night: count for night, count in both.items() if count > 0}  # as a read leaves them
        if kept:
            fewer[listing_id] = kept
    return fewer
