"""Document 01's limits are enforced on both sides of each boundary, and every webhook kind parses.

The allowed values, boundaries and example payloads below are transcribed from document 01's
tables ("Limits", the AvailabilityRule, Inventory, PUT Listing and channel-price tables, "Events"),
not taken from the models. A violation must be a ``LimitViolation`` raised by ``checked()`` that
names the field, carries the value and states the rule.
"""

from __future__ import annotations

import json
from datetime import date, timedelta
from typing import Any

import pytest

from roomsync.core.api import webhooks
from roomsync.core.api.base import ApiModel, checked
from roomsync.core.api.channel import (
    AvailabilityRule,
    AvailabilityRulesUpdate,
    Inventory,
    InventoryOperation,
    InventoryQuery,
    InventoryUpdate,
    ListingUpdateRequest,
    RuleSetTimelineApply,
)
from roomsync.core.api.channel_manager import PriceForDateRange, PricesRequest
from roomsync.core.codec import PayloadError, PayloadFormat, decode, encode
from roomsync.core.errors import LimitViolation

# --- the values document 01 allows ------------------------------------------------------------

MIN_HOURS_AHEAD = [*range(0, 25), 48, 72, 168]
MAX_DAYS_NOTICE = [30, 60, 90, 120, 150, 180, 210, 240, 270, 300, 330, 365, -1, 0]
PREPARATION_TIME = [0, 1, 2]
ALLOW_REQUEST_TO_BOOK = [-1, 0, 1]
DAYS_OF_WEEK = [0, 1, 2, 3, 4, 5, 6]
AVAILABILITY = ["available", "unavailable", "default"]
ROOM_RATE_TYPES = [1, 2]

# Just outside each set: below, between and above the allowed values.
MIN_HOURS_AHEAD_REFUSED = [-1, 25, 47, 49, 71, 73, 167, 169]
MAX_DAYS_NOTICE_REFUSED = [-2, 1, 29, 31, 59, 329, 331, 360, 364, 366]
PREPARATION_TIME_REFUSED = [-1, 3]
ALLOW_REQUEST_TO_BOOK_REFUSED = [-2, 2]
DAYS_OF_WEEK_REFUSED = [-1, 7]


def rule_body(**rules: Any) -> dict[str, Any]:
    """A complete AvailabilityRule (GET AvailabilityRules) with ``rules`` changed."""
    body: dict[str, Any] = {
        "defaultMinNights": 1,
        "defaultMaxNights": 30,
        "minHoursAhead": 24,
        "allowRequestToBook": -1,
        "maxDaysNotice": 365,
        "preparationTime": 0,
        "checkInDays": [],
        "checkOutDays": [],
        "minNightsForCheckIn": [],
    }
    body.update(rules)
    return body


def update_body(**rules: Any) -> dict[str, Any]:
    """A PUT AvailabilityRules body changing only ``rules``."""
    return {"accountId": "1001", "listingId": "2002", **rules}


def assert_refused(
    model: type[ApiModel], values: dict[str, Any], field: str, value: Any, *rule_words: str
) -> LimitViolation:
    """``checked(model, **values)`` raises a LimitViolation naming ``field`` and ``value``."""
    with pytest.raises(LimitViolation) as caught:
        checked(model, **values)
    violation = caught.value
    assert violation.field == field, f"the violation names {violation.field!r}, not {field!r}"
    assert violation.value == value
    assert violation.rule, "the violation states no rule"
    for word in rule_words:
        assert word in violation.rule, f"rule {violation.rule!r} does not mention {word!r}"
    assert field in str(violation) and repr(value) in str(violation)
    return violation


# --- availability rules ------------------------------------------------------------------------

RULE_MODELS = [(AvailabilityRule, rule_body), (AvailabilityRulesUpdate, update_body)]
RULE_IDS = ["AvailabilityRule", "AvailabilityRulesUpdate"]


@pytest.mark.parametrize(("model", "body"), RULE_MODELS, ids=RULE_IDS)
@pytest.mark.parametrize("hours", MIN_HOURS_AHEAD)
def test_min_hours_ahead_allowed(model: type[ApiModel], body: Any, hours: int) -> None:
    assert checked(model, **body(minHoursAhead=hours)).min_hours_ahead == hours  # type: ignore[attr-defined]


