"""The availability view in the store: holds, what a PMS read can have seen, stale marks; on SQLite
and on Postgres."""

from __future__ import annotations

import secrets
from collections.abc import Iterator
from datetime import UTC, date, datetime, timedelta
from pathlib import Path

import pytest

from roomsync.adapters.store import open_store, upgrade_to_head
from roomsync.adapters.store.availability_view import SqlAvailabilityView, ViewNight
from roomsync.adapters.store.webhook_records import ChannelBooking, SqlWebhookRecords
from support.postgres import scratch_postgres_database

T0 = datetime(2027, 3, 1, 9, 0, tzinfo=UTC)
D1, D2 = date(2027, 9, 1), date(2027, 9, 2)
ROOM_TYPE = 4


@pytest.fixture(scope="module")
def postgres_url() -> Iterator[str]:
    with scratch_postgres_database() as url:
        upgrade_to_head(url)
        yield url


@pytest.fixture(params=["sqlite", pytest.param("postgres", marks=pytest.mark.postgres)])
def view(request: pytest.FixtureRequest, tmp_path: Path) -> Iterator[tuple[SqlAvailabilityView, str]]:
    if request.param == "postgres":
        url = str(request.getfixturevalue("postgres_url"))
    else:
        url = f"sqlite:///{tmp_path / 'view.db'}"
        upgrade_to_head(url)
    with open_store(url) as store:
        yield store.availability_view, f"prop-{secrets.token_hex(4)}"


def bookable(view: SqlAvailabilityView, prop: str, night: date) -> int:
    return view.read_nights(prop, ROOM_TYPE, [night])[night].bookable


def test_holds_take_rooms_until_none_is_left(view: tuple[SqlAvailabilityView, str]) -> None:
    store, prop = view
    store.save_read(prop, T0, {ROOM_TYPE: {D1: 2, D2: 2}})
    assert store.try_hold(prop, "A", ROOM_TYPE, [D1, D2], T0).held
    assert store.try_hold(prop, "B", ROOM_TYPE, [D1], T0).held
    refused = store.try_hold(prop, "C", ROOM_TYPE, [D1, D2], T0)
    assert (refused.held, refused.full_night) == (False, D1)
    assert (bookable(store, prop, D1), bookable(store, prop, D2)) == (0, 1)  # C held nothing
    again = store.try_hold(prop, "A", ROOM_TYPE, [D1, D2], T0)
    assert again.held and again.already


def test_a_night_without_a_read_cannot_be_held(view: tuple[SqlAvailabilityView, str]) -> None:
    store, prop = view
    store.save_read(prop, T0, {ROOM_TYPE: {D1: 3}})
    assert store.try_hold(prop, "A", ROOM_TYPE, [D1, D2], T0).full_night == D2
    assert bookable(store, prop, D1) == 3


def test_a_hold_stops_counting_once_a_later_read_can_have_seen_it(
    view: tuple[SqlAvailabilityView, str],
) -> None:
    store, prop = view
    store.save_read(prop, T0, {ROOM_TYPE: {D1: 2}})
    store.try_hold(prop, "A", ROOM_TYPE, [D1], T0)
    store.settle_holds(prop, "A", [D1], reflected_at=T0 + timedelta(seconds=10))  # the PMS has it now
    assert bookable(store, prop, D1) == 1
    store.save_read(prop, T0 + timedelta(seconds=5), {ROOM_TYPE: {D1: 2}})  # began before: cannot know
    assert bookable(store, prop, D1) == 1
    store.save_read(prop, T0 + timedelta(seconds=20), {ROOM_TYPE: {D1: 1}})  # began after: shows it
    assert bookable(store, prop, D1) == 1
    store.save_read(prop, T0 + timedelta(seconds=15), {ROOM_TYPE: {D1: 2}})  # older than the last: ignored
    assert view_row(store, prop).free_rooms == 1


@pytest.mark.parametrize(
    "how",
    ["compared", "digest", "mark"],
    ids=[
        "one night changed: the rows compared",
        "the same read: told by its digest",
        "the same answer: dated by its mark",
    ],
)
def test_a_read_that_changed_nothing_still_dates_every_night_and_recounts_the_holds(
    view: tuple[SqlAvailabilityView, str], how: str
) -> None:
    """The rows a read leaves as they were take its read_at all the same (a guest check asks how
    old the view is), lose a stale mark, and stop counting a hold the read can have seen; a read
    equal to the last one (its digest, issue 26: no row read back) does exactly the same, and so
    does a poll that dates the range by the mark of the read its answer repeats."""
    store, prop = view
    D3 = D2 + timedelta(days=1)
    d3_then = 0 if how == "compared" else 1
    mark = store.save_read(prop, T0, {ROOM_TYPE: {D1: 2, D2: 2, D3: 1}})
    store.place_holds(prop, "B", ROOM_TYPE, [D2], T0)
    store.settle_holds(prop, "B", [D2], reflected_at=T0 + timedelta(seconds=10))
    assert store.release_holds(prop, "B") == [D2]  # marks D2 stale
    store.try_hold(prop, "A", ROOM_TYPE, [D1], T0 + timedelta(seconds=1))
    store.settle_holds(prop, "A", [D1], reflected_at=T0 + timedelta(seconds=10))
    assert bookable(store, prop, D1) == 1

    later = T0 + timedelta(seconds=30)
    if how == "mark":
        assert mark is not None and store.date_read(prop, later, mark)
    else:
        store.save_read(prop, later, {ROOM_TYPE: {D1: 2, D2: 2, D3: d3_then}})

    rows = store.read_nights(prop, ROOM_TYPE, [D1, D2, D3])
    assert {n: (r.free_rooms, r.held, r.read_at, r.stale) for n, r in rows.items()} == {
        D1: (2, 0, later, False),  # the hold was in the PMS before this read began
        D2: (2, 0, later, False),
        D3: (d3_then, 0, later, False),
    }
    store.save_read(prop, T0 + timedelta(seconds=20), {ROOM_TYPE: {D1: 2, D2: 2, D3: 0}})  # began before
    assert {r.read_at for r in store.read_nights(prop, ROOM_TYPE, [D1, D2, D3]).values()} == {later}
    assert store.read_nights(prop, ROOM_TYPE, [D3])[D3].free_rooms == d3_then


