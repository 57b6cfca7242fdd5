"""The receiver's contract over loopback: authentication, bad bodies, dedupe, the reply shape."""

from __future__ import annotations

import json
import time
from typing import Any

import pytest

from roomsync.core.ports import InboxStatus
from support.webhooks import HOST_A, PROPERTY, SECRET, STUDIO_A, Harness, signed_headers

UNLINK: dict[str, Any] = {"action": "ListingsUnlinked", "hostId": HOST_A, "listingIds": [STUDIO_A]}


def stored(harness: Harness) -> int:
    return sum(harness.inbox_counts().values())


def dead_letters(harness: Harness) -> list[Any]:
    return harness.store.dead_letters.list_dead_letters(PROPERTY)


async def test_a_signed_event_is_stored_before_the_receiver_answers(harness: Harness) -> None:
    response = harness.post(UNLINK, webhook_id="wh-1")
    assert response.status_code == 200
    assert response.json() == {"succeed": True, "failure_code": None}
    assert harness.inbox_counts()[InboxStatus.PENDING] == 1


@pytest.mark.parametrize(
    ("headers", "offset", "problem"),
    [
        ({"X-Webhook-Signature": "t=1,v1=" + "0" * 64}, None, "timestamp outside the tolerance"),
        ({}, -400, "timestamp outside the tolerance"),
        ({}, +400, "timestamp outside the tolerance"),
        ({"X-Webhook-Signature": "t={now},v1=" + "0" * 64}, None, "does not match"),
        ({"X-Webhook-Signature": "garbage"}, None, "malformed"),
    ],
)
async def test_a_wrong_or_stale_signature_is_refused_with_401(
    harness: Harness, headers: dict[str, str], offset: int | None, problem: str
) -> None:
    # instants taken when the test runs, not when pytest collects it (a slow run may be minutes later)
    now = int(time.time())
    at = None if offset is None else now + offset
    sent = {name: value.replace("{now}", str(now)) for name, value in headers.items()}
    response = harness.post(UNLINK, webhook_id="wh-1", at=at, headers=sent)
    assert response.status_code == 401
    assert problem in response.json()["reason"]
    assert response.json()["succeed"] is False
    assert stored(harness) == 0 and dead_letters(harness) == []


async def test_an_unsigned_delivery_is_refused_when_signatures_are_required(harness: Harness) -> None:
    response = harness.post(UNLINK, webhook_id="wh-1", signed=False)
    assert response.status_code == 401
    assert "missing" in response.json()["reason"]
    assert stored(harness) == 0


async def test_a_body_changed_after_signing_is_refused(harness: Harness) -> None:
    body = json.dumps(UNLINK).encode()
    tampered = body.replace(STUDIO_A.encode(), b"41000009")
    response = harness.http.post(harness.receiver_url, content=tampered, headers=signed_headers(body))
    assert response.status_code == 401
    assert stored(harness) == 0


@pytest.mark.parametrize(
    ("body", "reason"),
    [
        (b"{not json", "not valid JSON"),
        (b"[1, 2]", "must be a JSON object"),
        (b'{"hostId": "2001"}', "no 'action'"),
        (b'{"action": "ListingExploded", "listingId": "1"}', "unknown webhook action 'ListingExploded'"),
        (b'{"action": "ListingsUnlinked", "listingIds": ["1"]}', "hostId"),
        (
            b'{"action": "CheckAvailability", "startDate": "2027-02-30", "nights": "2", "listingId": "1"}',
            "startDate",
        ),
        (b"\xff\xfe\x00garbage", "not valid JSON"),
    ],
)
async def test_a_bad_body_is_a_400_with_the_reason_and_a_dead_letter(
    harness: Harness, body: bytes, reason: str
) -> None:
    response = harness.post(body, webhook_id="wh-bad")
    assert response.status_code == 400
    assert reason in response.json()["reason"]
    assert stored(harness) == 0
    (letter,) = dead_letters(harness)
    assert reason in letter.reason
    assert letter.headers["x-webhook-id"] == "wh-bad"
    assert letter.headers["x-webhook-signature"] == "[stripped]"  # no secret material kept
    assert SECRET not in json.dumps(letter.headers)
    if body.startswith(b"{"):
        assert letter.body == body.decode()


async def test_a_retry_with_the_same_webhook_id_is_stored_once(harness: Harness) -> None:
    first = harness.post(UNLINK, webhook_id="wh-7")
    again = harness.post(json.dumps(UNLINK, indent=2).encode(), webhook_id="wh-7")
    assert first.json() == again.json() == {"succeed": True, "failure_code": None}
    assert stored(harness) == 1


async def test_without_a_webhook_id_the_same_event_is_recognised_by_its_content(harness: Harness) -> None:
    harness.post(UNLINK)
    reordered = {"listingIds": [STUDIO_A], "hostId": HOST_A, "action": "ListingsUnlinked"}
    harness.post(reordered)
    assert stored(harness) == 1
    harness.post({**UNLINK, "listingIds": ["41000002"]})
    assert stored(harness) == 2


async def test_two_notifications_with_equal_fields_and_distinct_ids_are_both_kept(harness: Harness) -> None:
    harness.post(UNLINK, webhook_id="wh-1")
    harness.post(UNLINK, webhook_id="wh-2")
    assert stored(harness) == 2


async def test_another_channel_segment_is_not_found(harness: Harness) -> None:
    body = json.dumps(UNLINK).encode()
    url = harness.receiver_url.replace("RentalChannel", "OtherChannel")
    response = harness.http.post(url, content=body, headers=signed_headers(body))
    assert response.status_code == 404
    assert stored(harness) == 0


@pytest.mark.parametrize("settings_overrides", [{"webhook_max_body_bytes": 2048}])
async def test_a_body_over_the_limit_is_refused_with_413(harness: Harness) -> None:
    response = harness.post({**UNLINK, "padding": "x" * 5000})
    assert response.status_code == 413
    assert stored(harness) == 0


@pytest.mark.parametrize(
    "settings_overrides",
    [{"webhook_token": "shared-token-123", "webhook_require_signature": False, "webhook_secret": None}],
)
async def test_a_shared_token_is_checked_when_configured(harness: Harness) -> None:
    assert harness.post(UNLINK, signed=False).status_code == 401
    wrong = harness.post(UNLINK, signed=False, headers={"X-Webhook-Token": "shared-token-12"})
    assert wrong.status_code == 401 and "shared-token" not in wrong.text
    right = harness.post(UNLINK, signed=False, headers={"X-Webhook-Token": "shared-token-123"})
    assert right.status_code == 200
    assert stored(harness) == 1


@pytest.mark.parametrize("settings_overrides", [{"webhook_require_signature": False}])
async def test_with_signatures_optional_a_signed_delivery_must_still_be_right(harness: Harness) -> None:
    assert harness.post(UNLINK, signed=False, webhook_id="wh-1").status_code == 200
    assert (
        harness.post(UNLINK, webhook_id="wh-2", headers={"X-Webhook-Signature": "t=1,v1=00"}).status_code
        == 401
    )
    assert stored(harness) == 1
