"""The ports of the API token and the daily request budget."""

from __future__ import annotations

from dataclasses import dataclass
from datetime import date, datetime
from typing import Protocol

from roomsync.core.budget import BudgetSnapshot, Reserves, ServerLimits
from roomsync.core.catalog.types import Priority


@dataclass(frozen=True)
class StoredToken:
    access_token: str
    expires_at: datetime
    """UTC instant after which the token must not be used."""

    def __repr__(self) -> str:  # the token is a secret
        return f"StoredToken(expires_at={self.expires_at.isoformat()})"


class TokenStore(Protocol):
    def load_token(self, property_id: str) -> StoredToken | None: ...

    def save_token(self, property_id: str, token: StoredToken) -> None: ...

    def clear_token(self, property_id: str) -> None: ...


class BudgetStore(Protocol):
    def try_spend(
        self,
        property_id: str,
        day: date,
        priority: Priority,
        quota: int,
        reserves: Reserves,
        cost: int = 1,
    ) -> BudgetSnapshot | None:
        """Atomically count ``cost`` requests at ``priority`` if the budget allows it.

        Returns the snapshot after spending, or None (and counts a refusal) when the request
        would eat into the reserve of ``priority``. Safe against concurrent replicas.
        """
        ...

    def observe_server(
        self,
        property_id: str,
        day: date,
        quota: int,
        used: int,
        *,
        server_quota: int | None = None,
        resets_at: datetime | None = None,
    ) -> None:
        """Record what the server reported (usage headers or ``GET /v1/Usage``): the count never
        lowers; the server's limit and reset instant, when given, replace the ones kept."""
        ...

    def server_limits(self, property_id: str) -> ServerLimits | None:
        """What the server said last about the property's quota (limit, reset), if anything."""
        ...

    def snapshot(self, property_id: str, day: date, quota: int) -> BudgetSnapshot: ...

    def carry_over(self, property_id: str, from_day: date, to_day: date, quota: int) -> None:
        """Add the counts kept under ``from_day`` to ``to_day`` and drop ``from_day``: requests
        counted by UTC midnight before the server's reset was known belong to its period."""
