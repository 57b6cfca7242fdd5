"""The one place that decides what a response or a transport failure means for the client."""

from __future__ import annotations

from dataclasses import dataclass
from datetime import datetime, timedelta
from email.utils import parsedate_to_datetime
from enum import StrEnum

import httpx

__all__ = ["Action", "Verdict", "classify", "never_sent", "retry_after_seconds"]


class Action(StrEnum):
    """What the client does next."""

    OK = "ok"
    RETRY = "retry"
    """The request surely was not processed (connect failure, pool timeout, 503, 408): resend."""
    MAYBE_SENT = "maybe_sent"
    """The request may have been processed (read timeout, dropped connection, 502, 504): resend
    only what is safe to repeat; a create is looked up first."""
    WAIT = "wait"
    """429 with a wait within ``max_wait`` (even one that ends at the quota reset): wait, resend."""
    WAIT_TOO_LONG = "wait_too_long"
    """429 whose wait is longer than ``max_wait`` but ends before the reset: the caller's to schedule."""
    QUOTA = "quota"
    """429 whose wait is longer than ``max_wait`` and runs to (or past) the quota reset: the day
    is spent; the client says so instead of sleeping for hours."""
    AUTH = "auth"
    """401: the token is missing, expired or revoked; renew it once and replay."""
    FORBIDDEN = "forbidden"
    """403: the credentials are valid but may not do this; renewing will not help."""
    NOT_FOUND = "not_found"
    FATAL = "fatal"
    """Any other 4xx: the request is wrong as it is."""
    SERVER_ERROR = "server_error"
    """500 and 5xx other than 502/503/504: the request may have been processed. The client
    retries it only when resending is safe (reads, idempotent writes), never a create."""


@dataclass(frozen=True)
class Verdict:
    action: Action
    status: int | None
    reason: str
    """Short words for logs and error messages (never a header value or a body)."""
    wait: float | None = None
    """Seconds the server asked to wait (429 ``Retry-After``), None to use the backoff."""


_NOT_SENT = (httpx.ConnectError, httpx.ConnectTimeout, httpx.PoolTimeout, httpx.UnsupportedProtocol)
# Everything else that httpx raises while a request is on the wire (read/write timeouts, read or
# write errors, a server that closes the connection without answering) may have reached the server.


def never_sent(outcome: httpx.Response | httpx.TransportError) -> bool:
    """Whether ``outcome`` proves that no byte of the request reached the service (no connection
    was made): such a request costs the daily budget nothing."""
    return isinstance(outcome, _NOT_SENT)


def retry_after_seconds(value: str | None, now: datetime) -> float | None:
    """A ``Retry-After`` value (seconds or HTTP date) as seconds from ``now``; None if unreadable."""
    if not value:
        return None
    value = value.strip()
    try:
        return max(float(value), 0.0)
    except ValueError:
        pass
    try:
        when = parsedate_to_datetime(value)
    except (TypeError, ValueError):
        return None
    return max((when - now).total_seconds(), 0.0)


def classify(
    outcome: httpx.Response | httpx.TransportError,
    *,
    now: datetime,
    resets_at: datetime,
    max_wait: float,
) -> Verdict:
    """What ``outcome`` means: the single rule book of retries, auth, quota and errors.

    ``resets_at`` is when the daily quota resets (from the server's reset header when known), so
    a 429 whose ``Retry-After`` runs to the reset is recognised as a spent day, not slept through.
    """
    if isinstance(outcome, httpx.TransportError):
        kind = type(outcome).__name__
        if isinstance(outcome, _NOT_SENT):
            return Verdict(Action.RETRY, None, f"{kind}: the request was not sent")
        return Verdict(Action.MAYBE_SENT, None, f"{kind}: the request may have reached the server")

    status = outcome.status_code
    if 200 <= status < 300:
        return Verdict(Action.OK, status, "ok")
    if status == 401:
        return Verdict(Action.AUTH, status, "401 unauthorized")
    if status == 403:
        return Verdict(Action.FORBIDDEN, status, "403 forbidden")
    if status == 404:
        return Verdict(Action.NOT_FOUND, status, "404 not found")
    if status == 408:
        return Verdict(Action.RETRY, status, "408 request timeout")
    if status == 429:
        wait = retry_after_seconds(outcome.headers.get("Retry-After"), now)
        if wait is None:
            return Verdict(Action.WAIT, status, "429 without Retry-After")
        if wait <= max_wait:
            return Verdict(Action.WAIT, status, f"429: Retry-After {wait:.0f} s", wait)
        if now + timedelta(seconds=wait) >= resets_at - timedelta(seconds=1):
            return Verdict(
                Action.QUOTA, status, f"429: Retry-After {wait:.0f} s runs until the quota resets", wait
            )
        return Verdict(
            Action.WAIT_TOO_LONG,
            status,
            f"429: Retry-After {wait:.0f} s is longer than max_retry_wait {max_wait:.0f} s",
            wait,
        )
    if status == 503:
        wait = retry_after_seconds(outcome.headers.get("Retry-After"), now)
        if wait is not None and wait > max_wait:
            wait = None  # an unavailable service asking for long: back off as usual instead
        return Verdict(Action.RETRY, status, "503 service unavailable", wait)
    if status in (502, 504):
        return Verdict(
            Action.MAYBE_SENT, status, f"{status} from a gateway: the request may have been processed"
        )
    if status >= 500:
        return Verdict(Action.SERVER_ERROR, status, f"{status} server error")
    return Verdict(Action.FATAL, status, f"{status} refused")
