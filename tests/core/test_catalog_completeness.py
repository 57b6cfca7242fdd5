"""The catalog and the models cover the whole service, as tests/spec_catalog/*.toml transcribe it.

The two TOML files are the project's own copy of documents 01/02/03 (written from the documents'
tables, independently of the models), so these checks compare two separate readings of the spec:

* every documented operation is in the catalog and nothing else is, with request and response
  models where the documents show bodies;
* every documented field of every resource, nested object, request body and webhook payload is
  a field of its model, under the documented JSON name, nullable where documented, with the
  documented maximum length;
* every model's XML element names are the PascalCase of its JSON names, apart from the
  deliberate exceptions each model module lists in ``XML_NAME_EXCEPTIONS``.

Every check collects all mismatches before failing, so one run lists everything to fix.
"""

from __future__ import annotations

import datetime as dt
import enum
import importlib
import inspect
import re
import sys
import tomllib
import types
import typing
from dataclasses import dataclass
from decimal import Decimal
from pathlib import Path
from typing import Any

from pydantic.alias_generators import to_pascal
from pydantic.fields import FieldInfo
from pydantic_xml import BaseXmlModel, RootXmlModel
from pydantic_xml.fields import extract_field_xml_entity_info
from pydantic_xml.typedefs import EntityLocation

from roomsync.core.catalog import OPERATIONS, Operation
from strategies import Constraints, all_models, models_in_annotation, split_annotated, strip_optional

SPEC_CATALOG = Path(__file__).resolve().parent.parent / "spec_catalog"
NOT_SHOWN = "not shown"

# --- the transcription -----------------------------------------------------------------------


def load_toml(name: str) -> dict[str, Any]:
    with (SPEC_CATALOG / name).open("rb") as handle:
        return tomllib.load(handle)


SPEC_OPERATIONS: list[dict[str, Any]] = load_toml("operations.toml")["operation"]
SPEC_RESOURCES: dict[str, dict[str, Any]] = load_toml("resources.toml")["resource"]

_PATH_PARAMETER = re.compile(r"{(\w+)}")


def path_shape(path: str) -> str:
    """The path with parameter names erased (``{channel}`` kept): names are the catalog's choice."""
    return _PATH_PARAMETER.sub(lambda m: m.group(0) if m.group(1) == "channel" else "{}", path)


def operation_key(method: str, path: str) -> tuple[str, str]:
    return method.upper(), path_shape(path)


def documented_fields(resource: str) -> list[dict[str, Any]]:
    """A resource's fields, including those it ``extends`` minus those it ``drop``s."""
    spec = SPEC_RESOURCES[resource]
    fields: list[dict[str, Any]] = []
    if "extends" in spec:
        dropped = set(spec.get("drop", ()))
        fields = [f for f in documented_fields(spec["extends"]) if f["name"] not in dropped]
    own = {f["name"] for f in spec["fields"]}
    return [f for f in fields if f["name"] not in own] + list(spec["fields"])


# --- which model holds which documented resource ---------------------------------------------
# Resource name (resources.toml) -> the model(s) that carry it, as "module:Class" under
# roomsync.core.api. Several models for one resource: each of them must have every field
# (a response and the update body that resends it, for instance).

