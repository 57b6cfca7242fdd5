"""A tiny HTTP helper for the emulator tests: raw httpx calls, hand-written XML, no project client.

``Emu`` holds the emulator's base URL, gets a token once, sends API requests in JSON or XML
(bodies written here, not by the API models) and drives the control surface.
"""

from __future__ import annotations

import threading
import xml.etree.ElementTree as ET
from collections.abc import Iterator
from dataclasses import dataclass, field
from datetime import UTC, date, datetime, timedelta
from typing import Any

import httpx
from starlette.applications import Starlette
from starlette.requests import Request
from starlette.responses import JSONResponse, Response
from starlette.routing import Route

FIXED_NOW = datetime(2027, 3, 1, 9, 0, tzinfo=UTC)
"""The frozen emulator instant every test starts from (a Monday)."""
TODAY = FIXED_NOW.date()
RC = "/v1/ChannelManager/RentalChannel"
CREDENTIALS = {"grant_type": "password", "username": "demo", "password": "demo", "domain": "demo-hotel"}

# The demo property (roomsync.emulator.scenario): hosts and listings the tests use.
HOST_A, HOST_B = "2001", "2002"
STUDIO = "41000001"  # single-unit, host A, approved and connected
DOUBLES = "41000003"  # room-type (8 double rooms), host A, approved and connected
TWINS = "41000004"  # room-type (6 twin rooms), host B, approved and connected
SUITES = "41000005"  # room-type, host B, not connected, no totalInventoryCount yet
CORNER = "41000006"  # single-unit, host B, not connected, permit missing


def day(offset: int) -> str:
    return (TODAY + timedelta(days=offset)).isoformat()


def pascal(name: str) -> str:
    return name[0].upper() + name[1:]


def xml_body(root: str, data: dict[str, Any], items: dict[str, str] | None = None) -> bytes:
    """``data`` as XML: PascalCase elements, lists wrapped with the item tags of ``items``."""
    items = items or {}

    def fill(parent: ET.Element, values: dict[str, Any]) -> None:
        for name, value in values.items():
            child = ET.SubElement(parent, pascal(name))
            if value is None:
                child.set("xsi:nil", "true")
            elif isinstance(value, list):
                for entry in value:
                    item = ET.SubElement(child, items[name])
                    if isinstance(entry, dict):
                        fill(item, entry)
                    else:
                        item.text = str(entry)
            elif isinstance(value, dict):
                fill(child, value)
            elif isinstance(value, bool):
                child.text = "true" if value else "false"
            else:
                child.text = str(value)

    element = ET.Element(root, {"xmlns:xsi": "http://www.w3.org/2001/XMLSchema-instance"})
    fill(element, data)
    return ET.tostring(element)


def xml_of(response: httpx.Response) -> ET.Element:
    assert response.headers["content-type"].startswith("application/xml"), response.headers
    return ET.fromstring(response.content)


def text(element: ET.Element, path: str) -> str | None:
    found = element.find(path)
    return None if found is None else (found.text or "")


