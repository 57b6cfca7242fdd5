"""What can go wrong when roomsync talks to the service.

Every error the client raises is a :class:`ServiceError`; what a caller should do next decides
the subclass::

    ServiceError                 base: anything the client could not turn into an answer
    ├── RetriableError           transient (5xx, timeouts, dropped connections, 429 with a short
    │                            wait) and the client's own retries ran out, or the server asked
    │                            to wait longer than the ``max_retry_wait`` setting allows;
    │                            ``retry_after`` is the wait the server asked for, if any.
    │                            Trying again later may work.
    ├── FatalError               the service refused the request as it is (400, 409, 415, ...):
    │                            resending the same request will fail the same way. Carries the
    │                            server's ``code``, ``message`` and ``field`` from the 03 error
    │                            body (JSON or XML); ``status`` is the HTTP status.
    ├── AuthError                the credentials or key were refused, or a renewed token was
    │                            refused again. Fix the settings (username, password, domain or
    │                            api_key); retrying spends quota for nothing.
    ├── NotFoundError            404: the id in the path does not exist (``code``/``message`` as
    │                            for FatalError).
    ├── QuotaExhausted           the day's request budget does not allow the request at its
    │                            priority, or the server answered 429 with a wait that runs past
    │                            the quota reset. Nothing was sent. ``priority``, ``remaining``,
    │                            ``reserve`` and ``resets_at`` say why and until when.
    ├── AmbiguousWrite           a request that creates something may or may not have reached
    │                            the service and the client could not find out (no lookup for
    │                            this kind of object, or the lookup itself failed). The caller
    │                            must check before creating it again.
    └── UnexpectedResponse       the service answered 2xx with a body the client cannot read as
                                 the operation's response model.

No error message, ``repr`` or attribute ever holds a secret (password, token, key): messages are
built from operation names, statuses and the server's error body, never from request headers or
the token form.
"""

from __future__ import annotations

from datetime import datetime

from roomsync.core.catalog.types import Priority

__all__ = [
    "AmbiguousWrite",
    "AuthError",
    "FatalError",
    "NotFoundError",
    "QuotaExhausted",
    "RetriableError",
    "ServiceError",
    "UnexpectedResponse",
]


class ServiceError(Exception):
    """Base of every error of the service client (the tree is in the module docstring)."""

    def __init__(self, message: str, *, operation: str | None = None, status: int | None = None) -> None:
        self.operation = operation
        self.status = status
        super().__init__(message)

    def __repr__(self) -> str:
        return f"{type(self).__name__}({str(self)!r})"


class RetriableError(ServiceError):
    """A transient failure that outlasted the client's retries; trying later may work."""

    def __init__(
        self,
        message: str,
        *,
        operation: str | None = None,
        status: int | None = None,
        retry_after: float | None = None,
    ) -> None:
        self.retry_after = retry_after
        super().__init__(message, operation=operation, status=status)


class _WithServerDetail(ServiceError):
    def __init__(
        self,
        message: str,
        *,
        operation: str | None = None,
        status: int | None = None,
        code: str | None = None,
        server_message: str | None = None,
        field: str | None = None,
    ) -> None:
        self.code = code
        self.server_message = server_message
        self.field = field
        super().__init__(message, operation=operation, status=status)


class FatalError(_WithServerDetail):
    """The service refused the request as it is; ``code``, ``server_message``, ``field`` say why."""


class NotFoundError(_WithServerDetail):
    """404: the object named in the path does not exist."""


class AuthError(ServiceError):
    """Credentials, key or token refused; the message says which and what to check."""


class QuotaExhausted(ServiceError):
    """The day's budget refuses the request at its priority; nothing was sent."""

    def __init__(
        self,
        message: str,
        *,
        operation: str | None = None,
        priority: Priority,
        remaining: int,
        reserve: int,
        resets_at: datetime,
        status: int | None = None,
    ) -> None:
        self.priority = priority
        self.remaining = remaining
        self.reserve = reserve
        self.resets_at = resets_at
        super().__init__(message, operation=operation, status=status)


class AmbiguousWrite(ServiceError):
    """A create may or may not have happened and the client could not tell; check before resending."""


class UnexpectedResponse(ServiceError):
    """A 2xx answer whose body is not the operation's response model."""
