"""The event kinds of document 01 by what roomsync does with them."""

from __future__ import annotations

from roomsync.core.api import webhooks as events

RECORDED_ONLY = (events.SpecialOfferEvent, events.ReviewEvent)
ANSWERED_AT_CHECKOUT = (events.CheckAvailability, events.MakeReservation, events.UpdateReservation)
NOTHING_TO_APPLY = frozenset(
    action
    for action, model in events.EVENT_TYPES.items()
    if issubclass(model, (*RECORDED_ONLY, *ANSWERED_AT_CHECKOUT))
)
"""Actions whose effect happened when they were received (guest checks) or that are only kept."""
LISTING_EVENTS = (
    events.ListingsUnlinked,
    events.AuthorizationRevoked,
    events.ListingSuspension,
    events.HostSuspension,
    events.SafetyCommitmentSuspension,
    events.SafetyCommitmentReactivation,
    events.ListingApprovalStatusChanged,
    events.ListingSynchronizationSettingsUpdated,
)
RESERVATION_EVENTS = (events.ReservationConfirmationEvent, events.PayoutNotification)
