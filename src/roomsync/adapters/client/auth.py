"""How requests are authenticated: a persisted bearer token (03-conventions) or a static key.

A token costs a request of the daily quota, so it is requested once, persisted through the
:class:`~roomsync.core.ports.TokenStore` (a restart reuses it) and renewed only when it is about to
expire or the service answers 401.
"""

from __future__ import annotations

import asyncio
from collections.abc import Awaitable, Callable
from datetime import datetime, timedelta

from roomsync.adapters.client.errors import AuthError
from roomsync.core.api.service import TokenResponse
from roomsync.core.catalog.types import Priority
from roomsync.core.ports import StoredToken, TokenStore

__all__ = ["Authenticator", "StaticKeyAuth", "TokenAuth"]

Clock = Callable[[], datetime]
FetchToken = Callable[[Priority], Awaitable[TokenResponse]]


class Authenticator:
    """What every authentication mode offers the client."""

    def needs_request(self) -> bool:
        """Whether the next request first has to fetch a token (it costs one request)."""
        return False

    async def headers(self, priority: Priority) -> dict[str, str]:
        raise NotImplementedError

    async def renew_after_401(self, rejected: dict[str, str], priority: Priority) -> bool:
        """Get fresh credentials after a 401 on ``rejected`` headers; False when there is nothing
        to renew (a static key), so the 401 is final."""
        return False

    def secrets(self) -> tuple[str, ...]:
        """The secret strings known right now, so messages can be scrubbed of them."""
        return ()


class StaticKeyAuth(Authenticator):
    """A fixed key in a header (setting ``auth_header``); a 401 means the key is wrong."""

    def __init__(self, header: str, key: str) -> None:
        self._header = header
        self._key = key

    def __repr__(self) -> str:
        return f"StaticKeyAuth(header={self._header!r})"

    async def headers(self, priority: Priority) -> dict[str, str]:
        return {self._header: self._key}

    def secrets(self) -> tuple[str, ...]:
        return (self._key,)


class TokenAuth(Authenticator):
    """A bearer token shared by every client of the property through the token store."""

    def __init__(
        self,
        store: TokenStore,
        property_id: str,
        fetch: FetchToken,
        *,
        clock: Clock,
        margin: timedelta,
    ) -> None:
        self._store = store
        self._property_id = property_id
        self._fetch = fetch
        self._clock = clock
        self._margin = margin
        self._token: StoredToken | None = None
        self._lock = asyncio.Lock()

    def __repr__(self) -> str:
        return f"TokenAuth(property_id={self._property_id!r}, token={self._token!r})"

    def _usable(self, token: StoredToken | None) -> bool:
        return token is not None and self._clock() + self._margin < token.expires_at

    def _current(self) -> StoredToken | None:
        if not self._usable(self._token):
            # Another process (or an earlier run) may have stored one: reuse it, it is free.
            self._token = self._store.load_token(self._property_id)
        return self._token if self._usable(self._token) else None

    def needs_request(self) -> bool:
        return self._current() is None

    async def _renew(self, priority: Priority) -> TokenResponse:
        issued_at = self._clock()  # before the request: the token's life starts on the server
        answer = await self._fetch(priority)
        token = StoredToken(answer.access_token, issued_at + timedelta(seconds=answer.expires_in))
        self._store.save_token(self._property_id, token)
        self._token = token
        return answer

    async def renew(self, priority: Priority) -> TokenResponse:
        """Request a new token now and store it, whatever the stored one."""
        async with self._lock:
            return await self._renew(priority)

    async def headers(self, priority: Priority) -> dict[str, str]:
        token = self._current()
        if token is None:
            async with self._lock:
                if self._current() is None:
                    await self._renew(priority)
                token = self._current()
        if token is None:  # pragma: no cover - a token shorter-lived than the safety margin
            raise AuthError("the service issued a token that expires within the safety margin")
        return {"Authorization": f"Bearer {token.access_token}"}

    async def renew_after_401(self, rejected: dict[str, str], priority: Priority) -> bool:
        async with self._lock:
            stored = self._store.load_token(self._property_id)
            if (
                stored is not None
                and self._usable(stored)
                and rejected.get("Authorization") != f"Bearer {stored.access_token}"
            ):
                self._token = stored  # someone renewed it meanwhile: free
                return True
            self._store.clear_token(self._property_id)
            self._token = None
            await self._renew(priority)
            return True

    def secrets(self) -> tuple[str, ...]:
        return (self._token.access_token,) if self._token is not None else ()


def refused_credentials(username: str, domain: str, error: str | None, description: str | None) -> AuthError:
    """The error for a token request the service refused (400 ``invalid_grant`` and the like)."""
    detail = ": ".join(part for part in (error, description) if part) or "no reason given"
    return AuthError(
        f"the service refused the credentials of user {username!r} for domain {domain!r} ({detail}); "
        "check the username, password and domain settings",
        operation="request_token",
    )
