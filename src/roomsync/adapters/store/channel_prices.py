"""Prices last pushed to the property's connected channels (``ChannelPriceLedger``)."""

from __future__ import annotations

from collections.abc import Mapping
from datetime import date, datetime
from decimal import Decimal

import sqlalchemy as sa
from sqlalchemy.engine import Engine

from roomsync.adapters.store._sql import read_tx, upsert_many, write_tx
from roomsync.adapters.store.tables import CHANNEL_PRICE
from roomsync.core.ports import PushedPrice, RateKey

P = CHANNEL_PRICE.c
KEY = ("property_id", "room_type_id", "room_rate_type", "day")


class SqlChannelPriceLedger:
    def __init__(self, engine: Engine) -> None:
        self._engine = engine

    def read_pushed_prices(self, rate: RateKey, date_from: date, date_to: date) -> dict[date, PushedPrice]:
        query = sa.select(P.day, P.price, P.pushed_at).where(
            P.property_id == rate.property_id,
            P.room_type_id == rate.room_type_id,
            P.room_rate_type == rate.room_rate_type,
            P.day.between(date_from, date_to),
        )
        with read_tx(self._engine) as conn:
            rows = conn.execute(query).all()
        return {row.day: PushedPrice(price=row.price, pushed_at=row.pushed_at) for row in rows}

    def record_pushed_prices(
        self, rate: RateKey, prices: Mapping[date, Decimal], pushed_at: datetime
    ) -> None:
        rows = [
            {
                "property_id": rate.property_id,
                "room_type_id": rate.room_type_id,
                "room_rate_type": rate.room_rate_type,
                "day": day,
                "price": price,
                "pushed_at": pushed_at,
            }
            for day, price in prices.items()
        ]
        with write_tx(self._engine) as conn:
            upsert_many(conn, CHANNEL_PRICE, rows, key=KEY)
