"""Webhook deliveries of the emulated service (documents 01 and 03).

Every notification is a JSON POST to the receiver URL registered through the control surface,
with ``X-Webhook-Id`` (the same on every retry of one notification) and, when a secret is set,
``X-Webhook-Signature: t=<unix seconds of the emulator clock>,v1=<hex HMAC-SHA256 of "<t>.<body>">``.
A delivery is received when the receiver answers 2xx with ``{"succeed": true}``; otherwise it is
retried after growing delays (:data:`RETRY_DELAYS`, in emulated time) for up to 24 emulated
hours. The real wait before a retry is the emulated delay times ``retry_scale`` (tests use a
tiny scale), and a retry is also due as soon as the emulator clock passes its emulated due time.
While no receiver is registered, notifications wait, pending and unattempted.

``duplicate`` sends each received notification a second time (same id); ``reorder`` holds new
notifications until :meth:`WebhookDispatcher.release`, which sends the held ones newest first.

The three guest-facing checks (``CheckAvailability``, ``MakeReservation``, ``UpdateReservation``)
go through :meth:`WebhookDispatcher.call_sync`: one attempt with a 3-second timeout, no retry.
"""

from __future__ import annotations

import asyncio
import contextlib
import json
import logging
import random
import time
import uuid
from collections.abc import Callable
from dataclasses import dataclass, field
from datetime import timedelta
from enum import StrEnum
from typing import Any

import httpx
from pydantic import BaseModel

from roomsync.core.webhook_signature import SIGNATURE_HEADER, WEBHOOK_ID_HEADER, sign
from roomsync.emulator.clock import EmulatorClock

log = logging.getLogger(__name__)

RETRY_DELAYS: tuple[timedelta, ...] = tuple(
    timedelta(minutes=m) for m in (1, 5, 15, 30, 60, 120, 240, 480, 480)
)
"""Emulated waits before retries 1..9; they add up to 23 h 51 min, so the last try is within 24 h."""

SYNC_CHECK_TIMEOUT = 3.0
SYNC_CHECKS = frozenset({"CheckAvailability", "MakeReservation", "UpdateReservation"})
STRINGIFIED_IN_CHECKS = ("listingId", "nights", "numberOfGuests")


class DeliveryState(StrEnum):
    PENDING = "pending"
    HELD = "held"
    RECEIVED = "received"
    FAILED = "failed"


@dataclass
class Attempt:
    at: str
    """Emulated instant of the attempt (ISO 8601)."""
    status: int | None
    received: bool
    detail: str
    duplicate: bool = False

    def describe(self) -> dict[str, object]:
        return {
            "at": self.at,
            "status": self.status,
            "received": self.received,
            "detail": self.detail,
            "duplicate": self.duplicate,
        }


@dataclass
class Delivery:
    id: str
    action: str
    body: bytes
    created_at: str
    sync: bool = False
    state: DeliveryState = DeliveryState.PENDING
    attempts: list[Attempt] = field(default_factory=list)
    due_real: float = 0.0
    """``time.monotonic()`` after which the next attempt is due."""
    due_emulated: float = 0.0
    """Emulator-clock Unix time after which the next attempt is due."""
    reply: dict[str, Any] | None = None

    def describe(self, *, with_payload: bool = True) -> dict[str, object]:
        described: dict[str, object] = {
            "id": self.id,
            "action": self.action,
            "createdAt": self.created_at,
            "sync": self.sync,
            "state": self.state.value,
            "attempts": [a.describe() for a in self.attempts],
        }
        if with_payload:
            described["payload"] = json.loads(self.body)
        if self.reply is not None:
            described["reply"] = self.reply
        return described


@dataclass(frozen=True)
class SyncOutcome:
    """What the receiver said to a guest-facing check; ``succeed`` False on any failure."""

    succeed: bool
    skipped: bool
    delivery: Delivery | None

    def describe(self) -> dict[str, object]:
        return {
            "succeed": self.succeed,
            "skipped": self.skipped,
            "delivery": self.delivery.describe() if self.delivery else None,
        }


