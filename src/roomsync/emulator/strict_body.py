"""The emulator reads request bodies as strictly as documents 01-03 allow.

A lenient sandbox hides exactly the defects a strict service refuses, so on every operation
with a body, in JSON and XML, the emulator refuses (400, the 03 error body naming the field):

* ``id`` in the body of an operation that creates something (``ID_NOT_ALLOWED``): 02 says the
  new object's id is not sent (a nested existing customer's ``id`` is another matter);
* a field the operation's request model does not have (``UNKNOWN_FIELD``), names compared
  exactly: a documented camelCase name, or the documented PascalCase where 02 writes one;
* ``null`` (JSON) or ``xsi:nil`` (XML) for a field the documents do not type nullable
  (``INVALID_VALUE``); which fields may be null is the model's ``nullable_fields``, the same
  declaration the client's request form is built from (``roomsync.core.api.wire``).

The rules come from the catalog's request models, so no route states them by hand.
"""

from __future__ import annotations

import json
import types
import typing
from typing import Any

from lxml import etree
from pydantic import BaseModel
from pydantic_xml import BaseXmlModel

from roomsync.core.api.base import ApiModel
from roomsync.core.catalog import Operation
from roomsync.core.codec import PayloadFormat
from roomsync.emulator.errors import ApiError

__all__ = ["check_request_body"]

XSI_NIL = "{http://www.w3.org/2001/XMLSchema-instance}nil"


def check_request_body(operation: Operation, raw: bytes, body_format: PayloadFormat, body: Any) -> None:
    """Raise :class:`ApiError` when the decoded ``body`` came from a body the service refuses."""
    if not isinstance(body, ApiModel):
        return
    if body_format is PayloadFormat.JSON:
        data = json.loads(raw)
        if operation.creates and isinstance(data, dict) and "id" in data:
            raise _id_not_allowed(operation)
        unknown, nulls = _check_json(type(body), data, "")
    else:
        root = etree.fromstring(raw)
        if operation.creates and (root.get("id") is not None or _child(root, "Id") is not None):
            raise _id_not_allowed(operation)
        unknown = _unknown_xml(body, root)
        nulls = _xml_nulls(type(body), root, "")
    if unknown:
        raise ApiError(
            400,
            "UNKNOWN_FIELD",
            f"{operation.name} has no field {unknown[0]!r}"
            + (f" (nor {', '.join(map(repr, unknown[1:4]))})" if len(unknown) > 1 else ""),
            unknown[0],
        )
    if nulls:
        raise ApiError(
            400,
            "INVALID_VALUE",
            f"{nulls[0]} must not be null: documents 01/02 do not type it nullable (leave it out instead)",
            nulls[0],
        )


def _id_not_allowed(operation: Operation) -> ApiError:
    return ApiError(400, "ID_NOT_ALLOWED", f"id must not be sent when creating ({operation.name})", "id")


# --- JSON --------------------------------------------------------------------------------------


def _models_in(annotation: Any) -> list[type[BaseModel]]:
    """Model classes an annotation admits (through Optional, list, Annotated...)."""
    if isinstance(annotation, type) and issubclass(annotation, BaseModel):
        return [annotation]
    found: list[type[BaseModel]] = []
    origin = typing.get_origin(annotation)
    if origin is not None or isinstance(annotation, types.UnionType):
        for arg in typing.get_args(annotation):
            found += _models_in(arg)
    return found


def _root_item_models(model_type: type[BaseModel]) -> list[type[BaseModel]] | None:
    """The item models of a list class (``RootXmlModel[list[...]]``), None for other models."""
    root = model_type.model_fields.get("root")
    return None if root is None else _models_in(root.annotation)


