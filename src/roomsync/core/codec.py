"""Writing and reading API models as JSON or XML, and the content types of each format."""

from __future__ import annotations

import json
from enum import StrEnum
from typing import Any, TypeVar

from pydantic import BaseModel, ValidationError
from pydantic_xml import BaseXmlModel
from pydantic_xml.element.native import etree
from pydantic_xml.errors import ParsingError

from roomsync.core.api.base import ApiModel, ErrorDetail, violation_from
from roomsync.core.api.wire import wire_form
from roomsync.core.errors import LimitViolation


class PayloadFormat(StrEnum):
    JSON = "json"
    XML = "xml"


CONTENT_TYPE = {PayloadFormat.JSON: "application/json", PayloadFormat.XML: "text/xml"}
"""What a request body is sent as (03-conventions)."""

ACCEPT = {PayloadFormat.JSON: "application/json", PayloadFormat.XML: "application/xml"}
"""What a client asks for (03-conventions)."""

XML_MEDIA_TYPES = frozenset({"text/xml", "application/xml"})
JSON_MEDIA_TYPES = frozenset({"application/json", "text/json"})


class PayloadError(ValueError):
    """A body that cannot be read as the expected model; ``field`` names the culprit if known."""

    def __init__(self, message: str, field: str | None = None) -> None:
        self.field = field
        super().__init__(message)


def format_of_media_type(media_type: str | None) -> PayloadFormat | None:
    """The payload format named by a Content-Type or Accept value, None when neither."""
    if not media_type:
        return None
    for part in media_type.split(","):
        kind = part.split(";")[0].strip().lower()
        if kind in XML_MEDIA_TYPES:
            return PayloadFormat.XML
        if kind in JSON_MEDIA_TYPES or kind in {"*/*", "application/*"}:
            return PayloadFormat.JSON
    return None


ModelT = TypeVar("ModelT", bound=BaseModel)


def encode(obj: BaseXmlModel, fmt: PayloadFormat) -> bytes:
    """The body for ``obj`` in ``fmt``; partial-update bodies carry only the fields that were set."""
    exclude_unset = bool(getattr(obj, "partial_update", False))
    if fmt is PayloadFormat.XML:
        return obj.to_xml(exclude_unset=exclude_unset, xml_declaration=False)  # type: ignore[return-value]
    return obj.model_dump_json(by_alias=True, exclude_unset=exclude_unset).encode()


def encode_request(obj: BaseXmlModel, fmt: PayloadFormat) -> bytes:
    """A request body: only what the documents allow (``roomsync.core.api.wire``): no null for a
    field not typed nullable, unset optional fields left out, partial updates as set."""
    if not isinstance(obj, ApiModel):
        return encode(obj, fmt)
    sent = wire_form(obj)
    if fmt is PayloadFormat.XML:
        return sent.to_xml(exclude_unset=True, xml_declaration=False)  # type: ignore[return-value]
    return sent.model_dump_json(by_alias=True, exclude_unset=True).encode()


def decode(model_type: type[ModelT], body: bytes | str, fmt: PayloadFormat) -> ModelT:
    """Read ``body`` as ``model_type``; raises ``LimitViolation`` or ``PayloadError``.

    In XML the root element must be the model's own: what a request body is read with (the
    emulator), where roomsync or the documents name the root. Answers of the service are read with
    :func:`decode_answer`.
    """
    return _decode(model_type, body, fmt, any_root=False)


def decode_answer(model_type: type[ModelT], body: bytes | str, fmt: PayloadFormat) -> ModelT:
    """Read an answer of the service as ``model_type``: like :func:`decode`, but an XML answer is
    read by its content whatever its root element is called.

    Documents 01 and 02 name the elements inside most answers and almost never the root (02 names
    none for the ``Combined``/``CombinedExtended`` answer, nor for list answers); the root names of
    the models are roomsync's own choices (docs/shapes/), which a service may name differently
    (``<AvailabilityResponse>`` for ``<RoomTypeAvailability>``). The root is only the envelope:
    its attributes and children are read by the model as usual.
    """
    return _decode(model_type, body, fmt, any_root=True)


def _read_xml(model_type: type[ModelT], body: bytes | str, *, any_root: bool) -> ModelT:
    if not any_root:
        return model_type.from_xml(body, empty_as_string=True)  # type: ignore[attr-defined]
    root = etree.fromstring(body)  # the parser pydantic-xml's own from_xml uses
    root.tag = model_type.__xml_serializer__.element_name  # type: ignore[attr-defined]
    return model_type.from_xml_tree(root, empty_as_string=True)  # type: ignore[attr-defined]


def _decode(model_type: type[ModelT], body: bytes | str, fmt: PayloadFormat, *, any_root: bool) -> ModelT:
    try:
        if fmt is PayloadFormat.XML:
            return _read_xml(model_type, body, any_root=any_root)
        return model_type.model_validate_json(body)
    except ValidationError as error:
        first = error.errors(include_url=False)[0]
        if first["type"] in {"json_invalid", "json_type"}:
            raise PayloadError(f"body is not valid JSON: {first['msg']}") from None
        if not first["loc"] and first["type"].endswith("_type"):  # valid JSON of the wrong shape
            raise PayloadError(f"body is not a {model_type.__name__}: {first['msg']}") from None
        raise violation_from(error, model_type.__name__) from None
    except (ParsingError, SyntaxError, ValueError) as error:  # lxml's XMLSyntaxError is a SyntaxError
        if isinstance(error, LimitViolation):
            raise
        raise PayloadError(f"body is not valid XML for {model_type.__name__}: {error}") from None


def encode_error(detail: ErrorDetail, fmt: PayloadFormat) -> bytes:
    """The service's error body (03-conventions) in ``fmt``."""
    if fmt is PayloadFormat.XML:
        return encode(detail, fmt)
    return json.dumps({"error": detail.model_dump(by_alias=True)}).encode()


def decode_error(body: bytes, fmt: PayloadFormat | None) -> ErrorDetail | None:
    """The error detail of a response body in either format, or None if it is not one. In XML the
    detail is read by its content (``code``, ``field``, ``<Message>``), whatever its root is called,
    as every answer is (:func:`decode_answer`)."""
    text = body.strip()
    if not text:
        return None
    try:
        if text.startswith(b"<"):
            return _read_xml(ErrorDetail, text, any_root=True)
        data: Any = json.loads(text)
        if isinstance(data, dict) and isinstance(data.get("error"), dict):
            return ErrorDetail.model_validate(data["error"])
    except (ValidationError, ParsingError, SyntaxError, ValueError):
        return None
    return None
