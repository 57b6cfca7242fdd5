"""Value types and rules shared by the document 02 (property data) models."""

from __future__ import annotations

from datetime import date, datetime
from decimal import Decimal
from typing import Annotated, Any

from pydantic import BeforeValidator, Field, PlainSerializer

Flag = Annotated[int, Field(ge=0, le=1)]
"""A documented 0/1 flag: an int that may only be 0 or 1."""

Number = Annotated[Decimal, PlainSerializer(float, return_type=float, when_used="json")]
"""A documented ``number`` or ``decimal`` that is not an amount (quantities, percentages)."""


def _none_as_empty(value: Any) -> Any:
    return "" if value is None else value


ElementText = Annotated[str, BeforeValidator(_none_as_empty)]
"""The text of an element that also has attributes: XML cannot tell None from "", so never None."""


def _date_or_datetime(value: Any) -> Any:
    # A plain union would pick differently for JSON and for XML text; the "T" decides instead.
    if isinstance(value, str):
        text = value.strip()
        return datetime.fromisoformat(text) if "T" in text else date.fromisoformat(text)
    return value


DateOrDateTime = Annotated[datetime | date, BeforeValidator(_date_or_datetime)]
"""A value documented as a date whose example carries an ISO 8601 date-time (POS ``timeStamp``)."""


def _midnight_date(value: Any) -> Any:
    if isinstance(value, str) and "T" in value:
        moment = datetime.fromisoformat(value.strip())
        if moment.time() != datetime.min.time():
            raise ValueError(f"expected a date or a date-time at midnight, got {value!r}")
        return moment.date()
    if isinstance(value, datetime):
        return value.date()
    return value


DateSentAsDateTime = Annotated[
    date,
    BeforeValidator(_midnight_date),
    PlainSerializer(lambda day: f"{day.isoformat()}T00:00:00", return_type=str, when_used="json"),
]
"""A date the service writes as a midnight date-time (``2020-02-01T00:00:00``), e.g. contract start."""


def require_ordered(
    start: date | None,
    end: date | None,
    *,
    strict: bool,
    names: tuple[str, str] = ("dateFrom", "dateTo"),
) -> None:
    """Raise ``ValueError`` unless ``start`` comes before ``end`` (or on it, if not strict).

    PMS stays (reservations, contracts, Combined queries) are nights, so ``dateFrom < dateTo``
    (03-conventions); windows whose both ends are nights or days allow ``dateFrom == dateTo``.
    """
    if start is None or end is None:
        return
    first, last = names
    if strict and start >= end:
        raise ValueError(f"{first} ({start}) must be before {last} ({end})")
    if not strict and start > end:
        raise ValueError(f"{first} ({start}) must not be after {last} ({end})")


def int_as_text(value: Any) -> Any:
    """An integer given for a documented string field (``idDocType``: ``1``) as its text."""
    if isinstance(value, int) and not isinstance(value, bool):
        return str(value)
    return value
