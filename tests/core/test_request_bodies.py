"""Every request body roomsync sends carries only what documents 01/02 allow.

Each catalog request model is built with only its required fields set, written in JSON and XML
exactly as the client sends it (``codec.encode_request``), and read against the independent
spec transcription (``tests/spec_catalog/resources.toml``):

* no field the documented resource does not have (``id`` on a create above all);
* no ``null`` / ``xsi:nil`` for a field the documents do not type nullable;
* a create never carries the new object's ``id``.

And the models' ``nullable_fields`` (which None a request may send as null, and which null the
emulator accepts) are exactly the fields the transcription documents as nullable.
"""

from __future__ import annotations

import json
from typing import Any

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from lxml import etree
from pydantic import ValidationError
from pydantic.alias_generators import to_pascal
from pydantic_xml import BaseXmlModel, RootXmlModel
from test_catalog_completeness import RESOURCE_MODELS, SPEC_RESOURCES, documented_fields, resolve

from roomsync.core.api.base import ApiModel
from roomsync.core.catalog import OPERATIONS, Operation
from roomsync.core.codec import PayloadFormat, encode_request
from strategies import date_pairs, date_range, field_strategy

XSI_NIL = "{http://www.w3.org/2001/XMLSchema-instance}nil"

RESOURCE_OF: dict[type[BaseXmlModel], str] = {}
for _resource, _references in RESOURCE_MODELS.items():
    for _reference in _references:
        RESOURCE_OF.setdefault(resolve(_reference), _resource)

REQUEST_OPERATIONS = [op for op in OPERATIONS if op.request is not None and not op.form_body]


def required_only(model: type[BaseXmlModel]) -> st.SearchStrategy[Any]:
    """Instances of ``model`` with only the required fields given; where a model rule needs one
    optional field as well (the POS rule "timeStamp or lastName"), the first one that satisfies it."""
    pairs = [(s, e) for s, e in date_pairs(model) if model.model_fields[s].is_required()]
    paired = {name for pair in pairs for name in pair}
    required = {
        name: field_strategy(info)
        for name, info in model.model_fields.items()
        if info.is_required() and name not in paired
    }
    optional = {
        name: field_strategy(info)
        for name, info in model.model_fields.items()
        if not info.is_required() and name not in paired
    }

    def build(parts: tuple[dict[str, Any], ...]) -> Any:
        values: dict[str, Any] = {}
        for part in parts[:-1]:
            values.update(part)
        for extra in [{}, *({name: value} for name, value in parts[-1].items())]:
            try:
                return model.model_validate({**values, **extra})
            except ValidationError:
                continue
        return None

    dated = [date_range().map(lambda r, s=s, e=e: {s: r[0], e: r[1]}) for s, e in pairs]
    return (
        st.tuples(st.fixed_dictionaries(required), *dated, st.fixed_dictionaries(optional))
        .map(build)
        .filter(lambda m: m is not None)
    )


def documented(resource: str) -> dict[str, dict[str, Any]]:
    """The documented fields of a resource by JSON name (PascalCase names also as camelCase)."""
    found: dict[str, dict[str, Any]] = {}
    for spec in documented_fields(resource):
        found[spec["name"]] = spec
        found.setdefault(spec["name"][:1].lower() + spec["name"][1:], spec)
    return found


def nested_resource(spec: dict[str, Any]) -> str | None:
    name = spec.get("ref") or spec.get("items")
    return name if name in SPEC_RESOURCES else None


def json_problems(value: Any, resource: str | None, model: type[BaseXmlModel], path: str) -> list[str]:
    """Fields of a JSON body the transcription does not allow; ``resource`` None: no transcription
    for this shape (roomsync's own), where only the model's ``nullable_fields`` may be null."""
    if isinstance(value, list):
        return [
            p for i, item in enumerate(value) for p in json_problems(item, resource, model, f"{path}[{i}]")
        ]
    if not isinstance(value, dict):
        return []
    fields = documented(resource) if resource else {}
    allowed_null = {
        (info.alias or name) for name, info in model.model_fields.items() if name in model.nullable_fields
    }
    by_alias = {(info.alias or name): info for name, info in model.model_fields.items()}
    problems = []
    for key, item in value.items():
        spec = fields.get(key)
        where = f"{path}{key}"
        if resource and spec is None:
            problems.append(f"{where}: not a field of {resource}")
            continue
        if item is None and not (spec.get("nullable") if spec else key in allowed_null):
            problems.append(f"{where}: null, but not typed nullable")
        inner = by_alias.get(key)
        inner_models = _models(inner.annotation) if inner else []
        if inner_models and item is not None:
            inner_resource = nested_resource(spec) if spec else None
            problems += json_problems(item, inner_resource, inner_models[0], f"{where}.")
    return problems


