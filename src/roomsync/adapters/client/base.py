"""The generic client: one catalog operation in, one response model out.

Every request goes the same way: budget first (:class:`QuotaGate`), then authentication, then
one HTTP send measured by the request hook, then :func:`classify` decides what happens next, and
tenacity carries out the retries. The typed methods (:mod:`.operations`) are thin wrappers over
:meth:`BaseClient.call`.

This module builds the client and answers what it is asked directly (a call, the budget, the
token). The request is checked and encoded in :mod:`.prepare`, sent and retried in
:mod:`.sending`, and its answer decoded or turned into an error in :mod:`.answers`.
"""

from __future__ import annotations

import asyncio
import functools
import logging
import ssl
from collections.abc import Mapping
from dataclasses import replace
from datetime import UTC, datetime
from typing import Any

import httpx
from pydantic_xml import BaseXmlModel

from roomsync import __version__
from roomsync.adapters.client.answers import AnswerReader, DigestedAnswer
from roomsync.adapters.client.auth import Authenticator, StaticKeyAuth, TokenAuth
from roomsync.adapters.client.config import ConnectionLimits, RetryPolicy, Timeouts, reserves_of
from roomsync.adapters.client.prepare import Prepared, prepare
from roomsync.adapters.client.quota import BudgetLedger, QuotaGate, UsageHeaders
from roomsync.adapters.client.records import RequestHook, ignore_record
from roomsync.adapters.client.sending import Clock, Sender, Sent, Sleep
from roomsync.core.api.service import TokenRequest, TokenResponse, Usage
from roomsync.core.budget import BudgetSnapshot
from roomsync.core.catalog import by_name
from roomsync.core.catalog.types import Operation, Priority
from roomsync.core.ports import TokenStore
from roomsync.property_context import PropertyContext
from roomsync.settings import Settings

__all__ = ["BaseClient"]

log = logging.getLogger("roomsync.adapters.client")


def utc_now() -> datetime:
    return datetime.now(UTC)


@functools.cache
def shared_tls_context() -> ssl.SSLContext:
    """One TLS context (the CA bundle loaded once) for every client of the process: a context of
    its own cost each client 0.8 MB, and a replica has three clients per property it serves."""
    return httpx.create_ssl_context()


