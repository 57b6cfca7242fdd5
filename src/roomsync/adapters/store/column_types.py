"""Column types that behave the same on SQLite and Postgres.

- :class:`UtcDateTime`: timezone-aware UTC in, timezone-aware UTC out. Postgres stores
  ``timestamptz``; SQLite, which has no time zones, stores the UTC wall time. A naive datetime is
  refused, since nobody could tell which zone it meant.
- :class:`Money`: a Decimal with at most 2 decimal places, stored exactly: ``numeric(14,2)`` on
  Postgres, text on SQLite (whose numeric columns are floating point).
"""

from __future__ import annotations

from datetime import UTC, datetime
from decimal import Decimal, InvalidOperation
from typing import Any

import sqlalchemy as sa
from sqlalchemy.engine import Dialect
from sqlalchemy.types import TypeDecorator, TypeEngine

CENT = Decimal("0.01")


class UtcDateTime(TypeDecorator[datetime]):
    impl = sa.DateTime(timezone=True)
    cache_ok = True

    def process_bind_param(self, value: datetime | None, dialect: Dialect) -> datetime | None:
        if value is None:
            return None
        if value.tzinfo is None or value.utcoffset() is None:
            raise ValueError(f"naive datetime {value.isoformat()} given; the store needs an aware UTC time")
        utc = value.astimezone(UTC)
        return utc.replace(tzinfo=None) if dialect.name == "sqlite" else utc

    def process_result_value(self, value: datetime | None, dialect: Dialect) -> datetime | None:
        if value is None:
            return None
        if value.tzinfo is None:
            return value.replace(tzinfo=UTC)
        return value.astimezone(UTC)


def to_money(value: Decimal | int | str) -> Decimal:
    """``value`` as a Decimal of 2 decimal places; more places are an error, not a rounding."""
    try:
        amount = Decimal(value)
    except InvalidOperation:
        raise ValueError(f"amount {value!r} is not a number") from None
    if not amount.is_finite():
        raise ValueError(f"amount {value!r} is not a finite number")
    cents = amount.quantize(CENT)
    if cents != amount:
        raise ValueError(f"amount {value} has more than 2 decimal places")
    return cents


class Money(TypeDecorator[Decimal]):
    impl = sa.Numeric(14, 2)
    cache_ok = True

    def load_dialect_impl(self, dialect: Dialect) -> TypeEngine[Any]:
        if dialect.name == "sqlite":
            return dialect.type_descriptor(sa.String(32))
        return dialect.type_descriptor(sa.Numeric(14, 2, asdecimal=True))

    def process_bind_param(self, value: Decimal | int | str | None, dialect: Dialect) -> Any:
        if value is None:
            return None
        amount = to_money(value)
        return str(amount) if dialect.name == "sqlite" else amount

    def process_result_value(self, value: Any, dialect: Dialect) -> Decimal | None:
        if value is None:
            return None
        return Decimal(str(value)).quantize(CENT)


class ExactDecimal(TypeDecorator[Decimal]):
    """Any Decimal, stored exactly: ``numeric`` on Postgres, text on SQLite (markups, discounts)."""

    impl = sa.Numeric()
    cache_ok = True

    def load_dialect_impl(self, dialect: Dialect) -> TypeEngine[Any]:
        if dialect.name == "sqlite":
            return dialect.type_descriptor(sa.String(40))
        return dialect.type_descriptor(sa.Numeric(asdecimal=True))

    def process_bind_param(self, value: Decimal | int | str | None, dialect: Dialect) -> Any:
        if value is None:
            return None
        amount = Decimal(value)
        if not amount.is_finite():
            raise ValueError(f"number {value!r} is not finite")
        return str(amount) if dialect.name == "sqlite" else amount

    def process_result_value(self, value: Any, dialect: Dialect) -> Decimal | None:
        return None if value is None else Decimal(str(value))
