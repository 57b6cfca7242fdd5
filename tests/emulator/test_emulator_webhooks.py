"""Webhook deliveries to a tiny real receiver on loopback: signatures, retries, duplicates,
reordering, the guest checkout sequence and every host and guest event of document 01."""

from __future__ import annotations

import hashlib
import hmac
import json
from typing import Any

import pytest
from emulator_http import DOUBLES, FIXED_NOW, HOST_A, HOST_B, RC, STUDIO, TWINS, Emu, Receiver, day

from roomsync.core.api.webhooks import parse_webhook

SECRET = "whsec-test"


def open_nights(emu: Emu, listing: str, first: int, last: int) -> None:
    """Make the nights sellable on the channel (the demo calendar is stale on purpose)."""
    operation: dict[str, Any] = {
        "dateFrom": day(first),
        "dateTo": day(last),
        "setAvailable": True,
        "available": "available",
    }
    if listing in (DOUBLES, TWINS):
        operation.update(countEligible=True, count=4)
    account = HOST_B if listing == TWINS else HOST_A
    emu.ok("PUT", f"{RC}/Inventory", {"accountId": account, "listingId": listing, "operations": [operation]})


def book(
    emu: Emu, listing: str = STUDIO, start: int = 120, nights: int = 2, expect: int = 200
) -> dict[str, Any]:
    open_nights(emu, listing, start, start + nights)
    result: dict[str, Any] = emu.ctl(
        "POST",
        "/guest/book",
        {"listingId": listing, "startDate": day(start), "nights": nights, "adults": 2},
        expect=expect,
    )
    return result


def payload(receiver: Receiver, index: int = -1) -> dict[str, Any]:
    body: dict[str, Any] = json.loads(list(receiver)[index].body)
    return body


def test_a_signed_delivery_carries_id_and_a_verifiable_signature(emu: Emu, receiver: Receiver) -> None:
    emu.ctl(
        "POST", "/webhooks/receiver", {"url": emu.ctl("GET", "/webhooks")["receiverUrl"], "secret": SECRET}
    )
    emu.ctl("POST", "/host/unlink", {"accountId": HOST_A, "listingIds": [STUDIO]})
    emu.wait_webhooks("received")
    (delivery,) = list(receiver)
    assert delivery.headers["content-type"] == "application/json"
    assert delivery.headers["x-webhook-id"]
    parts = dict(part.split("=", 1) for part in delivery.headers["x-webhook-signature"].split(","))
    assert parts["t"] == str(int(FIXED_NOW.timestamp()))  # the emulator clock, not the wall clock
    expected = hmac.new(
        SECRET.encode(), f"{parts['t']}.".encode() + delivery.body, hashlib.sha256
    ).hexdigest()
    assert hmac.compare_digest(parts["v1"], expected)
    event = parse_webhook(delivery.body)
    assert event.action == "ListingsUnlinked"
    assert json.loads(delivery.body)["listingIds"] == [STUDIO]


def test_an_unsigned_delivery_has_no_signature_header(emu: Emu, receiver: Receiver) -> None:
    emu.ctl("POST", "/host/unlink", {"accountId": HOST_A, "listingIds": [STUDIO]})
    emu.wait_webhooks("received")
    (delivery,) = list(receiver)
    assert "x-webhook-signature" not in delivery.headers


def test_a_delivery_is_retried_with_the_same_id_until_the_receiver_succeeds(
    emu: Emu, receiver: Receiver
) -> None:
    receiver.answers += [
        (500, {"error": "down"}),
        (200, {"succeed": False, "failure_code": None}),
        (200, b"ok"),
    ]
    emu.ctl("POST", "/host/revoke", {"accountId": HOST_B})
    emu.wait_webhooks("received")
    attempts = list(receiver)
    assert len(attempts) == 4
    assert len({a.headers["x-webhook-id"] for a in attempts}) == 1
    (delivery,) = emu.deliveries("AuthorizationRevoked")
    assert [a["received"] for a in delivery["attempts"]] == [False, False, False, True]
    assert [a["status"] for a in delivery["attempts"]] == [500, 200, 200, 200]


