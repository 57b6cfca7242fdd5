"""The one rule book of the client: what a response or a transport failure means (pure, no HTTP)."""

from __future__ import annotations

from datetime import UTC, datetime, timedelta
from email.utils import format_datetime

import httpx
import pytest

from roomsync.adapters.client import Action, classify
from roomsync.adapters.client.classify import retry_after_seconds

NOW = datetime(2027, 3, 1, 9, 0, tzinfo=UTC)
RESET = datetime(2027, 3, 2, 0, 0, tzinfo=UTC)  # 15 hours after NOW
MAX_WAIT = 60.0
REQUEST = httpx.Request("GET", "http://service.test/v1/Rooms")


def verdict_of(outcome: httpx.Response | httpx.TransportError) -> Action:
    return classify(outcome, now=NOW, resets_at=RESET, max_wait=MAX_WAIT).action


def answer(status: int, **headers: str) -> httpx.Response:
    return httpx.Response(status, headers=headers, request=REQUEST)


@pytest.mark.parametrize(
    ("status", "action"),
    [
        (200, Action.OK),
        (204, Action.OK),
        (400, Action.FATAL),
        (409, Action.FATAL),
        (415, Action.FATAL),
        (401, Action.AUTH),
        (403, Action.FORBIDDEN),
        (404, Action.NOT_FOUND),
        (408, Action.RETRY),
        (503, Action.RETRY),  # the service did not take the request
        (502, Action.MAYBE_SENT),  # a gateway may have passed it on before failing
        (504, Action.MAYBE_SENT),
        (500, Action.SERVER_ERROR),  # not retried: a bug does not heal
    ],
)
def test_statuses(status: int, action: Action) -> None:
    assert verdict_of(answer(status)) is action


@pytest.mark.parametrize(
    "error",
    [
        httpx.ConnectError("refused", request=REQUEST),
        httpx.ConnectTimeout("slow connect", request=REQUEST),
        httpx.PoolTimeout("no free connection", request=REQUEST),
    ],
)
def test_failures_before_sending_are_retried_for_every_method(error: httpx.TransportError) -> None:
    assert verdict_of(error) is Action.RETRY


@pytest.mark.parametrize(
    "error",
    [
        httpx.ReadTimeout("no answer", request=REQUEST),
        httpx.WriteTimeout("body stuck", request=REQUEST),
        httpx.RemoteProtocolError("Server disconnected without sending a response.", request=REQUEST),
        httpx.ReadError("connection reset", request=REQUEST),
    ],
)
def test_failures_after_sending_may_have_reached_the_server(error: httpx.TransportError) -> None:
    assert verdict_of(error) is Action.MAYBE_SENT


def test_429_with_a_short_wait_is_waited_for() -> None:
    verdict = classify(answer(429, **{"Retry-After": "3"}), now=NOW, resets_at=RESET, max_wait=MAX_WAIT)
    assert verdict.action is Action.WAIT
    assert verdict.wait == 3.0


def test_429_without_retry_after_uses_the_backoff() -> None:
    verdict = classify(answer(429), now=NOW, resets_at=RESET, max_wait=MAX_WAIT)
    assert (verdict.action, verdict.wait) == (Action.WAIT, None)


def test_429_until_the_reset_is_a_spent_day_not_a_nap() -> None:
    seconds_to_reset = (RESET - NOW).total_seconds()
    verdict = classify(
        answer(429, **{"Retry-After": str(int(seconds_to_reset))}),
        now=NOW,
        resets_at=RESET,
        max_wait=MAX_WAIT,
    )
    assert verdict.action is Action.QUOTA
    assert "quota resets" in verdict.reason


def test_429_longer_than_the_cap_but_before_the_reset_is_left_to_the_caller() -> None:
    verdict = classify(answer(429, **{"Retry-After": "600"}), now=NOW, resets_at=RESET, max_wait=MAX_WAIT)
    assert verdict.action is Action.WAIT_TOO_LONG
    assert verdict.wait == 600.0


def test_429_that_ends_at_a_reset_within_the_cap_is_waited_for() -> None:
    """One second before midnight, waiting for the fresh quota is cheaper than failing."""
    now = RESET - timedelta(seconds=2)
    verdict = classify(answer(429, **{"Retry-After": "2"}), now=now, resets_at=RESET, max_wait=MAX_WAIT)
    assert (verdict.action, verdict.wait) == (Action.WAIT, 2.0)


def test_retry_after_as_an_http_date() -> None:
    assert retry_after_seconds(format_datetime(NOW + timedelta(seconds=90), usegmt=True), NOW) == 90.0
    assert retry_after_seconds("soon", NOW) is None
    assert retry_after_seconds(None, NOW) is None
    assert retry_after_seconds("-5", NOW) == 0.0


def test_503_honours_a_short_retry_after_only() -> None:
    short = classify(answer(503, **{"Retry-After": "4"}), now=NOW, resets_at=RESET, max_wait=MAX_WAIT)
    long = classify(answer(503, **{"Retry-After": "3600"}), now=NOW, resets_at=RESET, max_wait=MAX_WAIT)
    assert (short.action, short.wait) == (Action.RETRY, 4.0)
    assert (long.action, long.wait) == (Action.RETRY, None)  # the usual backoff instead