@pytest.mark.parametrize(("model", "body"), RULE_MODELS, ids=RULE_IDS)
@pytest.mark.parametrize("hours", MIN_HOURS_AHEAD_REFUSED)
def test_min_hours_ahead_refused(model: type[ApiModel], body: Any, hours: int) -> None:
    assert_refused(model, body(minHoursAhead=hours), "minHoursAhead", hours, "24", "48", "72", "168")


@pytest.mark.parametrize(("model", "body"), RULE_MODELS, ids=RULE_IDS)
@pytest.mark.parametrize("days", MAX_DAYS_NOTICE)
def test_max_days_notice_allowed(model: type[ApiModel], body: Any, days: int) -> None:
    assert checked(model, **body(maxDaysNotice=days)).max_days_notice == days  # type: ignore[attr-defined]


@pytest.mark.parametrize(("model", "body"), RULE_MODELS, ids=RULE_IDS)
@pytest.mark.parametrize("days", MAX_DAYS_NOTICE_REFUSED)
def test_max_days_notice_refused(model: type[ApiModel], body: Any, days: int) -> None:
    assert_refused(model, body(maxDaysNotice=days), "maxDaysNotice", days, "30", "330", "365")


@pytest.mark.parametrize(("model", "body"), RULE_MODELS, ids=RULE_IDS)
@pytest.mark.parametrize("days", PREPARATION_TIME)
def test_preparation_time_allowed(model: type[ApiModel], body: Any, days: int) -> None:
    assert checked(model, **body(preparationTime=days)).preparation_time == days  # type: ignore[attr-defined]


@pytest.mark.parametrize(("model", "body"), RULE_MODELS, ids=RULE_IDS)
@pytest.mark.parametrize("days", PREPARATION_TIME_REFUSED)
def test_preparation_time_refused(model: type[ApiModel], body: Any, days: int) -> None:
    assert_refused(model, body(preparationTime=days), "preparationTime", days, "2")


@pytest.mark.parametrize(("model", "body"), RULE_MODELS, ids=RULE_IDS)
@pytest.mark.parametrize("flag", ALLOW_REQUEST_TO_BOOK)
def test_allow_request_to_book_allowed(model: type[ApiModel], body: Any, flag: int) -> None:
    assert checked(model, **body(allowRequestToBook=flag)).allow_request_to_book == flag  # type: ignore[attr-defined]


@pytest.mark.parametrize(("model", "body"), RULE_MODELS, ids=RULE_IDS)
@pytest.mark.parametrize("flag", ALLOW_REQUEST_TO_BOOK_REFUSED)
def test_allow_request_to_book_refused(model: type[ApiModel], body: Any, flag: int) -> None:
    assert_refused(model, body(allowRequestToBook=flag), "allowRequestToBook", flag, "-1", "1")


def test_allow_request_to_book_defaults_to_minus_one() -> None:
    body = rule_body()
    del body["allowRequestToBook"]
    assert checked(AvailabilityRule, **body).allow_request_to_book == -1


DAY_FIELDS = ["checkInDays", "checkOutDays"]


@pytest.mark.parametrize(("model", "body"), RULE_MODELS, ids=RULE_IDS)
@pytest.mark.parametrize("field", DAY_FIELDS)
def test_days_of_week_allowed(model: type[ApiModel], body: Any, field: str) -> None:
    rules = checked(model, **body(**{field: DAYS_OF_WEEK}))
    days = getattr(rules, "check_in_days" if field == "checkInDays" else "check_out_days")
    assert list(getattr(days, "root", days)) == DAYS_OF_WEEK


@pytest.mark.parametrize(("model", "body"), RULE_MODELS, ids=RULE_IDS)
@pytest.mark.parametrize("field", DAY_FIELDS)
@pytest.mark.parametrize("day", DAYS_OF_WEEK_REFUSED)
def test_days_of_week_refused(model: type[ApiModel], body: Any, field: str, day: int) -> None:
    assert_refused(model, body(**{field: [3, day]}), f"{field}.1", day, "6" if day > 6 else "0")


