"""What a request body may carry, and the form of a request model that is sent.

Documents 01 and 02 mark nullable types with ``?`` (or "null unsets it"); every other field is
typed as a plain ``int``, ``string``, ``tinyint``... A strict service refuses ``null`` for such a
field (``isSalesTaxExempt must be an integer``) and refuses fields a request may not carry (``id``
when creating). The models keep ``None`` for "not given" because responses need it, so the
request form is derived here, once, for every request model:

* a field that is ``None`` is left out, unless the model lists it in ``nullable_fields`` (the
  documents give its null a meaning) and the caller set it explicitly;
* a list left at its empty default is left out too;
* a partial-update body (``partial_update``) carries only the fields the caller set;
* nested models and lists of them follow the same rules.

:func:`wire_form` returns a copy whose ``model_fields_set`` is exactly what is sent, so both
encoders (JSON and pydantic-xml) write it with ``exclude_unset``. The emulator reads bodies by the
same declaration (``nullable_fields``), so the two sides cannot drift apart.
"""

from __future__ import annotations

from typing import Any

from pydantic import BaseModel

from roomsync.core.api.base import ApiModel

__all__ = ["fields_sent_as_null", "wire_form"]


def fields_sent_as_null(model: ApiModel) -> frozenset[str]:
    """Python names of ``model``'s fields whose ``None`` is written as null in a request: the
    documented nullable ones that the caller set (``minNights=None`` unsets; not given, unchanged)."""
    return frozenset(type(model).nullable_fields & model.model_fields_set)


def _wire_value(value: Any) -> Any:
    if isinstance(value, ApiModel):
        return wire_form(value)
    if isinstance(value, list):
        return [_wire_value(item) for item in value]
    if isinstance(value, BaseModel) and "root" in type(value).model_fields:  # a list class
        root = getattr(value, "root", None)
        if isinstance(root, list):
            copy = value.model_copy(update={"root": [_wire_value(item) for item in root]})
            object.__setattr__(copy, "__pydantic_fields_set__", {"root"})
            return copy
    return value


def wire_form(model: ApiModel) -> ApiModel:
    """A copy of ``model`` whose set fields are exactly those its request body carries."""
    partial = bool(getattr(model, "partial_update", False))
    as_null = fields_sent_as_null(model)
    keep: set[str] = set()
    updates: dict[str, Any] = {}
    for name in type(model).model_fields:
        if partial and name not in model.model_fields_set:
            continue
        value = getattr(model, name)
        if value is None:
            if name in as_null:
                keep.add(name)
            continue
        if value == [] and name not in model.model_fields_set:
            continue  # an empty list nobody gave is "not given", like None
        keep.add(name)
        wired = _wire_value(value)
        if wired is not value:
            updates[name] = wired
    copy = model.model_copy(update=updates)
    object.__setattr__(copy, "__pydantic_fields_set__", keep)
    return copy
