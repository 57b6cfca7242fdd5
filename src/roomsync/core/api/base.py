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

import re
from decimal import Context, Decimal
from typing import Annotated, Any, ClassVar, TypeVar, get_args, get_origin

from pydantic import ConfigDict, PlainSerializer, ValidationError
from pydantic.alias_generators import to_camel
from pydantic_xml import BaseXmlModel, RootXmlModel, attr, element, wrapped
from pydantic_xml.element import is_element_nill
from pydantic_xml.serializers.factories import model as _xml_model
from pydantic_xml.serializers.factories import primitive as _xml_primitive

from roomsync.core.errors import LimitViolation

__all__ = [
    "ApiModel",
    "IdResult",
    "Money",
    "Number",
    "RootXmlModel",
    "amount_fields",
    "attr",
    "checked",
    "element",
    "violation_from",
    "wrapped",
    "xml_amount",
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


_read_model_fields = _xml_model.ModelSerializer.deserialize

_PresenceCheck = tuple[tuple[str, ...], Any, bool]
"""(element path, search mode, whether the element must be xsi:nil to count)."""


def _presence_checks(serializer: _xml_model.ModelSerializer) -> dict[str, _PresenceCheck]:
    """Fields whose element can be in a body while pydantic-xml reads no value (cached).

    Nillable elements (``xsi:nil`` reads as absent) and wrapped lists (an empty wrapper reads as
    absent).
    """
    found: dict[str, _PresenceCheck] | None = getattr(serializer, "_roomsync_presence", None)
    if found is None:
        found = {}
        for name, field in serializer._field_serializers.items():
            search_mode = getattr(field, "_search_mode", None)
            tag = getattr(field, "_element_name", None)
            path = getattr(field, "_path", None)
            if search_mode is None:
                continue
            if tag is not None and getattr(field, "_nillable", False):
                found[name] = ((tag,), search_mode, True)
            elif isinstance(path, tuple) and path:
                found[name] = (path, search_mode, False)
        serializer._roomsync_presence = found  # type: ignore[attr-defined]
    return found


def _read_keeping_present_fields_set(
    self: _xml_model.ModelSerializer,
    element: Any,
    *,
    context: Any,
    sourcemap: Any,
    loc: Any,
    empty_as_string: bool,
) -> Any:
    # pydantic-xml reads an xsi:nil element, and an empty list wrapper, as if the element were
    # absent: the field gets its default but does not count as set. A partial-update body saying
    # "set this to null" (or "to no entries") would then read back as "leave this unchanged" and
    # be re-sent without it. An element that is there is set, as a JSON null or [] is.
    checks = _presence_checks(self)
    present: set[str] = set()
    if element is not None and checks:
        snapshot = element.create_snapshot()  # looking must not consume what the reader reads next
        for name, (path, search_mode, must_be_nil) in checks.items():
            if must_be_nil:
                sub_element = snapshot.pop_element(path[0], search_mode)
                if sub_element is not None and is_element_nill(sub_element):
                    present.add(name)
            elif len(snapshot.find_sub_element(path, search_mode)) == len(path):
                present.add(name)
    model = _read_model_fields(
        self, element, context=context, sourcemap=sourcemap, loc=loc, empty_as_string=empty_as_string
    )
    if model is not None and present:
        model.__pydantic_fields_set__.update(present)
    return model


_xml_model.ModelSerializer.deserialize = _read_keeping_present_fields_set  # type: ignore[method-assign]


_AS_JSON_NUMBER = PlainSerializer(float, return_type=float, when_used="json")
# JSON carries decimals as numbers; a two-decimal amount survives a float's shortest repr exactly.
# pydantic-xml takes its text from the same JSON-mode dump, so an XML amount would be the float's
# repr too ("158.0", "0.1"): amounts get their XML text from ``xml_amount`` below instead.


class _TwoDecimalPlaces:
    """Marks an annotated ``Decimal`` as an amount written with two decimal digits in XML."""

    def __repr__(self) -> str:
        return "TwoDecimalPlaces"


TWO_DECIMAL_PLACES = _TwoDecimalPlaces()

Money = Annotated[Decimal, _AS_JSON_NUMBER, TWO_DECIMAL_PLACES]
"""An amount the documents state with two decimal digits (01 ``decimal (2 digits)``, 02
``decimal (##.##)``): a JSON number; in XML text with two decimal digits (``158.00``)."""

Number = Annotated[Decimal, _AS_JSON_NUMBER]
"""A plain ``decimal`` (``bathrooms``, a price factor): a JSON number, XML text as given."""

_CENT = Decimal("0.01")


def xml_amount(amount: Decimal) -> str:
    """The XML text of an amount: at least two decimal digits (``158`` -> ``158.00``). Digits past
    the second are kept, never rounded away: this only writes a value, it does not change it."""
    if not amount.is_finite():
        return str(amount)
    _, digits, exponent = amount.as_tuple()
    if isinstance(exponent, int) and exponent > -2:  # quantize needs room for the added zeros
        amount = amount.quantize(_CENT, context=Context(prec=len(digits) + exponent + 2))
    return format(amount, "f")


_AMOUNT_FIELDS: dict[type[BaseXmlModel], frozenset[str]] = {}


def amount_fields(model: type[BaseXmlModel]) -> frozenset[str]:
    """Names of ``model``'s fields typed :data:`Money` (``Money`` or ``Money | None``), cached."""
    found = _AMOUNT_FIELDS.get(model)
    if found is None:
        found = frozenset(
            name
            for name, info in model.model_fields.items()
            if TWO_DECIMAL_PLACES in info.metadata or _annotated_with(info.annotation, TWO_DECIMAL_PLACES)
        )
        _AMOUNT_FIELDS[model] = found
    return found


def _annotated_with(annotation: Any, marker: object) -> bool:
    if get_origin(annotation) is Annotated:
        return any(item is marker for item in annotation.__metadata__)
    return any(_annotated_with(arg, marker) for arg in get_args(annotation) if arg is not None)


_write_model_fields = _xml_model.ModelSerializer.serialize


def _write_amounts_with_two_places(
    self: _xml_model.ModelSerializer,
    element: Any,
    value: Any,
    encoded: Any,
    *,
    skip_empty: bool = False,
    exclude_none: bool = False,
    exclude_unset: bool = False,
) -> Any:
    # The field serializers write ``encoded[name]`` as the text: for an amount, the two-digit
    # text of the Decimal rather than the float the JSON-mode dump made of it.
    names = amount_fields(self._model) if value is not None else frozenset()
    if names and isinstance(encoded, dict):
        encoded = dict(encoded)
        for name in names:
            amount = getattr(value, name, None)
            if isinstance(amount, Decimal) and name in encoded:
                encoded[name] = xml_amount(amount)
    return _write_model_fields(
        self,
        element,
        value,
        encoded,
        skip_empty=skip_empty,
        exclude_none=exclude_none,
        exclude_unset=exclude_unset,
    )


_xml_model.ModelSerializer.serialize = _write_amounts_with_two_places  # type: ignore[method-assign]


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

    nullable_fields: ClassVar[frozenset[str]] = frozenset()
    """Python names of the fields a request may set to null: the documents type them ``T?`` or
    give null a meaning ("null unsets it"). Any other ``None`` is left out of a request body
    (``roomsync.core.api.wire``), and the emulator refuses a body that sends it as null."""


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
    # pydantic-xml prefixes "[line N]: " (N is -1 when unknown); the field already says where.
    rule = re.sub(r"^\[line -?\d+\]: ", "", first["msg"])
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