@pytest.mark.parametrize(("model", "body"), RULE_MODELS, ids=RULE_IDS)
@pytest.mark.parametrize("day", [0, 6])
def test_min_nights_for_check_in_day_allowed(model: type[ApiModel], body: Any, day: int) -> None:
    rules = checked(model, **body(minNightsForCheckIn=[{"dayOfWeek": day, "minNights": 2}]))
    entries = rules.min_nights_for_check_in  # type: ignore[attr-defined]
    assert [e.day_of_week for e in getattr(entries, "root", entries)] == [day]


@pytest.mark.parametrize(("model", "body"), RULE_MODELS, ids=RULE_IDS)
@pytest.mark.parametrize("day", DAYS_OF_WEEK_REFUSED)
def test_min_nights_for_check_in_day_refused(model: type[ApiModel], body: Any, day: int) -> None:
    values = body(minNightsForCheckIn=[{"dayOfWeek": day, "minNights": 2}])
    assert_refused(model, values, "minNightsForCheckIn.0.dayOfWeek", day)


def test_a_limit_is_enforced_when_reading_xml() -> None:
    """XML carries numbers as text; the value sets still apply to it."""
    xml = (
        b"<AvailabilityRules><AccountId>1</AccountId><ListingId>2</ListingId>"
        b"<MinHoursAhead>49</MinHoursAhead></AvailabilityRules>"
    )
    with pytest.raises(LimitViolation) as caught:
        decode(AvailabilityRulesUpdate, xml, PayloadFormat.XML)
    assert caught.value.field == "minHoursAhead"
    allowed = decode(AvailabilityRulesUpdate, xml.replace(b"49", b"48"), PayloadFormat.XML)
    assert allowed.min_hours_ahead == 48


def test_a_limit_is_enforced_when_reading_json() -> None:
    body = json.dumps(update_body(maxDaysNotice=31)).encode()
    with pytest.raises(LimitViolation) as caught:
        decode(AvailabilityRulesUpdate, body, PayloadFormat.JSON)
    assert caught.value.field == "maxDaysNotice"
    assert caught.value.value == 31


# --- PUT Listing -------------------------------------------------------------------------------


def listing_update(count: int) -> dict[str, Any]:
    return {"accountId": "1001", "listingId": "2002", "action": "update", "totalInventoryCount": count}


@pytest.mark.parametrize("count", [1, 2, 500])
def test_total_inventory_count_allowed(count: int) -> None:
    assert checked(ListingUpdateRequest, **listing_update(count)).total_inventory_count == count


@pytest.mark.parametrize("count", [0, -1])
def test_total_inventory_count_refused(count: int) -> None:
    assert_refused(ListingUpdateRequest, listing_update(count), "totalInventoryCount", count, "0")


@pytest.mark.parametrize("action", ["connect", "disconnect", "update"])
def test_listing_actions_allowed(action: str) -> None:
    body = {"accountId": "1001", "listingId": "2002", "action": action}
    assert checked(ListingUpdateRequest, **body).action == action


def test_unknown_listing_action_refused() -> None:
    body = {"accountId": "1001", "listingId": "2002", "action": "publish"}
    assert_refused(ListingUpdateRequest, body, "action", "publish", "connect", "disconnect", "update")


# --- channel prices ----------------------------------------------------------------------------

JAN_1 = date(2027, 1, 1)


def price(date_from: date, date_to: date, rate: int = 1, amount: str = "120.50") -> dict[str, Any]:
    return {
        "dateFrom": date_from,
        "dateTo": date_to,
        "roomTypeId": 3,
        "roomRateType": rate,
        "price": amount,
    }


@pytest.mark.parametrize("span", [0, 1, 364, 365])
def test_price_range_up_to_365_days_allowed(span: int) -> None:
    element = checked(PriceForDateRange, **price(JAN_1, JAN_1 + timedelta(days=span)))
    assert (element.date_to - element.date_from).days == span


