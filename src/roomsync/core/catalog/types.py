"""The value types of the operation catalog."""

from __future__ import annotations

import re
from dataclasses import dataclass
from enum import IntEnum, StrEnum
from typing import Literal

from pydantic_xml import BaseXmlModel

HttpMethod = Literal["GET", "POST", "PUT", "DELETE"]

CHANNEL_SEGMENT = "{channel}"
"""Placeholder for the rental channel's path segment (setting ``channel_name``)."""


class Priority(IntEnum):
    """Budget priority of a request; lower numbers are served first when the day runs short."""

    GUEST = 0
    """Guest-facing checks and reservation writes."""
    AVAILABILITY = 1
    """Availability pushes to the channel."""
    PRICES = 2
    """Price pushes (channel calendar prices and connected-channel price batches)."""
    RECONCILE = 3
    """Reconciliation and other reads that can wait."""


class ShapeSource(StrEnum):
    """Where the request and response shapes of an operation come from."""

    SPEC = "spec"
    """Documents 01/02 show them."""
    CONVENTIONS = "conventions"
    """Document 03 fixes them."""
    HELP_PAGES = "help-pages"
    """The public help pages of the deployed API settle what 01/02 leave open (docs/shapes.md)."""
    ROOMSYNC = "roomsync"
    """Nobody shows them; roomsync chose a plausible shape, written down in docs/shapes.md."""


_PARAM = re.compile(r"{(\w+)}")


@dataclass(frozen=True)
class Operation:
    """One operation of the service."""

    name: str
    """Python name, also the client's method name (``get_listing``)."""
    method: HttpMethod
    path: str
    """Path template relative to ``base_url``; ``{channel}`` is the rental channel segment."""
    request: type[BaseXmlModel] | None
    """Body model, None when the operation takes no body."""
    response: type[BaseXmlModel] | None
    """Response model, None for "HTTP 200, no object"."""
    summary: str
    document: Literal["01", "02", "03"]
    priority: Priority = Priority.RECONCILE
    creates: bool = False
    """True when the operation makes a new object, so a timed-out call is never blindly resent."""
    shape: ShapeSource = ShapeSource.SPEC
    form_body: bool = False
    """True for ``POST /v1/Token``, whose body is a form, not JSON or XML."""

    @property
    def path_params(self) -> tuple[str, ...]:
        """Names of the path parameters other than the channel segment, in order."""
        return tuple(p for p in _PARAM.findall(self.path) if p != "channel")

    def render_path(self, channel: str, **params: object) -> str:
        """The concrete path, with the channel segment and path parameters filled in."""
        missing = [p for p in self.path_params if p not in params]
        if missing:
            raise ValueError(f"{self.name}: missing path parameter(s) {', '.join(missing)}")
        path = self.path.replace(CHANNEL_SEGMENT, channel)
        return _PARAM.sub(lambda m: str(params[m.group(1)]), path)
