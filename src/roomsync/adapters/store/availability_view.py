"""roomsync's own view of free rooms, shared by replicas through the database.

Per room type and night the view keeps ``free_rooms``, what the last PMS read said, and ``held``,
the nights roomsync itself gave away since that read (``availability_hold`` rows). A guest may
book a night while ``free_rooms - held >= 1``.

Taking a hold is race-free: one transaction runs, night by night in date order, the conditional
``UPDATE ... SET held = held + 1 WHERE free_rooms - held >= 1``; if any night touches no row, the
whole transaction rolls back. On SQLite the transaction begins IMMEDIATE (one writer at a time);
on Postgres the UPDATE locks the row and re-checks its condition after a concurrent writer
commits, and the date order rules out deadlocks. So of two guests booking the last room at the
same moment exactly one gets it, whichever replica each one reached.

A stay needs ONE room free on every one of its nights, which counts alone cannot tell (a room
free only on the first night and another only on the second make two nights of "one free room").
So the view also keeps which rooms are free (``free_room_ids``), and a hold is given a room: one
free on every night of the stay and held by no other hold the view's read cannot have seen. The
room is chosen after the count updates have locked the stay's nights, so on Postgres a second
transaction sharing a night chooses only once the first has committed its hold.

A hold row stops counting once a PMS read can have seen it: ``reflected_after`` is set when the
PMS holds the night too, and ``held`` counts the holds with no ``reflected_after`` or one later
than the view's ``read_at``. A PMS read that started later already excludes the room.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from dataclasses import dataclass
from datetime import date, datetime
from typing import Any

import sqlalchemy as sa
from sqlalchemy.engine import Connection, Engine

from roomsync.adapters.store._sql import read_tx, write_tx
from roomsync.adapters.store.availability_reads import (
    ReadMark,
    date_read,
    ids_of,
    recount_range,
    save_read,
)
from roomsync.adapters.store.tables import (
    AVAILABILITY_HOLD,
    AVAILABILITY_READ_MARK,
    AVAILABILITY_VIEW,
    CHANNEL_RESERVATION,
)

V = AVAILABILITY_VIEW.c
H = AVAILABILITY_HOLD.c


@dataclass(frozen=True)
class ViewNight:
    room_type_id: int
    night: date
    free_rooms: int
    held: int
    read_at: datetime
    stale: bool

    @property
    def bookable(self) -> int:
        """Rooms a guest may still book that night."""
        return self.free_rooms - self.held


@dataclass(frozen=True)
class HoldOutcome:
    held: bool
    already: bool = False
    """The confirmation code held these nights before (a repeated MakeReservation)."""
    full_night: date | None = None
    """The first night that had no room left (or no view row), when not held."""
    no_single_room: bool = False
    """Every night has a room, but no one room is free on all of them."""
    room_id: int | None = None
    """The room kept for the stay, when the view knows the rooms."""


class _NoSingleRoom(Exception):
    pass


class _NightFull(Exception):
    def __init__(self, night: date) -> None:
        self.night = night


# The statements of the guest checks' hot path, built once: building a statement costs more than
# running it on SQLite.
_READ_NIGHTS = sa.select(AVAILABILITY_VIEW).where(
    V.property_id == sa.bindparam("property_id"),
    V.room_type_id == sa.bindparam("room_type_id"),
    V.night.in_(sa.bindparam("nights", expanding=True)),
)
_HOLDS_OF = sa.select(H.night, H.room_type_id).where(
    H.property_id == sa.bindparam("property_id"), H.confirmation_code == sa.bindparam("code")
)


class SqlAvailabilityView:
    def __init__(self, engine: Engine) -> None:
        self._engine = engine

    # --- reading ----------------------------------------------------------------------------

    def read_nights(
        self, property_id: str, room_type_id: int, nights: Iterable[date]
    ) -> dict[date, ViewNight]:
        wanted = sorted(set(nights))
        if not wanted:
            return {}
        with read_tx(self._engine) as conn:
            rows = conn.execute(
                _READ_NIGHTS, {"property_id": property_id, "room_type_id": room_type_id, "nights": wanted}
            ).all()
        return {row.night: _night(row._mapping) for row in rows}

    def holds_of(self, property_id: str, confirmation_code: str) -> dict[date, int]:
        """The nights ``confirmation_code`` holds, with their room type."""
        with read_tx(self._engine) as conn:
            found = conn.execute(_HOLDS_OF, {"property_id": property_id, "code": confirmation_code}).all()
        return {night: room_type for night, room_type in found}

    # --- writing what the PMS said --------------------------------------------------------------

    def save_read(
        self,
        property_id: str,
        read_at: datetime,
        free_rooms: Mapping[int, Mapping[date, int]],
        free_room_ids: Mapping[int, Mapping[date, frozenset[int]]] | None = None,
    ) -> ReadMark | None:
        """Record a PMS read that started at ``read_at``: free rooms per room type and night, and
        which rooms they are (only what changed is rewritten: :mod:`.availability_reads`); the
        mark of a whole-range read."""
        return save_read(self._engine, property_id, read_at, free_rooms, free_room_ids)

    def date_read(self, property_id: str, read_at: datetime, said: ReadMark) -> bool:
        """Date the range of the read ``said`` marks, said again by a read at ``read_at``; False
        when the view's mark is no longer ``said`` (then :meth:`save_read` the read)."""
        return date_read(self._engine, property_id, read_at, said)

    # --- holds --------------------------------------------------------------------------------

    def try_hold(
        self,
        property_id: str,
        confirmation_code: str,
        room_type_id: int,
        nights: Iterable[date],
        at: datetime,
    ) -> HoldOutcome:
        """Hold one room of the type on every night, or on none (see the module docstring)."""
        wanted = sorted(set(nights))
        try:
            with write_tx(self._engine) as conn:
                earlier = conn.execute(
                    sa.select(sa.func.count())
                    .select_from(AVAILABILITY_HOLD)
                    .where(H.property_id == property_id, H.confirmation_code == confirmation_code)
                ).scalar_one()
                if earlier:
                    return HoldOutcome(held=True, already=True)
                for night in wanted:
                    taken = conn.execute(
                        sa.update(AVAILABILITY_VIEW)
                        .where(
                            V.property_id == property_id,
                            V.room_type_id == room_type_id,
                            V.night == night,
                            V.free_rooms - V.held >= 1,
                        )
                        .values(held=V.held + 1)
                    ).rowcount
                    if taken != 1:
                        raise _NightFull(night)  # rolls the whole transaction back
                # the stay's nights are locked now: the room is chosen against committed holds
                rooms = _rooms_free_throughout(conn, property_id, room_type_id, wanted)
                if rooms is not None and not rooms:
                    raise _NoSingleRoom()
                room = min(rooms) if rooms else None
                conn.execute(
                    sa.insert(AVAILABILITY_HOLD),
                    [
                        _hold_row(property_id, confirmation_code, room_type_id, night, at, room)
                        for night in wanted
                    ],
                )
        except _NightFull as full:
            return HoldOutcome(held=False, full_night=full.night)
        except _NoSingleRoom:
            return HoldOutcome(held=False, no_single_room=True)
        return HoldOutcome(held=True, room_id=room)

    def rooms_free_throughout(
        self, property_id: str, room_type_id: int, nights: Iterable[date]
    ) -> frozenset[int] | None:
        """The rooms of the type free on every one of ``nights`` and not held for another stay;
        None when the view does not know the rooms of some night (a row from before it kept them)."""
        wanted = sorted(set(nights))
        with read_tx(self._engine) as conn:
            return _rooms_free_throughout(conn, property_id, room_type_id, wanted)

    def held_room(self, property_id: str, confirmation_code: str) -> int | None:
        """The room a reservation's hold keeps, if one was chosen."""
        with read_tx(self._engine) as conn:
            return conn.execute(
                sa.select(H.room_id)
                .where(
                    H.property_id == property_id,
                    H.confirmation_code == confirmation_code,
                    H.room_id.is_not(None),
                )
                .limit(1)
            ).scalar_one_or_none()

    def place_holds(
        self,
        property_id: str,
        confirmation_code: str,
        room_type_id: int,
        nights: Iterable[date],
        at: datetime,
    ) -> list[date]:
        """Hold the nights unconditionally (a reservation the channel already confirmed); returns
        the nights newly held. Nights the code holds already are left as they are."""
        wanted = sorted(set(nights))
        with write_tx(self._engine) as conn:
            present = set(
                conn.execute(
                    sa.select(H.night).where(
                        H.property_id == property_id, H.confirmation_code == confirmation_code
                    )
                ).scalars()
            )
            added = [night for night in wanted if night not in present]
            if added:
                conn.execute(
                    sa.insert(AVAILABILITY_HOLD),
                    [_hold_row(property_id, confirmation_code, room_type_id, night, at) for night in added],
                )
                _recount(conn, property_id, room_type_id, added)
        return added

    def settle_holds(
        self, property_id: str, confirmation_code: str, keep: Iterable[date], reflected_at: datetime
    ) -> list[date]:
        """The PMS now holds exactly the nights ``keep``: drop the other holds of the code and mark
        the kept ones reflected from ``reflected_at``. Returns the nights dropped; the view of those
        that the PMS had held is marked stale (the PMS freed them, a new read will show it)."""
        kept = set(keep)
        with write_tx(self._engine) as conn:
            rows = conn.execute(
                sa.select(H.night, H.room_type_id, H.reflected_after).where(
                    H.property_id == property_id, H.confirmation_code == confirmation_code
                )
            ).all()
            dropped = [row for row in rows if row.night not in kept]
            if dropped:
                conn.execute(
                    sa.delete(AVAILABILITY_HOLD).where(
                        H.property_id == property_id,
                        H.confirmation_code == confirmation_code,
                        H.night.in_([row.night for row in dropped]),
                    )
                )
            conn.execute(
                sa.update(AVAILABILITY_HOLD)
                .where(
                    H.property_id == property_id,
                    H.confirmation_code == confirmation_code,
                    H.reflected_after.is_(None),
                )
                .values(reflected_after=reflected_at)
            )
            _after_drop(conn, property_id, dropped)
        return sorted(row.night for row in dropped)

    def release_holds(self, property_id: str, confirmation_code: str) -> list[date]:
        """Drop every hold of the code (a cancellation); returns the nights released."""
        with write_tx(self._engine) as conn:
            rows = conn.execute(
                sa.select(H.night, H.room_type_id, H.reflected_after).where(
                    H.property_id == property_id, H.confirmation_code == confirmation_code
                )
            ).all()
            conn.execute(
                sa.delete(AVAILABILITY_HOLD).where(
                    H.property_id == property_id, H.confirmation_code == confirmation_code
                )
            )
            _after_drop(conn, property_id, rows)
        return sorted(row.night for row in rows)

    def expire_holds(self, property_id: str, held_before: datetime) -> list[str]:
        """Release holds the PMS never received, taken before ``held_before`` for a reservation
        roomsync never heard of again (a MakeReservation with no confirmation). Returns the codes."""
        known = sa.exists().where(
            CHANNEL_RESERVATION.c.property_id == H.property_id,
            CHANNEL_RESERVATION.c.confirmation_code == H.confirmation_code,
        )
        query = (
            sa.select(H.confirmation_code)
            .where(
                H.property_id == property_id,
                H.reflected_after.is_(None),
                H.held_at < held_before,
                ~known,
            )
            .distinct()
        )
        with read_tx(self._engine) as conn:
            codes = sorted(conn.execute(query).scalars())
        for code in codes:
            self.release_holds(property_id, code)
        return codes

    def forget_before(self, property_id: str, first_kept_night: date) -> None:
        """Drop view rows and holds of nights before ``first_kept_night`` (they can no longer be sold)."""
        with write_tx(self._engine) as conn:
            # first, as every save of a read locks it first: a mark must not vouch for dropped rows
            conn.execute(
                sa.delete(AVAILABILITY_READ_MARK).where(
                    AVAILABILITY_READ_MARK.c.property_id == property_id,
                    AVAILABILITY_READ_MARK.c.first_night < first_kept_night,
                )
            )
            conn.execute(
                sa.delete(AVAILABILITY_HOLD).where(H.property_id == property_id, H.night < first_kept_night)
            )
            conn.execute(
                sa.delete(AVAILABILITY_VIEW).where(V.property_id == property_id, V.night < first_kept_night)
            )


