"""Hypothesis strategies generated from the API models, and the walk that finds those models.

Nothing here lists a model or a field by hand: :func:`from_model` reads a model's ``model_fields``
(annotations, ``Optional``, lists, nested models, ``RootXmlModel`` lists, enums, ``Literal``,
dates, ``Decimal``/``Money``, constraints such as ``MaxLen``, ``Ge``, ``Le``, ``Interval``,
``pattern``) and builds values that satisfy them. Model-level rules are met two ways:

* date pairs (``dateFrom``/``dateTo``, ``from``/``to``, ``...Start``/``...End``) are drawn
  together, the end 1 to 365 days after the start, which satisfies "from before to", "from
  not after to" and the 365-day span of channel prices at once;
* any other model validator (for example the POS rule "timeStamp or lastName") is met by
  drawing the fields and keeping only the combinations the model accepts.

Strings are printable text without the characters XML 1.0 cannot carry (control characters,
surrogates, non-characters); see :data:`XML_SAFE_CHARACTERS`. No other normalisation is done.
"""

from __future__ import annotations

import datetime as dt
import enum
import importlib
import inspect
import pkgutil
import types
import typing
from collections.abc import Callable, Iterable, Iterator
from dataclasses import dataclass, field
from decimal import Decimal
from typing import Any

from hypothesis import strategies as st
from pydantic import BaseModel, ValidationError
from pydantic.fields import FieldInfo
from pydantic_xml import BaseXmlModel, RootXmlModel

# --- characters ------------------------------------------------------------------------------

XML_SAFE_CHARACTERS = st.characters(
    # Cc: control characters (XML 1.0 forbids most; \t \n \r are allowed but an XML parser turns
    # \r\n into \n and an attribute's \t \n into spaces, so they cannot survive a round trip).
    # Cs: surrogates (not characters at all). Cn: unassigned, including U+FFFE and U+FFFF.
    exclude_categories=("Cc", "Cs", "Cn"),
)
"""Every character an XML 1.0 text node or attribute carries through a parse unchanged."""

DEFAULT_MAX_STRING = 20
"""Longest string drawn for a string field without a documented maximum (keeps runs fast)."""

LIST_MAX_SIZE = 2
"""Longest list drawn when a list has no constraint (nested lists multiply quickly)."""

INT32_MIN, INT32_MAX = -(2**31), 2**31 - 1
MONEY_LIMIT = Decimal("999999999.99")
"""Amounts stay where a float keeps two decimals exactly (``Money`` is a JSON number)."""

FIRST_DAY, LAST_DAY = dt.date(2000, 1, 1), dt.date(2099, 12, 31)
MAX_SPAN_DAYS = 365


# --- reading a field's type and constraints --------------------------------------------------


@dataclass
class Constraints:
    """The constraints of one value, gathered from annotated-types / pydantic metadata."""

    min_length: int | None = None
    max_length: int | None = None
    ge: Any = None
    gt: Any = None
    le: Any = None
    lt: Any = None
    multiple_of: Any = None
    pattern: str | None = None
    max_digits: int | None = None
    decimal_places: int | None = None
    serializers: list[Any] = field(default_factory=list)

    @classmethod
    def of(cls, metadata: Iterable[Any]) -> Constraints:
        found = cls()
        found.add(metadata)
        return found

    def add(self, metadata: Iterable[Any]) -> None:
        for item in metadata:
            if isinstance(item, FieldInfo):
                self.add(item.metadata)
                continue
            for name in (
                "min_length",
                "max_length",
                "ge",
                "gt",
                "le",
                "lt",
                "multiple_of",
                "pattern",
                "max_digits",
                "decimal_places",
            ):
                value = getattr(item, name, None)
                if value is not None:
                    setattr(self, name, value)
            if type(item).__name__ in {"PlainSerializer", "WrapSerializer"}:
                self.serializers.append(item)


def split_annotated(annotation: Any) -> tuple[Any, list[Any]]:
    """``Annotated[T, m1, m2]`` as ``(T, [m1, m2])``; any other annotation as ``(it, [])``."""
    metadata: list[Any] = []
    while typing.get_origin(annotation) is typing.Annotated:
        args = typing.get_args(annotation)
        annotation, metadata = args[0], [*args[1:], *metadata]
    return annotation, metadata


