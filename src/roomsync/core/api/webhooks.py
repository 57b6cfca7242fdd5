"""Webhook notifications of the rental channel (document 01, "Events") and the receiver's reply.

Every notification is a JSON object whose ``action`` names its kind; :func:`parse_webhook` reads
one into the model of that kind. Kinds with the same fields share a base model whose ``action``
admits all of them (``SpecialOfferEvent``, ``ReservationRequestEvent``,
``ReservationConfirmationEvent``, ``ReviewEvent``); each kind is a subclass narrowing ``action``.
Deliveries are JSON only, but the models follow ``ApiModel`` like every other payload (element
tag = the action name, fields PascalCase).

Documented quirks, accepted on reading while the documented type is kept:

* ``listingId`` of CheckAvailability/MakeReservation/UpdateReservation is declared int but sent
  as a string; ``nights`` and ``numberOfGuests`` arrive as strings in the examples. They are ints
  here and read from either form.
* Strings whose examples show numbers (ids, prices) also accept numbers.
* ``syncCategory`` is spelled ``cyncCategory`` in the field table; both are read.
* Timestamps come in several formats, so they stay strings; plain ``YYYY-MM-DD`` dates are dates.
"""

from __future__ import annotations

from datetime import date
from enum import StrEnum
from typing import Annotated, Literal, cast, get_args

import pydantic_core
from pydantic import AliasChoices, ConfigDict, Field, ValidationError

from roomsync.core.api.base import ApiModel, element, violation_from, wrapped
from roomsync.core.api.channel import ApprovalStatusCategory, GuestDetails, Reservation, SyncCategory
from roomsync.core.codec import PayloadError

# --- value sets --------------------------------------------------------------------------------


class ListingCapability(StrEnum):
    """What a suspended listing may no longer do (``restrictedCapabilityTypes``)."""

    LISTING_SEARCHABLE = "listing_searchable"
    LISTING_VISIBLE = "listing_visible"
    ACTIVATE_LISTING = "activate_listing"
    ACCEPT_RESERVATION = "accept_reservation"


class HostCapability(StrEnum):
    """What a suspended host may no longer do (``capabilityTypes``)."""

    LOGIN = "login"
    SEND_MESSAGE = "send_message"
    RECEIVE_PAYOUT = "receive_payout"
    ACCEPT_RESERVATION = "accept_reservation"
    CREATE_LISTING = "create_listing"
    LISTING_SEARCHABLE = "listing_searchable"
    LISTING_VISIBLE = "listing_visible"
    ACTIVATE_LISTING = "activate_listing"
    MAKE_PAYMENT = "make_payment"
    UGC_VISIBLE = "ugc_visible"
    MESSAGE = "message"
    REVIEW_VISIBLE = "review_visible"
    DELETE_ACCOUNT = "delete_account"
    ACTIVATE_US_LISTING_WITHOUT_POSTAL_VERIFICATION = "activate_us_listing_without_postal_verification"


class OfferType(StrEnum):
    PREAPPROVAL = "preapproval"
    SPECIAL_OFFER = "special_offer"


class ReviewCategory(StrEnum):
    """Rating categories: host-to-guest reviews use cleanliness, communication and
    respect_house_rules; guest-to-host reviews the other six and cleanliness, communication."""

    CLEANLINESS = "cleanliness"
    COMMUNICATION = "communication"
    RESPECT_HOUSE_RULES = "respect_house_rules"
    ACCURACY = "accuracy"
    CHECKIN = "checkin"
    LOCATION = "location"
    VALUE = "value"


Rating = Annotated[int, Field(ge=1, le=5)]
"""1 to 5 stars, 5 the best."""


class WebhookPayload(ApiModel):
    """Base of the notification payloads: strings also accept the numbers some examples send."""

    model_config = ConfigDict(coerce_numbers_to_str=True)


# --- listings and hosts ------------------------------------------------------------------------


class ListingApprovalStatusChanged(WebhookPayload, tag="ListingApprovalStatusChanged"):
    """A listing's status was updated to approved or rejected."""

    action: Literal["ListingApprovalStatusChanged"] = element(
        tag="Action", default="ListingApprovalStatusChanged"
    )
    host_id: str = element(tag="HostId")
    listing_id: str = element(tag="ListingId")
    status_category: ApprovalStatusCategory = element(tag="StatusCategory")
    notes: str = element(tag="Notes", default="")


