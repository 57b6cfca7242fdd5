"""Every API model survives a round trip through JSON and through XML.

The models are collected, not listed: every request and response model of the catalog, every
model nested in them, and every other model of ``roomsync.core.api`` (the webhook payloads).
Values are generated from the models' own annotations and constraints (tests/strategies.py).
"""

from __future__ import annotations

from typing import Any

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from pydantic_xml import BaseXmlModel, RootXmlModel

from roomsync.core.api.service import Usage
from roomsync.core.catalog import OPERATIONS
from roomsync.core.codec import PayloadError, PayloadFormat, decode, encode
from roomsync.core.errors import LimitViolation
from strategies import Constraints, all_models, from_model, split_annotated, strip_optional

MODELS = all_models()
FORMATS = [PayloadFormat.JSON, PayloadFormat.XML]


def json_only_models() -> set[type[BaseXmlModel]]:
    """Models of form-body operations only: ``POST /v1/Token`` takes a form and answers JSON
    whatever the payload format (03-conventions; the client always asks it for JSON)."""
    form = {m for op in OPERATIONS if op.form_body for m in (op.request, op.response) if m is not None}
    other = {m for op in OPERATIONS if not op.form_body for m in (op.request, op.response) if m is not None}
    return form - other


JSON_ONLY = json_only_models()

ROUND_TRIP_SETTINGS = settings(
    max_examples=25,
    deadline=None,
    suppress_health_check=[HealthCheck.too_slow, HealthCheck.filter_too_much],
)


def model_id(model: type[BaseXmlModel]) -> str:
    return f"{model.__module__.rsplit('.', 1)[-1]}.{model.__name__}"


def test_the_walk_finds_the_models_of_both_documents() -> None:
    modules = {model.__module__ for model in MODELS}
    assert any(".pms" in name or "property" in name for name in modules), (
        f"no model of document 02 is reachable from the catalog; modules found: {sorted(modules)}"
    )
    assert any(name.endswith((".channel", ".channel_manager")) for name in modules), (
        f"no model of document 01 is reachable from the catalog; modules found: {sorted(modules)}"
    )


@pytest.mark.parametrize("fmt", FORMATS, ids=lambda f: f.value)
@pytest.mark.parametrize("model", MODELS, ids=model_id)
def test_round_trip_is_stable(model: type[BaseXmlModel], fmt: PayloadFormat) -> None:
    """model -> body -> model -> body gives the same body, and the same model."""
    if fmt is PayloadFormat.XML and model in JSON_ONLY:
        pytest.skip(f"{model.__name__} only travels as a form or JSON")

    @ROUND_TRIP_SETTINGS
    @given(from_model(model))
    def round_trip(original: Any) -> None:
        body = encode(original, fmt)
        again = decode(model, body, fmt)
        assert encode(again, fmt) == body, f"second {fmt.value} body differs from the first"
        assert again == original, f"{model.__name__} read back from {fmt.value} differs: {body!r}"

    round_trip()


# --- bad bodies ------------------------------------------------------------------------------


@pytest.mark.parametrize(
    "body",
    [b"", b"{", b'{"usedCalls": 1,', b"[1, 2", b"not json at all", b"\xff\xfe"],
    ids=["empty", "open-brace", "truncated", "open-array", "prose", "bad-utf8"],
)
def test_invalid_json_is_a_payload_error(body: bytes) -> None:
    with pytest.raises(PayloadError):
        decode(Usage, body, PayloadFormat.JSON)


@pytest.mark.parametrize(
    "body",
    [
        b"",
        b"<Usage>",
        b"<Usage><UsedCalls>1</UsedCalls>",
        b"<Usage></Wrong>",
        b'{"usedCalls": 1}',
        b"<Usage><UsedCalls>1</UsedCalls><DailyQuota>2</DailyQuota></Usage><Usage/>",
    ],
    ids=["empty", "unclosed", "truncated", "mismatched-tag", "json", "two-roots"],
)
def test_invalid_xml_is_a_payload_error(body: bytes) -> None:
    with pytest.raises(PayloadError):
        decode(Usage, body, PayloadFormat.XML)


@pytest.mark.parametrize("fmt", FORMATS, ids=lambda f: f.value)
def test_a_broken_limit_is_a_limit_violation_naming_the_field(fmt: PayloadFormat) -> None:
    # model_construct does not validate, so the body carries the broken value in the model's
    # own layout (03-conventions: {"usedCalls": N, "dailyQuota": M}; XML root per the help page).
    body = encode(Usage.model_construct(used_calls=-1, daily_quota=100), fmt)
    with pytest.raises(LimitViolation) as caught:
        decode(Usage, body, fmt)
    assert caught.value.field == "usedCalls"
    assert caught.value.value in (-1, "-1")


def test_a_broken_limit_in_json_as_documented_is_a_limit_violation() -> None:
    with pytest.raises(LimitViolation) as caught:
        decode(Usage, b'{"usedCalls": -1, "dailyQuota": 100}', PayloadFormat.JSON)
    assert caught.value.field == "usedCalls"


# --- every documented limit of every model is enforced on decode -----------------------------


def limited_fields() -> list[tuple[type[BaseXmlModel], str, str, Any]]:
    """(model, field, rule, a value breaking it) for every string length and number bound."""
    found: list[tuple[type[BaseXmlModel], str, str, Any]] = []
    for model in MODELS:
        if issubclass(model, RootXmlModel):
            continue
        for name, info in model.model_fields.items():
            bare, _ = strip_optional(info.annotation)
            bare, metadata = split_annotated(bare)
            limits = Constraints.of([*metadata, *info.metadata])
            if bare is str and limits.max_length is not None:
                found.append((model, name, f"max_length={limits.max_length}", "x" * (limits.max_length + 1)))
            if bare is int and limits.ge is not None:
                found.append((model, name, f"ge={limits.ge}", int(limits.ge) - 1))
            if bare is int and limits.le is not None:
                found.append((model, name, f"le={limits.le}", int(limits.le) + 1))
    return found


LIMITED = limited_fields()


@pytest.mark.parametrize("fmt", FORMATS, ids=lambda f: f.value)
@pytest.mark.parametrize(
    ("model", "name", "rule", "bad_value"),
    LIMITED,
    ids=[f"{model_id(m)}.{n}[{r}]" for m, n, r, _ in LIMITED],
)
def test_every_limit_is_enforced_when_reading(
    model: type[BaseXmlModel], name: str, rule: str, bad_value: Any, fmt: PayloadFormat
) -> None:
    """A body breaking a field's limit is refused with a LimitViolation naming that field."""

    @settings(max_examples=2, deadline=None, suppress_health_check=list(HealthCheck))
    @given(from_model(model), st.just(bad_value))
    def refused(valid: Any, bad: Any) -> None:
        broken = valid.model_copy(update={name: bad})  # model_copy does not validate
        broken.__pydantic_fields_set__.add(name)  # a partial-update body must carry it
        body = encode(broken, fmt)
        with pytest.raises(LimitViolation) as caught:
            decode(model, body, fmt)
        alias = model.model_fields[name].alias or name
        assert alias in caught.value.field.split("."), (
            f"{model.__name__}.{name} ({rule}) refused, but the violation names {caught.value.field!r}"
        )

    refused()
