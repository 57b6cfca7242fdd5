"""The service's own operations: ``POST /v1/Token`` and ``GET /v1/Usage`` (03-conventions), over
the credentials and the quota of :mod:`roomsync.emulator.quota` (which the state holds, so the
handlers live apart from it: the registry's calls see the state)."""

from __future__ import annotations

from roomsync.core.api.service import TokenRequest, TokenResponse, Usage
from roomsync.emulator.quota import TOKEN_LIFETIME_SECONDS, OAuthError
from roomsync.emulator.registry import Call, handles


@handles("request_token")
def request_token(call: Call) -> TokenResponse:
    body: TokenRequest = call.body
    if not call.state.credentials.matches(body.username, body.password, body.domain):
        raise OAuthError(400, "invalid_grant", "The user name, password or domain is incorrect.")
    return TokenResponse(
        access_token=call.state.tokens.issue(), token_type="bearer", expires_in=TOKEN_LIFETIME_SECONDS
    )


@handles("get_usage")
def get_usage(call: Call) -> Usage:
    quota = call.state.quota
    return Usage(used_calls=quota.used, daily_quota=quota.limit)