@pytest.mark.parametrize("span", [366, 400])
def test_price_range_over_365_days_refused(span: int) -> None:
    end = JAN_1 + timedelta(days=span)
    assert_refused(PriceForDateRange, price(JAN_1, end), "dateTo", end, "365")


def test_price_range_ending_before_it_starts_refused() -> None:
    end = JAN_1 - timedelta(days=1)
    assert_refused(PriceForDateRange, price(JAN_1, end), "dateTo", end, "dateFrom")


def test_price_range_limit_inside_the_request_names_the_element() -> None:
    ranges = [price(JAN_1, JAN_1), price(JAN_1, JAN_1 + timedelta(days=366))]
    violation = assert_refused(
        PricesRequest,
        {"pricesForDateRanges": ranges},
        "pricesForDateRanges.1.dateTo",
        JAN_1 + timedelta(days=366),
    )
    assert "365" in violation.rule


@pytest.mark.parametrize("rate", ROOM_RATE_TYPES)
def test_room_rate_type_allowed(rate: int) -> None:
    assert checked(PriceForDateRange, **price(JAN_1, JAN_1, rate=rate)).room_rate_type == rate


@pytest.mark.parametrize("rate", [0, 3])
def test_room_rate_type_refused(rate: int) -> None:
    assert_refused(PriceForDateRange, price(JAN_1, JAN_1, rate=rate), "roomRateType", rate, "1", "2")


def test_price_with_two_decimals_allowed_three_refused() -> None:
    assert str(checked(PriceForDateRange, **price(JAN_1, JAN_1, amount="99.99")).price) == "99.99"
    assert_refused(PriceForDateRange, price(JAN_1, JAN_1, amount="99.999"), "price", "99.999", "2")


def test_price_attributes_limit_enforced_when_reading_xml() -> None:
    xml = (
        b'<Request><PricesForDateRanges><PriceForDateRange dateFrom="2027-01-01" dateTo="2028-01-02"'
        b' roomTypeId="3" roomRateType="1" price="120.5"/></PricesForDateRanges></Request>'
    )
    with pytest.raises(LimitViolation) as caught:
        decode(PricesRequest, xml, PayloadFormat.XML)
    # pydantic-xml names the list by its Python name in nested XML errors; the element is exact.
    assert caught.value.field.endswith(".0.dateTo")
    assert caught.value.value in ("2028-01-02", date(2028, 1, 2))  # XML hands over text
    assert "365" in caught.value.rule
    fine = decode(PricesRequest, xml.replace(b"2028-01-02", b"2028-01-01"), PayloadFormat.XML)
    assert fine.prices_for_date_ranges[0].date_to == date(2028, 1, 1)  # 365 days after


# --- inventory ---------------------------------------------------------------------------------


def operation(date_from: date, date_to: date, **fields: Any) -> dict[str, Any]:
    return {"dateFrom": date_from, "dateTo": date_to, **fields}


@pytest.mark.parametrize("span", [0, 1, 730])
def test_inventory_operation_range_allowed(span: int) -> None:
    op = checked(InventoryOperation, **operation(JAN_1, JAN_1 + timedelta(days=span)))
    assert op.date_to >= op.date_from


def test_inventory_operation_range_ending_before_it_starts_refused() -> None:
    end = JAN_1 - timedelta(days=1)
    assert_refused(InventoryOperation, operation(JAN_1, end), "dateTo", end, "dateFrom")


def test_inventory_operation_range_limit_inside_the_update_names_the_operation() -> None:
    end = JAN_1 - timedelta(days=1)
    body = {
        "accountId": "1",
        "listingId": "2",
        "operations": [operation(JAN_1, JAN_1), operation(JAN_1, end)],
    }
    assert_refused(InventoryUpdate, body, "operations.1.dateTo", end)


def test_inventory_query_range_ending_before_it_starts_refused() -> None:
    end = JAN_1 - timedelta(days=1)
    body = {"accountId": "1", "listingId": "2", "dateFrom": JAN_1, "dateTo": end}
    assert_refused(InventoryQuery, body, "dateTo", end, "dateFrom")
    assert checked(InventoryQuery, **{**body, "dateTo": JAN_1}).date_to == JAN_1