class WebhookDispatcher:
    """Queue, sender and record of every notification."""

    def __init__(self, clock: EmulatorClock, rng: random.Random | None = None) -> None:
        self.clock = clock
        self.rng = rng or random.Random()
        self.receiver_url: str | None = None
        self.secret: str | None = None
        self.duplicate = False
        self.reorder = False
        self.retry_scale = 1.0
        self.delay_seconds = 0.0
        """Added before every attempt (fault injection: a slow service)."""
        self.deliveries: list[Delivery] = []
        self._wake: asyncio.Event | None = None
        self._changed: asyncio.Event | None = None
        clock.on_change(self.wake)

    # --- configuration ------------------------------------------------------------------------
    def register(self, url: str | None, secret: str | None = None) -> None:
        self.receiver_url = url
        self.secret = secret or None
        self.wake()

    def clear(self) -> None:
        self.deliveries.clear()
        self.wake()

    def describe(self) -> dict[str, object]:
        return {
            "receiverUrl": self.receiver_url,
            "signed": self.secret is not None,
            "duplicate": self.duplicate,
            "reorder": self.reorder,
            "retryScale": self.retry_scale,
            "retryDelaysMinutes": [d.total_seconds() / 60 for d in RETRY_DELAYS],
            "counts": {s.value: sum(1 for d in self.deliveries if d.state is s) for s in DeliveryState},
        }

    # --- producing ----------------------------------------------------------------------------
    def _new_delivery(self, action: str, payload: dict[str, Any], *, sync: bool) -> Delivery:
        body = json.dumps({"action": action, **payload}, separators=(",", ":")).encode()
        delivery = Delivery(
            id=str(uuid.UUID(int=self.rng.getrandbits(128), version=4)),
            action=action,
            body=body,
            created_at=self.clock.now().isoformat(),
            sync=sync,
        )
        self.deliveries.append(delivery)
        return delivery

    def enqueue(self, action: str, payload: dict[str, Any]) -> Delivery:
        """Queue an asynchronous notification ``{"action": action, **payload}``."""
        delivery = self._new_delivery(action, payload, sync=False)
        delivery.due_real = time.monotonic()
        delivery.due_emulated = self.clock.timestamp()
        if self.reorder:
            delivery.state = DeliveryState.HELD
        self.wake()
        return delivery

    def enqueue_event(self, event: BaseModel) -> Delivery:
        """Queue a notification built from a ``roomsync.core.api.webhooks`` model."""
        payload = event.model_dump(mode="json", by_alias=True)
        return self.enqueue(str(payload.pop("action")), payload)

    def release(self) -> int:
        """Send every held notification, newest first (out of order on purpose)."""
        held = [d for d in self.deliveries if d.state is DeliveryState.HELD]
        now_real, now_emulated = time.monotonic(), self.clock.timestamp()
        for position, delivery in enumerate(reversed(held)):
            delivery.state = DeliveryState.PENDING
            # Newest first: earlier due times for the later notifications.
            delivery.due_real = now_real + position * 1e-6
            delivery.due_emulated = now_emulated
            self.deliveries.remove(delivery)
            self.deliveries.append(delivery)
        self.wake()
        return len(held)

    def flush(self) -> int:
        """Make every pending retry due now."""
        pending = [d for d in self.deliveries if d.state is DeliveryState.PENDING]
        for delivery in pending:
            delivery.due_real = time.monotonic()
        self.wake()
        return len(pending)

    # --- sending --------------------------------------------------------------------------------
    def wake(self) -> None:
        if self._wake is not None:
            self._wake.set()

    def _notify_changed(self) -> None:
        if self._changed is not None:
            self._changed.set()

    def _headers(self, delivery: Delivery) -> dict[str, str]:
        headers = {"Content-Type": "application/json", WEBHOOK_ID_HEADER: delivery.id}
        if self.secret:
            headers[SIGNATURE_HEADER] = sign(self.secret, self.clock.unix(), delivery.body)
        return headers

    async def _post(
        self, client: httpx.AsyncClient, delivery: Delivery, *, timeout: float, duplicate: bool = False
    ) -> Attempt:
        if self.delay_seconds:
            await asyncio.sleep(self.delay_seconds)
        at = self.clock.now().isoformat()
        if self.receiver_url is None:
            attempt = Attempt(at, None, False, "no receiver registered", duplicate)
            delivery.attempts.append(attempt)
            return attempt
        try:
            response = await client.post(
                self.receiver_url, content=delivery.body, headers=self._headers(delivery), timeout=timeout
            )
        except httpx.HTTPError as error:
            attempt = Attempt(at, None, False, f"{type(error).__name__}: {error}", duplicate)
        else:
            reply = _json_object(response.content)
            received = response.is_success and reply is not None and reply.get("succeed") is True
            if reply is not None:
                delivery.reply = reply
            detail = "received" if received else f"not received: {response.text[:200]!r}"
            attempt = Attempt(at, response.status_code, received, detail, duplicate)
        delivery.attempts.append(attempt)
        return attempt

    async def call_sync(self, client: httpx.AsyncClient, event: BaseModel) -> SyncOutcome:
        """One guest-facing check: 3-second timeout, no retry; no receiver means skipped.

        As in document 01's examples, ``listingId``, ``nights`` and ``numberOfGuests`` are sent
        as strings although they are declared ints.
        """
        payload = event.model_dump(mode="json", by_alias=True)
        action = str(payload.pop("action"))
        for name in STRINGIFIED_IN_CHECKS:
            if name in payload and payload[name] is not None:
                payload[name] = str(payload[name])
        if self.receiver_url is None:
            return SyncOutcome(succeed=True, skipped=True, delivery=None)
        delivery = self._new_delivery(action, payload, sync=True)
        attempt = await self._post(client, delivery, timeout=SYNC_CHECK_TIMEOUT)
        delivery.state = DeliveryState.RECEIVED if attempt.received else DeliveryState.FAILED
        self._notify_changed()
        return SyncOutcome(succeed=attempt.received, skipped=False, delivery=delivery)

    def _due(self) -> Delivery | None:
        if self.receiver_url is None:  # kept until a receiver is registered
            return None
        now_real, now_emulated = time.monotonic(), self.clock.timestamp()
        due = [
            d
            for d in self.deliveries
            if d.state is DeliveryState.PENDING
            and not d.sync  # a guest-facing check is sent once, by call_sync itself
            and (d.due_real <= now_real or d.due_emulated <= now_emulated)
        ]
        return min(due, key=lambda d: d.due_real) if due else None

    def _seconds_to_next(self) -> float | None:
        if self.receiver_url is None:
            return None
        waits = [d.due_real - time.monotonic() for d in self.deliveries if d.state is DeliveryState.PENDING]
        return max(0.0, min(waits)) if waits else None

    async def _attempt(self, client: httpx.AsyncClient, delivery: Delivery) -> None:
        # decided when the attempt starts, and the delivery counts as received only once its
        # duplicate went too: a control call in between must not drop the duplicate, and a waiter
        # for "received" must find both sent
        duplicate = self.duplicate
        attempt = await self._post(client, delivery, timeout=10.0)
        if attempt.received:
            if duplicate:
                await self._post(client, delivery, timeout=10.0, duplicate=True)
            delivery.state = DeliveryState.RECEIVED
        else:
            retries_done = len([a for a in delivery.attempts if not a.duplicate]) - 1
            if retries_done >= len(RETRY_DELAYS):
                delivery.state = DeliveryState.FAILED
            else:
                delay = RETRY_DELAYS[retries_done]
                delivery.due_emulated = self.clock.timestamp() + delay.total_seconds()
                delivery.due_real = time.monotonic() + delay.total_seconds() * self.retry_scale
        self._notify_changed()

    async def run(self) -> None:
        """The sender loop; runs for the life of the app (started by its lifespan)."""
        self._wake = asyncio.Event()
        self._changed = asyncio.Event()
        async with httpx.AsyncClient() as client:
            while True:
                self._wake.clear()
                delivery = self._due()
                if delivery is not None:
                    try:
                        await self._attempt(client, delivery)
                    except Exception:  # a bug here must not stop every later delivery
                        log.exception("webhook delivery %s failed unexpectedly", delivery.id)
                        delivery.state = DeliveryState.FAILED
                    continue
                wait = self._seconds_to_next()
                with contextlib.suppress(TimeoutError):
                    await asyncio.wait_for(self._wake.wait(), timeout=wait)

    async def settle(self, timeout: float) -> bool:
        """Wait until nothing is pending (all received, failed or held); False on timeout."""
        return await self._wait_until(
            lambda: not any(d.state is DeliveryState.PENDING for d in self.deliveries), timeout
        )

    async def wait_for(self, count: int, state: DeliveryState, timeout: float) -> bool:
        """Wait until at least ``count`` deliveries are in ``state``; False on timeout."""
        return await self._wait_until(
            lambda: sum(1 for d in self.deliveries if d.state is state) >= count, timeout
        )

    async def wait_attempts(self, count: int, timeout: float) -> bool:
        """Wait until at least ``count`` delivery attempts were made in all; False on timeout."""
        return await self._wait_until(lambda: sum(len(d.attempts) for d in self.deliveries) >= count, timeout)

    async def _wait_until(self, condition: Callable[[], bool], timeout: float) -> bool:
        deadline = time.monotonic() + timeout
        while True:
            if self._changed is not None:
                self._changed.clear()  # before the check, so a change right after it is not lost
            if condition():
                return True
            remaining = deadline - time.monotonic()
            if remaining <= 0 or self._changed is None:
                return False
            try:
                await asyncio.wait_for(self._changed.wait(), timeout=remaining)
            except TimeoutError:
                return False


def _json_object(content: bytes) -> dict[str, Any] | None:
    try:
        value = json.loads(content)
    except ValueError:
        return None
    return value if isinstance(value, dict) else None