def _hold_row(
    property_id: str,
    confirmation_code: str,
    room_type_id: int,
    night: date,
    at: datetime,
    room_id: int | None = None,
) -> dict[str, object]:
    return {
        "property_id": property_id,
        "confirmation_code": confirmation_code,
        "night": night,
        "room_type_id": room_type_id,
        "held_at": at,
        "reflected_after": None,
        "room_id": room_id,
    }


def _rooms_free_throughout(
    conn: Connection, property_id: str, room_type_id: int, nights: list[date]
) -> frozenset[int] | None:
    """Rooms free in the view on every night and kept by no hold its read cannot have seen (a
    hold the PMS reflected before the read shows in the read itself); None when a night's rooms
    are not known."""
    if not nights:
        return frozenset()
    rows = conn.execute(
        sa.select(V.night, V.free_room_ids, V.read_at).where(
            V.property_id == property_id, V.room_type_id == room_type_id, V.night.in_(nights)
        )
    ).all()
    if len(rows) != len(nights):
        return frozenset()
    common: frozenset[int] | None = None
    for row in rows:
        ids = ids_of(row.free_room_ids)
        if ids is None:
            return None
        common = ids if common is None else common & ids
    held = conn.execute(
        sa.select(H.room_id)
        .join(
            AVAILABILITY_VIEW,
            sa.and_(V.property_id == H.property_id, V.room_type_id == H.room_type_id, V.night == H.night),
        )
        .where(
            H.property_id == property_id,
            H.room_type_id == room_type_id,
            H.night.in_(nights),
            H.room_id.is_not(None),
            sa.or_(H.reflected_after.is_(None), H.reflected_after > V.read_at),
        )
    ).scalars()
    return (common or frozenset()) - frozenset(held)


