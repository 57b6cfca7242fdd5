"""The history of a night: what roomsync pushed to a listing's night, from which PMS facts, why.

Pure: no clock, no I/O. The app layer builds :class:`NightChange` values at the point where a
confirmed write advances the ledger; :func:`runs_of_nights` folds consecutive nights that carry
the same change (same field, old and new value, same facts) into one :class:`HistoryEntry`, so a
push of 300 closed nights is one row, not 300.

Values are kept as JSON-ready scalars (``"unavailable"``, ``3``, ``120``, ``[1, null, false,
null]`` for restrictions) so that every store and the console read them the same way.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass
from datetime import date, datetime, timedelta
from enum import StrEnum
from typing import Any

JsonValue = str | int | float | bool | list[Any] | dict[str, Any] | None


class EntryKind(StrEnum):
    PUSH = "push"
    """The channel confirmed a write of this value."""
    DRIFT = "drift"
    """A channel read (resync, reconcile) found a value roomsync had not pushed."""
    PRICE_PUSH = "price_push"
    """A connected channels' price (per room type and rate, not per listing)."""


@dataclass(frozen=True)
class NightChange:
    """One field of one night, as one confirmed request changed it."""

    night: date
    field: str
    old: JsonValue
    new: JsonValue
    facts: Mapping[str, JsonValue]
    """The PMS facts the value came from, and the mapping rule that turned them into it."""


@dataclass(frozen=True)
class HistoryEntry:
    """A run of consecutive nights that one request (or read) changed alike."""

    property_id: str
    account_id: str
    listing_id: str
    first_night: date
    last_night: date
    at: datetime
    kind: EntryKind
    field: str
    old: JsonValue
    new: JsonValue
    facts: Mapping[str, JsonValue] = dataclasses.field(default_factory=dict)
    request: Mapping[str, JsonValue] = dataclasses.field(default_factory=dict)
    """Which request carried it: run, request and operation index, priority, the service's answer."""
    trigger: str = ""
    """What started the run: ``schedule``, ``poll``, ``webhook``, ``admin resync by WHO``, ``command
    line``."""
    run_kind: str = ""
    run_id: int | None = None

    def covers(self, night: date) -> bool:
        return self.first_night <= night <= self.last_night


def _same(a: NightChange, b: NightChange) -> bool:
    return a.field == b.field and a.old == b.old and a.new == b.new and a.facts == b.facts


def runs_of_nights(changes: Iterable[NightChange]) -> list[tuple[date, date, NightChange]]:
    """``changes`` folded into runs ``(first, last, change)`` of consecutive nights changed alike.

    Changes are grouped per field; within a field, nights are sorted and a run continues while
    the next night follows the last one and carries the same old/new values and facts."""
    by_field: dict[str, list[NightChange]] = {}
    for change in changes:
        by_field.setdefault(change.field, []).append(change)
    runs: list[tuple[date, date, NightChange]] = []
    for name in sorted(by_field):
        ordered = sorted(by_field[name], key=lambda c: c.night)
        start = previous = ordered[0]
        for change in ordered[1:]:
            if change.night == previous.night + timedelta(days=1) and _same(change, start):
                previous = change
                continue
            runs.append((start.night, previous.night, start))
            start = previous = change
        runs.append((start.night, previous.night, start))
    return runs


def last_push_per_field(entries: Sequence[HistoryEntry], night: date) -> dict[str, HistoryEntry]:
    """The latest push (of a listing, or of a connected rate) of each field covering ``night``."""
    latest: dict[str, HistoryEntry] = {}
    for entry in entries:
        if entry.kind is EntryKind.DRIFT or not entry.covers(night):
            continue
        seen = latest.get(entry.field)
        if seen is None or entry.at >= seen.at:
            latest[entry.field] = entry
    return latest