class BaseClient:
    """Talks to the service for one property (its :class:`PropertyContext`: address, credentials,
    quota); use as ``async with`` or call :meth:`aclose`.

    ``transport`` is injected (tests, proxies); the default is ``httpx.AsyncHTTPTransport(retries=0)``
    because every retry must pass through the budget. ``sleep`` and ``retry`` make the waits
    injectable, ``clock`` the time (UTC, aware), ``on_request`` receives a :class:`RequestRecord`
    per HTTP request. ``gate`` shares one property's quota gate between the clients of a process,
    so what any of them hears of the server's limit and reset, all of them plan with.
    """

    def __init__(
        self,
        context: PropertyContext,
        *,
        budget_store: BudgetLedger,
        token_store: TokenStore | None = None,
        transport: httpx.AsyncBaseTransport | None = None,
        timeouts: Timeouts | None = None,
        limits: ConnectionLimits | None = None,
        retry: RetryPolicy | None = None,
        on_request: RequestHook = ignore_record,
        clock: Clock = utc_now,
        sleep: Sleep = asyncio.sleep,
        gate: QuotaGate | None = None,
        agent: str | None = None,
    ) -> None:
        settings = context.settings
        self.context = context
        self._settings = settings
        self._format = settings.payload_format
        self._channel = settings.channel_name
        self._retry = retry or RetryPolicy.from_settings(settings)
        self._timeouts = timeouts or Timeouts.from_settings(settings)
        self._clock = clock
        self.property_id = context.property_id
        self.requests_sent = Sent()
        """Every HTTP request sent, by operation name (retries, renewals and lookups included)."""
        self._gate = gate or QuotaGate(
            budget_store,
            self.property_id,
            quota=settings.daily_quota,
            reserves=reserves_of(settings),
            headers=UsageHeaders(settings.limit_header, settings.remaining_header, settings.reset_header),
            clock=clock,
        )
        self._auth = self._authenticator(settings, token_store)
        self._http = httpx.AsyncClient(
            base_url=settings.base_url,
            transport=transport
            or httpx.AsyncHTTPTransport(
                retries=0, limits=(limits or ConnectionLimits()).to_httpx(), verify=shared_tls_context()
            ),
            timeout=self._timeouts.to_httpx(),
            follow_redirects=False,
            # the service's logs (and the emulator's) can tell roomsync's replicas and parts apart
            headers={"User-Agent": f"roomsync/{__version__}" + (f" ({agent})" if agent else "")},
        )
        # the send path; the client itself is the caller of the lookups it may need
        self._sender = Sender(
            http=self._http,
            gate=self._gate,
            auth=self._auth,
            answers=AnswerReader(settings, self._auth),
            caller=self,
            retry=self._retry,
            on_request=on_request,
            clock=clock,
            sleep=sleep,
            sent=self.requests_sent,
        )

    def _authenticator(self, settings: Settings, token_store: TokenStore | None) -> Authenticator:
        if settings.api_key is not None:
            return StaticKeyAuth(settings.auth_header, settings.api_key.get_secret_value())
        missing = [name for name in ("username", "password", "domain") if getattr(settings, name) is None]
        if missing:
            raise ValueError(
                f"token authentication needs the setting(s) {', '.join(missing)} "
                "(or set api_key for a static key)"
            )
        if token_store is None:
            raise ValueError("token authentication needs a token_store to persist the token across restarts")
        return TokenAuth(
            token_store,
            self.property_id,
            self._fetch_token,
            clock=self._clock,
            margin=self._retry.token_margin,
        )

    def __repr__(self) -> str:
        return (
            f"{type(self).__name__}(base_url={self._settings.base_url!r}, property_id={self.property_id!r}, "
            f"format={self._format.value!r})"
        )

    async def __aenter__(self) -> BaseClient:
        return self

    async def __aexit__(self, *exc_info: object) -> None:
        await self.aclose()

    def secrets(self) -> tuple[str, ...]:
        """The bearer token this client holds now, if any (for the log redactor; no store read)."""
        return self._auth.secrets()

    async def aclose(self) -> None:
        await self._http.aclose()

    @property
    def settings(self) -> Settings:
        return self._settings

    # --- the budget ---------------------------------------------------------------------------

    @property
    def gate(self) -> QuotaGate:
        """The budget of this client's property (quota, reserves, reset instant)."""
        return self._gate

    def budget(self) -> BudgetSnapshot:
        """Today's budget as the store sees it (no request)."""
        return self._gate.snapshot()

    def latest_budget(self) -> BudgetSnapshot | None:
        """Today's budget as this property's last spend in this process left it (no store read),
        or None (see :meth:`QuotaGate.latest`)."""
        return self._gate.latest()

    async def refresh_usage(self, *, priority: Priority | None = None) -> Usage:
        """``GET /v1/Usage`` (it costs one request) and record the server's count."""
        usage = await self.call(by_name("get_usage"), priority=priority)
        assert isinstance(usage, Usage)
        return usage

    # --- the generic call ---------------------------------------------------------------------

    async def call(
        self,
        operation: Operation | str,
        *,
        params: Mapping[str, object] | None = None,
        body: BaseXmlModel | None = None,
        priority: Priority | None = None,
    ) -> Any:
        """Send ``operation`` and return its response model (None for "HTTP 200, no object").

        ``params`` are the path parameters by their catalog (camelCase) names; ``priority``
        overrides the operation's catalog priority for the budget.
        """
        op = by_name(operation) if isinstance(operation, str) else operation
        prepared = self._prepare(op, params or {}, body)
        result = await self._sender.execute(prepared, op.priority if priority is None else priority)
        if op.name == "get_usage" and isinstance(result, Usage):
            self._gate.observe_usage(result.used_calls, result.daily_quota)
        return result

    async def call_digested(
        self,
        operation: Operation | str,
        *,
        params: Mapping[str, object] | None = None,
        body: BaseXmlModel | None = None,
        priority: Priority | None = None,
    ) -> DigestedAnswer[Any]:
        """:meth:`call` of a read, answered with the digest of the answer's bytes and its model
        decoded on demand (a write's answer is always wanted: :meth:`call`)."""
        op = by_name(operation) if isinstance(operation, str) else operation
        if op.creates or op.response is None:
            raise ValueError(f"{op.name}: only a read that answers an object is digested")
        prepared = replace(self._prepare(op, params or {}, body), digest_answer=True)
        answer = await self._sender.execute(prepared, op.priority if priority is None else priority)
        assert isinstance(answer, DigestedAnswer)
        return answer

    def _prepare(self, op: Operation, params: Mapping[str, object], body: BaseXmlModel | None) -> Prepared:
        return prepare(op, params, body, channel=self._channel, fmt=self._format)

    # --- the token ----------------------------------------------------------------------------

    async def request_token(
        self, body: TokenRequest | None = None, *, priority: Priority | None = None
    ) -> TokenResponse:
        """``POST /v1/Token`` now (one request); the client does this by itself when it must.

        Without ``body`` the settings' credentials are used and the new token replaces the stored
        one; with ``body`` the answer is only returned (other credentials are not this property's).
        """
        op = by_name("request_token")
        chosen = op.priority if priority is None else priority
        if body is not None:
            answer = await self._sender.execute(self._prepare(op, {}, body), chosen)
            assert isinstance(answer, TokenResponse)
            return answer
        if not isinstance(self._auth, TokenAuth):
            raise ValueError("request_token needs a body in static-key mode (api_key is set)")
        return await self._auth.renew(chosen)

    async def _fetch_token(self, priority: Priority) -> TokenResponse:
        settings = self._settings
        assert settings.username and settings.password and settings.domain  # checked in __init__
        form = TokenRequest(
            username=settings.username, password=settings.password.get_secret_value(), domain=settings.domain
        )
        log.info("requesting a new token for %s", self.property_id)
        answer = await self._sender.execute(self._prepare(by_name("request_token"), {}, form), priority)
        assert isinstance(answer, TokenResponse)
        return answer
