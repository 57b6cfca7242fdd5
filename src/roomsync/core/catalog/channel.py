"""Catalog entries of document 01."""

from __future__ import annotations

from roomsync.core.catalog.types import Operation

OPERATIONS: tuple[Operation, ...] = ()
