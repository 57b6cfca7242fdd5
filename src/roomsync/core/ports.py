"""The small protocols the adapters implement, so callers never depend on a database.

The store (``roomsync.adapters.store``) implements them on SQLite and Postgres. They are
synchronous: each call is one short transaction.
"""

from __future__ import annotations

from dataclasses import dataclass
from datetime import date, datetime
from typing import Protocol

from roomsync.core.budget import BudgetSnapshot, Reserves
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

    def observe_server(self, property_id: str, day: date, quota: int, used: int) -> None:
        """Record what the server reported (usage headers or ``GET /v1/Usage``); never lowers."""
        ...

    def snapshot(self, property_id: str, day: date, quota: int) -> BudgetSnapshot: ...