class SynchronizationUpdate(WebhookPayload, tag="Update"):
    listing_id: str = element(tag="ListingId")
    sync_category: SyncCategory = element(
        tag="SyncCategory", validation_alias=AliasChoices("syncCategory", "cyncCategory")
    )
    """Always ``Limited`` (document 01's table spells the field ``cyncCategory``)."""


class ListingSynchronizationSettingsUpdated(WebhookPayload, tag="ListingSynchronizationSettingsUpdated"):
    """A user switched the synchronization category of listings."""

    action: Literal["ListingSynchronizationSettingsUpdated"] = element(
        tag="Action", default="ListingSynchronizationSettingsUpdated"
    )
    host_id: str = element(tag="HostId")
    updates: list[SynchronizationUpdate] = wrapped("Updates", element(tag="Update", default_factory=list))


class ListingsUnlinked(WebhookPayload, tag="ListingsUnlinked"):
    """The host unlinked listings to manage them directly on the channel."""

    action: Literal["ListingsUnlinked"] = element(tag="Action", default="ListingsUnlinked")
    host_id: str = element(tag="HostId")
    listing_ids: list[str] = wrapped("ListingIds", element(tag="ListingId", default_factory=list))


class AuthorizationRevoked(WebhookPayload, tag="AuthorizationRevoked"):
    """The host revoked the service's permission; the service can no longer manage the listings."""

    action: Literal["AuthorizationRevoked"] = element(tag="Action", default="AuthorizationRevoked")
    host_id: str = element(tag="HostId")
    listing_ids: list[str] = wrapped("ListingIds", element(tag="ListingId", default_factory=list))
    """Empty when the host managed no listings through the service."""


class ListingSuspension(WebhookPayload, tag="ListingSuspension"):
    """A listing was unlinked, taken down, suspended or removed."""

    action: Literal["ListingSuspension"] = element(tag="Action", default="ListingSuspension")
    listing_id: str = element(tag="ListingId")
    restricted_capability_types: list[ListingCapability] = wrapped(
        "RestrictedCapabilityTypes", element(tag="CapabilityType", default_factory=list)
    )


class HostSuspension(WebhookPayload, tag="HostSuspension"):
    """A host was suspended for trust-and-safety or customer-service reasons."""

    action: Literal["HostSuspension"] = element(tag="Action", default="HostSuspension")
    host_id: str = element(tag="HostId")
    capability_types: list[HostCapability] = wrapped(
        "CapabilityTypes", element(tag="CapabilityType", default_factory=list)
    )


class SafetyCommitmentSuspension(WebhookPayload, tag="SafetyCommitmentSuspension"):
    """The host did not accept the safety commitment in time; all their calendars are blocked."""

    action: Literal["SafetyCommitmentSuspension"] = element(
        tag="Action", default="SafetyCommitmentSuspension"
    )
    host_id: str = element(tag="HostId")
    capability_type_restricted: HostCapability = element(tag="CapabilityTypeRestricted")
    """``accept_reservation``."""
    message: str = element(tag="Message")
    """Text stating the deadline."""


class SafetyCommitmentReactivation(WebhookPayload, tag="SafetyCommitmentReactivation"):
    """The host accepted the safety commitment; the calendars are unblocked."""

    action: Literal["SafetyCommitmentReactivation"] = element(
        tag="Action", default="SafetyCommitmentReactivation"
    )
    host_id: str = element(tag="HostId")
    capability_type_reactivated: HostCapability = element(tag="CapabilityTypeReactivated")
    """``accept_reservation``."""
    message: str = element(tag="Message")


# --- special offers ----------------------------------------------------------------------------


