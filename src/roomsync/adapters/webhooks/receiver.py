"""The webhook receiver: ``POST /webhooks/{channel}``, an ASGI app (Starlette).

Per delivery, in this order:

1. the channel segment must be the configured ``channel_name`` (404 otherwise);
2. the body is read, at most ``webhook_max_body_bytes`` (413 past it);
3. authentication when configured (401: wrong, stale or missing signature, wrong token);
4. ``parse_webhook``: a body that is not JSON, an unknown action or a payload that breaks the
   model is answered 400 with the reason, and kept in the dead letters with its headers (secrets
   stripped);
5. the event is stored in the inbox BEFORE anything is answered (a retry with the same
   ``X-Webhook-Id``, or without an id the same content, is recognised and not stored twice);
6. CheckAvailability, MakeReservation and UpdateReservation are handed to the guest-check desk
   it was given (:class:`.ports.GuestCheckDesk`; the application's is
   ``roomsync.app.webhooks.checkout``), which stores and answers them; every other event is
   answered ``{"succeed": true, "failure_code": null}`` and processed later by the worker.

The receiver only translates and stores: what a guest check is answered and how an event is
applied are the application's (``roomsync.app.webhooks``), and it never imports them.

Nothing escapes as a 500: anything unexpected is logged, kept as a dead letter when the database
allows it, and answered 503 with a reason (so the service retries), never in silence.
"""

from __future__ import annotations

import asyncio
import logging
from collections.abc import AsyncIterator, Awaitable, Callable, Mapping
from contextlib import asynccontextmanager
from datetime import UTC, datetime
from typing import Any

from starlette.applications import Starlette
from starlette.requests import ClientDisconnect, Request
from starlette.responses import JSONResponse, Response
from starlette.routing import Route

from roomsync.adapters.store import Store
from roomsync.adapters.webhooks.auth import WebhookAuth
from roomsync.adapters.webhooks.keys import content_key, ordering_key, stored_text
from roomsync.adapters.webhooks.kinds import NOTHING_TO_APPLY
from roomsync.adapters.webhooks.ports import Clock, GuestCheckDesk
from roomsync.core.api import webhooks as events
from roomsync.core.codec import PayloadError
from roomsync.core.ports import NewDelivery
from roomsync.core.webhook_signature import WEBHOOK_ID_HEADER
from roomsync.metrics import Metrics
from roomsync.property_context import PropertyContext

log = logging.getLogger("roomsync.webhooks.receiver")

MAX_WEBHOOK_ID_LENGTH = 200
GUEST_CHECKS = (events.CheckAvailability, events.MakeReservation, events.UpdateReservation)


def utc_now() -> datetime:
    return datetime.now(UTC)


def action_label(action: object) -> str:
    """The ``action`` metric label: a known event kind, else ``unknown`` (labels stay bounded)."""
    return action if isinstance(action, str) and action in events.EVENT_TYPES else "unknown"


def _reply(succeed: bool, status: int = 200, reason: str | None = None) -> JSONResponse:
    body: dict[str, Any] = {"succeed": succeed, "failure_code": None}
    if reason is not None:
        body["reason"] = reason
    return JSONResponse(body, status_code=status)


class _Refused(Exception):
    """A delivery answered with an error status (and, when ``dead_letter``, kept)."""

    def __init__(self, status: int, reason: str, *, dead_letter: bool, action: str = "unknown") -> None:
        self.status = status
        self.reason = reason
        self.dead_letter = dead_letter
        self.action = action
        super().__init__(reason)


