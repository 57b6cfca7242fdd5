"""What holds on the channel's calendar, per listing and day (``CalendarLedger``).

Written only after the channel confirmed a write, so the diff against the PMS can skip days
that already hold what they should without spending a request to read them.
"""

from __future__ import annotations

from collections.abc import Sequence
from datetime import date, datetime

import sqlalchemy as sa
from sqlalchemy.engine import Engine

from roomsync.adapters.store._sql import BATCH_ROWS, insert_for, read_tx, write_tx
from roomsync.adapters.store.tables import CALENDAR_DAY
from roomsync.core.ports import ChannelDay, LedgerEntry, ListingKey

C = CALENDAR_DAY.c
STATE_COLUMNS = ("available", "count", "price", "min_nights", "max_nights", "cta", "ctd")


def _listing(listing: ListingKey) -> sa.ColumnElement[bool]:
    return sa.and_(
        C.property_id == listing.property_id,
        C.account_id == listing.account_id,
        C.listing_id == listing.listing_id,
    )


class SqlCalendarLedger:
    def __init__(self, engine: Engine) -> None:
        self._engine = engine

    def read_days(self, listing: ListingKey, date_from: date, date_to: date) -> dict[date, LedgerEntry]:
        query = (
            sa.select(C.day, C.confirmed_at, *(C[name] for name in STATE_COLUMNS))
            .where(_listing(listing), C.day.between(date_from, date_to))
            .order_by(C.day)
        )
        with read_tx(self._engine) as conn:
            rows = conn.execute(query).all()
        return {
            row.day: LedgerEntry(
                state=ChannelDay(day=row.day, **{name: row._mapping[name] for name in STATE_COLUMNS}),
                confirmed_at=row.confirmed_at,
            )
            for row in rows
        }

    def record_confirmed(
        self, listing: ListingKey, days: Sequence[ChannelDay], confirmed_at: datetime
    ) -> None:
        if not days:
            return
        key = {
            "property_id": listing.property_id,
            "account_id": listing.account_id,
            "listing_id": listing.listing_id,
        }
        rows = [
            key | {"day": d.day, "confirmed_at": confirmed_at} | {n: getattr(d, n) for n in STATE_COLUMNS}
            for d in sorted(days, key=lambda d: d.day)  # one lock order: concurrent writers never deadlock
        ]
        with write_tx(self._engine) as conn:
            stmt = insert_for(conn, CALENDAR_DAY)
            # a field sent as None keeps what the ledger held: a price-only write records prices only
            merged = {name: sa.func.coalesce(stmt.excluded[name], C[name]) for name in STATE_COLUMNS}
            stmt = stmt.on_conflict_do_update(
                index_elements=[C.property_id, C.account_id, C.listing_id, C.day],
                set_=merged | {"confirmed_at": stmt.excluded.confirmed_at},
            )
            for start in range(0, len(rows), BATCH_ROWS):
                conn.execute(stmt, rows[start : start + BATCH_ROWS])

    def forget_days(
        self, listing: ListingKey, date_from: date | None = None, date_to: date | None = None
    ) -> int:
        condition = _listing(listing)
        if date_from is not None:
            condition = sa.and_(condition, C.day >= date_from)
        if date_to is not None:
            condition = sa.and_(condition, C.day <= date_to)
        with write_tx(self._engine) as conn:
            return conn.execute(sa.delete(CALENDAR_DAY).where(condition)).rowcount
