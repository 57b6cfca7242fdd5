"""Authentication and the daily request quota of the emulated property (03-conventions).

* :class:`Credentials` and :class:`TokenRegistry`: ``POST /v1/Token`` with the property's
  user name, password and domain hands out a bearer token that lives 86,399 seconds of the
  emulator clock. A static-key mode accepts one fixed key in a named header instead.
* :class:`DailyQuota`: 1,500 requests a day (100 on a free licence), counted per UTC day of the
  emulator clock and reset at 00:00 UTC.
"""

from __future__ import annotations

import secrets
from dataclasses import dataclass, field
from datetime import date, datetime, timedelta

from roomsync.emulator.clock import EmulatorClock
from roomsync.emulator.errors import ApiError

TOKEN_LIFETIME_SECONDS = 86399
PAID_QUOTA = 1500
FREE_QUOTA = 100


@dataclass
class Credentials:
    """What ``POST /v1/Token`` accepts, and the optional static key."""

    username: str = "demo"
    password: str = "demo"
    domain: str = "demo-hotel"
    static_key: str | None = None
    """When set, API requests must carry this key in ``auth_header`` instead of a bearer token."""
    auth_header: str = "apikey"

    def matches(self, username: str, password: str, domain: str) -> bool:
        return (
            secrets.compare_digest(username, self.username)
            and secrets.compare_digest(password, self.password)
            and secrets.compare_digest(domain.lower(), self.domain.lower())
        )

    def describe(self) -> dict[str, object]:
        # The password and the key are secrets: the control surface only says whether one is set.
        return {
            "username": self.username,
            "domain": self.domain,
            "staticKeyMode": self.static_key is not None,
            "authHeader": self.auth_header,
        }


@dataclass
class TokenRegistry:
    """Bearer tokens handed out, each with its expiry on the emulator clock."""

    clock: EmulatorClock
    lifetime: timedelta = timedelta(seconds=TOKEN_LIFETIME_SECONDS)
    _expiry: dict[str, datetime] = field(default_factory=dict)

    def issue(self) -> str:
        token = secrets.token_urlsafe(32)
        self._expiry[token] = self.clock.now() + self.lifetime
        return token

    def knows(self, token: str) -> bool:
        """This registry issued ``token`` (valid or expired): the multi-domain front routes by it."""
        return token in self._expiry

    def valid(self, token: str) -> bool:
        expires = self._expiry.get(token)
        return expires is not None and self.clock.now() < expires

    def expire_all(self) -> int:
        """Make every token handed out so far invalid (a client must then ask again)."""
        count = len(self._expiry)
        self._expiry.clear()
        return count

    @property
    def issued(self) -> int:
        return len(self._expiry)


@dataclass(frozen=True)
class QuotaDecision:
    """The outcome of counting one request, and the values of the usage headers."""

    allowed: bool
    limit: int
    remaining: int
    reset_seconds: int


@dataclass
class DailyQuota:
    """Requests counted per UTC day of the emulator clock."""

    clock: EmulatorClock
    paid_quota: int = PAID_QUOTA
    free_licence: bool = False
    used: int = 0
    day: date | None = None

    @property
    def limit(self) -> int:
        return FREE_QUOTA if self.free_licence else self.paid_quota

    def _roll(self) -> None:
        today = self.clock.today()
        if self.day != today:
            self.day = today
            self.used = 0

    def spend(self) -> QuotaDecision:
        """Count one request if the day allows it; past the quota nothing more is counted."""
        self._roll()
        allowed = self.used < self.limit
        if allowed:
            self.used += 1
        return self.peek(allowed=allowed)

    def peek(self, *, allowed: bool = True) -> QuotaDecision:
        """The header values without counting anything."""
        self._roll()
        return QuotaDecision(
            allowed=allowed,
            limit=self.limit,
            remaining=max(self.limit - self.used, 0),
            reset_seconds=self.clock.seconds_to_midnight(),
        )

    def set_used(self, used: int) -> None:
        self._roll()
        self.used = max(0, used)

    def describe(self) -> dict[str, object]:
        decision = self.peek()
        return {
            "dailyQuota": decision.limit,
            "paidQuota": self.paid_quota,
            "freeLicence": self.free_licence,
            "usedCalls": self.used,
            "remaining": decision.remaining,
            "resetSeconds": decision.reset_seconds,
            "day": self.day.isoformat() if self.day else None,
        }


class OAuthError(ApiError):
    """A token-endpoint error, answered OAuth-style: ``{"error": ..., "error_description": ...}``."""

    def __init__(self, status: int, oauth_code: str, description: str) -> None:
        super().__init__(status, oauth_code.upper(), description)
        self.oauth_code = oauth_code
