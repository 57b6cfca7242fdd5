"""Which properties a deployment serves, as contexts (``roomsync.property_context``).

A database with property rows serves those; a database without any serves the one property the
settings describe (``property_id``, else ``domain``, else ``default``), as roomsync always did.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from roomsync.core.ports import PropertyStore
from roomsync.core.property import PropertyRecord
from roomsync.property_context import (
    PropertyConfigError,
    PropertyContext,
    context_of_record,
    resolve_reference,
)
from roomsync.settings import Settings

ContextBuilder = Callable[[Settings, PropertyRecord], PropertyContext]


class UnknownProperty(LookupError):
    """The property asked for is not one this deployment serves; the message lists those it does."""


def deployment_contexts(settings: Settings, properties: PropertyStore) -> list[PropertyContext]:
    """Every property of the deployment (a ``PropertyConfigError`` names one that cannot be built)."""
    records = properties.list_properties()
    if not records:
        return [PropertyContext.of(settings)]
    return [context_of_record(settings, record) for record in records]


class ContextCache:
    """``context_of_record`` that validates each property's settings once, not at every look.

    A replica looks at the property rows every ``ownership_check_seconds``; validating the
    settings of a thousand properties each time cost more than serving them. A context is built
    again when its row changed or one of its secrets resolves to another value (a rotated secret
    file is still picked up at the next look, as before)."""

    def __init__(self) -> None:
        self._built: dict[str, tuple[PropertyRecord, list[tuple[str, Any]], PropertyContext]] = {}

    def __call__(self, settings: Settings, record: PropertyRecord) -> PropertyContext:
        secrets = [
            (name, resolve_reference(record.property_id, name, reference))
            for name, reference in sorted(record.secret_refs.items())
        ]
        known = self._built.get(record.property_id)
        if known is not None and known[0] == record and known[1] == secrets:
            return known[2]
        context = context_of_record(settings, record)
        self._built[record.property_id] = (record, secrets, context)
        return context


def usable_contexts(
    settings: Settings, properties: PropertyStore, build: ContextBuilder = context_of_record
) -> tuple[list[PropertyContext], list[tuple[str, str]]]:
    """The properties that can be served, and (id, reason) for each that cannot (a secret's
    reference that does not resolve must not stop the other properties)."""
    records = properties.list_properties()
    if not records:
        return [PropertyContext.of(settings)], []
    contexts: list[PropertyContext] = []
    broken: list[tuple[str, str]] = []
    for record in records:
        try:
            contexts.append(build(settings, record))
        except PropertyConfigError as error:
            broken.append((record.property_id, str(error)))
    return contexts, broken


def select_context(settings: Settings, properties: PropertyStore, property_id: str | None) -> PropertyContext:
    """The property a command works on: ``property_id`` if given, else the only one."""
    records = properties.list_properties()
    if not records:
        # a deployment of one property, configured by the settings: ``--property`` names the key
        # its data is kept under, as ``property_id`` does (the demo keeps its own this way)
        if property_id is not None:
            settings = settings.model_copy(update={"property_id": property_id})
        return PropertyContext.of(settings)
    if property_id is None:
        if len(records) > 1:
            names = ", ".join(r.property_id for r in records[:10]) + (", ..." if len(records) > 10 else "")
            raise UnknownProperty(
                f"this deployment has {len(records)} properties; say which with --property ({names})"
            )
        return context_of_record(settings, records[0])
    for record in records:
        if record.property_id == property_id:
            return context_of_record(settings, record)
    names = ", ".join(r.property_id for r in records[:10])
    raise UnknownProperty(f"no property {property_id} in this deployment (it has: {names})")
