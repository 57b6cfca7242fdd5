"""Prices read from the PMS, kept so a re-read costs no request (``PmsPriceCache``).

Every run reads its whole horizon's prices (a year of nights per room type). Each write of a
property's prices draws a new generation token in its transaction (:mod:`.generations`), and the
cache keeps, per property, the prices of the generation it last read, as arrays of cents (about
12 kB a property, where the per-night Decimals were about 350 kB). A read whose generation is the
one kept costs one small query instead of the rows (a fifth of a quiet poll's CPU, issue 26).
"""

from __future__ import annotations

from array import array
from collections.abc import Collection, Mapping
from dataclasses import dataclass
from datetime import date, datetime
from decimal import Decimal

import sqlalchemy as sa
from sqlalchemy.engine import Engine

from roomsync.adapters.store._sql import read_tx, upsert_many, write_tx
from roomsync.adapters.store.generations import PMS_PRICES, KeptReads, generation_of, new_generation
from roomsync.adapters.store.tables import PMS_NIGHT_PRICE, PMS_WINDOW_TOTAL
from roomsync.core.ports import NightPrice, WindowTotal
from roomsync.core.sync.desired import nights_through

N = PMS_NIGHT_PRICE.c
_DRIVER_DECIMAL = sa.Numeric(14, 2, asdecimal=True)
W = PMS_WINDOW_TOTAL.c

_UNPRICED = -1
"""A night without a price, among the cents of ``_KeptPrices`` (a price is never negative)."""


@dataclass(frozen=True)
class _KeptPrices:
    """The prices a read found over ``first..last``, per room type as an ``array`` of cents, night
    by night: 8 bytes a night, about 12 kB a property at 365 nights and four room types, however
    often the price changes from night to night."""

    first: date
    last: date
    cents: Mapping[int, array[int]]

    @classmethod
    def of(cls, first: date, last: date, prices: Mapping[int, Mapping[date, Decimal]]) -> _KeptPrices:
        nights = nights_through(first, last)
        cents = {
            room_type_id: array("q", (_cents_of(per_night.get(night)) for night in nights))
            for room_type_id, per_night in prices.items()
        }
        return cls(first, last, cents)

    def prices(self) -> dict[int, dict[date, Decimal]]:
        nights = nights_through(self.first, self.last)
        amounts: dict[int, Decimal] = {}  # a few distinct prices: one Decimal each
        prices: dict[int, dict[date, Decimal]] = {}
        for room_type_id, cents in self.cents.items():
            per_night = prices[room_type_id] = {}
            for night, amount in zip(nights, cents, strict=True):
                if amount != _UNPRICED:
                    price = amounts.get(amount)
                    if price is None:
                        price = amounts[amount] = Decimal(amount).scaleb(-2)
                    per_night[night] = price
        return prices


def _cents_of(price: Decimal | None) -> int:
    # the column is numeric(14, 2): a price is a whole number of cents
    return _UNPRICED if price is None else int(price.scaleb(2))


class SqlPmsPriceCache:
    def __init__(self, engine: Engine) -> None:
        self._engine = engine
        self._kept: KeptReads[_KeptPrices] = KeptReads()

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
            new_generation(conn, property_id, PMS_PRICES)

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

    def read_prices_of_types(
        self,
        property_id: str,
        room_type_ids: Collection[int],
        first_night: date,
        last_night: date,
        currency: str,
    ) -> dict[int, dict[date, Decimal]]:
        types = tuple(sorted(set(room_type_ids)))
        with read_tx(self._engine) as conn:
            generation = generation_of(conn, property_id, PMS_PRICES)
            asked = (types, first_night, last_night, currency.upper())
            kept = self._kept.get(property_id, generation, asked)
            if kept is not None:
                return kept.prices()
            # on Postgres the driver's own Decimal of a numeric(14, 2) is the cent-exact price
            # already, so Money's per-row conversion is skipped (a tenth of a quiet poll's CPU)
            price = N.price if conn.dialect.name == "sqlite" else sa.type_coerce(N.price, _DRIVER_DECIMAL)
            query = sa.select(N.room_type_id, N.night, price).where(
                N.property_id == property_id,
                N.room_type_id.in_(types),
                N.night.between(first_night, last_night),
                sa.func.upper(N.currency) == currency.upper(),
            )
            prices: dict[int, dict[date, Decimal]] = {t: {} for t in types}
            for room_type_id, night, amount in conn.execute(query):
                prices[room_type_id][night] = amount
        self._kept.keep(property_id, generation, asked, _KeptPrices.of(first_night, last_night, prices))
        return prices

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
            new_generation(conn, property_id, PMS_PRICES)
