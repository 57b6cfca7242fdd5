"""Authentication: one token per 24 hours across restarts, one renewal on 401, static keys, no leaks."""

from __future__ import annotations

import logging
from datetime import timedelta

import pytest
from client_harness import FIXED_NOW, TOKEN_PATH, ClientFactory, Control

from roomsync.adapters.client import AuthError
from roomsync.adapters.store import Store

ACCOUNTS = "GET /v1/ChannelManager/RentalChannel/Accounts"


async def test_the_token_is_reused_across_restarts(make_client: ClientFactory, control: Control) -> None:
    first = make_client()
    assert await first.list_accounts()
    await first.aclose()

    restarted = make_client()  # a new process on the same database
    assert await restarted.list_accounts()

    assert control.count(TOKEN_PATH) == 1
    assert control.count(ACCOUNTS) == 2
    assert restarted.requests_sent.by_operation["request_token"] == 0


async def test_an_expired_token_is_renewed_once(
    make_client: ClientFactory, control: Control, store: Store
) -> None:
    client = make_client()
    await client.list_accounts()
    first_token = store.tokens.load_token(client.property_id)

    control.advance(hours=25)  # the service's token lived 24 hours; the client's clock does not know
    assert await client.list_accounts()

    assert control.count(TOKEN_PATH) == 2
    statuses = control.log()["byStatus"]
    assert statuses[f"{ACCOUNTS} 401"] == 1
    assert statuses[f"{ACCOUNTS} 200"] == 2
    renewed = store.tokens.load_token(client.property_id)
    assert first_token is not None and renewed is not None
    assert renewed.access_token != first_token.access_token


async def test_a_token_about_to_expire_is_renewed_before_use(
    make_client: ClientFactory, control: Control
) -> None:
    now = [FIXED_NOW]
    client = make_client(clock=lambda: now[0])  # the client's clock, kept with the emulator's
    await client.list_accounts()
    await client.list_accounts()
    assert control.count(TOKEN_PATH) == 1

    step = timedelta(hours=23, minutes=58)  # 86,399 s minus the client's safety margin is less
    now[0] += step
    control.advance(seconds=step.total_seconds())
    assert await client.list_accounts()

    assert control.count(TOKEN_PATH) == 2  # renewed up front ...
    assert f"{ACCOUNTS} 401" not in control.log()["byStatus"]  # ... so no request was refused


async def test_a_second_401_is_an_auth_error(make_client: ClientFactory, control: Control) -> None:
    # The service switched to static keys: tokens are still handed out but no longer accepted.
    control.call("POST", "/auth", {"staticKey": "fixed-key-123", "authHeader": "apikey"})
    client = make_client()
    with pytest.raises(AuthError, match="401 twice") as refused:
        await client.list_accounts()
    assert refused.value.status == 401
    assert control.count(TOKEN_PATH) == 2  # the first token and exactly one renewal
    assert control.count(ACCOUNTS) == 2  # the request and exactly one replay


async def test_wrong_credentials_are_an_auth_error_that_never_shows_the_password(
    make_client: ClientFactory, control: Control, caplog: pytest.LogCaptureFixture
) -> None:
    caplog.set_level(logging.DEBUG)
    password = "Wr0ng-s3cret-pw"
    client = make_client(password=password)
    with pytest.raises(AuthError) as refused:
        await client.list_accounts()
    message = str(refused.value)
    assert "invalid_grant" in message and "'demo'" in message and "demo-hotel" in message
    for shown in (message, repr(refused.value), repr(client), caplog.text):
        assert password not in shown
    assert control.count(TOKEN_PATH) == 1  # a refused password is not retried
    assert control.count(ACCOUNTS) == 0


async def test_static_key_mode_sends_the_key_and_never_asks_for_a_token(
    make_client: ClientFactory, control: Control
) -> None:
    control.call("POST", "/auth", {"staticKey": "fixed-key-123", "authHeader": "X-Api-Key"})
    client = make_client(api_key="fixed-key-123", auth_header="X-Api-Key")
    assert await client.list_accounts()
    assert control.count(TOKEN_PATH) == 0

    wrong = make_client(api_key="not-the-key-456", auth_header="X-Api-Key")
    with pytest.raises(AuthError, match="api_key") as refused:
        await wrong.list_accounts()
    assert "not-the-key-456" not in str(refused.value)
    assert control.count(ACCOUNTS) == 2  # no renewal to try, no replay


async def test_tokens_stay_out_of_reprs_and_logs(
    make_client: ClientFactory, store: Store, caplog: pytest.LogCaptureFixture
) -> None:
    caplog.set_level(logging.DEBUG)
    client = make_client()
    await client.list_accounts()
    token = store.tokens.load_token(client.property_id)
    assert token is not None
    for shown in (repr(client), repr(token), caplog.text):
        assert token.access_token not in shown
    assert "Bearer" not in caplog.text
