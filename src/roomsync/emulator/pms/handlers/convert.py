"""Records to API models and back, by field name.

Records use the snake_case names of the API models' Python fields, so conversion is generic: a
model takes the record attributes it has fields for (nested records become nested models), and
a request model gives back its Python-named values with enums as plain values.
"""

from __future__ import annotations

import dataclasses
from datetime import date, datetime
from decimal import Decimal
from enum import Enum
from typing import Any, TypeVar

from pydantic import BaseModel

ModelT = TypeVar("ModelT", bound=BaseModel)


def plain(value: Any) -> Any:
    """``value`` with dataclasses as dicts, enums as their values (recursively)."""
    if dataclasses.is_dataclass(value) and not isinstance(value, type):
        return {f.name: plain(getattr(value, f.name)) for f in dataclasses.fields(value)}
    if isinstance(value, Enum):
        return value.value
    if isinstance(value, list | tuple):
        return [plain(item) for item in value]
    if isinstance(value, dict):
        return {key: plain(item) for key, item in value.items()}
    if isinstance(value, BaseModel):
        return {name: plain(getattr(value, name)) for name in type(value).model_fields}
    return value


def to_model(model_type: type[ModelT], source: object | None = None, /, **overrides: Any) -> ModelT:
    """``model_type`` filled from the same-named attributes of ``source`` and from ``overrides``."""
    values: dict[str, Any] = {}
    for name in model_type.model_fields:
        if name in overrides:
            values[name] = plain(overrides[name])
        elif source is not None and hasattr(source, name):
            values[name] = plain(getattr(source, name))
    return model_type.model_validate(values)


def sent_fields(model: BaseModel) -> dict[str, Any]:
    """The fields a request body actually carried (by Python name), as plain values."""
    return {
        name: plain(getattr(model, name))
        for name in model.model_fields_set
        if name in type(model).model_fields
    }


def all_fields(model: BaseModel) -> dict[str, Any]:
    """Every field of a request body (by Python name), as plain values."""
    return {name: plain(getattr(model, name)) for name in type(model).model_fields}


def as_date(value: date | datetime) -> date:
    return value.date() if isinstance(value, datetime) else value


def as_decimal(value: Decimal | float | int | None) -> Decimal | None:
    return None if value is None else Decimal(str(value))
