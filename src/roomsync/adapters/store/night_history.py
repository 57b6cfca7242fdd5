"""The history of nights on SQLite or Postgres (``roomsync.core.night_history``): rows of runs of
nights, queried by listing and night range, pruned by age."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from datetime import date, datetime, timedelta

import sqlalchemy as sa
from sqlalchemy.engine import Engine

from roomsync.adapters.store._sql import read_tx, write_tx
from roomsync.adapters.store.tables import CHANNEL_RESERVATION, CHECKOUT_ANSWER, NIGHT_HISTORY
from roomsync.core.night_history import EntryKind, HistoryEntry

H = NIGHT_HISTORY.c
A = CHECKOUT_ANSWER.c
R = CHANNEL_RESERVATION.c


class SqlNightHistory:
    def __init__(self, engine: Engine) -> None:
        self._engine = engine

    def guest_events(self, property_id: str, listing_id: str, first: date, last: date) -> list[GuestEvent]:
        """Guest checks answered and bookings of ``listing_id`` whose stay has a night in ``first..last``."""
        return guest_events(self._engine, property_id, listing_id, first, last)

    def add_entries(self, entries: Sequence[HistoryEntry]) -> None:
        """Store ``entries`` in one transaction (a record for people: not waited onto the disk)."""
        if not entries:
            return
        rows = [
            {
                "property_id": e.property_id,
                "account_id": e.account_id,
                "listing_id": e.listing_id,
                "first_night": e.first_night,
                "last_night": e.last_night,
                "at": e.at,
                "kind": e.kind.value,
                "field": e.field,
                "old_value": e.old,
                "new_value": e.new,
                "facts": dict(e.facts),
                "request": dict(e.request),
                "trigger": e.trigger,
                "run_kind": e.run_kind,
                "run_id": e.run_id,
            }
            for e in entries
        ]
        with write_tx(self._engine, wait_for_disk=False) as conn:
            conn.execute(sa.insert(NIGHT_HISTORY), rows)

    def entries(
        self, property_id: str, account_id: str, listing_id: str, first: date, last: date
    ) -> list[HistoryEntry]:
        """Every entry of the listing that covers a night of ``first..last``, oldest first."""
        query = (
            sa.select(NIGHT_HISTORY)
            .where(
                H.property_id == property_id,
                H.account_id == account_id,
                H.listing_id == listing_id,
                H.last_night >= first,
                H.first_night <= last,
            )
            .order_by(H.at, H.id)
        )
        with read_tx(self._engine) as conn:
            rows = conn.execute(query).all()
        return [_entry(row._mapping) for row in rows]

    def prune(self, property_id: str, before: datetime) -> int:
        """Delete the property's entries recorded before ``before``; how many went."""
        stmt = sa.delete(NIGHT_HISTORY).where(H.property_id == property_id, H.at < before)
        with write_tx(self._engine, wait_for_disk=False) as conn:
            return int(conn.execute(stmt).rowcount or 0)


def _entry(row: sa.RowMapping) -> HistoryEntry:
    return HistoryEntry(
        property_id=row["property_id"],
        account_id=row["account_id"],
        listing_id=row["listing_id"],
        first_night=row["first_night"],
        last_night=row["last_night"],
        at=row["at"],
        kind=EntryKind(row["kind"]),
        field=row["field"],
        old=row["old_value"],
        new=row["new_value"],
        facts=row["facts"] or {},
        request=row["request"] or {},
        trigger=row["trigger"],
        run_kind=row["run_kind"],
        run_id=row["run_id"],
    )


@dataclass(frozen=True)
class GuestEvent:
    """A guest check answered or a booking, for the timeline of a night."""

    at: datetime
    kind: str
    """``guest_check`` or ``booking``."""
    listing_id: str
    start_date: date
    nights: int
    text: str

    def covers(self, night: date) -> bool:
        return self.start_date <= night < self.start_date + timedelta(days=self.nights)


LONGEST_STAY_NIGHTS = 365
"""Stays starting this long before a night are looked at for it (the channel's longest stay)."""


def guest_events(
    engine: Engine, property_id: str, listing_id: str, first: date, last: date
) -> list[GuestEvent]:
    """Guest checks answered and bookings of ``listing_id`` whose stay has a night in ``first..last``."""
    earliest = first - timedelta(days=LONGEST_STAY_NIGHTS)
    answers = sa.select(CHECKOUT_ANSWER).where(
        A.property_id == property_id,
        A.listing_id == listing_id,
        A.start_date <= last,
        A.start_date >= earliest,
    )
    bookings = sa.select(CHANNEL_RESERVATION).where(
        R.property_id == property_id,
        R.listing_id == listing_id,
        R.start_date <= last,
        R.start_date >= earliest,
    )
    events: list[GuestEvent] = []
    with read_tx(engine) as conn:
        for row in conn.execute(answers).mappings():
            answer = "yes" if row["succeed"] else "no"
            code = f" {row['confirmation_code']}" if row["confirmation_code"] else ""
            events.append(
                GuestEvent(
                    row["answered_at"],
                    "guest_check",
                    listing_id,
                    row["start_date"],
                    row["nights"],
                    f"{row['action']}{code}: answered {answer} ({row['reason']})",
                )
            )
        for row in conn.execute(bookings).mappings():
            events.append(
                GuestEvent(
                    row["updated_at"],
                    "booking",
                    listing_id,
                    row["start_date"],
                    row["nights"],
                    f"booking {row['confirmation_code']}: {row['status_type']} ({row['last_action']}), "
                    f"PMS reservation status {row['pms_status']}",
                )
            )
    # a stay has a night in first..last when it ends after first (it starts before last already)
    return sorted(
        (e for e in events if e.start_date + timedelta(days=e.nights) > first), key=lambda e: e.at
    )
