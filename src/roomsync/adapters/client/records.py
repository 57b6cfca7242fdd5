"""One record per HTTP request the client sends, for metrics and tests."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass

from roomsync.core.catalog.types import Priority

__all__ = ["RequestHook", "RequestRecord", "ignore_record"]


@dataclass(frozen=True)
class RequestRecord:
    """What one HTTP request cost and how it ended (no headers, no bodies: no secrets)."""

    operation: str
    """Catalog name of the operation (``get_listing``)."""
    path: str
    """Path template, not the concrete path: ids stay out of metric labels."""
    method: str
    status: int | None
    """HTTP status, None when no response came (timeout, dropped connection)."""
    seconds: float
    request_bytes: int
    response_bytes: int
    attempt: int
    """1 for the first send of a call; retries, the replay after a 401 and lookups count up."""
    priority: Priority
    outcome: str
    """How the client classified the result (``ok``, ``retry``, ``auth``, ...)."""


RequestHook = Callable[[RequestRecord], None]
"""Receives every :class:`RequestRecord`; must be quick and must not raise."""


def ignore_record(record: RequestRecord) -> None:
    """The default hook: measure nothing."""
