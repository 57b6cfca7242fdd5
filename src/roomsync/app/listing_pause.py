"""Pausing and resuming a listing by hand: one place for the CLI, the admin API and the console.

The reason is stored as ``paused by an operator: REASON`` (the prefix tells status an operator did
it). The pause is written to the store and this process's webhook side is told at once
(:func:`listing_states_changed`, which the webhook side's caches compare): a guest check for a listing
paused a moment earlier is declined, not answered from a listing state cached before the pause.
"""

from __future__ import annotations

from roomsync.adapters.store import Store
from roomsync.core.ports import ListingKey

OPERATOR_PAUSE = "paused by an operator"
_state_generations: dict[str, int] = {}


def listing_states_changed(property_id: str) -> None:
    """Tell this process's caches that a listing state of the property changed (a pause, say)."""
    _state_generations[property_id] = _state_generations.get(property_id, 0) + 1


def listing_states_generation(property_id: str) -> int:
    """How many times this process changed the property's listing states (the caches compare it)."""
    return _state_generations.get(property_id, 0)


def operator_reason(reason: str | None) -> str:
    """``paused by an operator: REASON`` (the prefix tells status an operator did it)."""
    return f"{OPERATOR_PAUSE}: {reason}" if reason else OPERATOR_PAUSE


def set_listing_paused(store: Store, key: ListingKey, paused: bool, reason: str | None = None) -> None:
    """Pause ``key`` with ``reason`` as stored (``operator_reason``), or resume it; the webhook side
    of this process sees it at once (another process's within its cache's second)."""
    store.listing_states.set_paused(key, paused, reason if paused else None)
    listing_states_changed(key.property_id)