def test_rule_set_timeline_range_ending_before_it_starts_refused() -> None:
    end = JAN_1 - timedelta(days=1)
    body = {"accountId": "1", "listingId": "2", "ruleSetId": "9", "dateFrom": JAN_1, "dateTo": end}
    assert_refused(RuleSetTimelineApply, body, "dateTo", end, "dateFrom")


@pytest.mark.parametrize("value", AVAILABILITY)
def test_availability_values_allowed(value: str) -> None:
    op = checked(InventoryOperation, **operation(JAN_1, JAN_1, setAvailable=True, available=value))
    assert op.available == value
    day = checked(Inventory, **inventory_day(availability=value))
    assert day.availability == value


@pytest.mark.parametrize("value", ["blocked", "Available", ""])
def test_availability_values_refused(value: str) -> None:
    assert_refused(
        InventoryOperation,
        operation(JAN_1, JAN_1, setAvailable=True, available=value),
        "available",
        value,
        "available",
        "unavailable",
        "default",
    )
    assert_refused(Inventory, inventory_day(availability=value), "availability", value, "unavailable")


@pytest.mark.parametrize(
    ("flag", "field"),
    [("setAvailable", "available"), ("countEligible", "count"), ("setPrice", "dailyPrice")],
)
def test_a_flagged_group_needs_its_value(flag: str, field: str) -> None:
    """roomsync's rule (docs/shapes/channel.md): a flag set true without the value it sets."""
    assert_refused(InventoryOperation, operation(JAN_1, JAN_1, **{flag: True}), field, None, flag)
    unflagged = checked(InventoryOperation, **operation(JAN_1, JAN_1, **{flag: False}))
    assert unflagged.model_dump(by_alias=True)[field] is None  # no value needed while the flag is off


def inventory_day(**fields: Any) -> dict[str, Any]:
    day = {
        "date": "2027-01-01",
        "dailyPrice": 99.5,
        "availability": "available",
        "availabilityType": "available",
        "availabilitySubType": None,
        "availableCount": None,
        "minNights": 1,
        "maxNights": 30,
        "closedToArrival": False,
        "closedToDeparture": False,
        "notes": "",
    }
    day.update(fields)
    return day


# --- lossless partial-update bodies ------------------------------------------------------------


@pytest.mark.parametrize("fmt", [PayloadFormat.JSON, PayloadFormat.XML], ids=lambda f: f.value)
def test_an_explicit_null_survives_a_partial_update_body(fmt: PayloadFormat) -> None:
    """``minNights: null`` unsets a restriction (01); not sending it leaves it alone."""
    op = InventoryOperation(date_from=JAN_1, date_to=JAN_1, set_restrictions=True, min_nights=None)
    sent = InventoryUpdate(account_id="1", listing_id="2", operations=[op])
    body = encode(sent, fmt)
    again = decode(InventoryUpdate, body, fmt)
    assert "min_nights" in again.operations[0].model_fields_set
    assert "max_nights" not in again.operations[0].model_fields_set
    assert encode(again, fmt) == body


@pytest.mark.parametrize("fmt", [PayloadFormat.JSON, PayloadFormat.XML], ids=lambda f: f.value)
def test_a_nullable_list_keeps_null_and_empty_apart(fmt: PayloadFormat) -> None:
    cleared = checked(AvailabilityRulesUpdate, **update_body(checkInDays=[], checkOutDays=None))
    body = encode(cleared, fmt)
    again = decode(AvailabilityRulesUpdate, body, fmt)
    assert again.check_in_days is not None and list(again.check_in_days.root) == []
    assert again.check_out_days is None and "check_out_days" in again.model_fields_set
    assert "min_nights_for_check_in" not in again.model_fields_set
    assert encode(again, fmt) == body


# --- webhooks ----------------------------------------------------------------------------------