def test_a_delivery_that_never_succeeds_fails_within_24_emulated_hours(emu: Emu, receiver: Receiver) -> None:
    emu.ctl("POST", "/webhooks/settings", {"retryScale": 0.000001})
    receiver.answers += [(503, {})] * 20
    emu.ctl("POST", "/host/revoke", {"accountId": HOST_B})
    emu.wait_webhooks("failed")
    (delivery,) = emu.deliveries("AuthorizationRevoked")
    assert len(delivery["attempts"]) == 10
    assert len(list(receiver)) == 10


def test_retries_come_due_when_the_emulator_clock_passes_them(emu: Emu, receiver: Receiver) -> None:
    emu.ctl("POST", "/webhooks/settings", {"retryScale": 1000})  # real waits far too long to matter
    receiver.answers.append((500, {}))
    emu.ctl("POST", "/host/revoke", {"accountId": HOST_B})
    emu.wait_webhooks("attempted", count=1)
    (delivery,) = emu.deliveries("AuthorizationRevoked")
    assert (delivery["state"], len(delivery["attempts"])) == ("pending", 1)
    emu.ctl("POST", "/clock/advance", {"minutes": 1})
    emu.wait_webhooks("received")
    assert len(list(receiver)) == 2


def test_duplicates_on_demand_repeat_the_same_notification(emu: Emu, receiver: Receiver) -> None:
    emu.ctl("POST", "/webhooks/settings", {"duplicate": True})
    emu.ctl("POST", "/host/sync-settings", {"accountId": HOST_A, "listingIds": [STUDIO, DOUBLES]})
    emu.wait_webhooks("received")
    emu.ctl("POST", "/webhooks/settings", {"duplicate": False})
    first, second = list(receiver)
    assert first.headers["x-webhook-id"] == second.headers["x-webhook-id"]
    assert first.body == second.body
    event = json.loads(first.body)
    assert event["updates"] == [
        {"listingId": STUDIO, "syncCategory": "Limited"},
        {"listingId": DOUBLES, "syncCategory": "Limited"},
    ]


def test_reordering_on_demand_delivers_held_notifications_newest_first(emu: Emu, receiver: Receiver) -> None:
    emu.ctl("POST", "/webhooks/settings", {"reorder": True})
    emu.ctl(
        "POST", "/host/suspend", {"kind": "listing", "listingId": STUDIO, "capabilities": ["listing_visible"]}
    )
    emu.ctl("POST", "/host/suspend", {"kind": "host", "accountId": HOST_B, "capabilities": ["login"]})
    assert emu.ctl("GET", "/webhooks")["counts"]["held"] == 2
    assert emu.ctl("POST", "/webhooks/release") == {"released": 2}
    emu.wait_webhooks("received", count=2)
    assert receiver.actions() == ["HostSuspension", "ListingSuspension"]


def test_a_guest_booking_runs_the_checkout_sequence(emu: Emu, receiver: Receiver) -> None:
    result = book(emu, STUDIO, 120, 2)
    emu.wait_webhooks("received", count=3)
    assert receiver.actions() == ["CheckAvailability", "MakeReservation", "ReservationAcceptanceConfirmation"]
    check, make, confirmation = (json.loads(r.body) for r in receiver)
    # As in document 01's examples, these three ints travel as strings.
    assert (check["listingId"], check["nights"], check["startDate"]) == (STUDIO, "2", day(120))
    assert (make["confirmationCode"], make["numberOfGuests"]) == (result["confirmationCode"], "2")
    assert confirmation["reservation"]["confirmationCode"] == result["confirmationCode"]
    assert confirmation["reservation"]["startDate"] == f"{day(120)}T00:00:00"
    for delivery in receiver:
        parse_webhook(delivery.body)  # every payload reads as its document-01 model


