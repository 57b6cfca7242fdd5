"""Small value objects that configure the client: timeouts, connection limits, retry policy."""

from __future__ import annotations

from dataclasses import dataclass
from datetime import timedelta

import httpx

from roomsync.core.budget import Reserves
from roomsync.settings import Settings

__all__ = ["ConnectionLimits", "RetryPolicy", "Timeouts", "reserves_of"]


def reserves_of(settings: Settings) -> Reserves:
    """The per-priority reserves of the settings (``reserve_availability``/``prices``/``reconcile``),
    none keeping back more than the spend shares leave."""
    return Reserves(
        availability=settings.reserve_availability,
        prices=settings.reserve_prices,
        reconcile=settings.reserve_reconcile,
        spend_shares=(settings.spend_share, settings.free_licence_spend_share),
    )


@dataclass(frozen=True)
class Timeouts:
    """Seconds for each phase of a request (settings connect/read/write/pool_timeout)."""

    connect: float = 5.0
    read: float = 20.0
    write: float = 20.0
    pool: float = 5.0

    @classmethod
    def from_settings(cls, settings: Settings) -> Timeouts:
        return cls(
            connect=settings.connect_timeout,
            read=settings.read_timeout,
            write=settings.write_timeout,
            pool=settings.pool_timeout,
        )

    def to_httpx(self) -> httpx.Timeout:
        return httpx.Timeout(connect=self.connect, read=self.read, write=self.write, pool=self.pool)


@dataclass(frozen=True)
class ConnectionLimits:
    """Size of the connection pool; one property rarely needs more than a handful."""

    max_connections: int = 10
    max_keepalive_connections: int = 5
    keepalive_expiry: float = 30.0

    def to_httpx(self) -> httpx.Limits:
        return httpx.Limits(
            max_connections=self.max_connections,
            max_keepalive_connections=self.max_keepalive_connections,
            keepalive_expiry=self.keepalive_expiry,
        )


@dataclass(frozen=True)
class RetryPolicy:
    """How the client retries; every retry is budgeted like any request.

    ``backoff_base``/``backoff_max`` feed tenacity's ``wait_random_exponential`` (full jitter:
    a wait is uniform in ``[0, min(backoff_max, backoff_base * 2**n)]``). Tests pass tiny values.
    """

    max_retries: int = 4
    """Retries after the first attempt (setting ``max_retries``)."""
    backoff_base: float = 0.5
    backoff_max: float = 30.0
    max_wait: float = 60.0
    """The longest single wait the client will sleep (a 429's ``Retry-After`` included); a longer
    wait is the caller's to schedule (setting ``max_retry_wait``)."""
    settle: float = 1.0
    """Seconds to let a timed-out create finish on the server before looking it up."""
    token_margin: timedelta = timedelta(minutes=5)
    """A stored token is renewed this long before it expires, so it never dies mid-request."""

    @classmethod
    def from_settings(cls, settings: Settings) -> RetryPolicy:
        """The policy of the settings; ``dataclasses.replace`` changes single values (tests)."""
        return cls(max_retries=settings.max_retries, max_wait=settings.max_retry_wait)
