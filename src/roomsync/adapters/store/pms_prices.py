"""Prices read from the PMS, kept so a re-read costs no request (``PmsPriceCache``)."""

from __future__ import annotations

from collections.abc import Mapping
from datetime import date, datetime
from decimal import Decimal

import sqlalchemy as sa
from sqlalchemy.engine import Engine

from roomsync.adapters.store._sql import read_tx, upsert_many, write_tx
from roomsync.adapters.store.tables import PMS_NIGHT_PRICE, PMS_WINDOW_TOTAL
from roomsync.core.ports import NightPrice, WindowTotal

N = PMS_NIGHT_PRICE.c
_DRIVER_DECIMAL = sa.Numeric(14, 2, asdecimal=True)
W = PMS_WINDOW_TOTAL.c


class SqlPmsPriceCache:
    def __init__(self, engine: Engine) -> None:
        self._engine = engine

    def save_night_prices(
        self,
        property_id: str,
        room_type_id: int,
        prices: Mapping[date, Decimal],
        currency: str,
        read_at: datetime,
    ) -> None:
        self.save_prices_of_types(property_id, {room_type_id: prices}, currency, read_at)

    def save_prices_of_types(
        self,
        property_id: str,
        prices: Mapping[int, Mapping[date, Decimal]],
        currency: str,
        read_at: datetime,
    ) -> None:
        rows = [
            {
                "property_id": property_id,
                "room_type_id": room_type_id,
                "night": night,
                "price": price,
                "currency": currency,
                "read_at": read_at,
            }
            for room_type_id, per_night in prices.items()
            for night, price in per_night.items()
        ]
        with write_tx(self._engine) as conn:
            upsert_many(conn, PMS_NIGHT_PRICE, rows, key=("property_id", "room_type_id", "night"))

    def read_night_prices(
        self, property_id: str, room_type_id: int, first_night: date, last_night: date
    ) -> dict[date, NightPrice]:
        query = sa.select(N.night, N.price, N.currency, N.read_at).where(
            N.property_id == property_id,
            N.room_type_id == room_type_id,
            N.night.between(first_night, last_night),
        )
        with read_tx(self._engine) as conn:
            rows = conn.execute(query).all()
        return {r.night: NightPrice(price=r.price, currency=r.currency, read_at=r.read_at) for r in rows}

    def read_prices_in(
        self, property_id: str, room_type_id: int, first_night: date, last_night: date, currency: str
    ) -> dict[date, Decimal]:
        with read_tx(self._engine) as conn:
            # every run reads a year of prices: on Postgres the driver's own Decimal of a
            # numeric(14, 2) is the cent-exact price already, so Money's per-row conversion is
            # skipped (a tenth of a quiet poll's CPU with it, issue 26)
            price = N.price if conn.dialect.name == "sqlite" else sa.type_coerce(N.price, _DRIVER_DECIMAL)
            query = sa.select(N.night, price).where(
                N.property_id == property_id,
                N.room_type_id == room_type_id,
                N.night.between(first_night, last_night),
                sa.func.upper(N.currency) == currency.upper(),
            )
            return {night: amount for night, amount in conn.execute(query)}

    def save_window_total(self, property_id: str, room_type_id: int, total: WindowTotal) -> None:
        if total.date_from >= total.date_to:
            raise ValueError(f"window {total.date_from}..{total.date_to}: date_from must be before date_to")
        row = {
            "property_id": property_id,
            "room_type_id": room_type_id,
            "date_from": total.date_from,
            "date_to": total.date_to,
            "total": total.total,
            "currency": total.currency,
            "read_at": total.read_at,
        }
        with write_tx(self._engine) as conn:
            upsert_many(
                conn, PMS_WINDOW_TOTAL, [row], key=("property_id", "room_type_id", "date_from", "date_to")
            )

    def read_window_total(
        self, property_id: str, room_type_id: int, date_from: date, date_to: date
    ) -> WindowTotal | None:
        query = sa.select(W.total, W.currency, W.read_at).where(
            W.property_id == property_id,
            W.room_type_id == room_type_id,
            W.date_from == date_from,
            W.date_to == date_to,
        )
        with read_tx(self._engine) as conn:
            row = conn.execute(query).one_or_none()
        if row is None:
            return None
        return WindowTotal(
            date_from=date_from, date_to=date_to, total=row.total, currency=row.currency, read_at=row.read_at
        )

    def clear_pms_prices(self, property_id: str, room_type_id: int | None = None) -> None:
        with write_tx(self._engine) as conn:
            for table in (PMS_NIGHT_PRICE, PMS_WINDOW_TOTAL):
                condition = table.c.property_id == property_id
                if room_type_id is not None:
                    condition = sa.and_(condition, table.c.room_type_id == room_type_id)
                conn.execute(sa.delete(table).where(condition))