RESOURCE_MODELS: dict[str, tuple[str, ...]] = {
    # document 01: rental channel
    "Account": ("channel:Account",),
    "Listing": ("channel:Listing",),
    "ListingWithPrice": ("channel:ListingDetail",),
    "CheckInOption": ("channel:CheckInOption",),
    "ApprovalStatus": ("channel:ApprovalStatus",),
    "AvailabilityRule": ("channel:AvailabilityRule",),
    "MinNightsForCheckIn": ("channel:MinNightsForCheckIn",),
    "Inventory": ("channel:Inventory",),
    "InventoryOperation": ("channel:InventoryOperation",),
    "ChannelReservation": ("channel:Reservation",),
    "ChannelGuestDetails": ("channel:GuestDetails",),
    "ListingUpdateRequest": ("channel:ListingUpdateRequest",),
    "AvailabilityRulesUpdateRequest": ("channel:AvailabilityRulesUpdate",),
    "InventoryQueryRequest": ("channel:InventoryQuery",),
    "InventoryUpdateRequest": ("channel:InventoryUpdate",),
    # document 01: channel manager
    "ChannelName": ("channel_manager:ChannelName",),
    "Channel": ("channel_manager:Channel",),
    "ChannelParameter": ("channel_manager:ChannelParameter",),
    "PriceForDateRange": ("channel_manager:PriceForDateRange",),
    "PricesRequest": ("channel_manager:PricesRequest",),
    "ChannelResponse": ("channel_manager:ChannelResponse",),
    # document 01: webhooks
    "WebhookReply": ("webhooks:WebhookReply",),
    "ListingApprovalStatusChangedEvent": ("webhooks:ListingApprovalStatusChanged",),
    "ListingSynchronizationSettingsUpdatedEvent": ("webhooks:ListingSynchronizationSettingsUpdated",),
    "SynchronizationUpdate": ("webhooks:SynchronizationUpdate",),
    "ListingsUnlinkedEvent": ("webhooks:ListingsUnlinked",),
    "AuthorizationRevokedEvent": ("webhooks:AuthorizationRevoked",),
    "ListingSuspensionEvent": ("webhooks:ListingSuspension",),
    "HostSuspensionEvent": ("webhooks:HostSuspension",),
    "SafetyCommitmentSuspensionEvent": ("webhooks:SafetyCommitmentSuspension",),
    "SafetyCommitmentReactivationEvent": ("webhooks:SafetyCommitmentReactivation",),
    "SpecialOfferEvent": ("webhooks:SpecialOfferEvent",),
    "ReservationRequestEvent": ("webhooks:ReservationRequestEvent",),
    "ReservationConfirmationEvent": ("webhooks:ReservationConfirmationEvent",),
    "PayoutNotificationEvent": ("webhooks:PayoutNotification",),
    "ReviewEvent": ("webhooks:ReviewEvent",),
    "CategoryRating": ("webhooks:CategoryRating",),
    "CheckAvailabilityEvent": ("webhooks:CheckAvailability",),
    "MakeReservationEvent": ("webhooks:MakeReservation",),
    "MakeReservationGuestDetails": ("webhooks:MakeReservationGuestDetails",),
    "UpdateReservationEvent": ("webhooks:UpdateReservation",),
    # document 02
    "ExtraCharge": ("pms.extra_charges:ExtraCharge",),
    "ExtraChargeTitle": ("pms.extra_charges:ExtraChargeTitle",),
    "ExtraChargeCategory": ("pms.extra_charges:ExtraChargeCategory",),
    "PosItem": ("pms.extra_charges:PosItem",),
    "PosChargeRequest": ("pms.extra_charges:PosChargeRequest",),
    "PosChargeUpdateRequest": ("pms.extra_charges:PosChargeUpdateRequest",),
    "Customer": ("pms.customers:Customer", "pms.customers:CustomerUpdateRequest"),
    "CustomerCategory": ("pms.customers:CustomerCategory",),
    "CustomerCreateRequest": ("pms.customers:CustomerCreateRequest",),
    "CustomerFilterRequest": ("pms.customers:CustomerFilterRequest",),
    "CountryRef": ("pms.customers:CountryRef",),
    "CustomerDeleteRequest": ("pms.customers:CustomerDeleteRequest",),
    "Guest": ("pms.guests:Guest", "pms.guests:GuestUpdateRequest"),
    "GuestCreateRequest": ("pms.guests:GuestCreateRequest",),
    "Reservation": ("pms.reservations:Reservation",),
    "ReservationExtended": ("pms.reservations:ReservationExtended",),
    "ReservationV2": ("pms.reservations:ReservationV2",),
    "ReservationSearchResult": ("pms.reservations:ReservationSearchResult",),
    "ReservationCreateRequest": ("pms.reservations:ReservationCreateRequest",),
    "ReservationIdsRequest": ("pms.reservations:ReservationIdsRequest",),
    "ReservationFilterRequest": ("pms.reservations:ReservationFilterRequest",),
    "CheckedInRequest": ("pms.reservations:CheckedInRequest",),
    "ReservationContract": ("pms.contracts:ReservationContract",),
    "ReservationContractCreateRequest": ("pms.contracts:ReservationContractCreateRequest",),
    "ReservationContractUpdateRequest": ("pms.contracts:ReservationContractUpdateRequest",),
    "RoomAvailabilityRequest": ("pms.availability:RoomAvailabilityRequest",),
    "RoomAvailability": ("pms.availability:RoomAvailability",),
    "AvailabilityDateRange": ("pms.availability:AvailabilityDateRange",),
    "DateRange": ("pms.availability:DateRange",),
    "RoomTypeAvailabilityRequest": ("pms.availability:RoomTypeAvailabilityRequest",),
    "RoomTypeAvailabilityExtendedRequest": ("pms.availability:RoomTypeAvailabilityExtendedRequest",),
    "RoomTypeAvailability": ("pms.availability:RoomTypeAvailability",),
    "AvailableRoom": ("pms.availability:AvailableRoom",),
    "AvailableRoomExtended": ("pms.availability:AvailableRoomExtended",),
    "AvailabilityContract": ("pms.availability:AvailabilityContract",),
    "Payment": ("pms.payments:Payment",),
    "PaymentCreateRequest": ("pms.payments:PaymentCreateRequest",),
    "PaymentUpdateRequest": ("pms.payments:PaymentUpdateRequest",),
    "PaymentDescription": ("pms.payments:PaymentDescription",),
    "PaymentDescriptionCreateRequest": ("pms.payments:PaymentDescriptionCreateRequest",),
    "InvoicePreviewRequest": ("pms.invoices:InvoicePreviewRequest",),
    "InvoiceFilterRequest": ("pms.invoices:InvoiceFilterRequest",),
    "Invoice": ("pms.invoices:Invoice",),
    "InvoicePreview": ("pms.invoices:InvoicePreview",),
    "InvoiceCounter": ("pms.invoices:InvoiceCounter",),
    "InvoiceCustomer": ("pms.invoices:InvoiceCustomer",),
    "InvoicePayment": ("pms.invoices:InvoicePayment",),
    "TaxEntry": ("pms.invoices:TaxEntry",),
    "TaxEntryPreview": ("pms.invoices:TaxEntryPreview",),
    "TaxBreakdownItem": ("pms.invoices:TaxBreakdownItem",),
    "InvoiceLine": ("pms.invoices:InvoiceLine",),
    "Room": ("pms.rooms:Room",),
    "RoomExtended": ("pms.rooms:RoomExtended",),
    "RoomType": ("pms.rooms:RoomType",),
    "RoomTypeTitle": ("pms.rooms:RoomTypeTitle",),
    "RoomGroup": ("pms.rooms:RoomGroup",),
}


