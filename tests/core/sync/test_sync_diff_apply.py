"""Examples of the diff items and of the PUT Inventory simulation (03-conventions)."""

from __future__ import annotations

from datetime import date

import pytest

from roomsync.core.sync import (
    Availability,
    DayState,
    DiffField,
    DiffItem,
    DiffOperation,
    Field,
    OperationPlan,
    Restrictions,
    apply_operations,
    diff_calendar,
    shows_alike,
)

A, U, DEFAULT = Availability.AVAILABLE, Availability.UNAVAILABLE, Availability.DEFAULT


def d(day: int) -> date:
    return date(2027, 5, day)


def test_diff_items_per_day_and_group() -> None:
    desired = {
        d(1): DayState(A, 2, 100, 2, 7, False, False),
        d(2): DayState(U, 2, None, 2, 7, False, False),  # price not managed on the 2nd
        d(3): DayState(A, None, 90),  # count not managed on the 3rd
    }
    current = {
        d(1): DayState(A, 1, 100, 1, 7, False, False),
        d(2): DayState(A, 2, 55, 2, 7, False, False),
        d(9): DayState(U),  # outside the desired days: ignored
    }

    assert diff_calendar(desired, current) == (
        DiffItem(DiffOperation.CHANGE, DiffField(d(1), Field.COUNT), 1, 2),
        DiffItem(
            DiffOperation.CHANGE,
            DiffField(d(1), Field.RESTRICTIONS),
            Restrictions(1, 7, False, False),
            Restrictions(2, 7, False, False),
        ),
        DiffItem(DiffOperation.CHANGE, DiffField(d(2), Field.AVAILABILITY), A, U),
        # The 3rd is missing on the channel: compared with a blank day.
        DiffItem(DiffOperation.ADD, DiffField(d(3), Field.AVAILABILITY), DEFAULT, A),
        DiffItem(DiffOperation.ADD, DiffField(d(3), Field.PRICE), None, 90),
    )


def test_an_unset_stay_limit_and_the_channels_default_are_no_difference() -> None:
    desired = {
        d(1): DayState(A, None, None, 2, None, False, False),  # no maximum: unset on the channel
        d(2): DayState(A, None, None, None, 1125, False, False),  # the defaults, given as values
        d(3): DayState(A, None, None, 2, None, False, False),
        d(4): DayState(A, None, None, None, None, False, False),
    }
    current = {
        d(1): DayState(A, None, None, 2, 1125, False, False),  # what a read shows for it
        d(2): DayState(A, None, None, 1, None, False, False),
        d(3): DayState(A, None, None, 2, 30, False, False),  # a maximum someone set
        d(4): DayState(A, None, None, 2, 1125, True, False),  # a minimum and an arrival closed
    }

    assert diff_calendar(desired, current) == (
        DiffItem(
            DiffOperation.CHANGE,
            DiffField(d(3), Field.RESTRICTIONS),
            Restrictions(2, 30, False, False),
            Restrictions(2, None, False, False),
        ),
        DiffItem(
            DiffOperation.CHANGE,
            DiffField(d(4), Field.RESTRICTIONS),
            Restrictions(2, 1125, True, False),
            Restrictions(None, None, False, False),
        ),
    )
    assert shows_alike(
        Field.RESTRICTIONS, Restrictions(None, None, True, None), Restrictions(1, 1125, True, None)
    )
    assert not shows_alike(Field.PRICE, None, 0)  # only the stay limits have a default to stand for


def test_later_operations_win_and_only_flagged_groups_change() -> None:
    current = {d(1): DayState(A, 3, 100, 1, 30, False, False), d(2): DayState(A, 3, 100, 1, 30, False, False)}
    operations = [
        OperationPlan(d(1), d(3), price=120),
        OperationPlan(d(2), d(2), available=U, price=130),
        OperationPlan(d(3), d(3), restrictions=Restrictions(None, None, True, None)),
    ]

    assert apply_operations(current, operations) == {
        d(1): DayState(A, 3, 120, 1, 30, False, False),
        d(2): DayState(U, 3, 130, 1, 30, False, False),
        # Unknown to the channel before: a blank day with the price and the restrictions set.
        d(3): DayState(DEFAULT, None, 120, None, None, True, None),
    }
    assert current[d(1)].price == 100  # the input is not changed


def test_an_operation_knows_its_flags_and_api_fields() -> None:
    operation = OperationPlan(d(1), d(3), count=4, restrictions=Restrictions(2, None, False, True))

    assert operation.days == 3
    assert operation.as_api_fields() == {
        "dateFrom": "2027-05-01",
        "dateTo": "2027-05-03",
        "setAvailable": False,
        "countEligible": True,
        "count": 4,
        "setPrice": False,
        "setRestrictions": True,
        "minNights": 2,
        "maxNights": None,
        "closedToArrival": False,
        "closedToDeparture": True,
    }


def test_bad_values_are_refused_with_their_name() -> None:
    with pytest.raises(ValueError, match=r"dateFrom 2027-05-03 is after dateTo 2027-05-01"):
        OperationPlan(d(3), d(1), price=1)
    with pytest.raises(ValueError, match=r"OperationPlan.dailyPrice=-1"):
        OperationPlan(d(1), d(1), price=-1)
    with pytest.raises(ValueError, match=r"DayState.min_nights=0"):
        DayState(A, min_nights=0)
