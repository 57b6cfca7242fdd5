"""The emulator's HTTP app: one route per catalog operation, plus the control surface.

Per API request, in this order (docs/emulator.md): added latency, a dropped connection, a
forced 429, the daily quota (429 past it), an injected 5xx, authentication (401), the body (415
when unreadable as JSON or XML, 400 for a limit violation naming the field), then the handler.
The body is read strictly (``strict_body``): ``id`` on a create, a field the request model does not
have, or null for a field not typed nullable are refused with 400 naming the field.
Every response carries the usage headers; errors carry the 03 error body in the format that
``Accept`` asks for. ``POST /v1/Token`` reads a form and answers OAuth-style JSON.
"""

from __future__ import annotations

import asyncio
import contextlib
import importlib
import logging
import pkgutil
from collections.abc import AsyncIterator
from dataclasses import dataclass
from typing import Any

from starlette.applications import Starlette
from starlette.exceptions import HTTPException
from starlette.requests import ClientDisconnect, Request
from starlette.responses import JSONResponse, Response
from starlette.routing import BaseRoute, Mount, Route
from starlette.types import Receive, Scope, Send

from roomsync.core.api.base import ErrorDetail
from roomsync.core.catalog import OPERATIONS, Operation
from roomsync.core.codec import (
    PayloadError,
    PayloadFormat,
    decode,
    encode,
    encode_error,
    format_of_media_type,
)
from roomsync.core.errors import LimitViolation
from roomsync.emulator.errors import ApiError
from roomsync.emulator.faults import Fault, drop_connection
from roomsync.emulator.quota import OAuthError, QuotaDecision
from roomsync.emulator.registry import HANDLERS, Call
from roomsync.emulator.state import EmulatorState, LoggedRequest
from roomsync.emulator.strict_body import check_request_body

log = logging.getLogger("roomsync.emulator")

RAW_SEND = "roomsync.emulator.raw_send"
CLIENT_CLOSED = 499
"""Logged status of a request whose client went away before it could be answered."""
MEDIA_TYPE = {PayloadFormat.JSON: "application/json", PayloadFormat.XML: "application/xml"}
HANDLER_PACKAGES = ("roomsync.emulator.channel", "roomsync.emulator.pms")


def load_handlers() -> dict[str, Any]:
    """Import every module of the handler packages, so their ``@handles`` registrations run."""
    importlib.import_module("roomsync.emulator.service_handlers")
    for package_name in HANDLER_PACKAGES:
        try:
            package = importlib.import_module(package_name)
        except ModuleNotFoundError:  # pragma: no cover - a package not written yet
            continue
        for module in pkgutil.walk_packages(package.__path__, prefix=f"{package_name}."):
            importlib.import_module(module.name)
    return dict(HANDLERS)


@dataclass
class _Outcome:
    response: Response
    counted: bool


