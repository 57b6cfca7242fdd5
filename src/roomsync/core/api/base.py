"""Conventions every API model follows.

One model class serves both payload formats:

* JSON: camelCase names, produced by the alias generator (an explicit ``alias`` keeps a
  documented oddity such as ``guestPrefferedLocale``).
* XML (pydantic-xml): PascalCase element names, given explicitly with ``element(tag=...)``;
  identifiers as attributes (``attr(name=...)``) where document 02 or the public help pages say
  so. Optional elements are ``nillable=True`` so that ``None`` (``xsi:nil``) and ``""`` (an empty
  element) stay distinct; :func:`roomsync.core.codec.decode` reads with ``empty_as_string``.

Documented limits are pydantic constraints on the fields; :func:`checked` turns a pydantic
``ValidationError`` into one :class:`~roomsync.core.errors.LimitViolation` naming the field, the
value and the rule.
"""

from __future__ import annotations

from decimal import Decimal
from typing import Annotated, Any, ClassVar, TypeVar

from pydantic import ConfigDict, PlainSerializer, ValidationError
from pydantic.alias_generators import to_camel
from pydantic_xml import BaseXmlModel, RootXmlModel, attr, element, wrapped
from pydantic_xml.serializers.factories import primitive as _xml_primitive

from roomsync.core.errors import LimitViolation

__all__ = [
    "ApiModel",
    "IdResult",
    "Money",
    "RootXmlModel",
    "attr",
    "checked",
    "element",
    "violation_from",
    "wrapped",
]


def _omit_none_attribute(
    self: _xml_primitive.AttributeSerializer,
    element: Any,
    value: Any,
    encoded: Any,
    *,
    skip_empty: bool = False,
    exclude_none: bool = False,
    exclude_unset: bool = False,
) -> Any:
    # pydantic-xml writes a None attribute as attr="", which reads back as "" (or fails for an
    # int). An absent attribute is the only faithful XML form of None, so None is never written.
    if value is None:
        return element
    element.set_attribute(self.attr_name, _xml_primitive.encode_primitive(encoded))
    return element


_xml_primitive.AttributeSerializer.serialize = _omit_none_attribute  # type: ignore[method-assign]


# JSON carries amounts as numbers; a two-decimal amount survives a float's shortest repr exactly.
Money = Annotated[Decimal, PlainSerializer(float, return_type=float, when_used="json")]
"""A ``decimal (##.##)`` amount: a JSON number, XML text."""


class ApiModel(BaseXmlModel, search_mode="unordered"):
    """Base of every resource, nested object and request body of the service."""

    model_config = ConfigDict(
        alias_generator=to_camel,
        populate_by_name=True,
        extra="ignore",
        use_enum_values=False,
        validate_assignment=True,
    )

    partial_update: ClassVar[bool] = False
    """True for request bodies whose absent fields mean "leave unchanged": only set fields are sent."""


# List responses: a JSON array, or in XML a plural wrapper of item elements. pydantic-xml cannot
# build a generic root model, so each list is its own small class, always in this form:
#
#     class ChannelNameList(RootXmlModel[list[ChannelName]], tag="ChannelNames"):
#         root: list[ChannelName] = element(tag="ChannelName", default_factory=list)


class ErrorDetail(ApiModel, tag="Error"):
    """The service's error body (03-conventions).

    JSON ``{"error": {"code": .., "message": .., "field": ..}}``;
    XML ``<Error code=".." field=".."><Message>..</Message></Error>``.
    """

    code: str = attr(name="code")
    message: str = element(tag="Message")
    field: str | None = attr(name="field", default=None)


class IdResult(ApiModel, tag="Id"):
    """``id`` of a new object: JSON ``{"id": N}``, XML ``<Id>N</Id>`` (03-conventions)."""

    id: int


def violation_from(error: ValidationError, model: str | None = None) -> LimitViolation:
    """The first problem of a pydantic ``ValidationError`` as a ``LimitViolation``."""
    first = error.errors(include_url=False)[0]
    field = ".".join(str(part) for part in first["loc"]) or "(body)"
    rule = first["msg"]
    ctx = first.get("ctx") or {}
    if "expected" in ctx:
        rule = f"{rule} (allowed: {ctx['expected']})"
    return LimitViolation(field, first.get("input"), rule, model=model or error.title)


ModelT = TypeVar("ModelT", bound=ApiModel)


def checked(model_type: type[ModelT], /, **values: Any) -> ModelT:
    """Build ``model_type`` from API (camelCase) or Python names, raising ``LimitViolation``."""
    try:
        return model_type.model_validate(values)
    except ValidationError as error:
        raise violation_from(error, model_type.__name__) from None
