"""Recording the history of nights (``roomsync.core.night_history``) where the ledger advances.

``channel.py`` records :func:`push_entries` right after the channel confirmed a ``PUT Inventory``
(the same moment the ledger records it), so only confirmed pushes are history; what a channel
read (a resync's, its plan's, a reconciliation's) found changed behind roomsync's back is recorded
with :func:`drift_entries`. Every entry carries its run's :class:`RunStamp` (kind, id, and what
started it), handed down from the run recorder: the daemon names the trigger per job
(:func:`daemon_trigger`: ``schedule``, ``poll``, ``detection``, ``webhook``), the admin API and
the console ``admin resync by WHO`` (the console's plan ``admin resync plan by WHO``); a
command-line run keeps the default ``command line``.
"""

from __future__ import annotations

import time
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from datetime import date, datetime, timedelta
from decimal import Decimal
from typing import TYPE_CHECKING

from roomsync.adapters.store import Store
from roomsync.app.sync.listing_desired import engine_kind
from roomsync.app.sync.report import COMMAND_LINE
from roomsync.core.mapping import ListingMapping
from roomsync.core.night_history import EntryKind, HistoryEntry, JsonValue, NightChange, runs_of_nights
from roomsync.core.ports import ListingKey
from roomsync.core.sync import DayState, Field, ListingKind, shows_alike
from roomsync.core.sync.plans import InventoryRequestPlan

if TYPE_CHECKING:
    from roomsync.app.sync.pms import PmsFacts


@dataclass(frozen=True)
class RunStamp:
    """What the history entries of one run say of it: its kind, its id (None: not recorded, a
    plan), what started it, and how long its property keeps history."""

    kind: str = ""
    run_id: int | None = None
    trigger: str = COMMAND_LINE
    keep_days: int = 90


DAEMON_TRIGGERS = {
    "poll": "poll",
    "detect": "detection",
    "push": "webhook",
    "prices": "schedule",
    "reconcile": "schedule",
}


def daemon_trigger(kind: str) -> str:
    """The trigger of a daemon job of ``kind`` (a resync's caller names its own)."""
    return DAEMON_TRIGGERS.get(kind, "admin resync" if kind == "resync" else "schedule")


def _plain(value: object) -> JsonValue:
    if value is None or isinstance(value, bool | int | str):
        return value
    if isinstance(value, Decimal):
        return str(value)
    if isinstance(value, tuple):  # Restrictions
        return [_plain(item) for item in value]
    return str(value)


_FIELD_OF_OPERATION = {
    Field.AVAILABILITY: "available",
    Field.COUNT: "count",
    Field.PRICE: "price",
    Field.RESTRICTIONS: "restrictions",
}


class NightFacts:
    """The PMS facts a field of a night came from, and the mapping rule applied to them; what is
    the same for every night of the listing is worked out once (this runs per night and field)."""

    def __init__(
        self,
        listing: ListingMapping,
        facts: PmsFacts,
        *,
        own_reserved: Mapping[date, int],
        count_cap: int | None,
    ) -> None:
        room_type = listing.room_type_id
        self._base: dict[str, JsonValue] = {
            "room_type": room_type,
            "read_at": facts.read_at.isoformat() if facts.read_at is not None else None,
        }
        self._free = facts.free_rooms.get(room_type, {})
        self._closed = facts.closures.closed_for(room_type)
        self._property_closed = facts.closures.property_closed
        self._prices = facts.prices.prices.get(room_type, {})
        self._own_reserved = own_reserved
        # availability of a single unit depends on whether a room is free, not on how many:
        # nights that differ only in the number stay one run
        self._single = engine_kind(listing.kind) is ListingKind.SINGLE
        cap = f", at most {count_cap} per listing" if count_cap is not None else ""
        self._rooms_rule = f"{listing.kind.value}: free rooms, closures{cap}"
        self._price_rule = (
            f"price + {listing.price.markup_percent} % + {listing.price.markup_amount}, rounded half up"
        )

    def __call__(self, night: date, field: Field) -> dict[str, JsonValue]:
        known = dict(self._base)
        if field is Field.AVAILABILITY or field is Field.COUNT:
            free = self._free.get(night)
            if field is Field.COUNT:
                known["free_rooms"] = free
            elif self._single:
                known["room_free"] = bool(free)
            known["closed"] = night in self._closed
            known["property_closed"] = night in self._property_closed
            reserved = self._own_reserved.get(night, 0)
            if reserved:
                known["own_reservations"] = reserved
            known["rule"] = self._rooms_rule
        elif field is Field.PRICE:
            known["pms_price"] = _plain(self._prices.get(night))
            known["rule"] = self._price_rule
        else:
            known["rule"] = "the mapping's restrictions"
        return known


def _operation_value(operation: object, field: Field) -> JsonValue:
    name = _FIELD_OF_OPERATION[field]
    return _plain(getattr(operation, name))