class OperationEndpoint:
    """The ASGI endpoint of one catalog operation."""

    def __init__(self, state: EmulatorState, operation: Operation) -> None:
        self.state = state
        self.operation = operation
        self.template = operation.path.replace("{channel}", state.channel_name)

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        request = Request(scope, receive)
        fmt = format_of_media_type(request.headers.get("accept")) or PayloadFormat.JSON
        state = self.state
        await state.faults.add_latency()
        fault = state.faults.decide()
        if fault is Fault.DROP:
            state.quota.spend()
            self._log(request, 0, fmt, counted=True)
            if await drop_connection(scope.get(RAW_SEND, send)):
                return
            # The server offers no way to hang up: end the response unfinished instead.
            await send({"type": "http.response.start", "status": 500, "headers": []})
            return
        try:
            outcome = await self._answer(request, fmt, fault)
        except ClientDisconnect:
            # the client hung up before its body arrived (its timeout): nothing to answer; the
            # request was counted, as the service counts what reaches it
            self._log(request, CLIENT_CLOSED, fmt, counted=True)
            return
        except Exception:
            # A bug, but the client still gets the service's error body, never a bare 500.
            log.exception("unexpected error answering %s %s", request.method, request.url.path)
            detail = ErrorDetail(
                code="INTERNAL_ERROR", message="the emulator failed unexpectedly", field=None
            )
            outcome = _Outcome(self._error_response(500, detail, fmt), counted=True)
        outcome.response.headers.update(self._usage_headers(state.quota.peek()))
        self._log(request, outcome.response.status_code, fmt, counted=outcome.counted)
        await outcome.response(scope, receive, send)

    async def _answer(self, request: Request, fmt: PayloadFormat, fault: Fault) -> _Outcome:
        state = self.state
        if fault is Fault.THROTTLE:
            wait = state.faults.settings.throttle_retry_after
            return _Outcome(self._too_many(fmt, "too many requests (injected)", wait), counted=False)
        decision = state.quota.spend()
        if not decision.allowed:
            return _Outcome(
                self._too_many(fmt, f"the daily quota of {decision.limit} requests is used up"), False
            )
        if fault is Fault.ERROR:
            status = state.faults.error_status()
            detail = ErrorDetail(
                code="SERVICE_UNAVAILABLE", message="the service failed (injected)", field=None
            )
            return _Outcome(self._error_response(status, detail, fmt), counted=True)
        if not self.operation.form_body and not self._authenticated(request):
            detail = ErrorDetail(code="UNAUTHORIZED", message="a valid access token is required", field=None)
            response = self._error_response(401, detail, fmt)
            response.headers["WWW-Authenticate"] = "Bearer"
            return _Outcome(response, counted=True)
        try:
            body = await self._body(request)
            call = Call(
                operation=self.operation,
                params=dict(request.path_params),
                body=body,
                state=state,
                today=state.clock.today(),
                now=state.clock.now(),
            )
            handler = HANDLERS.get(self.operation.name)
            if handler is None:
                raise ApiError(501, "NOT_IMPLEMENTED", f"{self.operation.name} is not emulated yet")
            result = handler(call)
        except OAuthError as error:
            body_json = {"error": error.oauth_code, "error_description": error.message}
            return _Outcome(JSONResponse(body_json, status_code=error.status), counted=True)
        except ApiError as error:
            detail = ErrorDetail(code=error.code, message=error.message, field=error.field)
            return _Outcome(self._error_response(error.status, detail, fmt), counted=True)
        except LimitViolation as error:
            detail = ErrorDetail(code="INVALID_VALUE", message=str(error), field=error.field)
            return _Outcome(self._error_response(400, detail, fmt), counted=True)
        except PayloadError as error:
            detail = ErrorDetail(code="INVALID_BODY", message=str(error), field=error.field)
            return _Outcome(self._error_response(400, detail, fmt), counted=True)
        if result is None:
            return _Outcome(Response(status_code=200), counted=True)
        if self.operation.form_body:  # the token answer is OAuth JSON whatever Accept says
            fmt = PayloadFormat.JSON
        content = encode(result, fmt)
        return _Outcome(Response(content, 200, media_type=MEDIA_TYPE[fmt]), counted=True)

    def _authenticated(self, request: Request) -> bool:
        credentials = self.state.credentials
        if credentials.static_key is not None:
            return request.headers.get(credentials.auth_header) == credentials.static_key
        scheme, _, token = request.headers.get("authorization", "").partition(" ")
        return scheme.lower() == "bearer" and self.state.tokens.valid(token.strip())

    async def _body(self, request: Request) -> Any:
        model = self.operation.request
        if model is None:
            return None
        if self.operation.form_body:
            return await _token_form(request, model)
        raw = await request.body()
        content_type = request.headers.get("content-type")
        if not raw.strip():
            raise ApiError(
                400, "INVALID_BODY", f"{self.operation.name} needs a request body ({model.__name__})"
            )
        body_format = format_of_media_type(content_type)
        if body_format is None or (content_type or "").split(";")[0].strip() in {"*/*", "application/*"}:
            raise ApiError(
                415,
                "UNSUPPORTED_MEDIA_TYPE",
                f"cannot read a body of Content-Type {content_type!r}; send application/json, "
                "text/xml or application/xml",
            )
        body = decode(model, raw, body_format)
        check_request_body(self.operation, raw, body_format, body)
        first, last = getattr(body, "date_from", None), getattr(body, "date_to", None)
        if first is not None and last is not None:  # the request log shows which nights were read
            request.state.dates = f"{first}..{last}"
        return body

    def _error_response(self, status: int, detail: ErrorDetail, fmt: PayloadFormat) -> Response:
        return Response(encode_error(detail, fmt), status, media_type=MEDIA_TYPE[fmt])

    def _too_many(self, fmt: PayloadFormat, message: str, wait: int | None = None) -> Response:
        detail = ErrorDetail(code="TOO_MANY_REQUESTS", message=message, field=None)
        response = self._error_response(429, detail, fmt)
        seconds = self.state.clock.seconds_to_midnight() if wait is None else wait
        response.headers["Retry-After"] = str(seconds)
        return response

    def _usage_headers(self, decision: QuotaDecision) -> dict[str, str]:
        names = self.state.headers
        return {
            names.limit: str(decision.limit),
            names.remaining: str(decision.remaining),
            names.reset: str(decision.reset_seconds),
        }

    def _log(self, request: Request, status: int, fmt: PayloadFormat, *, counted: bool) -> None:
        self.state.log.record(
            LoggedRequest(
                at=self.state.clock.now().isoformat(),
                method=request.method,
                template=self.template,
                operation=self.operation.name,
                status=status,
                format=fmt.value,
                counted=counted,
                agent=request.headers.get("user-agent", ""),
                dates=getattr(request.state, "dates", ""),
            )
        )