def _models(annotation: Any) -> list[type[BaseXmlModel]]:
    import typing

    if isinstance(annotation, type) and issubclass(annotation, BaseXmlModel):
        if issubclass(annotation, RootXmlModel):
            return _models(annotation.model_fields["root"].annotation)
        return [annotation]
    return [m for arg in typing.get_args(annotation) for m in _models(arg)]


def xml_problems(element: Any, resource: str | None, path: str) -> list[str]:
    fields = {to_pascal(k): v for k, v in documented(resource).items()} if resource else {}
    problems = []
    for child in element:
        tag = etree.QName(child.tag).localname
        spec = fields.get(tag)
        where = f"{path}{tag}"
        if child.get(XSI_NIL) == "true" and resource and not (spec and spec.get("nullable")):
            problems.append(f"{where}: xsi:nil, but not typed nullable")
        if spec and nested_resource(spec):
            inner = nested_resource(spec)
            items = list(child) if spec["kind"] == "array" else [child]
            for item in items:
                problems += xml_problems(item, inner, f"{where}/")
    return problems


@pytest.mark.parametrize("op", REQUEST_OPERATIONS, ids=lambda op: op.name)
@settings(
    max_examples=8, deadline=None, suppress_health_check=[HealthCheck.too_slow, HealthCheck.filter_too_much]
)
@given(data=st.data())
def test_a_request_with_only_its_required_fields_carries_nothing_forbidden(
    op: Operation, data: st.DataObject
) -> None:
    assert op.request is not None
    body = data.draw(required_only(op.request), label=op.request.__name__)
    resource = RESOURCE_OF.get(op.request)
    sent_json = json.loads(encode_request(body, PayloadFormat.JSON))
    problems = json_problems(sent_json, resource, op.request, "")
    if op.creates and isinstance(sent_json, dict) and "id" in sent_json:
        problems.append("id: sent on a create")
    root = etree.fromstring(encode_request(body, PayloadFormat.XML))
    problems += [f"XML {p}" for p in xml_problems(root, resource, "")]
    if op.creates and (root.get("id") is not None or root.find("Id") is not None):
        problems.append("XML Id: sent on a create")
    assert not problems, f"{op.name} ({op.request.__name__}) sends: " + "; ".join(problems)


def request_models() -> list[type[ApiModel]]:
    seen: list[type[ApiModel]] = []
    todo: list[type[BaseXmlModel]] = [op.request for op in REQUEST_OPERATIONS if op.request is not None]
    while todo:
        model = todo.pop()
        if model in seen or not issubclass(model, ApiModel):
            continue
        seen.append(model)
        for info in model.model_fields.values():
            todo += _models(info.annotation)
    return seen


def test_nullable_fields_are_the_documented_nullable_ones() -> None:
    problems = []
    for model in request_models():
        resource = RESOURCE_OF.get(model)
        if resource is None:
            continue
        aliases = {name: (info.alias or name) for name, info in model.model_fields.items()}
        declared = {aliases[name] for name in model.nullable_fields}
        spec = documented(resource)
        nullable = {
            alias for alias in aliases.values() if alias in spec and spec[alias].get("nullable")
        }
        if declared != nullable:
            problems.append(
                f"{model.__name__} ({resource}): nullable_fields {sorted(declared)}, "
                f"documented nullable {sorted(nullable)}"
            )
        unknown = model.nullable_fields - set(model.model_fields)
        if unknown:
            problems.append(f"{model.__name__}: nullable_fields names no field {sorted(unknown)}")
    assert not problems, "\n".join(problems)


def test_a_nested_new_customer_is_sent_without_id_and_nulls() -> None:
    """The reported case: the bridge's customer inside POST /v1/Reservation."""
    from datetime import date

    from roomsync.core.api.pms.customers import ReservationCustomer
    from roomsync.core.api.pms.reservations import ReservationCreateRequest

    request = ReservationCreateRequest(
        customer=ReservationCustomer(last_name="Smith", first_name=None, email=None),
        date_from=date(2027, 1, 1),
        date_to=date(2027, 1, 3),
        reservation_status=3,
        room_type_id=4,
    )
    sent = json.loads(encode_request(request, PayloadFormat.JSON))
    assert sent["customer"] == {"lastName": "Smith"}
    assert None not in sent.values()