def _recount(conn: Connection, property_id: str, room_type_id: int, nights: Iterable[date]) -> None:
    """Set ``held`` of the view rows from the holds a read of their ``read_at`` cannot have seen."""
    wanted = sorted(set(nights))
    if wanted:
        recount_range(conn, property_id, [room_type_id], wanted[0], wanted[-1])


def _after_drop(conn: Connection, property_id: str, dropped: Iterable[Any]) -> None:
    by_type: dict[int, set[date]] = {}
    freed_in_pms: dict[int, set[date]] = {}
    for night, room_type_id, reflected_after in dropped:
        by_type.setdefault(room_type_id, set()).add(night)
        if reflected_after is not None:
            freed_in_pms.setdefault(room_type_id, set()).add(night)
    for room_type_id, nights in by_type.items():
        _recount(conn, property_id, room_type_id, nights)
    for room_type_id, nights in freed_in_pms.items():
        conn.execute(
            sa.update(AVAILABILITY_VIEW)
            .where(
                V.property_id == property_id,
                V.room_type_id == room_type_id,
                V.night.in_(sorted(nights)),
            )
            .values(stale=True)
        )


def _night(values: Any) -> ViewNight:
    return ViewNight(
        room_type_id=values["room_type_id"],
        night=values["night"],
        free_rooms=values["free_rooms"],
        held=values["held"],
        read_at=values["read_at"],
        stale=bool(values["stale"]),
    )
