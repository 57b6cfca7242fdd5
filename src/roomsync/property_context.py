"""The property context: everything that is one property's own, handed to what works for it.

A deployment serves one property or many. What differs between properties (its key, the
service's address and credentials, its quota and reserves, its horizon, its webhook secret) lives
in a :class:`PropertyContext`, passed to the client, the runs, the receiver, the bridge and the
worker; nothing reads a property from global settings. The process settings keep what the
process has once (database, listen address, admin token, timeouts).

Two sources of properties:

- *a deployment of one property*, as roomsync always ran: :meth:`PropertyContext.of` builds the
  context from the settings alone (``property_id``, else ``domain``, else ``default``);
- *properties as data*: rows added with ``roomsync properties add``; each row holds the settings
  it overrides (:data:`PROPERTY_SETTINGS`) and, for secrets, a **reference** (``env:NAME`` or
  ``file:PATH``) resolved when the context is built, never the secret itself
  (:func:`context_of_record`).
"""

from __future__ import annotations

import os
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from pydantic import SecretStr, ValidationError

from roomsync.core.property import PropertyRecord
from roomsync.settings import Settings, SettingsError

PROPERTY_SETTINGS: frozenset[str] = frozenset(
    {
        "base_url",
        "channel_name",
        "payload_format",
        "username",
        "domain",
        "auth_header",
        "daily_quota",
        "reserve_availability",
        "reserve_prices",
        "reserve_reconcile",
        "horizon_days",
        "timezone",
        "detect_nights",
        "detect_budget_share",
        "availability_max_gap_seconds",
        "detect_max_gap_seconds",
        "full_sync_budget_share",
        "reconcile_budget_share",
        "max_dates_per_request",
        "webhook_require_signature",
        "webhook_token_header",
        "channel_booking_agency_id",
        "payout_payment_method_id",
        "poll_budget_share",
        "spend_share",
        "free_licence_spend_share",
        "price_check_interval_seconds",
        "reconcile_interval_seconds",
        "repush_interval_seconds",
    }
)
"""Settings a property may set for itself (``roomsync properties add --set NAME=VALUE``)."""

SECRET_SETTINGS: frozenset[str] = frozenset({"password", "api_key", "webhook_secret", "webhook_token"})
"""Secrets a property names by reference (``--secret NAME=env:VAR`` or ``NAME=file:PATH``)."""

REFERENCE_KINDS = ("env:", "file:")


class PropertyConfigError(Exception):
    """A property's stored configuration cannot be used; the message names the property and why."""


@dataclass(frozen=True)
class PropertyContext:
    """One property: its key and its effective settings (the process settings with its own)."""

    property_id: str
    settings: Settings = field(repr=False)
    paused: bool = False
    paused_reason: str | None = None
    from_settings: bool = False
    """True for the property of a one-property deployment (no property rows)."""

    @classmethod
    def of(cls, settings: Settings) -> PropertyContext:
        """The property of a one-property deployment, configured by the settings alone."""
        return cls(settings.effective_property_id, settings, from_settings=True)

    def __post_init__(self) -> None:
        if self.settings.effective_property_id != self.property_id:
            # code given ``context.settings`` sees the same key as code given the context
            object.__setattr__(
                self, "settings", self.settings.model_copy(update={"property_id": self.property_id})
            )


def check_reference(name: str, reference: str) -> str:
    """``reference`` if it is ``env:NAME`` or ``file:PATH``, else a ``PropertyConfigError``."""
    if name not in SECRET_SETTINGS:
        raise PropertyConfigError(
            f"{name!r} is not a secret setting; secrets are {', '.join(sorted(SECRET_SETTINGS))}"
        )
    kind, _, target = reference.partition(":")
    if f"{kind}:" not in REFERENCE_KINDS or not target:
        raise PropertyConfigError(
            f"secret {name!r}: give a reference, env:VARIABLE or file:/path/to/file, never the secret itself"
        )
    return reference


def resolve_reference(property_id: str, name: str, reference: str) -> SecretStr:
    """The secret a reference points at; a ``PropertyConfigError`` naming what is missing."""
    kind, _, target = reference.partition(":")
    if kind == "env":
        value = os.environ.get(target)
        if value is None:
            raise PropertyConfigError(
                f"property {property_id}: secret {name} refers to the environment variable {target}, "
                "which is not set"
            )
        return SecretStr(value)
    if kind == "file":
        try:
            return SecretStr(Path(target).read_text().strip())
        except OSError as error:
            raise PropertyConfigError(
                f"property {property_id}: secret {name} refers to {target}, which cannot be read "
                f"({error.strerror or error})"
            ) from None
    raise PropertyConfigError(f"property {property_id}: secret {name} has an unknown reference kind")


def check_overrides(overrides: dict[str, Any], base: Settings) -> dict[str, Any]:
    """The overrides, validated against the settings' own rules (a ``PropertyConfigError`` naming
    the setting otherwise)."""
    unknown = sorted(set(overrides) - PROPERTY_SETTINGS)
    if unknown:
        secret = [name for name in unknown if name in SECRET_SETTINGS]
        if secret:
            raise PropertyConfigError(f"{secret[0]!r} is a secret: give it with --secret {secret[0]}=env:VAR")
        raise PropertyConfigError(
            f"{unknown[0]!r} is not a per-property setting; those are {', '.join(sorted(PROPERTY_SETTINGS))}"
        )
    try:
        checked = Settings.model_validate({**_plain(base), **overrides})
    except ValidationError as error:
        first = error.errors(include_url=False)[0]
        name = ".".join(str(p) for p in first["loc"]) or "settings"
        raise PropertyConfigError(f"setting {name!r}: {first['msg'].removeprefix('Value error, ')}") from None
    return {name: getattr(checked, name) for name in overrides}


def context_of_record(base: Settings, record: PropertyRecord) -> PropertyContext:
    """The context of a stored property: the process settings, its overrides, its secrets resolved."""
    values = check_overrides(dict(record.overrides), base)
    for name, reference in record.secret_refs.items():
        values[name] = resolve_reference(record.property_id, name, reference)
    try:
        # a stored property's mapping is its own (``mappings load --property``), never the file of
        # the process settings, which would give every property the same listings
        settings = base.model_copy(update={**values, "property_id": record.property_id, "mapping_file": None})
    except (ValidationError, SettingsError) as error:  # pragma: no cover - checked above
        raise PropertyConfigError(f"property {record.property_id}: {error}") from None
    return PropertyContext(record.property_id, settings, record.paused, record.paused_reason)


def _plain(settings: Settings) -> dict[str, Any]:
    """The settings as keyword arguments that validate again (secrets as their values)."""
    values = settings.model_dump()
    return {
        name: value.get_secret_value() if isinstance(value, SecretStr) else value
        for name, value in values.items()
    }