@pytest.mark.parametrize("refused", ["CheckAvailability", "MakeReservation"])
def test_a_refused_checkout_check_means_no_reservation(emu: Emu, receiver: Receiver, refused: str) -> None:
    answers = [(200, {"succeed": True, "failure_code": None})] if refused == "MakeReservation" else []
    receiver.answers += [*answers, (200, {"succeed": False, "failure_code": None})]
    before = emu.ok("GET", f"{RC}/Reservations/{HOST_A}/{STUDIO}")
    result = book(emu, STUDIO, 120, 2, expect=409)
    assert result["stage"] == refused
    assert emu.ok("GET", f"{RC}/Reservations/{HOST_A}/{STUDIO}") == before
    assert "ReservationAcceptanceConfirmation" not in receiver.actions()
    assert [d["action"] for d in emu.deliveries() if not d["sync"]] == []


def test_an_unreachable_receiver_fails_the_checkout(emu: Emu, receiver: Receiver) -> None:
    emu.ctl("POST", "/webhooks/receiver", {"url": "http://127.0.0.1:9/hook"})
    assert book(emu, STUDIO, 120, 2, expect=409)["stage"] == "CheckAvailability"


def test_an_alteration_asks_update_reservation_then_confirms(emu: Emu, receiver: Receiver) -> None:
    code = book(emu, DOUBLES, 130, 2)["confirmationCode"]
    open_nights(emu, DOUBLES, 131, 134)
    altered = emu.ctl("POST", "/guest/alter", {"confirmationCode": code, "startDate": day(131), "nights": 3})
    assert altered["altered"] is True
    emu.wait_webhooks("received", count=5)  # three checks, the acceptance and the alteration
    queued = [a for a in receiver.actions() if a not in ("CheckAvailability", "MakeReservation")]
    # The acceptance is queued and may arrive around the UpdateReservation check; the alteration
    # confirmation is only queued after the check.
    assert queued[-1] == "ReservationAlterationConfirmation"
    assert sorted(queued[:-1]) == ["ReservationAcceptanceConfirmation", "UpdateReservation"]
    assert payload(receiver)["reservation"]["nights"] == 3
    (mine,) = [
        r for r in emu.ok("GET", f"{RC}/Reservations/{HOST_A}/{DOUBLES}") if r["confirmationCode"] == code
    ]
    assert mine["nights"] == 3


def test_a_refused_alteration_leaves_the_reservation(emu: Emu, receiver: Receiver) -> None:
    code = book(emu, STUDIO, 130, 2)["confirmationCode"]
    open_nights(emu, STUDIO, 133, 135)
    emu.wait_webhooks("received", count=3)  # the acceptance is in, so the refusal below is the check's
    receiver.answers.append((200, {"succeed": False, "failure_code": None}))
    refused = emu.ctl("POST", "/guest/alter", {"confirmationCode": code, "startDate": day(133)}, expect=409)
    assert refused["stage"] == "UpdateReservation"
    days = emu.inventory(HOST_A, STUDIO, day(130), day(134))
    assert [d["availability"] for d in days] == [
        "unavailable",
        "unavailable",
        "available",
        "available",
        "available",
    ]


def host_action(emu: Emu, path: str, body: dict[str, Any]) -> None:
    emu.ctl("POST", path, body)


def test_a_cancellation_sends_its_confirmation_and_again_when_the_type_changes(
    emu: Emu, receiver: Receiver
) -> None:
    code = book(emu, STUDIO, 120, 2)["confirmationCode"]
    emu.ctl("POST", "/guest/cancel", {"confirmationCode": code, "by": "guest"})
    emu.ctl("POST", "/guest/cancel", {"confirmationCode": code, "by": "host"})
    emu.wait_webhooks("received", count=5)
    cancellations = [
        json.loads(r.body) for r in receiver if json.loads(r.body)["action"].startswith("ReservationCancel")
    ]
    assert [c["reservation"]["statusType"] for c in cancellations] == [
        "cancelled_by_guest",
        "cancelled_by_host",
    ]
    assert float(cancellations[0]["reservation"]["listingCancellationPayoutAccurate"]) > 0
    assert cancellations[1]["reservation"]["listingCancellationPayoutAccurate"] == "0.00"


