"""The send path of one prepared request, from the first attempt to the answer or the error.

Each attempt spends the budget first (:class:`QuotaGate`), then authenticates, then sends once
and measures the send through the request hook; :func:`classify` decides what the outcome means
and tenacity carries out the retries. A create that may have reached the server is looked up
(:mod:`.lookups`) before it is sent again, never resent blindly.
"""

from __future__ import annotations

import logging
import time
from collections import Counter
from collections.abc import Awaitable, Callable, Mapping
from dataclasses import dataclass, field
from datetime import datetime
from typing import Any

import httpx
from tenacity import AsyncRetrying, RetryCallState, retry_if_exception_type, stop_after_attempt
from tenacity.wait import wait_random_exponential

from roomsync.adapters.client import lookups
from roomsync.adapters.client.answers import AnswerReader
from roomsync.adapters.client.auth import Authenticator
from roomsync.adapters.client.classify import Action, Verdict, classify, never_sent
from roomsync.adapters.client.config import RetryPolicy
from roomsync.adapters.client.errors import AmbiguousWrite, RetriableError, ServiceError
from roomsync.adapters.client.prepare import Prepared
from roomsync.adapters.client.quota import QuotaGate
from roomsync.adapters.client.records import RequestHook, RequestRecord
from roomsync.core.catalog.types import Operation, Priority

__all__ = ["Clock", "Sender", "Sent", "Sleep", "resend_is_safe"]

# the client's logger: what the send path logs reads as the client's, whichever module says it
log = logging.getLogger("roomsync.adapters.client")

Clock = Callable[[], datetime]
Sleep = Callable[[float], Awaitable[None]]

_IDEMPOTENT = frozenset({"GET", "PUT", "DELETE"})


def resend_is_safe(operation: Operation) -> bool:
    """Whether sending ``operation`` twice has the effect of sending it once.

    GET, PUT and DELETE are idempotent; a POST that the catalog does not mark ``creates`` is a
    read (filters, inventory and availability queries), a token request or an enqueue of the same
    prices, all harmless to repeat. Only creates must be looked up before a resend.
    """
    return operation.method in _IDEMPOTENT or not operation.creates


@dataclass
class Sent:
    """Counts of what the client sent, for tests and the CLI."""

    by_operation: Counter[str] = field(default_factory=Counter)

    @property
    def total(self) -> int:
        return sum(self.by_operation.values())


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


class Sender:
    """Sends the prepared requests of one client through its budget, credentials and retries.

    ``caller`` is the client itself: a lookup of a create that may have happened is a call of its
    own, budgeted, retried and counted like any other.
    """

    def __init__(
        self,
        *,
        http: httpx.AsyncClient,
        gate: QuotaGate,
        auth: Authenticator,
        answers: AnswerReader,
        caller: lookups.Caller,
        retry: RetryPolicy,
        on_request: RequestHook,
        clock: Clock,
        sleep: Sleep,
        sent: Sent,
    ) -> None:
        self._http = http
        self._gate = gate
        self._auth = auth
        self._answers = answers
        self._caller = caller
        self._retry = retry
        self._on_request = on_request
        self._clock = clock
        self._sleep = sleep
        self._sent = sent

    async def execute(self, prepared: Prepared, priority: Priority) -> Any:
        """Send ``prepared`` until it is answered, refused or out of retries; its response model."""
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
            if prepared.digest_answer:
                return self._answers.digested(op, outcome)
            return self._answers.decode(op, outcome)
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
        raise self._answers.error_for(op, verdict, outcome)

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
            self._sent.by_operation[op.name] += 1
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
            found = await lookups.find_created(
                self._caller, op.name, prepared.body, prepared.params, priority
            )
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