RESERVATION: dict[str, Any] = {
    "cancellationPolicyCategory": "moderate",
    "confirmationCode": "HMZ4NQ3XKP",
    "createdAt": "2027-03-01T10:15:00Z",
    "updatedAt": "2027-03-01T10:20:00Z",
    "bookedAt": "2027-03-01T10:20:00Z",
    "startDate": "2027-04-10T00:00:00",
    "endDate": "2027-04-13T00:00:00",
    "guestDetails": {"adults": 2, "children": 1, "infants": 0},
    "guestEmail": "guest.x7@guest.example",
    "guestFirstName": "Maria",
    "guestId": "310045",
    "guestLastName": "Papadopoulou",
    "guestPhoneNumbers": ["+30 210 0000000"],
    "guestPrefferedLocale": "el",
    "hostCurrency": "EUR",
    "hostId": "5501",
    "expectedPayoutAmountAccurate": "351.00",
    "listingBasePriceAccurate": "330.00",
    "listingHostFeeAccurate": "9.00",
    "listingSecurityPriceAccurate": "0.00",
    "listingCleaningFeeAccurate": "30.00",
    "listingCancellationPayoutAccurate": "0.00",
    "listingCancellationHostFeeAccurate": "0.00",
    "listingId": "7788",
    "specialOfferId": None,
    "nights": 3,
    "PassThroughTaxAmountPaidToHostAccurate": "4.50",
    "statusType": "accept",
    "standardFeesDetailsList": [],
    "threadId": "991",
    "totalPaidAmountAccurate": "0.00",
}

SPECIAL_OFFER: dict[str, Any] = {
    "specialOfferId": "4411",
    "isActive": True,
    "listingId": "7788",
    "nights": 3,
    "numberOfGuests": 2,
    "offerType": "special_offer",
    "rescindedAt": None,
    "startDate": "2027-04-10",
    "threadId": "991",
    "totalPrice": 360,
    "blockInstantBooking": False,
    "createdAt": "2027-03-01T09:00:00Z",
    "expiresAt": "2027-03-02T09:00:00Z",
    "numberOfAdults": 2,
    "numberOfChildren": 0,
    "numberOfInfants": 0,
}

REVIEW: dict[str, Any] = {
    "reviewId": "123",
    "reviewerRole": "guest",
    "reviewerId": "310045",
    "revieweeRole": "host",
    "revieweeId": "5501",
    "listingId": "7788",
    "reservationConfirmationCode": "HMZ4NQ3XKP",
    "hidden": False,
    "submitted": True,
    "overallRating": 4,
    "publicReview": "Lovely flat.",
    "privateFeedback": "The shower was cold.",
    "revieweeResponse": "Thank you!",
    "categoryRatings": [
        {"category": "cleanliness", "rating": 5, "comment": None},
        {"category": "checkin", "rating": 3, "comment": "Keys were late."},
    ],
    "expiresAt": "2027-04-27T00:00:00Z",
    "firstCompletedAt": "2027-04-15T12:00:00Z",
    "submittedAt": "2027-04-15T12:00:00Z",
    "respondedAt": "2027-04-16T08:00:00Z",
}

