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
from datetime import date

from roomsync.core.catalog.types import Priority


@dataclass(frozen=True)
class Reserves:
    """Requests kept back from each priority, as shares of the daily quota."""

    availability: float = 0.05
    prices: float = 0.15
    reconcile: float = 0.30

    def count(self, priority: Priority, quota: int) -> int:
        """Requests that must remain after a request of ``priority`` is spent."""
        share = {
            Priority.GUEST: 0.0,
            Priority.AVAILABILITY: self.availability,
            Priority.PRICES: self.prices,
            Priority.RECONCILE: self.reconcile,
        }[priority]
        return math.ceil(share * quota)


@dataclass(frozen=True)
class BudgetSnapshot:
    """The budget of one property on one UTC day."""

    property_id: str
    day: date
    quota: int
    used_local: int
    """Requests roomsync itself sent (or tried to send) today."""
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
    from datetime import UTC, datetime

    return datetime.fromtimestamp(epoch_seconds, tz=UTC).date()
