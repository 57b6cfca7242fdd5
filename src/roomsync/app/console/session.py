"""The console's session: a signed cookie after a login with the admin token, and CSRF tokens.

The cookie holds ``who|expires|nonce`` and an HMAC-SHA256 of it under a key derived from the admin
token, so changing the token ends every session, and a restart keeps them. It is ``HttpOnly``
(no script reads it), ``SameSite=Strict`` (no other site's page sends it) and ``Secure`` when the
console is reached over HTTPS. Every action (a POST) must carry the session's CSRF token, an HMAC
of the session's nonce: a form of another origin cannot know it.
"""

from __future__ import annotations

import base64
import hashlib
import hmac
import secrets
import time
from dataclasses import dataclass

COOKIE = "roomsync_console"
SESSION_SECONDS = 8 * 3600
"""A session lasts one working shift."""


@dataclass(frozen=True)
class Session:
    who: str
    expires: int
    nonce: str


class SessionKeys:
    def __init__(self, admin_token: str) -> None:
        self._token = admin_token.encode()
        self._key = hmac.new(self._token, b"roomsync console session v1", hashlib.sha256).digest()

    def token_matches(self, given: str) -> bool:
        """Whether ``given`` is the admin token (constant time)."""
        return hmac.compare_digest(given.encode(), self._token)

    def _sign(self, payload: bytes) -> str:
        return base64.urlsafe_b64encode(hmac.new(self._key, payload, hashlib.sha256).digest()).decode()

    def new_cookie(self, who: str, now: float | None = None) -> str:
        expires = int((now if now is not None else time.time()) + SESSION_SECONDS)
        payload = f"{who}|{expires}|{secrets.token_urlsafe(16)}".encode()
        return base64.urlsafe_b64encode(payload).decode() + "." + self._sign(payload)

    def session_of(self, cookie: str | None, now: float | None = None) -> Session | None:
        """The session a cookie carries, or None when it is missing, forged or expired."""
        if not cookie or "." not in cookie:
            return None
        encoded, signature = cookie.rsplit(".", 1)
        try:
            payload = base64.urlsafe_b64decode(encoded.encode())
        except ValueError:
            return None
        if not hmac.compare_digest(signature, self._sign(payload)):
            return None
        who, expires, nonce = payload.decode().rsplit("|", 2)
        if int(expires) < (now if now is not None else time.time()):
            return None
        return Session(who, int(expires), nonce)

    def csrf_token(self, session: Session) -> str:
        return self._sign(b"csrf|" + session.nonce.encode())

    def csrf_ok(self, session: Session, given: str | None) -> bool:
        return given is not None and hmac.compare_digest(given, self.csrf_token(session))
