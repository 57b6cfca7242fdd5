"""Token and usage: the two operations 03-conventions adds to documents 01 and 02."""

from __future__ import annotations

from typing import Literal

from pydantic import ConfigDict

from roomsync.core.api.base import ApiModel, element


class TokenRequest(ApiModel, tag="TokenRequest"):
    """Form body of ``POST /v1/Token``; its field names are snake_case on the wire."""

    model_config = ConfigDict(alias_generator=None)

    grant_type: Literal["password"] = element(tag="GrantType", default="password")
    username: str = element(tag="Username")
    password: str = element(tag="Password", repr=False)
    domain: str = element(tag="Domain")


class TokenResponse(ApiModel, tag="TokenResponse"):
    """``{"access_token": "...", "token_type": "bearer", "expires_in": 86399}``.

    The service answers the token request in JSON only (03); the XML form exists so the model
    follows the same conventions as every other.
    """

    model_config = ConfigDict(alias_generator=None, hide_input_in_errors=True)

    access_token: str = element(tag="AccessToken", repr=False)
    token_type: str = element(tag="TokenType", default="bearer")
    expires_in: int = element(tag="ExpiresIn", gt=0, description="Seconds the token lives.")


class Usage(ApiModel, tag="UsageInfo"):
    """``GET /v1/Usage``: ``{"usedCalls": N, "dailyQuota": M}``; the call itself counts.

    XML root ``UsageInfo`` as on https://api.hoteliga.com/help/resources/usage (docs/shapes/service.md).
    """

    used_calls: int = element(tag="UsedCalls", ge=0)
    daily_quota: int = element(tag="DailyQuota", gt=0)
