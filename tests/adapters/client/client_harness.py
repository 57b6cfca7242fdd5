"""Helpers of the client tests: the emulator's control surface, settings and tiny retry waits.

The client under test talks to the real emulator over loopback HTTP and keeps its token and
budget in the real store (SQLite in the test's tmp_path). Nothing here builds API bodies.
"""

from __future__ import annotations

import asyncio
from collections.abc import Awaitable, Callable
from dataclasses import dataclass, field
from datetime import UTC, datetime
from pathlib import Path
from typing import TYPE_CHECKING, Any, Protocol

import httpx
from starlette.types import ASGIApp, Message, Receive, Scope, Send

from roomsync.adapters.client import RequestHook, RetryPolicy, Timeouts
from roomsync.core.codec import PayloadFormat
from roomsync.settings import Settings

if TYPE_CHECKING:
    from roomsync.adapters.client import ServiceClient

FIXED_NOW = datetime(2027, 3, 1, 9, 0, tzinfo=UTC)
"""The frozen emulator instant each test starts from."""
USERNAME, PASSWORD, DOMAIN = "demo", "demo", "demo-hotel"
"""The demo property's credentials (roomsync.emulator.quota.Credentials)."""

FAST_RETRIES = RetryPolicy(max_retries=4, backoff_base=0.001, backoff_max=0.01, max_wait=5.0, settle=0.0)
"""Retries with waits of milliseconds, so fault tests stay fast."""

TOKEN_PATH = "POST /v1/Token"


def settings_for(
    base_url: str, tmp_path: Path, fmt: PayloadFormat | str = "json", **overrides: Any
) -> Settings:
    values: dict[str, Any] = {
        "base_url": base_url,
        "username": USERNAME,
        "password": PASSWORD,
        "domain": DOMAIN,
        "payload_format": fmt,
        "data_dir": tmp_path,
        **overrides,
    }
    return Settings(**values)


@dataclass
class Control:
    """The emulator's control surface (``/_emulator``): never counted, never authenticated."""

    base_url: str
    http: httpx.Client = field(init=False)

    def __post_init__(self) -> None:
        self.http = httpx.Client(base_url=f"{self.base_url}/_emulator", timeout=10.0)

    def call(self, method: str, path: str, body: dict[str, Any] | None = None) -> Any:
        response = self.http.request(method, path, json=body)
        assert response.status_code == 200, f"{method} {path}: {response.status_code} {response.text}"
        return response.json()

    def reset(self) -> None:
        """The frozen demo property at FIXED_NOW: default quota and credentials, no faults, empty log."""
        self.call("POST", "/clock", {"now": FIXED_NOW.isoformat(), "frozen": True})
        self.call(
            "POST",
            "/auth",
            {"username": USERNAME, "password": PASSWORD, "domain": DOMAIN, "staticKeyMode": False},
        )
        self.call("POST", "/reset", {"scenario": "demo", "seed": 7})
        self.call("POST", "/quota", {"dailyQuota": 1500, "freeLicence": False, "usedCalls": 0})
        self.call("DELETE", "/faults")
        self.call("DELETE", "/requests")

    def faults(self, **settings: Any) -> dict[str, Any]:
        result: dict[str, Any] = self.call("POST", "/faults", settings)
        return result

    def quota(self, **settings: Any) -> dict[str, Any]:
        result: dict[str, Any] = self.call("POST", "/quota", settings)
        return result

    def advance(self, **delta: float) -> None:
        self.call("POST", "/clock/advance", delta)

    def log(self, limit: int = 2000) -> dict[str, Any]:
        result: dict[str, Any] = self.call("GET", f"/requests?limit={limit}")
        return result

    def count(self, key: str) -> int:
        """Requests logged for ``"METHOD /path/template"`` (channel segment filled in)."""
        counts: dict[str, int] = self.log()["counts"]
        return counts.get(key, 0)

    def total(self) -> int:
        return int(self.log()["total"])

    def close(self) -> None:
        self.http.close()


class SlowAnswers:
    """ASGI wrapper around the emulator: the answer to an armed request leaves late.

    The emulator's own ``latency_ms`` waits *before* it reads the request, so a client that gives
    up in the meantime aborts the request and nothing is created. A real service that is slow
    after doing the work (the case a timed-out create must survive) is this: the emulator handles
    the request at once and its answer is held back for ``seconds``, longer than the client waits.
    """

    def __init__(self, app: ASGIApp) -> None:
        self.app = app
        self._armed: dict[tuple[str, str], float] = {}

    def arm(self, method: str, path: str, seconds: float) -> None:
        """Hold back the answer of the next ``method path`` request by ``seconds``."""
        self._armed[(method, path)] = seconds

    def clear(self) -> None:
        self._armed.clear()

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        delay = None
        if scope["type"] == "http":
            delay = self._armed.pop((scope["method"], scope["path"]), None)
        if delay is None:
            await self.app(scope, receive, send)
            return

        async def late_send(message: Message) -> None:
            if message["type"] == "http.response.start":
                await asyncio.sleep(delay)  # the slow service, not a test synchronisation
            await send(message)

        await self.app(scope, receive, late_send)


class ClientFactory(Protocol):
    def __call__(
        self,
        fmt: str = "json",
        *,
        retry: RetryPolicy = ...,
        timeouts: Timeouts | None = None,
        on_request: RequestHook = ...,
        sleep: Callable[[float], Awaitable[None]] | None = None,
        clock: Callable[[], datetime] | None = None,
        **settings: Any,
    ) -> ServiceClient: ...
