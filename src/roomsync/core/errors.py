"""Errors raised by the pure core."""

from __future__ import annotations

from typing import Any


class LimitViolation(ValueError):
    """A value breaks a documented limit of the service.

    Raised before anything is sent. ``field`` is the API (camelCase) name of the offending field,
    dotted for nested ones (``operations.2.dateTo``), ``value`` what was given and ``rule`` the
    limit in words.
    """

    def __init__(self, field: str, value: Any, rule: str, *, model: str | None = None) -> None:
        self.field = field
        self.value = value
        self.rule = rule
        self.model = model
        where = f"{model}.{field}" if model else field
        super().__init__(f"{where}={value!r}: {rule}")

    def as_error_body(self) -> dict[str, Any]:
        """The service's error body (03-conventions) describing this violation."""
        return {"error": {"code": "INVALID_VALUE", "message": str(self), "field": self.field}}
