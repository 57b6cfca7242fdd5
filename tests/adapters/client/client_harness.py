"""Helpers of the client tests: the emulator's control surface, settings and tiny retry waits.

The client under test talks to the real emulator over loopback HTTP and keeps its token and
budget in the real store (SQLite in the test's tmp_path). Nothing here builds API bodies.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

import httpx

from roomsync.adapters.client import RetryPolicy
from roomsync.core.codec import PayloadFormat
from roomsync.settings import Settings

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
