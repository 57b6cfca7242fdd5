"""The pieces the webhook tests share (tests/adapters/webhooks, tests/app/webhooks): the demo
mapping, a recording NightsChanged, and :class:`Harness`, which holds the emulator (over
loopback), roomsync's receiver (served by uvicorn on loopback, with the application's checkout
desk), its store and its worker.

Dates are offsets from the emulator's today; the demo PMS has no reservation after day 149, so
tests book from day 160 on, where every room is free.
"""

from __future__ import annotations

import hashlib
import hmac
import json
import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from datetime import date, timedelta
from pathlib import Path
from typing import Any

import httpx

from roomsync.adapters.client import RequestRecord, ServiceClient
from roomsync.adapters.store import Store
from roomsync.adapters.store.webhook_records import CheckoutAnswer
from roomsync.adapters.webhooks import WebhookReceiver
from roomsync.app.webhooks import InboxWorker
from roomsync.core.ports import InboxStatus
from roomsync.emulator.pms.records import Reservation as PmsReservation
from roomsync.emulator.state import EmulatorState
from roomsync.metrics import Metrics
from roomsync.property_context import PropertyContext
from roomsync.settings import Settings

SECRET = "whsec-roomsync-tests"
PROPERTY = "demo-hotel"
HOST_A, HOST_B = "2001", "2002"
STUDIO_A, STUDIO_B = "41000001", "41000002"  # single-unit listings of room type 4 (2 studios)
DOUBLES = "41000003"  # room-type listing of room type 1 (8 rooms)
TWINS = "41000004"  # room-type listing of room type 2 (6 rooms), host B
STUDIO_TYPE, DOUBLE_TYPE, TWIN_TYPE = 4, 1, 2

MAPPING: dict[str, Any] = {
    "currency": "EUR",
    "listing": [
        {
            "room_type_id": 4,
            "account_id": HOST_A,
            "listing_id": STUDIO_A,
            "kind": "single",
            "currency": "EUR",
        },
        {
            "room_type_id": 4,
            "account_id": HOST_A,
            "listing_id": STUDIO_B,
            "kind": "single",
            "currency": "EUR",
        },
        {
            "room_type_id": 1,
            "account_id": HOST_A,
            "listing_id": DOUBLES,
            "kind": "room_type",
            "currency": "EUR",
        },
        {
            "room_type_id": 2,
            "account_id": HOST_B,
            "listing_id": TWINS,
            "kind": "room_type",
            "currency": "EUR",
        },
    ],
}

def receiver_settings(directory: Path, **overrides: Any) -> Settings:
    """Settings of a receiver of the demo property on SQLite in ``directory``, signatures required,
    no service address (guest checks are answered from the availability view alone)."""
    values: dict[str, Any] = {
        "property_id": PROPERTY,
        "data_dir": directory,
        "database_url": f"sqlite:///{directory / 'roomsync.db'}",
        "webhook_secret": SECRET,
        "webhook_require_signature": True,
        **overrides,
    }
    return Settings(**values)


@dataclass
class NightsRecorder:
    """A NightsChanged that records each call; ``failures`` makes the next calls raise."""

    calls: list[tuple[str, int, tuple[date, ...], str | None]] = field(default_factory=list)
    failures: int = 0

    async def __call__(
        self,
        property_id: str,
        room_type_id: int,
        nights: Sequence[date],
        *,
        source_listing_id: str | None = None,
    ) -> None:
        if self.failures:
            self.failures -= 1
            raise RuntimeError("the sync engine is down (test)")
        self.calls.append((property_id, room_type_id, tuple(nights), source_listing_id))


def signed_headers(body: bytes, *, at: int | None = None, webhook_id: str | None = None) -> dict[str, str]:
    """Headers of a delivery signed the 03-conventions way, computed here from the definition."""
    stamp = int(time.time()) if at is None else at
    digest = hmac.new(SECRET.encode(), f"{stamp}.".encode() + body, hashlib.sha256).hexdigest()
    headers = {"Content-Type": "application/json", "X-Webhook-Signature": f"t={stamp},v1={digest}"}
    if webhook_id is not None:
        headers["X-Webhook-Id"] = webhook_id
    return headers


def nights_from(first: date, count: int) -> tuple[date, ...]:
    return tuple(first + timedelta(days=i) for i in range(count))