def test_a_request_to_book_then_its_voiding(emu: Emu, receiver: Receiver) -> None:
    requested = emu.ctl(
        "POST",
        "/guest/request",
        {"listingId": STUDIO, "startDate": day(125), "nights": 2, "message": "Early check-in?"},
    )
    emu.ctl(
        "POST",
        "/guest/request-decision",
        {"confirmationCode": requested["confirmationCode"], "accept": False},
    )
    emu.wait_webhooks("received", count=2)
    assert receiver.actions() == ["ReservationRequested", "ReservationRequestVoided"]
    first = payload(receiver, 0)
    assert first["messageToHost"] == "Early check-in?"
    assert first["reservation"]["startDate"] == day(125)  # a plain date for a pending reservation
    assert payload(receiver)["reservation"]["statusType"] == "pending_voided"


def test_an_accepted_request_holds_its_nights(emu: Emu, receiver: Receiver) -> None:
    open_nights(emu, STUDIO, 125, 127)
    requested = emu.ctl("POST", "/guest/request", {"listingId": STUDIO, "startDate": day(125), "nights": 2})
    assert emu.inventory(HOST_A, STUDIO, day(125), day(125))[0]["availability"] == "available"
    emu.ctl(
        "POST", "/guest/request-decision", {"confirmationCode": requested["confirmationCode"], "accept": True}
    )
    emu.wait_webhooks("received", count=2)
    assert receiver.actions()[-1] == "ReservationAcceptanceConfirmation"
    assert emu.inventory(HOST_A, STUDIO, day(125), day(125))[0]["availability"] == "unavailable"


HOST_EVENTS = [
    ("/host/unlink", {"accountId": HOST_A, "listingIds": [STUDIO]}, "ListingsUnlinked"),
    ("/host/revoke", {"accountId": HOST_B}, "AuthorizationRevoked"),
    (
        "/host/suspend",
        {"kind": "listing", "listingId": STUDIO, "capabilities": ["accept_reservation"]},
        "ListingSuspension",
    ),
    (
        "/host/suspend",
        {"kind": "host", "accountId": HOST_A, "capabilities": ["receive_payout"]},
        "HostSuspension",
    ),
    ("/host/suspend", {"kind": "safety", "accountId": HOST_A}, "SafetyCommitmentSuspension"),
    ("/host/reactivate", {"accountId": HOST_A}, "SafetyCommitmentReactivation"),
    (
        "/host/approval",
        {"listingId": STUDIO, "statusCategory": "rejected", "notes": "Photos missing"},
        "ListingApprovalStatusChanged",
    ),
    (
        "/host/sync-settings",
        {"accountId": HOST_A, "listingIds": [STUDIO]},
        "ListingSynchronizationSettingsUpdated",
    ),
    (
        "/host/special-offer",
        {
            "listingId": STUDIO,
            "startDate": day(140),
            "nights": 3,
            "offerType": "preapproval",
            "totalPrice": 450,
        },
        "SpecialOfferCreated",
    ),
]


@pytest.mark.parametrize(("path", "body", "action"), HOST_EVENTS, ids=[e[2] for e in HOST_EVENTS])
def test_each_host_action_sends_its_event(
    emu: Emu, receiver: Receiver, path: str, body: dict[str, Any], action: str
) -> None:
    emu.ctl("POST", path, body)
    emu.wait_webhooks("received")
    (delivery,) = list(receiver)
    event = parse_webhook(delivery.body)
    assert event.action == action