def union_members(annotation: Any) -> tuple[Any, ...] | None:
    """The members of ``X | Y`` / ``Union[X, Y]`` / ``Optional[X]``, None for a non-union."""
    if typing.get_origin(annotation) in (typing.Union, types.UnionType):
        return typing.get_args(annotation)
    return None


def strip_optional(annotation: Any) -> tuple[Any, bool]:
    """``(T, True)`` for ``T | None``; ``(annotation, False)`` otherwise (Annotated kept off)."""
    bare, _ = split_annotated(annotation)
    members = union_members(bare)
    if members is None or type(None) not in members:
        return annotation, False
    rest = tuple(m for m in members if m is not type(None))
    return (rest[0] if len(rest) == 1 else typing.Union[rest]), True  # noqa: UP007


def is_xml_model(annotation: Any) -> bool:
    return inspect.isclass(annotation) and issubclass(annotation, BaseXmlModel)


def models_in_annotation(annotation: Any) -> Iterator[type[BaseXmlModel]]:
    """Every XML model class named anywhere inside ``annotation``."""
    bare, metadata = split_annotated(annotation)
    for item in metadata:
        if isinstance(item, FieldInfo) and item.annotation is not None:
            yield from models_in_annotation(item.annotation)
    if is_xml_model(bare):
        yield bare
        return
    for arg in typing.get_args(bare):
        if arg is not Ellipsis and not isinstance(arg, (str, int, bool, enum.Enum)):
            yield from models_in_annotation(arg)


# --- which models there are ------------------------------------------------------------------


def nested_models(model: type[BaseXmlModel]) -> Iterator[type[BaseXmlModel]]:
    """The XML models that ``model``'s fields use directly."""
    for info in model.model_fields.values():
        yield from models_in_annotation(info.annotation)


def closure(roots: Iterable[type[BaseXmlModel]]) -> list[type[BaseXmlModel]]:
    """``roots`` and every model reachable from them through field annotations, in walk order."""
    seen: dict[type[BaseXmlModel], None] = {}
    pending = list(roots)
    while pending:
        model = pending.pop(0)
        if model in seen:
            continue
        seen[model] = None
        pending.extend(nested_models(model))
    return list(seen)


def catalog_models() -> list[type[BaseXmlModel]]:
    """Every request and response model of the catalog, and the models nested in them."""
    from roomsync.core.catalog import OPERATIONS

    roots = [m for op in OPERATIONS for m in (op.request, op.response) if m is not None]
    return closure(roots)


def api_package_models() -> list[type[BaseXmlModel]]:
    """Every ``ApiModel`` subclass defined in a module of ``roomsync.core.api`` (webhooks too)."""
    import roomsync.core.api as api_package
    from roomsync.core.api.base import ApiModel

    found: list[type[BaseXmlModel]] = []
    for module_info in pkgutil.walk_packages(api_package.__path__, prefix="roomsync.core.api."):
        module = importlib.import_module(module_info.name)
        for value in vars(module).values():
            if (
                inspect.isclass(value)
                and issubclass(value, (ApiModel, RootXmlModel))
                and value.__module__ == module.__name__
                and value is not ApiModel
                and "[" not in value.__name__  # RootXmlModel[list[X]]: a generic's parametrization
            ):
                found.append(value)
    return found


def all_models() -> list[type[BaseXmlModel]]:
    """The catalog's models plus every model of the API package, each once, catalog first."""
    return closure([*catalog_models(), *api_package_models()])


# --- strategies ------------------------------------------------------------------------------


def text(constraints: Constraints) -> st.SearchStrategy[str]:
    """A string meeting length and pattern constraints, made only of XML-safe characters."""
    min_size = constraints.min_length or 0
    max_size = constraints.max_length if constraints.max_length is not None else DEFAULT_MAX_STRING
    if constraints.pattern is not None:
        return st.from_regex(constraints.pattern, fullmatch=True, alphabet=XML_SAFE_CHARACTERS).filter(
            lambda s: min_size <= len(s) <= max_size
        )
    return st.text(XML_SAFE_CHARACTERS, min_size=min_size, max_size=max_size)