def resolve(reference: str) -> type[BaseXmlModel]:
    """The class named by ``"module:Class"`` under ``roomsync.core.api``; LookupError if none."""
    module_name, _, class_name = reference.partition(":")
    try:
        module = importlib.import_module(f"roomsync.core.api.{module_name}")
    except ModuleNotFoundError as error:
        raise LookupError(f"module roomsync.core.api.{module_name} does not exist ({error})") from None
    model = getattr(module, class_name, None)
    if not (inspect.isclass(model) and issubclass(model, BaseXmlModel)):
        raise LookupError(f"roomsync.core.api.{module_name} has no model {class_name}")
    return model


def failure(title: str, problems: list[str]) -> str:
    return f"{title} ({len(problems)}):\n  " + "\n  ".join(problems)


# --- (a) the operations ----------------------------------------------------------------------


def test_the_transcription_is_whole() -> None:
    """Sanity of the TOML files themselves, so a typo there cannot hide a gap."""
    keys = [operation_key(op["method"], op["path"]) for op in SPEC_OPERATIONS]
    assert len(keys) == len(set(keys)), "operations.toml lists an operation twice"
    assert len(keys) == 78, f"documents 01/02/03 have 78 operations, operations.toml has {len(keys)}"
    assert set(RESOURCE_MODELS) == set(SPEC_RESOURCES), (
        f"resources without a model entry: {sorted(set(SPEC_RESOURCES) - set(RESOURCE_MODELS))}; "
        f"entries without a resource: {sorted(set(RESOURCE_MODELS) - set(SPEC_RESOURCES))}"
    )