class SpecialOfferEvent(WebhookPayload, tag="SpecialOffer"):
    """Either special-offer event (pre-approvals included), created or voided through the service
    or on the channel's website."""

    action: Literal["SpecialOfferCreated", "SpecialOfferVoided"] = element(tag="Action")
    special_offer_id: str = element(tag="SpecialOfferId")
    is_active: bool = element(tag="IsActive")
    listing_id: str = element(tag="ListingId")
    nights: int = element(tag="Nights")
    number_of_guests: int = element(tag="NumberOfGuests")
    offer_type: OfferType = element(tag="OfferType")
    rescinded_at: str | None = element(tag="RescindedAt", default=None, nillable=True)
    """ISO 8601; None unless withdrawn."""
    start_date: str | None = element(tag="StartDate", default=None, nillable=True)
    thread_id: str = element(tag="ThreadId")
    total_price: int = element(tag="TotalPrice")
    """In the listing's currency, cleaning fee and standard fees included."""
    block_instant_booking: bool = element(tag="BlockInstantBooking")
    """Pre-approvals: whether the listing stays bookable by others while the guest decides."""
    created_at: str = element(tag="CreatedAt")
    expires_at: str = element(tag="ExpiresAt")
    number_of_adults: int = element(tag="NumberOfAdults")
    number_of_children: int = element(tag="NumberOfChildren")
    number_of_infants: int = element(tag="NumberOfInfants")
    """Not counted in the listing's maximum number of guests."""


class SpecialOfferCreated(SpecialOfferEvent, tag="SpecialOfferCreated"):
    action: Literal["SpecialOfferCreated"] = element(tag="Action", default="SpecialOfferCreated")


class SpecialOfferVoided(SpecialOfferEvent, tag="SpecialOfferVoided"):
    """A special offer or pre-approval was withdrawn or expired."""

    action: Literal["SpecialOfferVoided"] = element(tag="Action", default="SpecialOfferVoided")


# --- reservations ------------------------------------------------------------------------------


class ReservationRequestEvent(WebhookPayload, tag="ReservationRequest"):
    """Either request event (not sent for alteration requests)."""

    action: Literal["ReservationRequested", "ReservationRequestVoided"] = element(tag="Action")
    message_to_host: str | None = element(tag="MessageToHost", default=None, nillable=True)
    """The guest's message with the request."""
    reservation: Reservation = element(tag="Reservation")


class ReservationRequested(ReservationRequestEvent, tag="ReservationRequested"):
    action: Literal["ReservationRequested"] = element(tag="Action", default="ReservationRequested")


class ReservationRequestVoided(ReservationRequestEvent, tag="ReservationRequestVoided"):
    action: Literal["ReservationRequestVoided"] = element(tag="Action", default="ReservationRequestVoided")


class ReservationConfirmationEvent(WebhookPayload, tag="ReservationConfirmation"):
    """Any of the three confirmation events."""

    action: Literal[
        "ReservationAcceptanceConfirmation",
        "ReservationCancellationConfirmation",
        "ReservationAlterationConfirmation",
    ] = element(tag="Action")
    reservation: Reservation = element(tag="Reservation")


class ReservationAcceptanceConfirmation(
    ReservationConfirmationEvent, tag="ReservationAcceptanceConfirmation"
):
    """A new reservation was confirmed."""

    action: Literal["ReservationAcceptanceConfirmation"] = element(
        tag="Action", default="ReservationAcceptanceConfirmation"
    )


class ReservationCancellationConfirmation(
    ReservationConfirmationEvent, tag="ReservationCancellationConfirmation"
):
    """A confirmed reservation was cancelled; notified again when the cancellation type (and with
    it the payout) changes."""

    action: Literal["ReservationCancellationConfirmation"] = element(
        tag="Action", default="ReservationCancellationConfirmation"
    )


class ReservationAlterationConfirmation(
    ReservationConfirmationEvent, tag="ReservationAlterationConfirmation"
):
    """A confirmed reservation was altered by the guest or the host."""

    action: Literal["ReservationAlterationConfirmation"] = element(
        tag="Action", default="ReservationAlterationConfirmation"
    )


class PayoutNotification(WebhookPayload, tag="PayoutNotification"):
    """A payout was released to the host, normally about 24 hours after check-in."""

    action: Literal["PayoutNotification"] = element(tag="Action", default="PayoutNotification")
    confirmed_at: int = element(tag="ConfirmedAt")
    """Unix time."""
    reservation: Reservation = element(tag="Reservation")


# --- reviews -----------------------------------------------------------------------------------