def integers(constraints: Constraints) -> st.SearchStrategy[int]:
    low = INT32_MIN if constraints.ge is None else int(constraints.ge)
    if constraints.gt is not None:
        low = max(low, int(constraints.gt) + 1)
    high = INT32_MAX if constraints.le is None else int(constraints.le)
    if constraints.lt is not None:
        high = min(high, int(constraints.lt) - 1)
    values = st.integers(min_value=low, max_value=high)
    if constraints.multiple_of:
        step = int(constraints.multiple_of)
        values = values.map(lambda n: n - n % step).filter(lambda n: low <= n <= high)
    return values


def decimals(constraints: Constraints) -> st.SearchStrategy[Decimal]:
    """Two-decimal amounts (the documents' ``##.##``), within any bounds the field sets."""
    places = 2 if constraints.decimal_places is None else min(2, constraints.decimal_places)
    low, high = -MONEY_LIMIT, MONEY_LIMIT
    if constraints.max_digits is not None:
        high = min(high, Decimal(10) ** (constraints.max_digits - places) - Decimal(1).scaleb(-places))
        low = -high
    if constraints.ge is not None:
        low = max(low, Decimal(str(constraints.ge)))
    if constraints.gt is not None:
        low = max(low, Decimal(str(constraints.gt)) + Decimal(1).scaleb(-places))
    if constraints.le is not None:
        high = min(high, Decimal(str(constraints.le)))
    if constraints.lt is not None:
        high = min(high, Decimal(str(constraints.lt)) - Decimal(1).scaleb(-places))
    return st.decimals(min_value=low, max_value=high, places=places, allow_nan=False, allow_infinity=False)


def datetimes(aware: bool) -> st.SearchStrategy[dt.datetime]:
    """Whole-second date-times; with a whole-minute UTC offset unless naive ones are asked for."""
    base = st.datetimes(min_value=dt.datetime(2000, 1, 1), max_value=dt.datetime(2099, 12, 31)).map(
        lambda moment: moment.replace(microsecond=0)
    )
    if not aware:
        return base
    offsets = st.integers(min_value=-12 * 60, max_value=14 * 60).map(
        lambda minutes: dt.timezone(dt.timedelta(minutes=minutes))
    )
    return st.tuples(base, offsets).map(lambda pair: pair[0].replace(tzinfo=pair[1]))


def for_annotation(annotation: Any, metadata: Iterable[Any] = ()) -> st.SearchStrategy[Any]:
    """Values of the type ``annotation`` that meet the constraints in ``metadata``."""
    bare, inner_metadata = split_annotated(annotation)
    constraints = Constraints.of([*inner_metadata, *metadata])
    origin = typing.get_origin(bare)
    args = typing.get_args(bare)

    members = union_members(bare)
    if members is not None:
        return st.one_of(
            [
                st.none() if member is type(None) else for_annotation(member, [*inner_metadata, *metadata])
                for member in members
            ]
        )
    if origin is typing.Literal:
        return st.sampled_from(args)
    if bare is type(None):
        return st.none()
    if bare is Any or bare is object:
        return text(Constraints())
    if is_xml_model(bare):
        return from_model(bare)
    if inspect.isclass(bare) and issubclass(bare, enum.Enum):
        return st.sampled_from(list(bare))
    if bare is bool:
        return st.booleans()
    if bare is int:
        return integers(constraints)
    if bare is float:
        return decimals(constraints).map(float)
    if bare is Decimal:
        return decimals(constraints)
    if bare is str:
        return text(constraints)
    if bare is dt.datetime or _is_pydantic_datetime(bare):
        return datetimes(aware=getattr(bare, "__name__", "") != "NaiveDatetime")
    if bare is dt.date:
        return st.dates(min_value=FIRST_DAY, max_value=LAST_DAY)
    if origin in (list, tuple, set, frozenset) or bare in (list, tuple, set):
        item = args[0] if args else str
        max_size = constraints.max_length if constraints.max_length is not None else LIST_MAX_SIZE
        items = st.lists(for_annotation(item), min_size=constraints.min_length or 0, max_size=max_size)
        return items if origin in (list, None) else items.map(origin)
    if origin is dict or bare is dict:
        key, value = args if args else (str, str)
        return st.dictionaries(for_annotation(key), for_annotation(value), max_size=LIST_MAX_SIZE)
    raise TypeError(f"tests/strategies.py has no strategy for the annotation {annotation!r}")