def test_catalog_has_exactly_the_documented_operations() -> None:
    documented = {operation_key(op["method"], op["path"]): op for op in SPEC_OPERATIONS}
    catalogued = {operation_key(op.method, op.path): op for op in OPERATIONS}
    problems = [
        f"missing: {op['method']} {op['path']}  (document {op['document']}: {op['note']})"
        for key, op in documented.items()
        if key not in catalogued
    ]
    problems += [
        f"extra: {op.method} {op.path}  ({op.name}: not in documents 01/02/03)"
        for key, op in catalogued.items()
        if key not in documented
    ]
    problems += [
        f"{op.method} {op.path}: catalog says document {op.document}, the spec {documented[key]['document']}"
        for key, op in catalogued.items()
        if key in documented and op.document != documented[key]["document"]
    ]
    assert not problems, failure("catalog and spec differ", problems)


def test_catalog_operation_names_and_paths_are_well_formed() -> None:
    problems = []
    for op in OPERATIONS:
        if not re.fullmatch(r"[a-z][a-z0-9_]*", op.name):
            problems.append(f"{op.name}: not a Python method name")
        if op.method == "GET" and op.request is not None:
            problems.append(f"{op.name}: GET with a request body ({op.request.__name__})")
        if "RentalChannel" in op.path:
            problems.append(f"{op.name}: path names the channel literally instead of {{channel}}")
    assert not problems, failure("malformed catalog entries", problems)


# --- (b) the bodies --------------------------------------------------------------------------


def body_problems(op: Operation, spec: dict[str, Any]) -> list[str]:
    problems = []
    for part, model in (("request", op.request), ("response", op.response)):
        shown = spec[part]
        if shown == NOT_SHOWN:
            continue  # the documents leave it open; the catalog's choice is recorded in docs
        if shown and model is None:
            problems.append(f"{op.method} {op.path}: the spec shows a {part} body, the catalog has none")
        if not shown and model is not None:
            problems.append(
                f"{op.method} {op.path}: the spec shows no {part} body, the catalog has {model.__name__}"
            )
    return problems


def test_bodies_match_the_spec() -> None:
    documented = {operation_key(op["method"], op["path"]): op for op in SPEC_OPERATIONS}
    problems = [
        problem
        for op in OPERATIONS
        if (key := operation_key(op.method, op.path)) in documented
        for problem in body_problems(op, documented[key])
    ]
    assert not problems, failure("request/response bodies differ from the spec", problems)


def test_bodies_left_open_by_the_spec_are_recorded_as_chosen() -> None:
    """Where the documents do not show a body, the catalog must not claim the spec shows it."""
    documented = {operation_key(op["method"], op["path"]): op for op in SPEC_OPERATIONS}
    problems = []
    for op in OPERATIONS:
        spec = documented.get(operation_key(op.method, op.path))
        if spec is None or op.shape.value != "spec":
            continue
        left_open = [part for part in ("request", "response") if spec[part] == NOT_SHOWN]
        chosen = [p for p in left_open if getattr(op, p) is not None]
        if chosen:
            problems.append(
                f"{op.name} ({op.method} {op.path}): shape=spec, but the spec does not show the "
                f"{' and '.join(chosen)} body it has"
            )
    assert not problems, failure("shapes chosen without saying so", problems)