class WebhookReceiver:
    """The receiver's state: settings, store, the guest-check desk and the metrics."""

    def __init__(
        self,
        context: PropertyContext,
        store: Store,
        *,
        desk: GuestCheckDesk,
        metrics: Metrics | None = None,
        clock: Clock = utc_now,
        on_stored: Callable[[], None] | None = None,
    ) -> None:
        settings = context.settings
        self.context = context
        self.settings = settings
        self.store = store
        self.property_id = context.property_id
        self.auth = WebhookAuth.from_settings(settings)
        self.metrics = metrics or Metrics()
        self.clock = clock
        self.on_stored = on_stored
        self.db = store.db_calls
        self._flushing: asyncio.Task[None] | None = None
        self.desk = desk

    def _flush_answers_soon(self) -> None:
        """Write the answers recorded in bulk ``FLUSH_SECONDS`` from now (one write for
        a whole burst), without relying on the app's lifespan: mounted in another app, it has none."""
        if self._flushing is not None and not self._flushing.done():
            return

        async def flush_later() -> None:
            await asyncio.sleep(self.desk.answers.FLUSH_SECONDS)
            try:
                await self.db(self.desk.answers.flush)
            except Exception:
                log.exception("the guest-check answers could not be written; the next check tries again")

        self._flushing = asyncio.get_running_loop().create_task(flush_later())

    async def flush_answers(self) -> None:
        """Write the guest-check answers still gathered in memory (call on shutdown)."""
        await self.db(self.desk.answers.flush)

    async def endpoint(self, request: Request) -> Response:
        received_at = self.clock()
        body = b""
        try:
            channel = request.path_params["channel"]
            addressed = request.path_params.get("property", self.property_id)
            if addressed != self.property_id:
                log.warning("webhook for property %r refused (receiver of %s)", addressed, self.property_id)
                return _reply(False, 404, f"unknown property {addressed!r}")
            if channel != self.settings.channel_name:
                log.warning("webhook for unknown channel %r refused", channel)
                return _reply(
                    False,
                    404,
                    f"unknown channel {channel!r}; this receiver serves {self.settings.channel_name!r}",
                )
            body = await self._read_body(request)
            return await self._receive(request.headers, body, received_at)
        except _Refused as refused:
            self.metrics.webhooks.labels(self.property_id, refused.action, "refused").inc()
            log.warning("webhook refused with %d: %s", refused.status, refused.reason)
            if refused.dead_letter:
                await self._dead_letter(refused.reason, body, request.headers, received_at)
            return _reply(False, refused.status, refused.reason)
        except ClientDisconnect:
            log.warning("webhook sender disconnected before its body was read")
            return _reply(False, 400, "the sender disconnected before the body was read")
        except Exception as error:  # the catch-all: never a 500, never silence
            log.exception("webhook could not be received")
            self.metrics.webhooks.labels(self.property_id, "unknown", "error").inc()
            if not self._authenticates(request.headers, body, received_at):
                # nothing from a sender that did not prove who it is is ever stored
                return _reply(False, 401, "the delivery did not authenticate")
            reason = f"roomsync could not receive this delivery ({type(error).__name__}); it will be retried"
            await self._dead_letter(
                f"internal error: {type(error).__name__}: {error}", body, request.headers, received_at
            )
            return _reply(False, 503, reason)

    def _authenticates(self, headers: Mapping[str, str], body: bytes, at: datetime) -> bool:
        try:
            return self.auth.refusal(headers, body, at) is None
        except Exception:
            return False

    async def _read_body(self, request: Request) -> bytes:
        limit = self.settings.webhook_max_body_bytes
        declared = request.headers.get("content-length")
        if declared is not None and declared.isdigit() and int(declared) > limit:
            raise _Refused(
                413, f"the body is {declared} bytes; at most {limit} are accepted", dead_letter=False
            )
        chunks: list[bytes] = []
        size = 0
        async for chunk in request.stream():
            size += len(chunk)
            if size > limit:
                raise _Refused(413, f"the body is over {limit} bytes", dead_letter=False)
            chunks.append(chunk)
        return b"".join(chunks)

    async def _receive(self, headers: Mapping[str, str], body: bytes, received_at: datetime) -> Response:
        try:
            refusal = self.auth.refusal(headers, body, received_at)
        except Exception as error:  # a header no check foresaw: refused, never stored
            refusal = f"the delivery's authentication headers could not be read ({type(error).__name__})"
        if refusal is not None:
            raise _Refused(401, refusal, dead_letter=False)
        webhook_id = headers.get(WEBHOOK_ID_HEADER) or None
        if webhook_id is not None and len(webhook_id) > MAX_WEBHOOK_ID_LENGTH:
            raise _Refused(
                400,
                f"{WEBHOOK_ID_HEADER} is longer than {MAX_WEBHOOK_ID_LENGTH} characters",
                dead_letter=True,
            )
        try:
            event = events.parse_webhook(body)
        except PayloadError as error:
            raise _Refused(400, str(error), dead_letter=True) from None
        delivery = NewDelivery(
            property_id=self.property_id,
            action=event.action,
            body=stored_text(body),
            content_key=content_key(event, webhook_id),
            received_at=received_at,
            webhook_id=webhook_id,
            reservation_key=ordering_key(event),
            applied_on_receipt=event.action in NOTHING_TO_APPLY,
            wait_for_disk=not isinstance(event, GUEST_CHECKS),
        )
        if isinstance(event, GUEST_CHECKS):
            answered = await self.desk.receive(event, delivery)
            self._flush_answers_soon()
            self._stored(answered.delivery.duplicate, event.action)
            result = "succeed" if answered.verdict.succeed else "declined"
            self.metrics.webhooks.labels(self.property_id, event.action, result).inc()
            return _reply(answered.verdict.succeed)
        accepted = await self.db(self.store.inbox.accept_delivery, delivery)
        self._stored(accepted.duplicate, event.action)
        result = "duplicate" if accepted.duplicate else "stored"
        self.metrics.webhooks.labels(self.property_id, event.action, result).inc()
        return _reply(True)

    def _stored(self, duplicate: bool, action: str) -> None:
        # A guest check has had its effect already: the worker's next round marks it done, no
        # need to wake it for each of a busy checkout's many checks.
        if not duplicate and self.on_stored is not None and action not in NOTHING_TO_APPLY:
            self.on_stored()

    async def _dead_letter(self, reason: str, body: bytes, headers: Mapping[str, str], at: datetime) -> None:
        try:
            await self.db(
                self.store.dead_letters.add_dead_letter,
                self.property_id,
                at,
                reason,
                stored_text(body),
                dict(headers),
            )
            count = await self.db(self.store.dead_letters.count_dead_letters, self.property_id)
            self.metrics.dead_letters.labels(self.property_id).set(count)
        except Exception:
            log.exception("the dead letter could not be stored either (reason: %s)", reason)


