"""Between the store's calendar ledger (``ChannelDay`` rows) and the runs' ``DayState``.

The ledger records what the channel holds, as confirmed by a write it accepted or by a read.
``record_confirmed`` keeps a field given as ``None`` as it was, so "this restriction is unset on
the channel" cannot be written as ``None``: it is written as ``0`` nights (the channel's own
encoding of "unset") and read back as ``None``. A price that is not a whole number (the channel's
default price can be a decimal) reads back as "unknown", so it differs from any desired price.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from datetime import date
from decimal import Decimal

from roomsync.core.ports import ChannelDay, LedgerEntry
from roomsync.core.sync import Availability, DayState

UNSET_NIGHTS = 0


def day_from_ledger(entry: LedgerEntry) -> DayState | None:
    """The recorded day, or None when the ledger does not know its availability (treated as missing)."""
    state = entry.state
    if state.available is None:
        return None
    price = state.price
    whole = int(price) if price is not None and price == price.to_integral_value() and price >= 0 else None
    return DayState(
        available=Availability(state.available),
        count=state.count if state.count is not None and state.count >= 0 else None,
        price=whole,
        min_nights=state.min_nights or None,
        max_nights=state.max_nights or None,
        closed_to_arrival=state.cta,
        closed_to_departure=state.ctd,
    )


def calendar_from_ledger(entries: Mapping[date, LedgerEntry]) -> dict[date, DayState]:
    calendar: dict[date, DayState] = {}
    for day, entry in entries.items():
        state = day_from_ledger(entry)
        if state is not None:
            calendar[day] = state
    return calendar


def ledger_day(day: date, state: DayState) -> ChannelDay:
    """What to record for ``day`` once the channel holds ``state`` (see the module docstring)."""
    return ChannelDay(
        day=day,
        available=state.available.value,
        count=state.count,
        price=Decimal(state.price) if state.price is not None else None,
        min_nights=state.min_nights if state.min_nights is not None else UNSET_NIGHTS,
        max_nights=state.max_nights if state.max_nights is not None else UNSET_NIGHTS,
        cta=state.closed_to_arrival,
        ctd=state.closed_to_departure,
    )


def ledger_days(calendar: Mapping[date, DayState], days: Iterable[date]) -> list[ChannelDay]:
    return [ledger_day(day, calendar[day]) for day in sorted(days) if day in calendar]
