"""Small helpers every PMS handler module uses."""

from __future__ import annotations

from roomsync.emulator.errors import invalid
from roomsync.emulator.pms.state import PmsState
from roomsync.emulator.registry import Call


def pms(call: Call) -> PmsState:
    """The PMS side of the emulator's state."""
    return call.state.pms


def path_ids(call: Call) -> list[int]:
    """The operation's path parameters (other than the channel), in path order, as integers."""
    return [call.int_param(name) for name in call.operation.path_params]


def path_id(call: Call) -> int:
    """The single path parameter of the operation, as an integer."""
    ids = path_ids(call)
    if len(ids) != 1:
        raise RuntimeError(f"{call.operation.name} has {len(ids)} path parameters, expected one")
    return ids[0]


def required_text(value: str | None, field_name: str) -> str:
    """A required text field: present and not blank."""
    if value is None or not value.strip():
        raise invalid(field_name, f"{field_name} is required and may not be empty", "REQUIRED")
    return value