@dataclass
class Harness:
    emulator_url: str
    state: EmulatorState
    receiver_url: str
    settings: Settings
    store: Store
    client: ServiceClient
    worker: InboxWorker
    nights: NightsRecorder
    metrics: Metrics
    http: httpx.Client
    receiver: WebhookReceiver
    heard: list[Callable[[RequestRecord], None]] = field(default_factory=list)
    """Called with each request the worker's client sent, as the client hears its answer."""

    @property
    def context(self) -> PropertyContext:
        return PropertyContext.of(self.settings)

    # --- the emulator -------------------------------------------------------------------------
    @property
    def today(self) -> date:
        return self.state.clock.today()

    def day(self, offset: int) -> date:
        return self.today + timedelta(days=offset)

    def ctl(
        self, method: str, path: str, body: dict[str, Any] | None = None, expect: int | None = 200
    ) -> Any:
        response = self.http.request(method, f"{self.emulator_url}/_emulator{path}", json=body)
        if expect is not None:
            assert response.status_code == expect, f"{method} {path}: {response.status_code} {response.text}"
        return response.json()

    def book(
        self, listing: str, start: int, nights: int, expect: int | None = 200, **guest: Any
    ) -> dict[str, Any]:
        """A guest books through the channel's checkout (the channel's own calendar check skipped:
        what is tested is roomsync's answer)."""
        body = {
            "listingId": listing,
            "startDate": self.day(start).isoformat(),
            "nights": nights,
            "force": True,
        }
        result: dict[str, Any] = self.ctl("POST", "/guest/book", {**body, **guest}, expect=expect)
        return result

    def open_channel(self, listing: str, first: int, last: int) -> None:
        """Make nights sellable on the channel calendar (an alteration checks it)."""
        account = HOST_B if listing == TWINS else HOST_A
        operation: dict[str, Any] = {
            "dateFrom": self.day(first).isoformat(),
            "dateTo": self.day(last).isoformat(),
            "setAvailable": True,
            "available": "available",
        }
        if listing in (DOUBLES, TWINS):
            operation.update(countEligible=True, count=6)
        token = self.http.post(
            f"{self.emulator_url}/v1/Token",
            data={"grant_type": "password", "username": "demo", "password": "demo", "domain": "demo-hotel"},
        ).json()["access_token"]
        response = self.http.put(
            f"{self.emulator_url}/v1/ChannelManager/RentalChannel/Inventory",
            json={"accountId": account, "listingId": listing, "operations": [operation]},
            headers={"Authorization": f"Bearer {token}"},
        )
        assert response.status_code == 200, response.text

    def settle(self, timeout: float = 15.0) -> None:
        """Wait until the emulator has no delivery left to attempt."""
        result = self.ctl("POST", "/webhooks/wait", {"state": "settled", "timeout": timeout})
        assert result["done"], result

    def pms_reservations(self, code: str) -> list[PmsReservation]:
        """The PMS reservations carrying ``code`` as booking agency reference."""
        return [
            r for r in list(self.state.pms.reservations.values()) if r.booking_agency_reference_code == code
        ]

    def the_pms_reservation(self, code: str) -> PmsReservation:
        found = self.pms_reservations(code)
        assert len(found) == 1, f"{code}: {len(found)} PMS reservations"
        return found[0]

    def fill_pms(self, room_type_id: int, first: int, last_night: int, leave_free: int) -> None:
        """Front-desk bookings, night by night, until ``leave_free`` rooms of the type stay free."""
        pms = self.state.pms
        for offset in range(first, last_night + 1):
            night, after = self.day(offset), self.day(offset + 1)
            free = [
                room
                for room in pms.sorted_rooms()
                if room.room_type_id == room_type_id
                and pms.blocking_reservation(room.id, night, after) is None
            ]
            for room in free[: max(len(free) - leave_free, 0)]:
                self.ctl(
                    "POST",
                    "/pms/book",
                    {
                        "dateFrom": night.isoformat(),
                        "dateTo": after.isoformat(),
                        "lastName": "Frontdesk",
                        "roomId": room.id,
                    },
                )

    # --- roomsync's receiver ------------------------------------------------------------------
    def check_event(self, listing: str, start: int, nights: int) -> dict[str, Any]:
        """A CheckAvailability of ``nights`` from day ``start``, as the channel sends it."""
        return {
            "action": "CheckAvailability",
            "startDate": self.day(start).isoformat(),
            "nights": str(nights),
            "listingId": listing,
        }

    def make_event(
        self, code: str, listing: str, start: int, nights: int, base_price: str = "300.00"
    ) -> dict[str, Any]:
        """A MakeReservation of ``nights`` from day ``start`` with confirmation code ``code``."""
        return {
            "action": "MakeReservation",
            "confirmationCode": code,
            "startDate": self.day(start).isoformat(),
            "nights": str(nights),
            "listingId": listing,
            "numberOfGuests": "2",
            "guestDetails": {"localizedDescription": "2 guests", "adults": 2, "children": 0, "infants": 0},
            "listingBasePrice": base_price,
            "guestId": "g-1",
            "specialOfferId": None,
        }

    def post(
        self,
        payload: dict[str, Any] | bytes,
        *,
        webhook_id: str | None = None,
        signed: bool = True,
        at: int | None = None,
        headers: dict[str, str] | None = None,
    ) -> httpx.Response:
        body = payload if isinstance(payload, bytes) else json.dumps(payload).encode()
        sent = (
            signed_headers(body, at=at, webhook_id=webhook_id)
            if signed
            else {"Content-Type": "application/json"}
        )
        if not signed and webhook_id:
            sent["X-Webhook-Id"] = webhook_id
        sent.update(headers or {})
        return self.http.post(self.receiver_url, content=body, headers=sent)

    def answers(self, limit: int = 1000) -> list[CheckoutAnswer]:
        """The guest-check answers recorded, newest first (the receiver's pending ones written first)."""
        self.receiver.desk.answers.flush()
        return self.store.webhook_records.recent_answers(PROPERTY, limit)

    def inbox_counts(self) -> dict[InboxStatus, int]:
        return self.store.inbox.count_by_status(PROPERTY)

    async def drain(self) -> int:
        return await self.worker.drain()