class CategoryRating(WebhookPayload, tag="CategoryRating"):
    category: ReviewCategory = element(tag="Category")
    rating: Rating = element(tag="Rating")
    comment: str | None = element(tag="Comment", default=None, nillable=True)
    """Why the rating is below 5 stars."""


class ReviewEvent(WebhookPayload, tag="Review"):
    """Any of the five review events.

    Ratings and texts are optional: a review exists (hidden, unsubmitted) before its author
    writes anything.
    """

    action: Literal[
        "ReviewCreated", "ReviewSubmitted", "ReviewPublished", "ReviewExpired", "ReviewResponseSubmitted"
    ] = element(tag="Action")
    review_id: str = element(tag="ReviewId")
    reviewer_role: str = element(tag="ReviewerRole")
    reviewer_id: str = element(tag="ReviewerId")
    reviewee_role: str = element(tag="RevieweeRole")
    reviewee_id: str = element(tag="RevieweeId")
    listing_id: str | None = element(tag="ListingId", default=None, nillable=True)
    """Absent on host-to-guest reviews."""
    reservation_confirmation_code: str = element(tag="ReservationConfirmationCode")
    hidden: bool = element(tag="Hidden")
    """Every review is hidden until submitted."""
    submitted: bool = element(tag="Submitted")
    overall_rating: Rating | None = element(tag="OverallRating", default=None, nillable=True)
    public_review: str | None = element(tag="PublicReview", default=None, nillable=True)
    private_feedback: str | None = element(tag="PrivateFeedback", default=None, nillable=True)
    reviewee_response: str | None = element(tag="RevieweeResponse", default=None, nillable=True)
    category_ratings: list[CategoryRating] = wrapped(
        "CategoryRatings", element(tag="CategoryRating", default_factory=list)
    )
    expires_at: str | None = element(tag="ExpiresAt", default=None, nillable=True)
    first_completed_at: str | None = element(tag="FirstCompletedAt", default=None, nillable=True)
    submitted_at: str | None = element(tag="SubmittedAt", default=None, nillable=True)
    responded_at: str | None = element(tag="RespondedAt", default=None, nillable=True)


class ReviewCreated(ReviewEvent, tag="ReviewCreated"):
    action: Literal["ReviewCreated"] = element(tag="Action", default="ReviewCreated")


class ReviewSubmitted(ReviewEvent, tag="ReviewSubmitted"):
    action: Literal["ReviewSubmitted"] = element(tag="Action", default="ReviewSubmitted")


class ReviewPublished(ReviewEvent, tag="ReviewPublished"):
    action: Literal["ReviewPublished"] = element(tag="Action", default="ReviewPublished")


class ReviewExpired(ReviewEvent, tag="ReviewExpired"):
    action: Literal["ReviewExpired"] = element(tag="Action", default="ReviewExpired")


class ReviewResponseSubmitted(ReviewEvent, tag="ReviewResponseSubmitted"):
    action: Literal["ReviewResponseSubmitted"] = element(tag="Action", default="ReviewResponseSubmitted")


# --- checkout calls, answered within 3 seconds with a WebhookReply ---------------------------------


class MakeReservationGuestDetails(GuestDetails, tag="GuestDetails"):
    localized_description: str = element(tag="LocalizedDescription")
    """E.g. "2 guests"."""


class CheckAvailability(WebhookPayload, tag="CheckAvailability"):
    """The guest submitted a booking: can ``nights`` nights from ``startDate`` be booked?"""

    action: Literal["CheckAvailability"] = element(tag="Action", default="CheckAvailability")
    start_date: date = element(tag="StartDate")
    nights: int = element(tag="Nights")
    listing_id: int = element(tag="ListingId")
    """Declared int; sent as a string."""


class MakeReservation(WebhookPayload, tag="MakeReservation"):
    """The guest submitted a booking: take it, or refuse so the guest is told the dates are gone."""

    action: Literal["MakeReservation"] = element(tag="Action", default="MakeReservation")
    confirmation_code: str = element(tag="ConfirmationCode")
    start_date: date = element(tag="StartDate")
    nights: int = element(tag="Nights")
    listing_id: int = element(tag="ListingId")
    number_of_guests: int = element(tag="NumberOfGuests")
    guest_details: MakeReservationGuestDetails = element(tag="GuestDetails")
    listing_base_price: str = element(tag="ListingBasePrice")
    guest_id: str = element(tag="GuestId")
    special_offer_id: str | None = element(tag="SpecialOfferId", default=None, nillable=True)
    """None unless the booking came through a special offer."""