def _is_pydantic_datetime(annotation: Any) -> bool:
    return getattr(annotation, "__name__", "") in {
        "AwareDatetime",
        "NaiveDatetime",
        "PastDatetime",
        "FutureDatetime",
    }


# --- date pairs that a model validator orders ------------------------------------------------

_PAIR_SUFFIXES = (("From", "To"), ("Start", "End"))


def date_pairs(model: type[BaseModel]) -> list[tuple[str, str]]:
    """Pairs of date fields (by Python name) that name the two ends of one range."""
    by_alias = {}
    for name, info in model.model_fields.items():
        bare, _ = strip_optional(info.annotation)
        bare, _ = split_annotated(bare)
        if bare is dt.date:
            by_alias[(info.alias or name)] = name
    pairs = []
    for alias, name in by_alias.items():
        if alias.lower() == "from" and "to" in {a.lower() for a in by_alias}:
            partner = next(a for a in by_alias if a.lower() == "to")
            pairs.append((name, by_alias[partner]))
            continue
        for start, end in _PAIR_SUFFIXES:
            for start_case, end_case in ((start, end), (start.lower(), end.lower())):
                if alias.endswith(start_case):
                    partner = alias[: -len(start_case)] + end_case
                    if partner in by_alias:
                        pairs.append((name, by_alias[partner]))
    return pairs


def date_range() -> st.SearchStrategy[tuple[dt.date, dt.date]]:
    """A start and an end 1..365 days later: valid as nights, as an inclusive range, as a span."""
    starts = st.dates(min_value=FIRST_DAY, max_value=LAST_DAY - dt.timedelta(days=MAX_SPAN_DAYS))
    spans = st.integers(min_value=1, max_value=MAX_SPAN_DAYS)
    return st.tuples(starts, spans).map(lambda pair: (pair[0], pair[0] + dt.timedelta(days=pair[1])))


# --- whole models ----------------------------------------------------------------------------

_CACHE: dict[type[BaseXmlModel], st.SearchStrategy[Any]] = {}


def field_strategy(info: FieldInfo) -> st.SearchStrategy[Any]:
    """Values for one model field, honouring the constraints attached to the field itself."""
    return for_annotation(info.annotation, info.metadata)


def _validated(model: type[BaseXmlModel]) -> Callable[[dict[str, Any]], Any]:
    def build(values: dict[str, Any]) -> Any:
        try:
            return model.model_validate(values)
        except ValidationError:
            return None  # a model-level rule refused this combination; the filter drops it

    return build


def _build_model_strategy(model: type[BaseXmlModel]) -> st.SearchStrategy[Any]:
    if issubclass(model, RootXmlModel):
        root = model.model_fields["root"]
        return field_strategy(root).map(model.model_validate)

    pairs = date_pairs(model)
    paired = {name for pair in pairs for name in pair}
    required: dict[str, st.SearchStrategy[Any]] = {}
    optional: dict[str, st.SearchStrategy[Any]] = {}
    for name, info in model.model_fields.items():
        if name in paired or info.exclude:
            continue
        (required if info.is_required() else optional)[name] = field_strategy(info)
    plain = st.fixed_dictionaries(required, optional=optional)

    def with_pair(start: str, end: str) -> st.SearchStrategy[dict[str, Any]]:
        both = date_range().map(lambda r: {start: r[0], end: r[1]})
        fields = model.model_fields
        if fields[start].is_required() or fields[end].is_required():
            return both
        return st.one_of(st.just({}), both)

    def merged(parts: tuple[dict[str, Any], ...]) -> dict[str, Any]:
        values: dict[str, Any] = {}
        for part in parts:
            values.update(part)
        return values

    dicts = st.tuples(plain, *(with_pair(s, e) for s, e in pairs)).map(merged)
    return dicts.map(_validated(model)).filter(lambda built: built is not None)


def from_model(model: type[BaseXmlModel]) -> st.SearchStrategy[Any]:
    """Valid instances of ``model``: every field drawn from its annotation and constraints."""
    if model not in _CACHE:
        _CACHE[model] = st.deferred(lambda: _build_model_strategy(model))
    return _CACHE[model]