# One example of every event kind of document 01 ("Events"), written from its payload tables.
EXAMPLES: dict[str, dict[str, Any]] = {
    "ListingApprovalStatusChanged": {
        "hostId": "5501",
        "listingId": "7788",
        "statusCategory": "approved",
        "notes": "",
    },
    "ListingSynchronizationSettingsUpdated": {
        "hostId": "5501",
        "updates": [{"listingId": "7788", "syncCategory": "Limited"}],
    },
    "ListingsUnlinked": {"hostId": "5501", "listingIds": ["7788", "7789"]},
    "AuthorizationRevoked": {"hostId": "5501", "listingIds": []},
    "ListingSuspension": {
        "listingId": "7788",
        "restrictedCapabilityTypes": ["listing_searchable", "accept_reservation"],
    },
    "HostSuspension": {
        "hostId": "5501",
        "capabilityTypes": ["login", "activate_us_listing_without_postal_verification"],
    },
    "SafetyCommitmentSuspension": {
        "hostId": "5501",
        "capabilityTypeRestricted": "accept_reservation",
        "message": "Accept the safety commitment by 2027-05-01.",
    },
    "SafetyCommitmentReactivation": {
        "hostId": "5501",
        "capabilityTypeReactivated": "accept_reservation",
        "message": "Calendars unblocked.",
    },
    "SpecialOfferCreated": SPECIAL_OFFER,
    "SpecialOfferVoided": {**SPECIAL_OFFER, "isActive": False, "rescindedAt": "2027-03-01T18:00:00Z"},
    "ReservationRequested": {
        "messageToHost": "Can we check in early?",
        "reservation": {
            **RESERVATION,
            "statusType": "pending",
            "startDate": "2027-04-10",
            "endDate": "2027-04-13",
        },
    },
    "ReservationRequestVoided": {
        "messageToHost": None,
        "reservation": {**RESERVATION, "statusType": "pending_voided"},
    },
    "ReservationAcceptanceConfirmation": {"reservation": RESERVATION},
    "ReservationCancellationConfirmation": {
        "reservation": {**RESERVATION, "statusType": "cancelled_by_guest"}
    },
    "ReservationAlterationConfirmation": {"reservation": {**RESERVATION, "nights": 4}},
    "PayoutNotification": {"confirmedAt": 1807000000, "reservation": RESERVATION},
    "ReviewCreated": {
        **REVIEW,
        "hidden": True,
        "submitted": False,
        "overallRating": None,
        "publicReview": None,
        "privateFeedback": None,
        "revieweeResponse": None,
        "categoryRatings": [],
        "firstCompletedAt": None,
        "submittedAt": None,
        "respondedAt": None,
    },
    "ReviewSubmitted": {**REVIEW, "revieweeResponse": None, "respondedAt": None},
    "ReviewPublished": REVIEW,
    "ReviewExpired": {
        **REVIEW,
        "submitted": False,
        "hidden": True,
        "listingId": None,
        "reviewerRole": "host",
    },
    "ReviewResponseSubmitted": REVIEW,
    "CheckAvailability": {"startDate": "2027-04-10", "nights": 3, "listingId": "7788"},
    "MakeReservation": {
        "confirmationCode": "HMZ4NQ3XKP",
        "startDate": "2027-04-10",
        "nights": "3",
        "listingId": "7788",
        "numberOfGuests": "3",
        "guestDetails": {
            "localizedDescription": "2 adults, 1 child",
            "adults": 2,
            "children": 1,
            "infants": 0,
        },
        "listingBasePrice": "330.00",
        "guestId": "310045",
        "specialOfferId": None,
    },
    "UpdateReservation": {
        "confirmationCode": "HMZ4NQ3XKP",
        "startDate": "2027-04-11",
        "nights": "4",
        "listingId": "7788",
        "numberOfGuests": "2",
        "listingBasePrice": "420.00",
    },
}

DOCUMENTED_ACTIONS = {
    "ListingApprovalStatusChanged",
    "ListingSynchronizationSettingsUpdated",
    "ListingsUnlinked",
    "AuthorizationRevoked",
    "ListingSuspension",
    "HostSuspension",
    "SafetyCommitmentSuspension",
    "SafetyCommitmentReactivation",
    "SpecialOfferCreated",
    "SpecialOfferVoided",
    "ReservationRequested",
    "ReservationRequestVoided",
    "ReservationAcceptanceConfirmation",
    "ReservationCancellationConfirmation",
    "ReservationAlterationConfirmation",
    "PayoutNotification",
    "ReviewCreated",
    "ReviewSubmitted",
    "ReviewPublished",
    "ReviewExpired",
    "ReviewResponseSubmitted",
    "CheckAvailability",
    "MakeReservation",
    "UpdateReservation",
}

# Sent as strings, read as the documented ints: these examples do not come back byte for byte.
QUIRKY = {"CheckAvailability", "MakeReservation", "UpdateReservation"}


def delivery(action: str) -> bytes:
    return json.dumps({"action": action, **EXAMPLES[action]}).encode()


def test_every_documented_event_has_an_example_and_a_model() -> None:
    assert set(EXAMPLES) == DOCUMENTED_ACTIONS
    assert set(webhooks.EVENT_TYPES) == DOCUMENTED_ACTIONS