@dataclass
class Emu:
    """The emulator under test, over real HTTP."""

    base_url: str
    client: httpx.Client = field(init=False)
    _token: str | None = None

    def __post_init__(self) -> None:
        self.client = httpx.Client(base_url=self.base_url, timeout=10.0)

    # --- API ----------------------------------------------------------------------------------
    def token(self) -> str:
        if self._token is None:
            response = self.client.post("/v1/Token", data=CREDENTIALS)
            assert response.status_code == 200, response.text
            self._token = response.json()["access_token"]
        return self._token

    def call(
        self,
        method: str,
        path: str,
        body: dict[str, Any] | None = None,
        *,
        fmt: str = "json",
        root: str = "Request",
        items: dict[str, str] | None = None,
        auth: bool = True,
        headers: dict[str, str] | None = None,
    ) -> httpx.Response:
        sent = {"Accept": "application/xml" if fmt == "xml" else "application/json"}
        if auth:
            sent["Authorization"] = f"Bearer {self.token()}"
        content: bytes | None = None
        if body is not None:
            if fmt == "xml":
                content = xml_body(root, body, items)
                sent["Content-Type"] = "text/xml"
            else:
                content = httpx.Request("POST", "/", json=body).content
                sent["Content-Type"] = "application/json"
        sent.update(headers or {})
        return self.client.request(method, path, content=content, headers=sent)

    def ok(self, method: str, path: str, body: dict[str, Any] | None = None, **kw: Any) -> Any:
        """The JSON answer of a call that must succeed (None for an empty body)."""
        response = self.call(method, path, body, **kw)
        assert response.status_code == 200, f"{method} {path}: {response.status_code} {response.text}"
        return response.json() if response.content else None

    # --- control surface ------------------------------------------------------------------------
    def ctl(self, method: str, path: str, body: dict[str, Any] | None = None, expect: int = 200) -> Any:
        response = self.client.request(method, f"/_emulator{path}", json=body)
        assert response.status_code == expect, f"{method} {path}: {response.status_code} {response.text}"
        return response.json()

    def calendar(self, listing_id: str, first: str, last: str) -> list[dict[str, Any]]:
        days: list[dict[str, Any]] = self.ctl(
            "GET", f"/channel/calendar/{listing_id}?from={first}&to={last}"
        )["days"]
        return days

    def inventory(self, account: str, listing: str, first: str, last: str) -> list[dict[str, Any]]:
        found: list[dict[str, Any]] = self.ok(
            "POST",
            f"{RC}/Inventory",
            {"accountId": account, "listingId": listing, "dateFrom": first, "dateTo": last},
        )
        return found

    def count(self, method: str, template: str) -> int:
        counts: dict[str, int] = self.ctl("GET", "/requests")["counts"]
        return counts.get(f"{method} {template}", 0)

    def wait_webhooks(self, state: str = "settled", count: int = 1, timeout: float = 5.0) -> dict[str, Any]:
        result: dict[str, Any] = self.ctl(
            "POST", "/webhooks/wait", {"state": state, "count": count, "timeout": timeout}
        )
        assert result["done"], result
        return result

    def deliveries(self, action: str | None = None) -> list[dict[str, Any]]:
        query = f"?action={action}" if action else ""
        found: list[dict[str, Any]] = self.ctl("GET", f"/webhooks{query}")["deliveries"]
        return found


def reset(emu: Emu) -> None:
    """The frozen demo property of FIXED_NOW, no faults, no receiver, default quota and credentials."""
    emu.ctl("POST", "/clock", {"now": FIXED_NOW.isoformat(), "frozen": True})
    emu.ctl(
        "POST",
        "/auth",
        {**{k: v for k, v in CREDENTIALS.items() if k != "grant_type"}, "staticKeyMode": False},
    )
    emu.ctl("POST", "/reset", {"scenario": "demo", "seed": 7})
    emu.ctl("POST", "/quota", {"dailyQuota": 1500, "freeLicence": False})
    emu.ctl("POST", "/webhooks/receiver", {"url": None})
    emu.ctl("POST", "/webhooks/settings", {"duplicate": False, "reorder": False, "retryScale": 0.0001})
    emu.ctl("POST", "/channel-manager/settings", {"processingDelaySeconds": 0.2})
    emu._token = None


@dataclass
class Received:
    headers: dict[str, str]
    body: bytes


class Receiver:
    """A webhook receiver on loopback: records deliveries, answers as told (default: succeed)."""

    def __init__(self) -> None:
        self.received: list[Received] = []
        self.answers: list[tuple[int, Any]] = []
        """Answers to give, first to last, before falling back to 200 ``{"succeed": true}``."""
        self.lock = threading.Lock()
        self.app = Starlette(routes=[Route("/hook", self._hook, methods=["POST"])])

    async def _hook(self, request: Request) -> Response:
        body = await request.body()
        with self.lock:
            self.received.append(Received(dict(request.headers), body))
            status, payload = (
                self.answers.pop(0) if self.answers else (200, {"succeed": True, "failure_code": None})
            )
        if isinstance(payload, bytes):
            return Response(payload, status)
        return JSONResponse(payload, status)

    def clear(self) -> None:
        with self.lock:
            self.received.clear()
            self.answers.clear()

    def actions(self) -> list[str]:
        import json

        with self.lock:
            return [json.loads(r.body)["action"] for r in self.received]

    def __iter__(self) -> Iterator[Received]:
        with self.lock:
            return iter(list(self.received))


def iso_date(value: str) -> date:
    return date.fromisoformat(value)
