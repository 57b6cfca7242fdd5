"""The declarative catalog of the service's operations.

One entry per operation of documents 01 and 02 plus ``Token`` and ``Usage`` (03-conventions):
method, path, request model, response model, and what a caller must know about it (does it
create something, what budget priority it has by default, where its shape came from). The
client's methods, the emulator's routes and the completeness tests are all driven by this one
list, so there are no hand-kept copies to drift apart.
"""

from __future__ import annotations

import functools

from roomsync.core.catalog.types import Operation, Priority, ShapeSource

__all__ = ["OPERATIONS", "Operation", "Priority", "ShapeSource", "by_name"]


def _collect() -> tuple[Operation, ...]:
    from roomsync.core.catalog import channel, property_data, service

    operations = (*service.OPERATIONS, *channel.OPERATIONS, *property_data.OPERATIONS)
    names = [op.name for op in operations]
    duplicates = {name for name in names if names.count(name) > 1}
    if duplicates:
        raise RuntimeError(f"operation names must be unique, repeated: {sorted(duplicates)}")
    return operations


OPERATIONS: tuple[Operation, ...]  # collected on first use, by ``__getattr__`` below


@functools.cache
def _catalog() -> tuple[tuple[Operation, ...], dict[str, Operation]]:
    """The operations and the same by name, collected once on first use: importing the catalog's
    models costs about a third of a second, which a command that only reads the store (and needs
    ``Priority``) must not pay."""
    operations = _collect()
    return operations, {op.name: op for op in operations}


def __getattr__(name: str) -> tuple[Operation, ...]:
    if name == "OPERATIONS":
        return _catalog()[0]
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")


def by_name(name: str) -> Operation:
    """The operation called ``name``; KeyError names the unknown one."""
    try:
        return _catalog()[1][name]
    except KeyError:
        raise KeyError(f"no operation named {name!r} in the catalog") from None