# --- (c) the fields of every resource --------------------------------------------------------


@dataclass(frozen=True)
class ModelField:
    name: str
    alias: str
    info: FieldInfo


def model_fields_by_json_name(model: type[BaseXmlModel]) -> dict[str, ModelField]:
    """A model's fields by every JSON name it is written or read under."""
    found: dict[str, ModelField] = {}
    for name, info in model.model_fields.items():
        alias = info.serialization_alias or info.alias or name
        entry = ModelField(name, alias, info)
        found[alias] = entry
        validation = info.validation_alias
        choices = getattr(validation, "choices", None)
        for choice in choices if choices is not None else [validation]:
            if isinstance(choice, str):
                found.setdefault(choice, entry)
    return found


def lower_first(name: str) -> str:
    return name[:1].lower() + name[1:]


def find_field(documented: dict[str, Any], fields: dict[str, ModelField]) -> ModelField | None:
    name = documented["name"]
    candidates = [name]
    if not documented.get("exact_case") and name[:1].isupper():
        candidates.append(lower_first(name))  # 01/02: JSON names are camelCase
    if "alt" in documented:
        candidates.append(documented["alt"])
    for candidate in candidates:
        if candidate in fields and fields[candidate].alias == candidate:
            return fields[candidate]
    for candidate in candidates:  # read under the documented name, written under another
        if candidate in fields:
            return fields[candidate]
    return None


def admits_none(info: FieldInfo) -> bool:
    return strip_optional(info.annotation)[1] or info.annotation is Any


def max_length_of(info: FieldInfo) -> int | None:
    bare, _ = strip_optional(info.annotation)
    bare, metadata = split_annotated(bare)
    return Constraints.of([*metadata, *info.metadata]).max_length


def longest_value(annotation: Any) -> int | None:
    """The length of the longest value of a closed set of strings (enum, Literal), else None."""
    bare, _ = strip_optional(annotation)
    values = literal_values(bare)
    if not values or not all(isinstance(v, str) for v in values):
        return None
    return max(len(v) for v in values)


def field_problems(model: type[BaseXmlModel], resource: str) -> list[str]:
    fields = model_fields_by_json_name(model)
    where = f"{resource} -> {model.__module__.removeprefix('roomsync.core.api.')}.{model.__name__}"
    problems = []
    for documented in documented_fields(resource):
        name = documented["name"]
        found = find_field(documented, fields)
        if found is None:
            problems.append(f"{where}: no field {name!r} (documented {documented['kind']})")
            continue
        camel_case_of_documented = found.alias == lower_first(name) and not documented.get("exact_case")
        if found.alias not in {name, documented.get("alt")} and not camel_case_of_documented:
            problems.append(f"{where}.{name}: written as {found.alias!r}, documented as {name!r}")
        if documented.get("nullable") and not admits_none(found.info):
            problems.append(f"{where}.{name}: documented nullable, the model does not accept None")
        if documented.get("optional") and found.info.is_required():
            problems.append(f"{where}.{name}: documented optional, the model requires it")
        if "max_length" in documented:
            limit = max_length_of(found.info)
            longest = longest_value(found.info.annotation)
            if longest is not None and longest <= documented["max_length"]:
                continue  # a closed set of values, all within the documented length
            if limit != documented["max_length"]:
                problems.append(
                    f"{where}.{name}: documented string ({documented['max_length']}), "
                    f"the model's max_length is {limit}"
                )
    return problems


def test_every_documented_field_is_in_its_model() -> None:
    problems = []
    for resource, references in RESOURCE_MODELS.items():
        for reference in references:
            try:
                model = resolve(reference)
            except LookupError as error:
                problems.append(f"{resource}: {error}")
                continue
            problems += field_problems(model, resource)
    assert not problems, failure("models differ from the documented fields", problems)


