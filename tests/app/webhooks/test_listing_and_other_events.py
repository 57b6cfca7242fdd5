"""Host and listing events pause and resume listings; special offers and reviews are stored,
visible, and never fail. Every event is a real delivery of the emulator."""

from __future__ import annotations

from roomsync.core.ports import InboxStatus, ListingKey, ListingState
from support.webhooks import DOUBLES, HOST_A, HOST_B, PROPERTY, STUDIO_A, STUDIO_B, TWINS, Harness

ACCOUNT = {STUDIO_A: HOST_A, STUDIO_B: HOST_A, DOUBLES: HOST_A, TWINS: HOST_B}


def paused(harness: Harness) -> dict[str, str]:
    """Paused listings and the code of their reason."""
    return {
        s.listing.listing_id: (s.pause_reason or "").split(":")[0]
        for s in harness.store.listing_states.list_listing_states(PROPERTY)
        if s.paused
    }


def state(harness: Harness, listing: str) -> ListingState:
    return harness.store.listing_states.get_listing_state(ListingKey(PROPERTY, ACCOUNT[listing], listing))


def gauge(harness: Harness, reason: str) -> float:
    value = harness.metrics.registry.get_sample_value(
        "roomsync_paused_listings", {"property": PROPERTY, "reason": reason}
    )
    return value or 0.0


async def deliver(harness: Harness) -> None:
    harness.settle()
    await harness.drain()
    assert harness.inbox_counts()[InboxStatus.FAILED] == 0


async def test_a_safety_suspension_pauses_the_hosts_listings_until_reactivation(harness: Harness) -> None:
    harness.ctl("POST", "/host/suspend", {"kind": "safety", "accountId": HOST_A})
    await deliver(harness)
    assert paused(harness) == {
        STUDIO_A: "safety_commitment",
        STUDIO_B: "safety_commitment",
        DOUBLES: "safety_commitment",
    }
    assert gauge(harness, "safety_commitment") == 3

    refused = harness.book(STUDIO_A, 170, 2, expect=409)  # a paused listing answers succeed false
    assert refused["stage"] == "CheckAvailability"
    (answer,) = harness.answers()
    assert "paused" in answer.reason and not answer.succeed

    harness.ctl("POST", "/host/reactivate", {"accountId": HOST_A})
    await deliver(harness)
    assert paused(harness) == {}
    assert gauge(harness, "safety_commitment") == 0
    assert harness.book(STUDIO_A, 170, 2)["booked"] is True


async def test_suspensions_unlinks_and_revocations_pause_with_their_reason(harness: Harness) -> None:
    harness.ctl(
        "POST",
        "/host/suspend",
        {"kind": "listing", "listingId": DOUBLES, "capabilities": ["accept_reservation"]},
    )
    harness.ctl("POST", "/host/suspend", {"kind": "host", "accountId": HOST_B, "capabilities": ["login"]})
    harness.ctl("POST", "/host/unlink", {"accountId": HOST_A, "listingIds": [STUDIO_B]})
    await deliver(harness)
    assert paused(harness) == {DOUBLES: "listing_suspended", TWINS: "host_suspended", STUDIO_B: "unlinked"}
    assert "accept_reservation" in (state(harness, DOUBLES).pause_reason or "")

    harness.ctl("POST", "/host/revoke", {"accountId": HOST_B})
    await deliver(harness)
    assert paused(harness)[TWINS] == "authorization_revoked"

    # the host links the listing again: the synchronization category comes back, the pause goes
    harness.ctl("POST", "/host/sync-settings", {"accountId": HOST_A, "listingIds": [STUDIO_B]})
    await deliver(harness)
    assert STUDIO_B not in paused(harness)
    assert state(harness, STUDIO_B).sync_category == "Limited"


async def test_approval_changes_are_recorded(harness: Harness) -> None:
    harness.ctl(
        "POST",
        "/host/approval",
        {"listingId": DOUBLES, "statusCategory": "rejected", "notes": "Photos missing"},
    )
    await deliver(harness)
    assert state(harness, DOUBLES).approval_status == "rejected"
    harness.ctl("POST", "/host/approval", {"listingId": DOUBLES, "statusCategory": "approved"})
    await deliver(harness)
    assert state(harness, DOUBLES).approval_status == "approved"


async def test_special_offers_and_reviews_are_stored_and_visible(harness: Harness) -> None:
    offer = harness.ctl(
        "POST",
        "/host/special-offer",
        {"listingId": STUDIO_A, "startDate": harness.day(180).isoformat(), "nights": 3, "totalPrice": 450},
    )
    harness.ctl("POST", "/host/void-offer", {"specialOfferId": offer["specialOfferId"]})
    code = harness.book(STUDIO_A, 185, 2)["confirmationCode"]
    for stage in ("created", "submitted", "published", "response"):
        harness.ctl("POST", "/host/review", {"confirmationCode": code, "stage": stage})
    harness.ctl(
        "POST", "/host/review", {"confirmationCode": code, "stage": "created", "reviewerRole": "host"}
    )
    harness.ctl(
        "POST", "/host/review", {"confirmationCode": code, "stage": "expired", "reviewerRole": "host"}
    )
    await deliver(harness)

    listed = harness.store.webhook_records.recent_inbox(PROPERTY, limit=100)
    actions = {row.action for row in listed}
    assert {
        "SpecialOfferCreated",
        "SpecialOfferVoided",
        "ReviewCreated",
        "ReviewSubmitted",
        "ReviewPublished",
        "ReviewResponseSubmitted",
        "ReviewExpired",
    } <= actions
    assert {row.status for row in listed} == {"done"}
    review = next(row for row in listed if row.action == "ReviewSubmitted")
    body = harness.store.webhook_records.inbox_body(PROPERTY, review.id)
    assert body is not None and code in body
