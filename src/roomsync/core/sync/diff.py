"""What differs between a listing's desired calendar and the calendar the channel holds.

Why a list of small immutable items (in the style of kopf's ``Diff``) rather than a patched
calendar: the compiler groups consecutive days by *what* changes, the logs and the admin API show
*why* a write is sent, and tests can compare diffs as plain tuples. An item is per day and field
group, because a group is the smallest thing the channel can change (calendar.py).

Only the desired calendar's days are compared (they are the sync horizon); days the channel holds
beyond it are left alone. A day missing from the current calendar is compared against
:data:`~roomsync.core.sync.calendar.BLANK_DAY` and its items are ``ADD``; groups the desired day
does not manage (``count``/``price`` of ``None``) never produce an item. Values are compared as the
channel shows them (:func:`~roomsync.core.sync.calendar.shows_alike`): an unset stay limit and the
channel's default for it are no difference.
"""

from __future__ import annotations

from collections.abc import Collection
from datetime import date
from enum import StrEnum
from typing import NamedTuple

from roomsync.core.sync.calendar import BLANK_DAY, Calendar, Field, GroupValue, shows_alike

_GROUPS = tuple(Field)


class DiffOperation(StrEnum):
    ADD = "add"
    """The channel holds nothing for the day: ``old`` is the blank day's value."""
    CHANGE = "change"


class DiffField(NamedTuple):
    """Where a difference is: one field group on one day."""

    day: date
    group: Field


class DiffItem(NamedTuple):
    """One field group of one day that must change from ``old`` to ``new``."""

    operation: DiffOperation
    field: DiffField
    old: GroupValue
    new: GroupValue


def diff_calendar(desired: Calendar, current: Calendar) -> tuple[DiffItem, ...]:
    """The differences, ordered by day and then by field group (the order of :class:`Field`)."""
    items: list[DiffItem] = []
    for day in sorted(desired):
        want = desired[day]
        have = current.get(day)
        if have is want or have == want:
            continue
        operation = DiffOperation.CHANGE
        if have is None:
            have, operation = BLANK_DAY, DiffOperation.ADD
        for group in _GROUPS:
            if not want.manages(group):
                continue
            new, old = want.value_of(group), have.value_of(group)
            if not shows_alike(group, new, old):
                items.append(DiffItem(operation, DiffField(day, group), old, new))
    return tuple(items)


def whole_calendar(desired: Calendar, groups: Collection[Field]) -> tuple[DiffItem, ...]:
    """Every value of ``desired`` in ``groups`` as an item, whatever the channel may hold: the
    diff of a listing whose channel state is not known (its first sync writes it whole instead of
    reading it first). A group a day does not manage (no count, no price) is still left out."""
    items: list[DiffItem] = []
    for day in sorted(desired):
        want = desired[day]
        for group in _GROUPS:
            if group in groups and want.manages(group):
                old = BLANK_DAY.value_of(group)
                items.append(DiffItem(DiffOperation.ADD, DiffField(day, group), old, want.value_of(group)))
    return tuple(items)
