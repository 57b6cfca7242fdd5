"""The 03 signature scheme: a known vector, tolerance on both sides, tampering."""

from __future__ import annotations

import hashlib
import hmac

from roomsync.core.webhook_signature import SignatureProblem, sign, verify

BODY = b'{"action":"CheckAvailability","startDate":"2027-01-01","nights":2,"listingId":"1001"}'


def test_signature_matches_an_independent_hmac() -> None:
    independent = hmac.new(b"whsec", b"1700000000." + BODY, hashlib.sha256).hexdigest()
    assert sign("whsec", 1_700_000_000, BODY) == f"t=1700000000,v1={independent}"


def test_tolerance_is_300_seconds_each_way() -> None:
    header = sign("whsec", 1_700_000_000, BODY)
    assert verify(header, "whsec", BODY, now=1_700_000_300).ok
    assert verify(header, "whsec", BODY, now=1_699_999_700).ok
    assert verify(header, "whsec", BODY, now=1_700_000_301).problem is SignatureProblem.STALE
    assert verify(header, "whsec", BODY, now=1_699_999_699).problem is SignatureProblem.STALE


def test_tampered_body_wrong_secret_and_garbage_are_refused() -> None:
    header = sign("whsec", 1_700_000_000, BODY)
    assert verify(header, "whsec", BODY + b" ", now=1_700_000_000).problem is SignatureProblem.MISMATCH
    assert verify(header, "other", BODY, now=1_700_000_000).problem is SignatureProblem.MISMATCH
    assert verify(None, "whsec", BODY, now=0).problem is SignatureProblem.MISSING
    assert verify("v1=abc", "whsec", BODY, now=0).problem is SignatureProblem.MALFORMED
    assert verify("t=x,v1=abc", "whsec", BODY, now=0).problem is SignatureProblem.MALFORMED
    assert verify("t=1700000000", "whsec", BODY, now=1_700_000_000).problem is SignatureProblem.MALFORMED


def test_any_of_several_v1_values_may_match() -> None:
    good = sign("whsec", 1_700_000_000, BODY).split("v1=")[1]
    header = f"t=1700000000,v1={'0' * 64},v1={good}"
    assert verify(header, "whsec", BODY, now=1_700_000_000).ok
