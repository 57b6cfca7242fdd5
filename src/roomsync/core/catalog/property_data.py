"""Catalog entries of document 02."""

from __future__ import annotations

from roomsync.core.catalog.types import Operation

OPERATIONS: tuple[Operation, ...] = ()