@pytest.mark.parametrize("action", sorted(DOCUMENTED_ACTIONS))
def test_parse_webhook_reads_every_kind(action: str) -> None:
    event = webhooks.parse_webhook(delivery(action))
    assert type(event).__name__ == action
    assert event.action == action
    if action not in QUIRKY:
        assert json.loads(encode(event, PayloadFormat.JSON)) == {"action": action, **EXAMPLES[action]}


def test_quirky_checkout_payloads_are_read_as_documented_ints() -> None:
    made = webhooks.parse_webhook(delivery("MakeReservation"))
    assert isinstance(made, webhooks.MakeReservation)
    assert (made.nights, made.number_of_guests, made.listing_id) == (3, 3, 7788)
    assert made.start_date == date(2027, 4, 10)
    assert made.guest_details.localized_description == "2 adults, 1 child"
    checked_dates = webhooks.parse_webhook(delivery("CheckAvailability"))
    assert isinstance(checked_dates, webhooks.CheckAvailability)
    assert checked_dates.listing_id == 7788
    changed = webhooks.parse_webhook(delivery("UpdateReservation"))
    assert isinstance(changed, webhooks.UpdateReservation)
    assert (changed.nights, changed.number_of_guests, changed.listing_base_price) == (4, 2, "420.00")


def test_reservation_keeps_the_services_field_spellings() -> None:
    event = webhooks.parse_webhook(delivery("ReservationAcceptanceConfirmation"))
    assert isinstance(event, webhooks.ReservationAcceptanceConfirmation)
    assert event.reservation.guest_preferred_locale == "el"
    assert event.reservation.pass_through_tax_amount_paid_to_host_accurate == "4.50"
    written = json.loads(encode(event, PayloadFormat.JSON))["reservation"]
    assert "guestPrefferedLocale" in written and "PassThroughTaxAmountPaidToHostAccurate" in written


def test_sync_category_is_read_under_the_tables_spelling_too() -> None:
    body = json.dumps(
        {
            "action": "ListingSynchronizationSettingsUpdated",
            "hostId": "1",
            "updates": [{"listingId": "2", "cyncCategory": "Limited"}],
        }
    ).encode()
    event = webhooks.parse_webhook(body)
    assert isinstance(event, webhooks.ListingSynchronizationSettingsUpdated)
    assert event.updates[0].sync_category == "Limited"


def test_unknown_action_is_refused_clearly() -> None:
    with pytest.raises(PayloadError) as caught:
        webhooks.parse_webhook(b'{"action": "ListingRenamed", "listingId": "1"}')
    assert caught.value.field == "action"
    assert "ListingRenamed" in str(caught.value) and "unknown" in str(caught.value)
    assert "MakeReservation" in str(caught.value)  # the known actions are listed


@pytest.mark.parametrize(
    ("body", "words"),
    [
        (b'{"hostId": "1"}', "no 'action'"),
        (b"[1, 2]", "JSON object"),
        (b"{not json", "not valid JSON"),
        (b'{"action": 7}', "unknown"),
        (b"[" * 100_000 + b"]" * 100_000, "not valid JSON"),  # past any nesting limit, no RecursionError
        (b'{"action": "\xff"}', "not valid JSON"),
    ],
    ids=["no-action", "array", "broken-json", "action-not-a-string", "nested-too-deep", "not-utf8"],
)
def test_bodies_that_are_no_event_are_refused(body: bytes, words: str) -> None:
    with pytest.raises(PayloadError) as caught:
        webhooks.parse_webhook(body)
    assert words in str(caught.value)


def test_a_known_event_with_a_bad_value_names_the_field() -> None:
    body = json.dumps({"action": "ReviewPublished", **REVIEW, "overallRating": 6}).encode()
    with pytest.raises(PayloadError) as caught:
        webhooks.parse_webhook(body)
    assert caught.value.field == "overallRating"
    assert "ReviewPublished" in str(caught.value)


def test_webhook_reply_is_written_as_the_receiver_contract_says() -> None:
    reply = webhooks.WebhookReply(succeed=True)
    assert json.loads(encode(reply, PayloadFormat.JSON)) == {"succeed": True, "failure_code": None}
