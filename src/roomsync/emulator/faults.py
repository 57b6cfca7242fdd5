"""Fault injection: the ways a real service misbehaves, switched on through the control surface.

Per API request, in this order (docs/emulator.md):

1. added latency (``latency_ms``) before anything else;
2. a dropped connection: the socket is closed without any response (``drop_next`` requests,
   then each request with probability ``drop_rate``);
3. a forced 429 with ``Retry-After`` (``throttle_next`` requests), not counted against the quota;
4. a 5xx error body (``error_next`` requests, then probability ``error_rate``), status
   ``error_status``.

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
    error_rate: float = 0.0
    error_next: int = 0
    error_status: int = 503
    webhook_delay_ms: int = 0

    def validate(self) -> None:
        for name in ("drop_rate", "error_rate"):
            value = getattr(self, name)
            if not 0.0 <= value <= 1.0:
                raise ValueError(f"{name} must be between 0 and 1, got {value}")
        for name in ("latency_ms", "drop_next", "throttle_next", "error_next", "webhook_delay_ms"):
            if getattr(self, name) < 0:
                raise ValueError(f"{name} may not be negative")
        if not 500 <= self.error_status <= 599:
            raise ValueError(f"error_status must be a 5xx status, got {self.error_status}")


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

    async def add_latency(self) -> None:
        if self.settings.latency_ms:
            await asyncio.sleep(self.settings.latency_ms / 1000)

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
