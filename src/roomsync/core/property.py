"""A property as stored: its key, the settings it overrides and references to its secrets."""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from datetime import datetime
from typing import Any

PROPERTY_ID = re.compile(r"^[A-Za-z0-9][A-Za-z0-9._-]{0,62}$")
"""A property key: it appears in URLs (``/webhooks/{channel}/{property}``) and metric labels."""


def check_property_id(value: str) -> str:
    """``value`` if it can be a property key, else a ``ValueError`` saying what is allowed."""
    if not PROPERTY_ID.match(value):
        raise ValueError(
            f"property id {value!r}: use 1-63 letters, digits, '.', '_' or '-', "
            "starting with a letter or digit"
        )
    return value


class PropertyExists(ValueError):
    """A property of that id is already in the deployment."""


class PropertyNotFound(LookupError):
    """No property of that id in the deployment."""


@dataclass(frozen=True)
class PropertyRecord:
    property_id: str
    overrides: dict[str, Any] = field(default_factory=dict)
    """Settings this property sets for itself, by name (non-secret values only)."""
    secret_refs: dict[str, str] = field(default_factory=dict)
    """Secret settings by name: ``env:VARIABLE`` or ``file:PATH``, never the secret."""
    paused: bool = False
    paused_reason: str | None = None
    created_at: datetime | None = None
