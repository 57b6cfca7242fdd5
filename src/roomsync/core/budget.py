"""The daily request budget, as pure arithmetic.

A property's quota is shared with every other application of the property (03-conventions), so
the budget's view of "used" is the larger of what roomsync counted itself and what the server's
usage headers (or ``GET /v1/Usage``) said. Each priority keeps a reserve: a request of priority P
is refused locally when fewer than ``reserve(P)`` requests would remain after it, so guest-facing
checks and reservation writes (reserve 0) are the last thing a short day gives up.
"""

from __future__ import annotations

import math
from dataclasses import dataclass, field
from datetime import UTC, date, datetime, time, timedelta

from roomsync.core.catalog.types import Priority

FREE_LICENCE_QUOTA = 100
"""A free licence's requests a day (03-conventions); a quota this small or smaller is one."""


@dataclass(frozen=True)
class Reserves:
    """Requests kept back from each priority, as shares of the daily quota."""

    availability: float = 0.05
    prices: float = 0.15
    reconcile: float = 0.30
    spend_shares: tuple[float, float] | None = None
    """Most of the day's quota roomsync may spend in all, on a paid licence and on a free one
    (``spend_share``, ``free_licence_spend_share``); None: no such limit. The prices' and the
    reconciliation's reserves keep back no more than the rest (and never less than the guest
    reserve): at a spend share of 0.9, a 15 % reserve refused the evening's price writes and a 30 %
    one the day's last reconciliation that the day's plan had paid for (the week bench)."""

    def count(self, priority: Priority, quota: int) -> int:
        """Requests that must remain after a request of ``priority`` is spent."""
        share = {
            Priority.GUEST: 0.0,
            Priority.AVAILABILITY: self.availability,
            Priority.PRICES: self.prices,
            Priority.RECONCILE: self.reconcile,
        }[priority]
        if self.spend_shares is not None and priority in (Priority.PRICES, Priority.RECONCILE):
            paid, free = self.spend_shares
            spend = free if quota <= FREE_LICENCE_QUOTA else paid
            share = min(share, max(1 - spend, self.availability))
        return math.ceil(share * quota)


@dataclass(frozen=True)
class BudgetSnapshot:
    """The budget of one property on one UTC day."""

    property_id: str
    day: date
    quota: int
    used_local: int
    """Requests roomsync itself sent today (a request never sent, no connection made, is given back)."""
    used_server: int
    """Requests the server said were used today (all applications), 0 if never told."""
    by_priority: dict[Priority, int] = field(default_factory=dict)
    refused_by_priority: dict[Priority, int] = field(default_factory=dict)

    @property
    def used(self) -> int:
        return max(self.used_local, self.used_server)

    @property
    def remaining(self) -> int:
        return max(self.quota - self.used, 0)

    def allows(self, priority: Priority, reserves: Reserves, cost: int = 1) -> bool:
        """True when spending ``cost`` requests at ``priority`` keeps that priority's reserve."""
        return self.remaining - cost >= reserves.count(priority, self.quota)


def utc_day_of(epoch_seconds: float) -> date:
    """The UTC calendar day of a Unix time (the quota resets at 00:00 UTC)."""
    return datetime.fromtimestamp(epoch_seconds, tz=UTC).date()


def next_utc_midnight(now: datetime) -> datetime:
    """00:00 UTC after ``now``: when the quota resets if the server never said otherwise (03)."""
    return datetime.combine(now.astimezone(UTC).date() + timedelta(days=1), time(0), tzinfo=UTC)


def budget_period(now: datetime, server_reset: datetime | None) -> tuple[date, datetime]:
    """The budget period ``now`` falls in: its key (a day) and when it ends.

    The period ends at the server's reset instant when the server ever said one (a reset seen in
    the past is carried forward by whole days: the service resets daily), else at the next 00:00
    UTC. Its key is the day before its end, so with a UTC-midnight reset the key is the UTC date,
    and a service that resets at another hour never splits one of its days over two keys. For the
    key the instant is rounded to the minute: "seconds until the reset" read a second apart must
    not move a reset at 00:00:00 to 23:59:59 of the day before.
    """
    if server_reset is None:
        ends = next_utc_midnight(now)
    else:
        ends = server_reset
        if ends <= now:
            ends += timedelta(days=((now - ends) // timedelta(days=1)) + 1)
    rounded = (ends + timedelta(seconds=30)).replace(second=0, microsecond=0)
    return (rounded - timedelta(days=1)).astimezone(UTC).date(), ends


@dataclass(frozen=True)
class ServerLimits:
    """What the server last said about a property's quota (usage headers, ``GET /v1/Usage``)."""

    quota: int | None
    """The server's daily limit, None if it never said."""
    resets_at: datetime | None
    """The server's reset instant, None if it never said."""


def effective_quota(configured: int, limits: ServerLimits | None) -> int:
    """The server's limit when it said one, else the ``daily_quota`` setting: the server is the
    truth about the licence (a free licence's 100 wins over a configured 1,500)."""
    return limits.quota if limits is not None and limits.quota else configured
