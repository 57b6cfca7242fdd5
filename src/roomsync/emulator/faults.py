"""Fault injection: the ways a real service misbehaves, switched on through the control surface.

Per API request, in this order (docs/emulator.md):

1. added latency (``latency_ms``, and ``slow_ms`` more for a share ``slow_rate`` of requests)
   before anything else;
2. a dropped connection: the socket is closed without any response (``drop_next`` requests,
   then each request with probability ``drop_rate``);
3. a forced 429 with ``Retry-After`` (``throttle_next`` requests; ``throttle_retry_after`` seconds,
   or until the quota reset), not counted against the quota;
4. a 5xx error body (``error_next`` requests, then probability ``error_rate``), status
   ``error_status`` or, when ``error_statuses`` is given, one drawn from it.

``webhook_delay_ms`` delays every webhook delivery attempt (a slow service, not a slow receiver).
Random draws use the emulator's seeded generator, so a seeded run fails the same requests.
"""

from __future__ import annotations

import asyncio
import random
from dataclasses import asdict, dataclass, field
from enum import StrEnum
from typing import Any

from starlette.types import Send


class Fault(StrEnum):
    NONE = "none"
    DROP = "drop"
    THROTTLE = "throttle"
    ERROR = "error"


@dataclass
class FaultSettings:
    latency_ms: int = 0
    drop_rate: float = 0.0
    drop_next: int = 0
    throttle_next: int = 0
    throttle_retry_after: int | None = None
    """``Retry-After`` of a forced 429 in seconds; None: until the quota reset, like a spent day."""
    error_rate: float = 0.0
    error_next: int = 0
    error_status: int = 503
    error_statuses: list[int] = field(default_factory=list)
    """When given, each injected error draws its status from these (500s and 502s mixed)."""
    webhook_delay_ms: int = 0
    slow_rate: float = 0.0
    """Probability that a request is answered only after ``slow_ms`` more (over a read timeout)."""
    slow_ms: int = 0

    def validate(self) -> None:
        for name in ("drop_rate", "error_rate", "slow_rate"):
            value = getattr(self, name)
            if not 0.0 <= value <= 1.0:
                raise ValueError(f"{name} must be between 0 and 1, got {value}")
        for name in (
            "latency_ms",
            "drop_next",
            "throttle_next",
            "error_next",
            "webhook_delay_ms",
            "slow_ms",
        ):
            if getattr(self, name) < 0:
                raise ValueError(f"{name} may not be negative")
        for status in (self.error_status, *self.error_statuses):
            if not 500 <= status <= 599:
                raise ValueError(f"error_status must be a 5xx status, got {status}")


@dataclass
class Faults:
    """The current fault settings and how many of each fault were injected."""

    rng: random.Random = field(default_factory=random.Random)
    settings: FaultSettings = field(default_factory=FaultSettings)
    injected: dict[str, int] = field(default_factory=lambda: {f.value: 0 for f in Fault if f != Fault.NONE})

    def configure(self, **changes: Any) -> None:
        """Change the given settings (snake_case names); the whole change is refused if invalid."""
        merged = FaultSettings(**{**asdict(self.settings), **changes})
        merged.validate()
        self.settings = merged

    def clear(self) -> None:
        """No faults any more, and the injected counts start again from zero."""
        self.settings = FaultSettings()
        self.injected = {key: 0 for key in self.injected}

    def decide(self) -> Fault:
        """The fault to inject into the current request, consuming one of any ``*_next`` count."""
        s = self.settings
        fault = Fault.NONE
        if s.drop_next > 0:
            s.drop_next -= 1
            fault = Fault.DROP
        elif s.drop_rate and self.rng.random() < s.drop_rate:
            fault = Fault.DROP
        elif s.throttle_next > 0:
            s.throttle_next -= 1
            fault = Fault.THROTTLE
        elif s.error_next > 0:
            s.error_next -= 1
            fault = Fault.ERROR
        elif s.error_rate and self.rng.random() < s.error_rate:
            fault = Fault.ERROR
        if fault is not Fault.NONE:
            self.injected[fault.value] += 1
        return fault

    def error_status(self) -> int:
        """The status of an injected error."""
        statuses = self.settings.error_statuses
        return self.rng.choice(statuses) if statuses else self.settings.error_status

    async def add_latency(self) -> None:
        extra = self.settings.latency_ms
        if self.settings.slow_rate and self.rng.random() < self.settings.slow_rate:
            extra += self.settings.slow_ms
        if extra:
            await asyncio.sleep(extra / 1000)

    def describe(self) -> dict[str, object]:
        return {**_camel(asdict(self.settings)), "injected": dict(self.injected)}


def _camel(values: dict[str, Any]) -> dict[str, Any]:
    def camel(name: str) -> str:
        head, *rest = name.split("_")
        return head + "".join(part.title() for part in rest)

    return {camel(k): v for k, v in values.items()}


async def drop_connection(send: Send) -> bool:
    """Close the client's connection without sending a response; False if the server can't.

    ASGI has no "hang up" message, so this reaches for the transport of uvicorn's request
    cycle (the object whose bound ``send`` method the server handed to the app). Marking the
    cycle disconnected keeps uvicorn from answering 500 for the response the app never started.
    """
    cycle = getattr(send, "__self__", None)
    transport = getattr(cycle, "transport", None)
    if cycle is None or transport is None or not hasattr(cycle, "disconnected"):
        return False
    cycle.disconnected = True
    transport.abort()
    await asyncio.sleep(0)
    return True