def view_row(store: SqlAvailabilityView, prop: str) -> ViewNight:
    return store.read_nights(prop, ROOM_TYPE, [D1])[D1]


def test_a_read_of_some_nights_only_makes_the_next_whole_read_compare_again(
    view: tuple[SqlAvailabilityView, str],
) -> None:
    """A read whose room types cover different nights writes its nights as they came and drops
    the digest: the next read equal to the one before it must still put those nights back."""
    store, prop = view
    whole = {ROOM_TYPE: {D1: 2, D2: 2}}
    store.save_read(prop, T0, whole)
    store.save_read(prop, T0 + timedelta(seconds=10), {ROOM_TYPE: {D1: 1, D2: 1}, ROOM_TYPE + 1: {D1: 3}})
    assert view_row(store, prop).free_rooms == 1
    store.save_read(prop, T0 + timedelta(seconds=20), whole)
    rows = store.read_nights(prop, ROOM_TYPE, [D1, D2])
    assert {n: r.free_rooms for n, r in rows.items()} == {D1: 2, D2: 2}


def test_a_mark_another_read_replaced_dates_nothing(view: tuple[SqlAvailabilityView, str]) -> None:
    """A poll dates the view by the mark of the read its answer repeats only while the view still
    holds that read: after another whole read, or a read of some nights only, it must save."""
    store, prop = view
    first = {ROOM_TYPE: {D1: 2, D2: 2}}
    mark = store.save_read(prop, T0, first)
    assert mark is not None
    store.save_read(prop, T0 + timedelta(seconds=10), {ROOM_TYPE: {D1: 1, D2: 2}})
    assert not store.date_read(prop, T0 + timedelta(seconds=20), mark)
    row = view_row(store, prop)
    assert (row.free_rooms, row.read_at) == (1, T0 + timedelta(seconds=10))

    mark = store.save_read(prop, T0 + timedelta(seconds=30), first)
    assert mark is not None
    store.save_read(prop, T0 + timedelta(seconds=40), {ROOM_TYPE: {D1: 1}, ROOM_TYPE + 1: {D1: 3, D2: 3}})
    assert not store.date_read(prop, T0 + timedelta(seconds=50), mark)
    assert view_row(store, prop).read_at == T0 + timedelta(seconds=40)


def test_nights_the_retention_dropped_come_back_with_an_equal_read(
    view: tuple[SqlAvailabilityView, str],
) -> None:
    store, prop = view
    read = {ROOM_TYPE: {D1: 2, D2: 2}}
    store.save_read(prop, T0, read)
    store.forget_before(prop, D2)
    assert store.read_nights(prop, ROOM_TYPE, [D1]) == {}
    store.save_read(prop, T0 + timedelta(seconds=10), read)
    assert view_row(store, prop).free_rooms == 2


def test_releasing_holds_frees_them_and_marks_pms_freed_nights_stale(
    view: tuple[SqlAvailabilityView, str],
) -> None:
    store, prop = view
    store.save_read(prop, T0, {ROOM_TYPE: {D1: 2, D2: 2}})
    store.try_hold(prop, "A", ROOM_TYPE, [D1], T0)  # never reached the PMS
    store.place_holds(prop, "B", ROOM_TYPE, [D2], T0)
    store.settle_holds(prop, "B", [D2], reflected_at=T0)  # in the PMS, not in the read yet
    assert store.release_holds(prop, "A") == [D1]
    assert store.release_holds(prop, "B") == [D2]
    rows = store.read_nights(prop, ROOM_TYPE, [D1, D2])
    assert (rows[D1].bookable, rows[D1].stale) == (2, False)
    assert rows[D2].stale is True  # the PMS freed a room the read still counts as taken


def test_holds_no_confirmation_followed_expire(view: tuple[SqlAvailabilityView, str]) -> None:
    store, prop = view
    records = SqlWebhookRecords(store._engine)
    store.save_read(prop, T0, {ROOM_TYPE: {D1: 3}})
    store.try_hold(prop, "FORGOTTEN", ROOM_TYPE, [D1], T0)
    store.try_hold(prop, "CONFIRMED", ROOM_TYPE, [D1], T0)
    records.save_booking(ChannelBooking(prop, "CONFIRMED", "41000001", D1, 1, "accept", "x", T0))
    assert store.expire_holds(prop, T0 + timedelta(hours=25)) == ["FORGOTTEN"]
    assert bookable(store, prop, D1) == 2
