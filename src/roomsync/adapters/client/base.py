"""The generic client: one catalog operation in, one response model out.

Every request goes the same way: budget first (:class:`QuotaGate`), then authentication, then
one HTTP send measured by the request hook, then :func:`classify` decides what happens next, and
tenacity carries out the retries. The typed methods (:mod:`.operations`) are thin wrappers over
:meth:`BaseClient.call`.
"""

from __future__ import annotations

import asyncio
import functools
import logging
import ssl
import time
from collections import Counter
from collections.abc import Awaitable, Callable, Mapping
from dataclasses import dataclass, field
from datetime import UTC, datetime
from typing import Any
from urllib.parse import quote, urlencode

import httpx
from pydantic_xml import BaseXmlModel
from tenacity import AsyncRetrying, RetryCallState, retry_if_exception_type, stop_after_attempt
from tenacity.wait import wait_random_exponential

from roomsync import __version__
from roomsync.adapters.client import lookups
from roomsync.adapters.client.auth import Authenticator, StaticKeyAuth, TokenAuth, refused_credentials
from roomsync.adapters.client.classify import Action, Verdict, classify, never_sent
from roomsync.adapters.client.config import ConnectionLimits, RetryPolicy, Timeouts, reserves_of
from roomsync.adapters.client.errors import (
    AmbiguousWrite,
    AuthError,
    FatalError,
    NotFoundError,
    RetriableError,
    ServiceError,
    UnexpectedResponse,
)
from roomsync.adapters.client.quota import BudgetLedger, QuotaGate, UsageHeaders
from roomsync.adapters.client.records import RequestHook, RequestRecord, ignore_record
from roomsync.core import codec
from roomsync.core.api.service import TokenRequest, TokenResponse, Usage
from roomsync.core.budget import BudgetSnapshot
from roomsync.core.catalog import by_name
from roomsync.core.catalog.types import Operation, Priority
from roomsync.core.errors import LimitViolation
from roomsync.core.ports import TokenStore
from roomsync.property import PropertyContext
from roomsync.settings import Settings

__all__ = ["BaseClient"]

log = logging.getLogger("roomsync.adapters.client")

Clock = Callable[[], datetime]
Sleep = Callable[[float], Awaitable[None]]

FORM_CONTENT_TYPE = "application/x-www-form-urlencoded"
_IDEMPOTENT = frozenset({"GET", "PUT", "DELETE"})


def utc_now() -> datetime:
    return datetime.now(UTC)


def resend_is_safe(operation: Operation) -> bool:
    """Whether sending ``operation`` twice has the effect of sending it once.

    GET, PUT and DELETE are idempotent; a POST that the catalog does not mark ``creates`` is a
    read (filters, inventory and availability queries), a token request or an enqueue of the same
    prices, all harmless to repeat. Only creates must be looked up before a resend.
    """
    return operation.method in _IDEMPOTENT or not operation.creates


@functools.cache
def shared_tls_context() -> ssl.SSLContext:
    """One TLS context (the CA bundle loaded once) for every client of the process: a context of
    its own cost each client 0.8 MB, and a replica has three clients per property it serves."""
    return httpx.create_ssl_context()


@dataclass(frozen=True)
class Prepared:
    """A request ready to send: the same bytes for every attempt."""

    operation: Operation
    path: str
    params: Mapping[str, object]
    body: BaseXmlModel | None = field(repr=False)
    content: bytes | None = field(repr=False)  # the token form carries the password
    content_type: str | None
    accept: str


@dataclass
class _CallState:
    """What one call has been through so far."""

    sends: int = 0
    maybe_sent: bool = False
    """An earlier attempt may have been processed by the server."""
    renewed: bool = False
    """The token was renewed after a 401 (once per call)."""


class _TryAgain(Exception):
    """Internal: tenacity retries on this, with the verdict that asked for it."""

    def __init__(self, verdict: Verdict) -> None:
        self.verdict = verdict
        super().__init__(verdict.reason)


