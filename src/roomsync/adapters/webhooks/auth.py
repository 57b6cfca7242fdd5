"""Who may deliver webhooks: the HMAC signature of 03-conventions and/or a shared token.

* ``webhook_secret`` set: every delivery must carry a valid ``X-Webhook-Signature``
  (``t=<unix seconds>,v1=<hex HMAC-SHA256 of "<t>.<raw body>">``, at most 300 s off the
  receiver's clock, compared as bytes in constant time by ``roomsync.core.webhook_signature``);
  only an explicit ``webhook_require_signature = false`` lets unsigned deliveries through (a
  signed one must still be valid), and the daemon says so when it starts.
* ``webhook_token`` set: every delivery must carry it in ``webhook_token_header``, compared with
  ``hmac.compare_digest``.

Refusals are 401 with the reason; no secret, token or signature ever reaches a log or a reply.
"""

from __future__ import annotations

import hmac
from collections.abc import Mapping
from dataclasses import dataclass
from datetime import datetime

from roomsync.core.webhook_signature import DEFAULT_TOLERANCE_SECONDS, SIGNATURE_HEADER, verify
from roomsync.settings import Settings


class WebhookAuthConfigError(ValueError):
    """The webhook settings contradict each other; the message names them."""


@dataclass(frozen=True)
class WebhookAuth:
    secret: str | None
    require_signature: bool
    token: str | None
    token_header: str
    tolerance: int = DEFAULT_TOLERANCE_SECONDS

    @classmethod
    def from_settings(cls, settings: Settings) -> WebhookAuth:
        secret = settings.webhook_secret.get_secret_value() if settings.webhook_secret else None
        token = settings.webhook_token.get_secret_value() if settings.webhook_token else None
        if settings.webhook_require_signature and not secret:
            raise WebhookAuthConfigError(
                "webhook_require_signature is true but webhook_secret is not set: no delivery could pass"
            )
        chosen = settings.webhook_require_signature
        require = bool(secret) if chosen is None else chosen  # a secret set means signatures required
        return cls(secret or None, require, token or None, settings.webhook_token_header)

    def describe(self) -> str:
        """Which authentication the receiver enforces, for the start-up log (no secret in it)."""
        parts = []
        if self.secret is not None and self.require_signature:
            parts.append(f"signatures required (HMAC-SHA256, {self.tolerance} s tolerance)")
        elif self.secret is not None:
            parts.append(
                "signatures checked when present, unsigned deliveries are accepted "
                "(webhook_require_signature = false)"
            )
        if self.token is not None:
            parts.append(f"the shared token required in {self.token_header}")
        if not parts:
            return "NO authentication: set webhook_secret (or webhook_token) before exposing the receiver"
        return "; ".join(parts)

    def refusal(self, headers: Mapping[str, str], body: bytes, now: datetime) -> str | None:
        """Why the delivery is refused, or None when it may pass. ``headers`` look-ups are
        case-insensitive (Starlette's headers are)."""
        if self.token is not None:
            sent = headers.get(self.token_header)
            if sent is None:
                return f"the {self.token_header} header is missing"
            if not hmac.compare_digest(sent.encode(), self.token.encode()):
                return f"the {self.token_header} header does not carry the configured webhook token"
        if self.secret is not None:
            header = headers.get(SIGNATURE_HEADER)
            if header is None and not self.require_signature:
                return None
            check = verify(header, self.secret, body, now.timestamp(), self.tolerance)
            if check.problem is not None:
                return f"{SIGNATURE_HEADER}: {check.problem.value}"
        return None