class UpdateReservation(WebhookPayload, tag="UpdateReservation"):
    """Guest and host accepted an alteration: check it against daily availability only."""

    action: Literal["UpdateReservation"] = element(tag="Action", default="UpdateReservation")
    confirmation_code: str = element(tag="ConfirmationCode")
    start_date: date = element(tag="StartDate")
    nights: int = element(tag="Nights")
    listing_id: int = element(tag="ListingId")
    number_of_guests: int = element(tag="NumberOfGuests")
    listing_base_price: str = element(tag="ListingBasePrice")


class WebhookReply(ApiModel, tag="WebhookReply"):
    """The receiver's answer to every notification: ``{"succeed": true, "failure_code": null}``."""

    succeed: bool = element(tag="Succeed")
    failure_code: str | None = element(tag="FailureCode", alias="failure_code", default=None, nillable=True)
    """Reserved by the service; always None."""


# Earlier names of two models, still used by code written against the first version of this module.
SyncSettingUpdate = SynchronizationUpdate
BookingGuestDetails = MakeReservationGuestDetails


# --- reading a delivery ------------------------------------------------------------------------

WebhookEvent = Annotated[
    ListingApprovalStatusChanged
    | ListingSynchronizationSettingsUpdated
    | ListingsUnlinked
    | AuthorizationRevoked
    | ListingSuspension
    | HostSuspension
    | SafetyCommitmentSuspension
    | SafetyCommitmentReactivation
    | SpecialOfferCreated
    | SpecialOfferVoided
    | ReservationRequested
    | ReservationRequestVoided
    | ReservationAcceptanceConfirmation
    | ReservationCancellationConfirmation
    | ReservationAlterationConfirmation
    | PayoutNotification
    | ReviewCreated
    | ReviewSubmitted
    | ReviewPublished
    | ReviewExpired
    | ReviewResponseSubmitted
    | CheckAvailability
    | MakeReservation
    | UpdateReservation,
    Field(discriminator="action"),
]
"""Any notification, told apart by its ``action``."""

EVENT_TYPES: dict[str, type[WebhookPayload]] = {
    action: event_type
    for event_type in get_args(get_args(WebhookEvent)[0])
    for action in get_args(event_type.model_fields["action"].annotation)
}
"""Model of each ``action``."""


def parse_webhook(body: bytes) -> WebhookEvent:
    """The notification in ``body``; ``PayloadError`` says what is wrong (``field`` names it)."""
    try:
        # pydantic-core's parser, not json.loads: it stops at a nesting depth limit with a
        # ValueError, where json.loads dies of Python's RecursionError on a body of 100,000 '['.
        data = pydantic_core.from_json(body)
    except ValueError as error:
        raise PayloadError(f"webhook body is not valid JSON: {error}") from None
    if not isinstance(data, dict):
        raise PayloadError(f"webhook body must be a JSON object, got {type(data).__name__}")
    if "action" not in data:
        raise PayloadError("webhook body has no 'action' naming the event", field="action")
    action = data["action"]
    event_type = EVENT_TYPES.get(action) if isinstance(action, str) else None
    if event_type is None:
        raise PayloadError(
            f"unknown webhook action {action!r}; known actions: {', '.join(sorted(EVENT_TYPES))}",
            field="action",
        )
    try:
        return cast("WebhookEvent", event_type.model_validate(data))
    except ValidationError as error:
        problem = violation_from(error, event_type.__name__)
        raise PayloadError(f"{action} webhook: {problem}", field=problem.field) from None


XML_NAME_EXCEPTIONS: dict[str, str] = {
    # "Model.jsonName": the XML name used instead of PascalCase(jsonName).
    "WebhookReply.failure_code": "FailureCode",  # the JSON name is snake_case on the wire
}
"""Deliberate deviations from "XML name = PascalCase(JSON name)" in this module."""
