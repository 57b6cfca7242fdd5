"""The webhook signature scheme of 03-conventions, shared by the receiver and the emulator.

``X-Webhook-Signature: t=<unix seconds>,v1=<hex HMAC-SHA256 of "<t>.<raw body>">``. The receiver
refuses a signature older or newer than the tolerance (replay protection) and compares digests
in constant time. Pure: the caller passes "now".
"""

from __future__ import annotations

import hashlib
import hmac
import re
from dataclasses import dataclass
from enum import StrEnum

SIGNATURE_HEADER = "X-Webhook-Signature"
WEBHOOK_ID_HEADER = "X-Webhook-Id"
DEFAULT_TOLERANCE_SECONDS = 300
MAX_HEADER_LENGTH = 1024
"""A signature header longer than this is malformed (a real one is ~80 characters; a few v1 keys
during a secret rotation fit easily)."""
_TIMESTAMP = re.compile(r"[0-9]{1,12}")
_DIGEST = re.compile(r"[0-9a-f]{64}")


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
    if len(header) > MAX_HEADER_LENGTH or not header.isascii():
        return SignatureCheck(SignatureProblem.MALFORMED)
    parts: dict[str, list[str]] = {}
    for item in header.split(","):
        key, sep, value = item.strip().partition("=")
        if not sep:
            return SignatureCheck(SignatureProblem.MALFORMED)
        parts.setdefault(key, []).append(value)
    stamps = parts.get("t", [])
    if len(stamps) != 1 or not _TIMESTAMP.fullmatch(stamps[0]):
        return SignatureCheck(SignatureProblem.MALFORMED)
    timestamp = int(stamps[0])
    candidates = parts.get("v1")
    if not candidates or not all(_DIGEST.fullmatch(candidate) for candidate in candidates):
        return SignatureCheck(SignatureProblem.MALFORMED)
    if abs(now - timestamp) > tolerance:
        return SignatureCheck(SignatureProblem.STALE)
    expected = signature_digest(secret, timestamp, body).encode("ascii")
    # Bytes compared, every candidate (no early exit): timing reveals nothing about which failed.
    matched = False
    for candidate in candidates:
        matched |= hmac.compare_digest(expected, candidate.encode("ascii"))
    return SignatureCheck(None if matched else SignatureProblem.MISMATCH)