def create_receiver_app(
    context: PropertyContext,
    store: Store,
    *,
    desk: GuestCheckDesk,
    metrics: Metrics | None = None,
    clock: Clock = utc_now,
    on_stored: Callable[[], None] | None = None,
    on_start: Callable[[], Awaitable[None]] | None = None,
    on_stop: Callable[[], Awaitable[None]] | None = None,
) -> Starlette:
    """The receiver app, handing guest checks to ``desk``. ``on_start`` and ``on_stop`` run when
    the app starts and stops (the application opens and closes the desk's PMS client there); the
    answers still gathered are written before ``on_stop``."""
    receiver = WebhookReceiver(context, store, desk=desk, metrics=metrics, clock=clock, on_stored=on_stored)

    @asynccontextmanager
    async def lifespan(app: Starlette) -> AsyncIterator[None]:
        if on_start is not None:
            await on_start()
        try:
            yield
        finally:
            try:
                await receiver.flush_answers()
            finally:
                if on_stop is not None:
                    await on_stop()

    app = Starlette(
        routes=[
            Route("/webhooks/{channel}", receiver.endpoint, methods=["POST"]),
            Route("/webhooks/{channel}/{property}", receiver.endpoint, methods=["POST"]),
        ],
        lifespan=lifespan,
    )
    app.state.receiver = receiver
    return app