async def _token_form(request: Request, model: type[Any]) -> Any:
    """The token request's form fields as ``model``; OAuth errors for a bad form."""
    try:
        form = await request.form()
    except Exception as error:  # python-multipart raises its own types for a broken body
        raise OAuthError(400, "invalid_request", f"the body is not a readable form: {error}") from None
    values = {key: value for key, value in form.items() if isinstance(value, str)}
    grant_type = values.get("grant_type")
    if not grant_type:
        raise OAuthError(400, "invalid_request", "missing form field grant_type (send grant_type=password)")
    if grant_type != "password":
        raise OAuthError(400, "unsupported_grant_type", f"grant_type must be 'password', got {grant_type!r}")
    missing = [name for name in ("username", "password", "domain") if not values.get(name)]
    if missing:
        raise OAuthError(400, "invalid_request", f"missing form field(s): {', '.join(missing)}")
    return model.model_validate({k: values[k] for k in ("grant_type", "username", "password", "domain")})


class EmulatorApp(Starlette):
    """Starlette, remembering the server's own ``send`` (to drop a connection on purpose)."""

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        scope[RAW_SEND] = send
        await super().__call__(scope, receive, send)


def create_app(state: EmulatorState) -> Starlette:
    """The emulator serving ``state``: the API of every catalog operation and ``/_emulator/``."""
    from roomsync.emulator.control import control_routes

    load_handlers()
    routes: list[BaseRoute] = [
        Route(
            op.path.replace("{channel}", state.channel_name),
            OperationEndpoint(state, op),
            methods=[op.method],
            name=op.name,
        )
        for op in OPERATIONS
    ]
    routes.append(Mount("/_emulator", routes=control_routes(state)))

    @contextlib.asynccontextmanager
    async def lifespan(app: Starlette) -> AsyncIterator[None]:
        tasks = [
            asyncio.create_task(state.webhooks.run(), name="emulator-webhooks"),
            asyncio.create_task(_prices_worker(state), name="emulator-prices"),
        ]
        try:
            yield
        finally:
            for task in tasks:
                task.cancel()
            await asyncio.gather(*tasks, return_exceptions=True)

    async def not_found(request: Request, exc: Exception) -> Response:
        status = exc.status_code if isinstance(exc, HTTPException) else 404
        fmt = format_of_media_type(request.headers.get("accept")) or PayloadFormat.JSON
        message = (
            f"no operation {request.method} {request.url.path}"
            if status == 405
            else f"no resource at {request.url.path}"
        )
        code = "METHOD_NOT_ALLOWED" if status == 405 else "NOT_FOUND"
        detail = ErrorDetail(code=code, message=message, field=None)
        state.log.record(
            LoggedRequest(
                at=state.clock.now().isoformat(),
                method=request.method,
                template=request.url.path,
                operation=None,
                status=status,
                format=fmt.value,
                counted=False,
            )
        )
        return Response(encode_error(detail, fmt), status, media_type=MEDIA_TYPE[fmt])

    app = EmulatorApp(
        routes=routes,
        lifespan=lifespan,
        exception_handlers={404: not_found, 405: not_found},
    )
    app.state.emulator = state
    return app


async def _prices_worker(state: EmulatorState) -> None:
    """Apply queued Prices batches ``prices_delay_seconds`` after they arrive (the queue is asynchronous).

    The delay is re-read while waiting, so a test that shortens it, or processes the queue through
    the control surface, is not held up by an earlier long delay.
    """
    loop = asyncio.get_running_loop()
    wake = asyncio.Event()
    state.prices_wake = wake.set
    while True:
        await wake.wait()
        wake.clear()
        queued_at = loop.time()
        while state.manager.pending() and loop.time() - queued_at < state.prices_delay_seconds:
            await asyncio.sleep(0.01)
        state.manager.process()
