"""What the receiver needs from the application, as a small protocol it is handed.

The receiver translates HTTP into stored events; deciding a guest check (is the listing mapped
and not paused, is a room free throughout, hold it) is application logic and lives in
``roomsync.app.webhooks.checkout``. The receiver is given a :class:`GuestCheckDesk` and never
imports the application (an import-linter contract says so).
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from datetime import datetime
from typing import Protocol

from roomsync.core.api import webhooks as events
from roomsync.core.ports import AcceptedDelivery, NewDelivery

Clock = Callable[[], datetime]
"""The current instant, timezone-aware UTC."""

GuestCheck = events.CheckAvailability | events.MakeReservation | events.UpdateReservation


@dataclass(frozen=True)
class Verdict:
    succeed: bool
    reason: str


@dataclass(frozen=True)
class Answered:
    delivery: AcceptedDelivery
    verdict: Verdict


class AnswerBatch(Protocol):
    """The answers given, gathered in memory and written together."""

    FLUSH_SECONDS: float

    def flush(self) -> int:
        """Write what is waiting (blocking: call it off the event loop); returns how many."""
        ...


class GuestCheckDesk(Protocol):
    """Stores a guest check in the inbox and answers it while the guest waits."""

    @property
    def answers(self) -> AnswerBatch: ...

    async def receive(self, event: GuestCheck, delivery: NewDelivery) -> Answered: ...