def test_webhook_payloads_accept_their_actions() -> None:
    """The payload models of a documented payload together admit exactly its documented actions."""
    problems = []
    for resource, spec in SPEC_RESOURCES.items():
        if "actions" not in spec:
            continue
        documented = set(spec["actions"])
        admitted: set[Any] = set()
        for reference in RESOURCE_MODELS[resource]:
            try:
                model = resolve(reference)
            except LookupError as error:
                problems.append(f"{resource}: {error}")
                continue
            field = model_fields_by_json_name(model).get("action")
            if field is None:
                problems.append(f"{model.__name__}: no field 'action'")
                continue
            allowed = literal_values(field.info.annotation)
            if allowed is None:
                problems.append(f"{model.__name__}.action: {field.info.annotation!r} is not a closed set")
                continue
            if allowed - documented:
                problems.append(
                    f"{model.__name__}.action: admits undocumented {sorted(allowed - documented)}"
                )
            admitted |= allowed
        if documented - admitted:
            problems.append(f"{resource}: no model admits the actions {sorted(documented - admitted)}")
    assert not problems, failure("webhook payload actions", problems)


def literal_values(annotation: Any) -> set[Any] | None:
    bare, _ = split_annotated(annotation)
    if typing.get_origin(bare) is typing.Literal:
        return {v.value if isinstance(v, enum.Enum) else v for v in typing.get_args(bare)}
    if inspect.isclass(bare) and issubclass(bare, enum.Enum):
        return {member.value for member in bare}
    return None


# --- (c') the kinds of the fields ------------------------------------------------------------

KIND_OF_TYPE: list[tuple[type, str]] = [
    (bool, "bool"),
    (int, "int"),
    (Decimal, "decimal"),
    (float, "decimal"),
    (dt.datetime, "datetime"),
    (dt.date, "date"),
    (str, "string"),
]


def kinds_of(annotation: Any) -> set[str]:
    """The documented kinds a model annotation can carry."""
    bare, _ = strip_optional(annotation)
    bare, _ = split_annotated(bare)
    members = typing.get_args(bare) if typing.get_origin(bare) in (typing.Union, types.UnionType) else None
    if members:
        return set().union(*(kinds_of(m) for m in members))
    if typing.get_origin(bare) is typing.Literal:
        return set().union(*(kinds_of(type(v)) for v in typing.get_args(bare)))
    if inspect.isclass(bare) and issubclass(bare, RootXmlModel):
        return {"array"}
    if inspect.isclass(bare) and issubclass(bare, BaseXmlModel):
        return {"object"}
    if typing.get_origin(bare) in (list, tuple) or bare in (list, tuple):
        return {"array"}
    if typing.get_origin(bare) is dict or bare is dict:
        return {"object"}
    if inspect.isclass(bare):
        for python_type, kind in KIND_OF_TYPE:
            if issubclass(bare, python_type):
                return {kind}
    return {"any"}


# A documented kind and the model kinds that carry it faithfully. Timestamps that 01/02 call
# strings may be parsed; amounts that 01 calls strings must stay strings (two decimals kept).
COMPATIBLE_KINDS = {
    "string": {"string"},
    "int": {"int"},
    "decimal": {"decimal"},
    "bool": {"bool"},
    "date": {"date"},
    "datetime": {"datetime"},
    "object": {"object", "array"},
    "array": {"array"},
    "any": set(),
}


def kind_problems(model: type[BaseXmlModel], resource: str) -> list[str]:
    fields = model_fields_by_json_name(model)
    problems = []
    for documented in documented_fields(resource):
        found = find_field(documented, fields)
        if found is None:
            continue  # reported by the field test
        if found.alias == documented.get("alt"):
            continue  # the other documented datum (customerId for customer) has its own kind
        kinds = kinds_of(found.info.annotation)
        accepted = COMPATIBLE_KINDS[documented["kind"]] | COMPATIBLE_KINDS[documented.get("also_kind", "any")]
        if "any" in kinds or kinds & accepted:
            continue
        note = documented.get("note", "")
        problems.append(
            f"{resource} -> {model.__name__}.{documented['name']}: documented {documented['kind']}, "
            f"model {found.info.annotation!r}" + (f"  [spec note: {note}]" if note else "")
        )
    return problems


