"""Turning one catalog operation, its path parameters and its body into the request to send.

The request is checked and encoded once, before the first attempt, so that every retry sends the
same bytes and a wrong body or an unknown path parameter fails before anything is spent.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from urllib.parse import quote, urlencode

from pydantic_xml import BaseXmlModel

from roomsync.core import codec
from roomsync.core.catalog.types import Operation

__all__ = ["FORM_CONTENT_TYPE", "Prepared", "prepare"]

FORM_CONTENT_TYPE = "application/x-www-form-urlencoded"


@dataclass(frozen=True)
class Prepared:
    """A request ready to send: the same bytes for every attempt."""

    operation: Operation
    path: str
    params: Mapping[str, object]
    body: BaseXmlModel | None = field(repr=False)
    content: bytes | None = field(repr=False)  # the token form carries the password
    content_type: str | None
    accept: str
    digest_answer: bool = False
    """Answer with a :class:`~roomsync.adapters.client.answers.DigestedAnswer` (decoded on demand)."""


def prepare(
    op: Operation,
    params: Mapping[str, object],
    body: BaseXmlModel | None,
    *,
    channel: str,
    fmt: codec.PayloadFormat,
) -> Prepared:
    """``op`` with its path parameters (URL-quoted) and its body encoded in ``fmt``."""
    unknown = set(params) - set(op.path_params)
    if unknown:
        raise ValueError(f"{op.name}: unknown path parameter(s) {', '.join(sorted(unknown))}")
    if op.request is None and body is not None:
        raise ValueError(f"{op.name} takes no body")
    if op.request is not None:
        if body is None:
            raise ValueError(f"{op.name} needs a {op.request.__name__} body")
        if not isinstance(body, op.request):
            raise TypeError(f"{op.name} needs a {op.request.__name__} body, not {type(body).__name__}")
    quoted = {name: quote(str(value), safe="") for name, value in params.items()}
    path = op.render_path(channel, **quoted)
    content: bytes | None = None
    content_type: str | None = None
    accept = codec.ACCEPT[fmt]
    if op.form_body:
        # The token answer is JSON whatever the format (the public help page shows only JSON).
        accept = codec.ACCEPT[codec.PayloadFormat.JSON]
        if body is not None:
            fields = body.model_dump(by_alias=True, mode="json", exclude_none=True)
            content = urlencode({k: str(v) for k, v in fields.items()}).encode()
            content_type = FORM_CONTENT_TYPE
    elif body is not None:
        content = codec.encode_request(body, fmt)
        content_type = codec.CONTENT_TYPE[fmt]
    return Prepared(op, path, params, body, content, content_type, accept)