def _check_json(model_type: type[BaseModel], data: Any, prefix: str) -> tuple[list[str], list[str]]:
    """(unknown fields, fields sent as null where not nullable) of a JSON body, by JSON path."""
    items = _root_item_models(model_type)
    if items is not None:
        return _check_json_items(items, data, prefix)
    if not isinstance(data, dict):
        return [], []  # a wrong shape is the decoder's to refuse
    nullable: frozenset[str] = getattr(model_type, "nullable_fields", frozenset())
    by_alias = {(info.alias or name): (name, info) for name, info in model_type.model_fields.items()}
    unknown: list[str] = []
    nulls: list[str] = []
    for key, value in data.items():
        found = by_alias.get(key)
        if found is None:
            unknown.append(f"{prefix}{key}")
            continue
        name, info = found
        if value is None:
            if name not in nullable:
                nulls.append(f"{prefix}{key}")
            continue
        nested = _models_in(info.annotation)
        if nested:
            more_unknown, more_nulls = _check_json_items(nested, value, f"{prefix}{key}")
            unknown += more_unknown
            nulls += more_nulls
    return unknown, nulls


def _check_json_items(models: list[type[BaseModel]], value: Any, path: str) -> tuple[list[str], list[str]]:
    unknown: list[str] = []
    nulls: list[str] = []
    if isinstance(value, list):
        for index, item in enumerate(value):
            more_unknown, more_nulls = _check_json_items(models, item, f"{path}[{index}]")
            unknown += more_unknown
            nulls += more_nulls
    elif isinstance(value, dict) and models:
        return _check_json(models[0], value, f"{path}.")
    return unknown, nulls


# --- XML ---------------------------------------------------------------------------------------


def _local(tag: Any) -> str:
    return etree.QName(tag).localname if isinstance(tag, str) else ""


def _child(element: Any, name: str) -> Any:
    return next((c for c in element if _local(c.tag) == name), None)


def _paths(element: Any, prefix: tuple[str, ...] = ()) -> set[tuple[str, ...]]:
    """Every element and attribute path under ``element`` (indices ignored; xsi attributes not)."""
    found: set[tuple[str, ...]] = set()
    for name in element.attrib:
        if etree.QName(name).namespace is None:
            found.add((*prefix, f"@{name}"))
    for child in element:
        if not isinstance(child.tag, str):
            continue  # comments, processing instructions
        path = (*prefix, _local(child.tag))
        found.add(path)
        found |= _paths(child, path)
    return found


def _unknown_xml(body: BaseXmlModel, root: Any) -> list[str]:
    # What the model read, written back, holds every element and attribute it understood; what
    # the request has beyond that, the model has no field for.
    understood = _paths(etree.fromstring(body.to_xml(exclude_unset=True)))
    extra = sorted(_paths(root) - understood)
    # report the outermost unknown element, not each of its children
    outermost = [p for p in extra if not any(p[: len(q)] == q and p != q for q in extra)]
    return ["/".join(p) for p in outermost]


def _is_nil(element: Any) -> bool:
    return element.get(XSI_NIL) in ("true", "1")


def _xml_nulls(model_type: type[BaseModel], element: Any, prefix: str) -> list[str]:
    """JSON paths of the elements a body sent as ``xsi:nil`` where the field is not nullable."""
    serializer = getattr(model_type, "__xml_serializer__", None)
    if serializer is None or _root_item_models(model_type) is not None:
        return []
    nullable: frozenset[str] = getattr(model_type, "nullable_fields", frozenset())
    found: list[str] = []
    for name, field in serializer._field_serializers.items():
        info = model_type.model_fields[name]
        where = f"{prefix}{info.alias or name}"
        nested = _models_in(info.annotation)
        tag = getattr(field, "_element_name", None)
        path = getattr(field, "_path", None)
        if tag is not None:
            children = [c for c in element if _local(c.tag) == tag]
        elif isinstance(path, tuple) and len(path) == 1:
            wrapper = _child(element, path[0])
            item_tag = getattr(getattr(field, "_inner_serializer", None), "_element_name", None)
            children = [] if wrapper is None else [c for c in wrapper if _local(c.tag) == item_tag]
        else:
            continue  # attributes and element text cannot be nil
        for index, child in enumerate(children):
            here = where if len(children) == 1 and tag is not None else f"{where}[{index}]"
            if _is_nil(child):
                if name not in nullable:
                    found.append(here)
            elif nested:
                found += _xml_nulls(nested[0], child, f"{here}.")
    return found
