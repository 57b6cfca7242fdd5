"""What stops a sync before it starts, named for the caller (the CLI and the daemon catch these)."""

from __future__ import annotations


class NoMapping(Exception):
    """The property has no mapping loaded; the message says how to load one."""


class RequestRefused(ValueError):
    """The caller asked for something that cannot be done (a listing not in the mapping, dates
    outside the horizon): a mistake to correct, refused before any run is recorded or counted."""
