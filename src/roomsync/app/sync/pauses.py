"""Why a listing is not synced: the pause rules the runs apply and the status, the metrics
and the console show (pure functions of a listing's state and facts)."""

from __future__ import annotations

from roomsync.core.ports import ListingFacts, ListingState

MANAGED_CATEGORIES = frozenset({"Full", "Limited"})
"""``connected`` values under which the service manages a listing (document 01)."""

ROOM_TYPE_GONE = "room type {id} is not in the PMS any more"
"""The pause reason of a listing whose room type the PMS no longer has; lifted by itself when the
room type is back (a mistyped mapping is refused at load; this is the room type deleted later)."""


def room_type_gone(reason: str | None) -> bool:
    return reason is not None and reason.startswith("room type ") and "not in the PMS any more" in reason


def pause_reason(state: ListingState, facts: ListingFacts | None) -> str | None:
    """Why a listing must not be synced, or None."""
    if state.paused:
        return state.pause_reason or "paused"
    if facts is not None and facts.missing:
        return "not among the channel's listings (unlinked, removed, or its account unauthorized)"
    if state.sync_category is not None and state.sync_category not in MANAGED_CATEGORIES:
        return f"not connected (connected={state.sync_category})"
    return None


def pause_label(reason: str) -> str:
    """A bounded metric label for a pause reason."""
    if room_type_gone(reason):
        return "room_type_missing"
    for label in ("not connected", "not among", "unlinked", "suspend", "revoked"):
        if label in reason:
            return label.replace(" ", "_").replace("not_among", "missing")
    return "other"
