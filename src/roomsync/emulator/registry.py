"""How an operation of the catalog reaches the emulator code that answers it.

The app (``roomsync.emulator.app``) builds one route per catalog operation. For each request it
authenticates, counts the request against the quota, applies fault injection, reads the body as
the operation's request model (a limit violation is a 400 with the 03 error body), then calls the
handler registered under the operation's name with a :class:`Call`, and writes what the handler
returns as the operation's response model in the format the client accepts.

Handlers are plain synchronous functions; the app calls them on the event loop, one at a time,
so the in-memory state needs no locks. A handler says no by raising
:class:`roomsync.emulator.errors.ApiError`.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from datetime import date, datetime
from typing import TYPE_CHECKING, Any

from pydantic_xml import BaseXmlModel

from roomsync.core.catalog import Operation

if TYPE_CHECKING:
    from roomsync.emulator.state import EmulatorState


@dataclass
class Call:
    """One API request, as a handler sees it."""

    operation: Operation
    params: dict[str, str]
    """Path parameters by name, as text (a handler converts and answers 400/404 itself)."""
    body: Any
    """The request model instance, or None for operations without a body."""
    state: EmulatorState
    today: date
    """The emulator clock's date (the property's local calendar)."""
    now: datetime
    """The emulator clock's instant, UTC."""

    def int_param(self, name: str) -> int:
        from roomsync.emulator.errors import invalid

        try:
            return int(self.params[name])
        except (KeyError, ValueError):
            raise invalid(name, f"path parameter {name} must be an integer") from None


Handler = Callable[[Call], BaseXmlModel | None]

HANDLERS: dict[str, Handler] = {}


def handles(operation_name: str) -> Callable[[Handler], Handler]:
    """Register the decorated function as the handler of ``operation_name``."""

    def register(handler: Handler) -> Handler:
        if operation_name in HANDLERS:
            raise RuntimeError(f"two handlers for {operation_name}")
        HANDLERS[operation_name] = handler
        return handler

    return register