@dataclass
class Sent:
    """Counts of what the client sent, for tests and the CLI."""

    by_operation: Counter[str] = field(default_factory=Counter)

    @property
    def total(self) -> int:
        return sum(self.by_operation.values())


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
        self._on_request = on_request
        self._clock = clock
        self._sleep = sleep
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
        result = await self._execute(prepared, op.priority if priority is None else priority)
        if op.name == "get_usage" and isinstance(result, Usage):
            self._gate.observe_usage(result.used_calls, result.daily_quota)
        return result

    def _prepare(self, op: Operation, params: Mapping[str, object], body: BaseXmlModel | None) -> Prepared:
        unknown = set(params) - set(op.path_params)
        if unknown:
            raise ValueError(f"{op.name}: unknown path parameter(s) {', '.join(sorted(unknown))}")
        if op.request is None and body is not None:
            raise ValueError(f"{op.name} takes no body")
        if op.request is not None:
            if body is None:
                raise ValueError(f"{op.name} needs a {op.request.__name__} body")
            if not isinstance(body, op.request):
                raise TypeError(f"{op.name} needs a {op.request.__name__} body, not {type(body).__name__}")
        quoted = {name: quote(str(value), safe="") for name, value in params.items()}
        path = op.render_path(self._channel, **quoted)
        content: bytes | None = None
        content_type: str | None = None
        accept = codec.ACCEPT[self._format]
        if op.form_body:
            # The token answer is JSON whatever the format (the public help page shows only JSON).
            accept = codec.ACCEPT[codec.PayloadFormat.JSON]
            if body is not None:
                fields = body.model_dump(by_alias=True, mode="json", exclude_none=True)
                content = urlencode({k: str(v) for k, v in fields.items()}).encode()
                content_type = FORM_CONTENT_TYPE
        elif body is not None:
            content = codec.encode_request(body, self._format)
            content_type = codec.CONTENT_TYPE[self._format]
        return Prepared(op, path, params, body, content, content_type, accept)

    async def _execute(self, prepared: Prepared, priority: Priority) -> Any:
        op = prepared.operation
        state = _CallState()
        retrying = AsyncRetrying(
            stop=stop_after_attempt(self._retry.max_retries + 1),
            wait=self._wait_before_retry,
            retry=retry_if_exception_type(_TryAgain),
            sleep=self._sleep,
            before_sleep=self._log_retry,
            reraise=True,
        )
        try:
            async for attempt in retrying:
                with attempt:
                    return await self._attempt(prepared, priority, state)
        except _TryAgain as last:
            raise self._gave_up(op, state, last.verdict) from None
        raise AssertionError("unreachable: tenacity either returns or raises")  # pragma: no cover

    async def _attempt(self, prepared: Prepared, priority: Priority, state: _CallState) -> Any:
        op = prepared.operation
        if state.maybe_sent and not resend_is_safe(op):
            found = await self._look_up(prepared, priority, state)
            if found is not None:
                return found
        outcome, verdict = await self._send_authenticated(prepared, priority, state)
        action = verdict.action
        if action is Action.OK:
            assert isinstance(outcome, httpx.Response)
            return self._decode(op, outcome)
        if action in (Action.RETRY, Action.WAIT):
            raise _TryAgain(verdict)
        if action is Action.SERVER_ERROR and resend_is_safe(op):
            # A read (or an idempotent write) repeated has the effect of one: a 500 is worth
            # another try within the budget, as a 503 is. A create is never resent blindly.
            state.maybe_sent = True
            raise _TryAgain(verdict)
        if action is Action.MAYBE_SENT:
            state.maybe_sent = True
            if not resend_is_safe(op) and not lookups.has_lookup(op.name):
                raise AmbiguousWrite(
                    f"{op.name}: {verdict.reason}, and roomsync has no way to look the new object up; "
                    "check whether it was created before sending it again",
                    operation=op.name,
                    status=verdict.status,
                )
            raise _TryAgain(verdict)
        if action is Action.WAIT_TOO_LONG:
            raise RetriableError(
                f"{op.name}: {verdict.reason}; try again later",
                operation=op.name,
                status=verdict.status,
                retry_after=verdict.wait,
            )
        if action is Action.QUOTA:
            raise self._gate.server_exhausted(priority, op.name, verdict.wait or 0.0, verdict.reason)
        if action is Action.NOT_FOUND and state.maybe_sent and op.method == "DELETE":
            return None  # an earlier attempt that timed out did delete it
        assert isinstance(outcome, httpx.Response)
        raise self._error_for(op, verdict, outcome)

    async def _send_authenticated(
        self, prepared: Prepared, priority: Priority, state: _CallState
    ) -> tuple[httpx.Response | httpx.TransportError, Verdict]:
        op = prepared.operation
        if op.form_body:  # the token request authenticates with its form
            return await self._send(prepared, priority, state, {})
        if self._auth.needs_request() and not self._gate.allows(priority, 2):
            raise self._gate.refusal(priority, op.name, cost=2)  # a token and the request itself
        auth_headers = await self._auth.headers(priority)
        outcome, verdict = await self._send(prepared, priority, state, auth_headers)
        if verdict.action is Action.AUTH and not state.renewed:
            state.renewed = True
            log.info("%s: 401, renewing the token once and replaying", op.name)
            if await self._auth.renew_after_401(auth_headers, priority):
                auth_headers = await self._auth.headers(priority)
                outcome, verdict = await self._send(prepared, priority, state, auth_headers)
        return outcome, verdict

    async def _send(
        self,
        prepared: Prepared,
        priority: Priority,
        state: _CallState,
        auth_headers: Mapping[str, str],
    ) -> tuple[httpx.Response | httpx.TransportError, Verdict]:
        op = prepared.operation
        spent = self._gate.spend(priority, op.name)  # raises QuotaExhausted: nothing is sent
        headers = {"Accept": prepared.accept, **auth_headers}
        if prepared.content_type is not None:
            headers["Content-Type"] = prepared.content_type
        request = self._http.build_request(
            op.method, prepared.path, content=prepared.content, headers=headers
        )
        state.sends += 1
        started = time.perf_counter()
        outcome: httpx.Response | httpx.TransportError
        try:
            outcome = await self._http.send(request)
        except httpx.TransportError as error:
            outcome = error
        seconds = time.perf_counter() - started
        if never_sent(outcome):
            # no connection was made: the service never saw this request, so it costs nothing
            # (it was counted first so that concurrent spenders never pass the quota)
            self._gate.release(spent, priority)
        else:
            self.requests_sent.by_operation[op.name] += 1
        if isinstance(outcome, httpx.Response):
            self._gate.observe_headers(outcome.headers)
        verdict = classify(
            outcome, now=self._clock(), resets_at=self._gate.resets_at(), max_wait=self._retry.max_wait
        )
        response = outcome if isinstance(outcome, httpx.Response) else None
        self._measure(
            RequestRecord(
                operation=op.name,
                path=op.path,
                method=op.method,
                status=response.status_code if response is not None else None,
                seconds=seconds,
                request_bytes=len(prepared.content or b""),
                response_bytes=len(response.content) if response is not None else 0,
                attempt=state.sends,
                priority=priority,
                outcome=verdict.action.value,
            )
        )
        return outcome, verdict

    def _measure(self, record: RequestRecord) -> None:
        try:
            self._on_request(record)
        except Exception:  # a broken metrics hook must not break the request it measures
            log.exception("the request hook failed on %s", record.operation)

    # --- waiting and giving up ----------------------------------------------------------------

    def _wait_before_retry(self, retry_state: RetryCallState) -> float:
        error = retry_state.outcome.exception() if retry_state.outcome else None
        if isinstance(error, _TryAgain) and error.verdict.wait is not None:
            return min(error.verdict.wait, self._retry.max_wait)
        backoff = wait_random_exponential(multiplier=self._retry.backoff_base, max=self._retry.backoff_max)
        return min(backoff(retry_state), self._retry.max_wait)

    def _log_retry(self, retry_state: RetryCallState) -> None:
        error = retry_state.outcome.exception() if retry_state.outcome else None
        reason = error.verdict.reason if isinstance(error, _TryAgain) else "?"
        wait = retry_state.next_action.sleep if retry_state.next_action else 0.0
        log.warning(
            "retrying after %s (attempt %d, waiting %.2f s)", reason, retry_state.attempt_number, wait
        )

    def _gave_up(self, op: Operation, state: _CallState, verdict: Verdict) -> ServiceError:
        attempts = self._retry.max_retries + 1
        if state.maybe_sent and not resend_is_safe(op):
            return AmbiguousWrite(
                f"{op.name}: gave up after {attempts} attempts ({verdict.reason}); an attempt may have "
                "created the object; check before sending it again",
                operation=op.name,
                status=verdict.status,
            )
        return RetriableError(
            f"{op.name}: gave up after {attempts} attempts, the last one: {verdict.reason}",
            operation=op.name,
            status=verdict.status,
            retry_after=verdict.wait,
        )

    # --- creates that may have happened ---------------------------------------------------------

    async def _look_up(self, prepared: Prepared, priority: Priority, state: _CallState) -> Any:
        op = prepared.operation
        # A timed-out create may still be running on the server: let it finish before looking.
        await self._sleep(self._retry.settle)
        try:
            found = await lookups.find_created(self, op.name, prepared.body, prepared.params, priority)
        except AmbiguousWrite:
            raise
        except ServiceError as error:  # a refused or failed lookup must not hide the ambiguity
            raise AmbiguousWrite(
                f"{op.name}: the request may have been processed and looking it up failed ({error}); "
                "check whether it was created before sending it again",
                operation=op.name,
            ) from None
        if found is not None:
            log.info("%s: an earlier attempt had created it; not sending it again", op.name)
        else:
            state.maybe_sent = False  # the server does not have it: a resend creates it once
        return found

    # --- answers --------------------------------------------------------------------------------

    def _decode(self, op: Operation, response: httpx.Response) -> Any:
        if op.response is None:
            return None
        fmt = codec.format_of_media_type(response.headers.get("content-type")) or self._format
        if not response.content.strip():
            raise UnexpectedResponse(
                f"{op.name}: the service answered {response.status_code} with an empty body where a "
                f"{op.response.__name__} was expected",
                operation=op.name,
                status=response.status_code,
            )
        try:
            return codec.decode_answer(op.response, response.content, fmt)
        except (LimitViolation, codec.PayloadError) as error:
            detail = "" if op.form_body else f" ({self._scrub(str(error))})"
            raise UnexpectedResponse(
                f"{op.name}: the {response.status_code} answer is not a readable "
                f"{op.response.__name__}{detail}",
                operation=op.name,
                status=response.status_code,
            ) from None

    def _error_for(self, op: Operation, verdict: Verdict, response: httpx.Response) -> ServiceError:
        status = response.status_code
        if op.form_body and status in (400, 401):
            return self._refused_credentials(response)
        if verdict.action is Action.AUTH:
            if isinstance(self._auth, StaticKeyAuth):
                return AuthError(
                    f"{op.name}: the service refused the api_key sent in the {self._settings.auth_header!r} "
                    "header (401); check the api_key and auth_header settings",
                    operation=op.name,
                    status=status,
                )
            return AuthError(
                f"{op.name}: the service refused a freshly renewed token (401 twice); check that the "
                "user may use the API for this domain",
                operation=op.name,
                status=status,
            )
        if verdict.action is Action.FORBIDDEN:
            return AuthError(
                f"{op.name}: the service forbids this request to these credentials (403)",
                operation=op.name,
                status=status,
            )
        detail = codec.decode_error(
            response.content, codec.format_of_media_type(response.headers.get("content-type"))
        )
        code = detail.code if detail else None
        message = self._scrub(detail.message) if detail else None
        field_name = detail.field if detail else None
        described = f"{code}: {message}" if detail else f"HTTP {status} without an error body"
        if field_name:
            described += f" (field {field_name})"
        if verdict.action is Action.NOT_FOUND:
            return NotFoundError(
                f"{op.name} {prepared_path_for_message(op, response)}: {described}",
                operation=op.name,
                status=status,
                code=code,
                server_message=message,
                field=field_name,
            )
        if verdict.action is Action.SERVER_ERROR:
            if op.creates:
                return AmbiguousWrite(
                    f"{op.name}: the service failed with {status} ({described}); it may or may not have "
                    "created the object; check before sending it again",
                    operation=op.name,
                    status=status,
                )
            return RetriableError(
                f"{op.name}: the service failed with {status}: {described}", operation=op.name, status=status
            )
        return FatalError(
            f"{op.name}: the service refused the request with {status}: {described}",
            operation=op.name,
            status=status,
            code=code,
            server_message=message,
            field=field_name,
        )

    def _refused_credentials(self, response: httpx.Response) -> AuthError:
        """The error for a refused token request: OAuth ``error``/``error_description``, or a 03 body."""
        error: str | None = None
        description: str | None = None
        detail = codec.decode_error(response.content, None)
        if detail is not None:
            error, description = detail.code, detail.message
        else:
            try:
                data = response.json()
            except ValueError:
                data = None
            if isinstance(data, dict):
                error = str(data["error"]) if data.get("error") else None
                description = str(data["error_description"]) if data.get("error_description") else None
        return refused_credentials(
            self._settings.username or "",
            self._settings.domain or "",
            self._scrub(error) if error else None,
            self._scrub(description) if description else None,
        )

    def _scrub(self, text: str) -> str:
        """``text`` with every secret the client knows replaced, in case a server echoes one."""
        secrets = list(self._auth.secrets())
        if self._settings.password is not None:
            secrets.append(self._settings.password.get_secret_value())
        for secret in secrets:
            if secret:
                text = text.replace(secret, "***")
        return text

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
            answer = await self._execute(self._prepare(op, {}, body), chosen)
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
        answer = await self._execute(self._prepare(by_name("request_token"), {}, form), priority)
        assert isinstance(answer, TokenResponse)
        return answer


def prepared_path_for_message(op: Operation, response: httpx.Response) -> str:
    """The concrete path of a failed request, for messages (paths carry ids, never secrets)."""
    return response.request.url.path if response.request is not None else op.path