def _entry(
    run: RunStamp,
    key: ListingKey,
    nights: tuple[date, date],
    change: NightChange,
    kind: EntryKind,
    at: datetime,
    request: dict[str, JsonValue],
) -> HistoryEntry:
    """The entry of ``change`` on ``key``'s nights ``first..last``, stamped with its run."""
    return HistoryEntry(
        property_id=key.property_id,
        account_id=key.account_id,
        listing_id=key.listing_id,
        first_night=nights[0],
        last_night=nights[1],
        at=at,
        kind=kind,
        field=change.field,
        old=change.old,
        new=change.new,
        facts=change.facts,
        request=request,
        trigger=run.trigger,
        run_kind=run.kind,
        run_id=run.run_id,
    )


def push_entries(
    property_id: str,
    listing: ListingMapping,
    facts: PmsFacts,
    before: Mapping[date, DayState],
    request: InventoryRequestPlan,
    request_index: int,
    answer: Mapping[str, JsonValue],
    at: datetime,
    *,
    own_reserved: Mapping[date, int],
    count_cap: int | None,
    run: RunStamp,
) -> list[HistoryEntry]:
    """The entries of one confirmed ``PUT Inventory``: per field, runs of nights changed alike
    (across its operations: an operation ends where any field changes, a run where its own does)."""
    facts_of = NightFacts(listing, facts, own_reserved=own_reserved, count_cap=count_cap)
    changes: list[NightChange] = []
    operation_of: dict[tuple[str, date], int] = {}
    for op_index, operation in enumerate(request.operations):
        night = operation.date_from
        while night <= operation.date_to:
            had = before.get(night)
            for field in Field:
                name = _FIELD_OF_OPERATION[field]
                if getattr(operation, name) is None:
                    continue
                old = _plain(had.value_of(field)) if had is not None else None
                new = _operation_value(operation, field)
                changes.append(NightChange(night, name, old, new, facts_of(night, field)))
                operation_of[(name, night)] = op_index
            night += timedelta(days=1)
    entries = []
    for first, last, change in runs_of_nights(changes):
        first_op, last_op = operation_of[(change.field, first)], operation_of[(change.field, last)]
        entries.append(
            _entry(
                run,
                listing.listing_key(property_id),
                (first, last),
                change,
                EntryKind.PUSH,
                at,
                {
                    "operation": "PUT Inventory",
                    "request_index": request_index,
                    "operations": f"{first_op}" if first_op == last_op else f"{first_op}..{last_op}",
                    **answer,
                },
            )
        )
    return entries


def drift_entries(
    key: ListingKey,
    ledger: Mapping[date, DayState],
    channel: Mapping[date, DayState],
    groups: Sequence[Field],
    at: datetime,
    run: RunStamp,
) -> list[HistoryEntry]:
    """Nights where a channel read found another value than roomsync had pushed."""
    changes = []
    for night, recorded in ledger.items():
        seen = channel.get(night)
        for field in groups:
            mine = recorded.value_of(field)
            theirs = seen.value_of(field) if seen is not None else None
            if field is Field.PRICE and mine is None:
                continue
            if not shows_alike(field, mine, theirs):
                name = _FIELD_OF_OPERATION[field]
                changes.append(NightChange(night, name, _plain(mine), _plain(theirs), {}))
    return [
        _entry(run, key, (first, last), change, EntryKind.DRIFT, at, {"operation": "POST Inventory (read)"})
        for first, last, change in runs_of_nights(changes)
    ]


PRUNE_EVERY_SECONDS = 3600.0
_last_pruned: dict[tuple[int, str], float] = {}


def store_entries(
    store: Store, property_id: str, entries: Sequence[HistoryEntry], now: datetime, keep_days: int
) -> None:
    """Write ``entries``; at most once an hour per property, delete what is past ``keep_days``."""
    store.history.add_entries(entries)
    marker = (id(store), property_id)
    if time.monotonic() - _last_pruned.get(marker, -PRUNE_EVERY_SECONDS) >= PRUNE_EVERY_SECONDS:
        _last_pruned[marker] = time.monotonic()
        store.history.prune(property_id, now - timedelta(days=keep_days))


CONNECTED_ACCOUNT = "connected"
"""The connected channels' prices are per room type and rate, not per listing: their history is
kept under this account, listing ``ROOMTYPE/RATE`` (``1/standard``, ``1/non_refundable``)."""


def connected_listing(room_type_id: int, rate: str) -> str:
    return f"{room_type_id}/{rate}"


def price_push_entries(
    property_id: str,
    pushed: Mapping[tuple[int, str], Mapping[date, tuple[Decimal | None, Decimal, Mapping[str, JsonValue]]]],
    answer: Mapping[str, JsonValue],
    at: datetime,
    run: RunStamp,
) -> list[HistoryEntry]:
    """The entries of one accepted ``POST Prices``: per room type and rate, runs of nights whose
    price changed alike. ``pushed`` maps (room type, rate) to night -> (old, new, facts)."""
    entries = []
    for (room_type_id, rate), nights in sorted(pushed.items()):
        changes = [
            NightChange(night, "price", _plain(old), _plain(new), facts)
            for night, (old, new, facts) in nights.items()
        ]
        for first, last, change in runs_of_nights(changes):
            entries.append(
                _entry(
                    run,
                    ListingKey(property_id, CONNECTED_ACCOUNT, connected_listing(room_type_id, rate)),
                    (first, last),
                    change,
                    EntryKind.PRICE_PUSH,
                    at,
                    {"operation": "POST Prices", **answer},
                )
            )
    return entries
