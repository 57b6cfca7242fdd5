"""The reason an operator's pause of a listing is stored with (CLI, admin API and console agree)."""

from __future__ import annotations

OPERATOR_PAUSE = "paused by an operator"


def operator_reason(reason: str | None) -> str:
    """``paused by an operator: REASON`` (the prefix tells status an operator did it)."""
    return f"{OPERATOR_PAUSE}: {reason}" if reason else OPERATOR_PAUSE
