"""Catalog entries of 03-conventions: the token and usage operations."""

from __future__ import annotations

from roomsync.core.api.service import TokenRequest, TokenResponse, Usage
from roomsync.core.catalog.types import Operation, Priority, ShapeSource

OPERATIONS: tuple[Operation, ...] = (
    Operation(
        "request_token", "POST", "/v1/Token", TokenRequest, TokenResponse,
        "Exchange the credentials for a bearer token (24 h).", "03",
        priority=Priority.GUEST, shape=ShapeSource.CONVENTIONS, form_body=True,
    ),
    Operation(
        "get_usage", "GET", "/v1/Usage", None, Usage,
        "Requests used today and the daily quota; counts as a request itself.", "03",
        priority=Priority.RECONCILE, shape=ShapeSource.CONVENTIONS,
    ),
)
