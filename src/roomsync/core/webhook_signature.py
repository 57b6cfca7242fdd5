"""The webhook signature scheme of 03-conventions, shared by the receiver and the emulator.

``X-Webhook-Signature: t=<unix seconds>,v1=<hex HMAC-SHA256 of "<t>.<raw body>">``. The receiver
refuses a signature older or newer than the tolerance (replay protection) and compares digests
in constant time. Pure: the caller passes "now".
"""

from __future__ import annotations

import hashlib
import hmac
from dataclasses import dataclass
from enum import StrEnum

SIGNATURE_HEADER = "X-Webhook-Signature"
WEBHOOK_ID_HEADER = "X-Webhook-Id"
DEFAULT_TOLERANCE_SECONDS = 300


def signature_digest(secret: str, timestamp: int, body: bytes) -> str:
    message = f"{timestamp}.".encode() + body
    return hmac.new(secret.encode(), message, hashlib.sha256).hexdigest()


def sign(secret: str, timestamp: int, body: bytes) -> str:
    """The header value for ``body`` sent at ``timestamp``."""
    return f"t={timestamp},v1={signature_digest(secret, timestamp, body)}"


class SignatureProblem(StrEnum):
    MISSING = "signature header missing"
    MALFORMED = "signature header malformed"
    STALE = "signature timestamp outside the tolerance"
    MISMATCH = "signature does not match the body"


@dataclass(frozen=True)
class SignatureCheck:
    problem: SignatureProblem | None

    @property
    def ok(self) -> bool:
        return self.problem is None


def verify(
    header: str | None,
    secret: str,
    body: bytes,
    now: float,
    tolerance: int = DEFAULT_TOLERANCE_SECONDS,
) -> SignatureCheck:
    """Check a delivery's signature header against ``body`` at time ``now``."""
    if not header:
        return SignatureCheck(SignatureProblem.MISSING)
    parts: dict[str, list[str]] = {}
    for item in header.split(","):
        key, sep, value = item.strip().partition("=")
        if not sep:
            return SignatureCheck(SignatureProblem.MALFORMED)
        parts.setdefault(key, []).append(value)
    try:
        timestamp = int(parts["t"][0])
    except (KeyError, ValueError):
        return SignatureCheck(SignatureProblem.MALFORMED)
    candidates = parts.get("v1")
    if not candidates:
        return SignatureCheck(SignatureProblem.MALFORMED)
    if abs(now - timestamp) > tolerance:
        return SignatureCheck(SignatureProblem.STALE)
    expected = signature_digest(secret, timestamp, body)
    # Every candidate is compared (no early exit) so timing reveals nothing about which failed.
    matched = False
    for candidate in candidates:
        matched |= hmac.compare_digest(expected, candidate)
    return SignatureCheck(None if matched else SignatureProblem.MISMATCH)