def test_every_documented_field_has_its_documented_kind() -> None:
    problems = []
    for resource, references in RESOURCE_MODELS.items():
        for reference in references:
            try:
                model = resolve(reference)
            except LookupError:
                continue  # reported by test_every_documented_field_is_in_its_model
            problems += kind_problems(model, resource)
    assert not problems, failure("field kinds differ from the spec", problems)


# --- (d) XML names ---------------------------------------------------------------------------


def nested_model_of(annotation: Any) -> type[BaseXmlModel] | None:
    bare, _ = strip_optional(annotation)
    bare, _ = split_annotated(bare)
    return bare if inspect.isclass(bare) and issubclass(bare, BaseXmlModel) else None


def xml_location(model: type[BaseXmlModel], name: str, info: FieldInfo) -> tuple[str, str]:
    """Where pydantic-xml puts a field: ``("@", attr)``, ``("#text", "")`` or ``("element", tag)``.

    Mirrors pydantic-xml's own rules: an element's tag is the one given, else the nested
    model's tag, else the field's alias; a wrapped field is named by its wrapper's first step;
    a primitive field without any XML marker is the model element's text.
    """
    entity = extract_field_xml_entity_info(info)
    location = entity.location if entity is not None else None
    alias = info.serialization_alias or info.alias or name
    nested = nested_model_of(info.annotation)
    if location is EntityLocation.ATTRIBUTE:
        return "@", (entity.path if entity is not None and entity.path else alias)
    if location is EntityLocation.WRAPPED:
        assert entity is not None and entity.path is not None
        return "element", entity.path.split("/")[0]
    if location is EntityLocation.ELEMENT:
        tag = entity.path if entity is not None else None
        if not tag and nested is not None:
            tag = nested.__xml_tag__
        return "element", tag or alias
    if nested is not None or list(models_in_annotation(info.annotation)):
        return "element", (nested.__xml_tag__ if nested is not None else None) or alias
    return "#text", ""


def xml_placement(model: type[BaseXmlModel], name: str, info: FieldInfo) -> str:
    """Where a field goes, in the notation of resources.toml: ``@attr``, ``#text``, ``Tag``,
    ``Wrapper/Item``."""
    where, xml_name = xml_location(model, name, info)
    if where == "@":
        return f"@{xml_name}"
    if where == "#text":
        return "#text"
    entity = extract_field_xml_entity_info(info)
    if entity is not None and entity.location is EntityLocation.WRAPPED and entity.wrapped is not None:
        item = entity.wrapped.path or ""
        return f"{entity.path}/{item}" if item else str(entity.path)
    return xml_name


def placement_matches(documented: str, actual: str) -> bool:
    if documented == "@":
        return actual.startswith("@")  # an attribute; 02 does not name it
    if "/" not in documented:
        return documented == actual.split("/")[0]  # the element named; its items are not
    return documented == actual


def test_documented_xml_layouts_are_kept() -> None:
    """Where 01/02 say how an object looks in XML (attributes, text, element names), it does."""
    problems = []
    for resource, spec in SPEC_RESOURCES.items():
        fields_with_layout = [f for f in documented_fields(resource) if "xml" in f]
        if not fields_with_layout and "xml_tag" not in spec:
            continue
        for reference in RESOURCE_MODELS[resource]:
            try:
                model = resolve(reference)
            except LookupError:
                continue  # reported by test_every_documented_field_is_in_its_model
            if "xml_tag" in spec and model.__xml_tag__ != spec["xml_tag"]:
                tag, documented_tag = model.__xml_tag__, spec["xml_tag"]
                problems.append(
                    f"{resource} -> {model.__name__}: XML tag {tag!r}, documented {documented_tag!r}"
                )
            fields = model_fields_by_json_name(model)
            for documented in fields_with_layout:
                found = find_field(documented, fields)
                if found is None:
                    continue
                actual = xml_placement(model, found.name, found.info)
                if not placement_matches(documented["xml"], actual):
                    problems.append(
                        f"{resource} -> {model.__name__}.{documented['name']}: XML {actual!r}, "
                        f"documented {documented['xml']!r}"
                    )
    assert not problems, failure("XML layouts differ from the documents", problems)


