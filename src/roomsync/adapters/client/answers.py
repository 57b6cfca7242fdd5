"""Reading the service's final answer to a request: the response model, or the error to raise.

:func:`~roomsync.adapters.client.classify.classify` has already decided what the answer means;
this module only turns it into what the caller gets (the error tree is documented in
:mod:`roomsync.adapters.client.errors`). Every text the server sends back is scrubbed of the
client's secrets before it reaches a message, because a server may echo a password or a token.
"""

from __future__ import annotations

import hashlib
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any, Generic, TypeVar

import httpx

from roomsync.adapters.client.auth import Authenticator, StaticKeyAuth, refused_credentials
from roomsync.adapters.client.classify import Action, Verdict
from roomsync.adapters.client.errors import (
    AmbiguousWrite,
    AuthError,
    FatalError,
    NotFoundError,
    RetriableError,
    ServiceError,
    UnexpectedResponse,
)
from roomsync.core import codec
from roomsync.core.catalog.types import Operation
from roomsync.core.errors import LimitViolation
from roomsync.settings import Settings

__all__ = ["AnswerReader", "DigestedAnswer", "answer_digest", "prepared_path_for_message"]

T = TypeVar("T")


def answer_digest(content: bytes) -> str:
    """The digest of an answer's bytes: equal digests, equal answers."""
    return hashlib.blake2b(content, digest_size=16).hexdigest()


@dataclass(frozen=True)
class DigestedAnswer(Generic[T]):
    """An answer's digest, its model decoded only when asked: a caller that already holds what
    an answer of these bytes says need not decode it again (a poll's year of free rooms, issue 26).
    A body that does not decode raises :class:`UnexpectedResponse` from :meth:`model`."""

    digest: str
    decode: Callable[[], T] = field(repr=False)

    def model(self) -> T:
        return self.decode()


class AnswerReader:
    """Decodes the answers and builds the errors of one client (its settings and credentials)."""

    def __init__(self, settings: Settings, auth: Authenticator) -> None:
        self._settings = settings
        self._format = settings.payload_format
        self._auth = auth

    def decode(self, op: Operation, response: httpx.Response) -> Any:
        """The response model of a successful ``op`` (None when the catalog expects no object)."""
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
            detail = "" if op.form_body else f" ({self.scrub(str(error))})"
            raise UnexpectedResponse(
                f"{op.name}: the {response.status_code} answer is not a readable "
                f"{op.response.__name__}{detail}",
                operation=op.name,
                status=response.status_code,
            ) from None

    def digested(self, op: Operation, response: httpx.Response) -> DigestedAnswer[Any]:
        """The digest of a successful ``op``'s answer, its model decoded on demand."""
        return DigestedAnswer(answer_digest(response.content), lambda: self.decode(op, response))

    def error_for(self, op: Operation, verdict: Verdict, response: httpx.Response) -> ServiceError:
        """The error for an answer the client will not retry (refused, missing, failed)."""
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
        message = self.scrub(detail.message) if detail else None
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
            self.scrub(error) if error else None,
            self.scrub(description) if description else None,
        )

    def scrub(self, text: str) -> str:
        """``text`` with every secret the client knows replaced, in case a server echoes one."""
        secrets = list(self._auth.secrets())
        if self._settings.password is not None:
            secrets.append(self._settings.password.get_secret_value())
        for secret in secrets:
            if secret:
                text = text.replace(secret, "***")
        return text


def prepared_path_for_message(op: Operation, response: httpx.Response) -> str:
    """The concrete path of a failed request, for messages (paths carry ids, never secrets)."""
    return response.request.url.path if response.request is not None else op.path