def test_host_side_effects_show_in_the_api(emu: Emu, receiver: Receiver) -> None:
    emu.ctl("POST", "/host/sync-settings", {"accountId": HOST_A, "listingIds": [STUDIO]})
    assert emu.ok("GET", f"{RC}/Listing/{HOST_A}/{STUDIO}")["connected"] == "Limited"
    emu.ctl("POST", "/host/revoke", {"accountId": HOST_B})
    assert emu.call("GET", f"{RC}/Account/{HOST_B}").status_code == 404
    emu.ctl("POST", "/host/unlink", {"accountId": HOST_A, "listingIds": [DOUBLES]})
    assert emu.ok("GET", f"{RC}/Listing/{HOST_A}/{DOUBLES}")["connected"] == "Disconnected"
    write = {
        "accountId": HOST_A,
        "listingId": DOUBLES,
        "operations": [{"dateFrom": day(1), "dateTo": day(1)}],
    }
    assert emu.call("PUT", f"{RC}/Inventory", write).status_code == 409
    emu.ctl("POST", "/host/suspend", {"kind": "safety", "accountId": HOST_A})
    assert "may not accept" in book(emu, STUDIO, 120, 2, expect=409)["reason"]
    emu.ctl("POST", "/host/reactivate", {"accountId": HOST_A})
    assert book(emu, STUDIO, 120, 2)["booked"] is True


def test_payout_special_offer_voiding_and_reviews_send_their_events(emu: Emu, receiver: Receiver) -> None:
    code = book(emu, STUDIO, 120, 2)["confirmationCode"]
    emu.ctl("POST", "/host/payout", {"confirmationCode": code})
    offer = emu.ctl(
        "POST",
        "/host/special-offer",
        {"listingId": STUDIO, "startDate": day(140), "nights": 2, "totalPrice": 300},
    )
    emu.ctl("POST", "/host/void-offer", {"specialOfferId": offer["specialOfferId"]})
    for stage in ("created", "submitted", "published", "response"):
        emu.ctl("POST", "/host/review", {"confirmationCode": code, "stage": stage, "rating": 4})
    emu.ctl("POST", "/host/review", {"confirmationCode": code, "stage": "created", "reviewerRole": "host"})
    emu.ctl("POST", "/host/review", {"confirmationCode": code, "stage": "expired", "reviewerRole": "host"})
    emu.wait_webhooks("received", count=12)
    assert receiver.actions()[3:] == [
        "PayoutNotification",
        "SpecialOfferCreated",
        "SpecialOfferVoided",
        "ReviewCreated",
        "ReviewSubmitted",
        "ReviewPublished",
        "ReviewResponseSubmitted",
        "ReviewCreated",
        "ReviewExpired",
    ]
    events = [json.loads(r.body) for r in receiver]
    payout_event = events[3]
    assert payout_event["confirmedAt"] == int(FIXED_NOW.timestamp())
    assert float(payout_event["reservation"]["totalPaidAmountAccurate"]) > 0
    assert events[5]["isActive"] is False and events[5]["rescindedAt"]
    submitted = events[7]
    assert submitted["overallRating"] == 4 and submitted["hidden"] is True
    assert {c["category"] for c in submitted["categoryRatings"]} >= {"accuracy", "checkin"}
    assert events[8]["hidden"] is False
    assert events[10]["listingId"] is None  # host-to-guest reviews have no listing
    for event in events:
        parse_webhook(json.dumps(event).encode())


def test_bad_action_inputs_are_400s(emu: Emu, receiver: Receiver) -> None:
    bad = emu.ctl(
        "POST", "/host/suspend", {"kind": "listing", "listingId": STUDIO, "capabilities": ["fly"]}, expect=400
    )
    assert bad["error"]["field"] == "capabilities"
    assert (
        emu.ctl("POST", "/guest/cancel", {"confirmationCode": "NOPE000000"}, expect=404)["error"]["code"]
        == "NOT_FOUND"
    )
    assert list(receiver) == []