def exceptions_for(model: type[BaseXmlModel]) -> dict[str, str]:
    """``XML_NAME_EXCEPTIONS`` of the modules defining ``model`` and its bases, by "Model.field"."""
    found: dict[str, str] = {}
    for cls in reversed(model.__mro__):
        module = sys.modules.get(getattr(cls, "__module__", ""))
        for key, value in getattr(module, "XML_NAME_EXCEPTIONS", {}).items():
            owner, _, field = key.partition(".")
            if owner == cls.__name__:
                found[f"{model.__name__}.{field}"] = value
    return found


def pascal_forms(alias: str) -> set[str]:
    return {alias[:1].upper() + alias[1:], to_pascal(alias)}


def xml_name_problems(model: type[BaseXmlModel]) -> list[str]:
    if issubclass(model, RootXmlModel):
        return []  # the items of a list are not fields
    exceptions = exceptions_for(model)
    problems = []
    for name, info in model.model_fields.items():
        alias = info.serialization_alias or info.alias or name
        listed = exceptions.get(f"{model.__name__}.{alias}", exceptions.get(f"{model.__name__}.{name}"))
        where, xml_name = xml_location(model, name, info)
        actual = {"@": f"@{xml_name}", "#text": "#text", "element": xml_name}[where]
        if listed is not None:
            if listed != actual:
                problems.append(
                    f"{model.__module__}.{model.__name__}.{name}: XML_NAME_EXCEPTIONS says "
                    f"{listed!r}, the model puts it at {actual!r}"
                )
            continue
        if where in {"@", "#text"}:
            continue  # attributes and text are named by document 02 / the help pages, not by rule
        if xml_name not in pascal_forms(alias):
            problems.append(
                f"{model.__module__}.{model.__name__}.{name}: XML element {xml_name!r}, "
                f"expected {alias[:1].upper() + alias[1:]!r} (PascalCase of {alias!r}) or an exception"
            )
    return problems


def test_xml_names_are_pascal_case_of_json_names() -> None:
    problems = [problem for model in all_models() for problem in xml_name_problems(model)]
    assert not problems, failure("XML names that are neither PascalCase(JSON name) nor listed", problems)


def test_xml_name_exceptions_name_real_fields() -> None:
    """A stale exception entry would silently excuse a future mistake."""
    problems = []
    modules = {model.__module__ for model in all_models()}
    for module_name in sorted(modules):
        module = sys.modules[module_name]
        classes = {
            name: value
            for name, value in vars(module).items()
            if inspect.isclass(value) and issubclass(value, BaseXmlModel)
        }
        for key in getattr(module, "XML_NAME_EXCEPTIONS", {}):
            owner, _, field = key.partition(".")
            model = classes.get(owner)
            if model is None:
                problems.append(f"{module_name}.XML_NAME_EXCEPTIONS[{key!r}]: no model {owner}")
                continue
            json_names = set(model_fields_by_json_name(model)) | set(model.model_fields)
            if field not in json_names:
                problems.append(f"{module_name}.XML_NAME_EXCEPTIONS[{key!r}]: {owner} has no field {field}")
    assert not problems, failure("stale XML_NAME_EXCEPTIONS entries", problems)


def test_every_model_has_an_xml_tag() -> None:
    """Without ``tag=`` pydantic-xml would use the Python class name as the XML element name.

    Abstract bases (a model without a tag that other models extend) are never sent themselves.
    """
    models = all_models()
    problems = [
        f"{model.__module__}.{model.__name__}"
        for model in models
        if not model.__xml_tag__
        and not any(other is not model and issubclass(other, model) for other in models)
    ]
    assert not problems, failure("models without an XML tag", problems)
