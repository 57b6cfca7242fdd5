"""A PMS read saved into the availability view (:mod:`.availability_view`), and the helpers the
view's holds share with it: a read's room ids as text, and the recount of ``held``.

Every poll saves its 365-night read, so the save writes only what changed: the nights whose
free rooms moved are upserted row by row, the rest take the read's ``read_at`` in one UPDATE
over the read's range, and ``held`` is recounted only where a hold may count (rewriting every row
was a quarter of a replica's CPU, issue 26). The range's rows are locked first, in (room type,
night) order as every writer of the view locks them, so no other read lands between the
comparison and the write.

A poll's read is most often the one before it again. The digest of the last whole-range read
saved (``availability_read_mark``, one row per property) tells that without reading the 1,460 rows
back: such a read only dates the range. The mark is locked first by every save, so two saves of a
property never interleave; a read of some nights only, and the retention that drops past nights,
delete it, so an equal digest always means equal rows. A caller that knows its read is the one
marked (the same answer's bytes, :mod:`roomsync.app.sync.read_memo`) dates the range with
:func:`date_read` without the read's digest being computed again.
"""

from __future__ import annotations

import hashlib
from collections.abc import Iterator, Mapping
from dataclasses import asdict, dataclass, fields
from datetime import date, datetime
from typing import Any

import sqlalchemy as sa
from sqlalchemy.engine import Connection, Engine

from roomsync.adapters.store._sql import insert_for, upsert_many, write_tx
from roomsync.adapters.store.tables import AVAILABILITY_HOLD, AVAILABILITY_READ_MARK, AVAILABILITY_VIEW

V = AVAILABILITY_VIEW.c
H = AVAILABILITY_HOLD.c
M = AVAILABILITY_READ_MARK.c


@dataclass(frozen=True)
class ReadMark:
    """What the view's mark says of a property's last whole-range read: its room types, nights
    and the digest of what it said night by night."""

    room_type_ids: str
    first_night: date
    last_night: date
    digest: str

    def matches(self, row: sa.Row[Any] | None) -> bool:
        return row is not None and all(getattr(row, name) == value for name, value in asdict(self).items())


def save_read(
    engine: Engine,
    property_id: str,
    read_at: datetime,
    free_rooms: Mapping[int, Mapping[date, int]],
    free_room_ids: Mapping[int, Mapping[date, frozenset[int]]] | None,
) -> ReadMark | None:
    """Record a PMS read that started at ``read_at`` (see the module docstring); the mark of a
    whole-range read, None for a read of some nights only."""
    nights = {t: sorted(per_night) for t, per_night in free_rooms.items() if per_night}
    if not nights:
        return None
    read = _Read(property_id, read_at, free_rooms, free_room_ids or {}, nights)
    types = sorted(nights)
    first, last = min(n[0] for n in nights.values()), max(n[-1] for n in nights.values())
    span = (last - first).days + 1
    # a poll's read is one range of nights for every room type; were it not, the range would
    # date nights the read never saw, so each night of such a read is written as it came
    one_range = all(len(per_type) == span for per_type in nights.values())
    with write_tx(engine) as conn:
        mark = _locked_mark(conn, property_id)
        if not one_range:
            if mark is not None:
                conn.execute(sa.delete(AVAILABILITY_READ_MARK).where(M.property_id == property_id))
            _write_rows(conn, read, {}, dated=None)
            recount_range(conn, property_id, types, first, last)
            return None
        said = ReadMark(",".join(str(t) for t in types), first, last, read.digest())
        in_range = _range_params(property_id, types, first, last)
        if said.matches(mark):
            _date_range(conn, in_range, read_at)
        else:
            found = conn.execute(_LOCK_RANGE, in_range)
            stored = {(t, night): (free, text) for t, night, free, text in found}
            _write_rows(conn, read, stored, dated=in_range)
        _keep_mark(conn, property_id, mark, said, read_at, types)
    return said


def date_read(engine: Engine, property_id: str, read_at: datetime, said: ReadMark) -> bool:
    """Date the range of the whole-range read ``said`` marks, the read that started at
    ``read_at`` having said the same again; False (nothing written) when the view's mark is
    another's: that read must then be saved with :func:`save_read`."""
    types = [int(t) for t in said.room_type_ids.split(",")]
    in_range = _range_params(property_id, types, said.first_night, said.last_night)
    marked = {f"b_{name}": value for name, value in asdict(said).items()}
    with write_tx(engine) as conn:
        # the usual case in one statement: the mark is ``said`` and older, and moving it on locks
        # it; otherwise lock it and look (a newer read of the same answer keeps its mark)
        moved = conn.execute(_MOVE_MARK, marked | {"b_property_id": property_id, "b_read_at": read_at})
        if moved.rowcount != 1 and not said.matches(_locked_mark(conn, property_id)):
            return False
        _date_range(conn, in_range, read_at)
        recount_range(conn, property_id, types, said.first_night, said.last_night)
    return True


# Every poll runs the statements below: built once, bound at each call (building them again was
# most of the CPU of a poll's save, issue 26). Bound names start with ``b_``: a bound parameter
# may not take the name of a column an UPDATE sets.
_B_RANGE = sa.and_(
    V.property_id == sa.bindparam("b_property_id"),
    V.room_type_id.in_(sa.bindparam("b_room_type_ids", expanding=True)),
    V.night.between(sa.bindparam("b_first"), sa.bindparam("b_last")),
)
_LOCK_MARK = (
    sa.select(AVAILABILITY_READ_MARK).where(M.property_id == sa.bindparam("b_property_id")).with_for_update()
)
_LOCK_RANGE = (
    sa.select(V.room_type_id, V.night, V.free_rooms, V.free_room_ids)
    .where(_B_RANGE)
    .order_by(V.room_type_id, V.night)
    .with_for_update()
)
_MOVE_MARK = (
    sa.update(AVAILABILITY_READ_MARK)
    .where(
        M.property_id == sa.bindparam("b_property_id"),
        *(getattr(M, part.name) == sa.bindparam(f"b_{part.name}") for part in fields(ReadMark)),
        M.read_at <= sa.bindparam("b_read_at"),
    )
    .values(read_at=sa.bindparam("b_read_at"))
)
_DATE_RANGE = (
    sa.update(AVAILABILITY_VIEW)
    .where(_B_RANGE, V.read_at <= sa.bindparam("b_read_at"))
    .values(read_at=sa.bindparam("b_read_at"), stale=False)
)


def _range_params(property_id: str, types: list[int], first: date, last: date) -> dict[str, Any]:
    return {"b_property_id": property_id, "b_room_type_ids": types, "b_first": first, "b_last": last}


def _locked_mark(conn: Connection, property_id: str) -> sa.Row[Any] | None:
    """The property's read mark, locked: two saves of a property never interleave."""
    return conn.execute(_LOCK_MARK, {"b_property_id": property_id}).one_or_none()


def _keep_mark(
    conn: Connection,
    property_id: str,
    mark: sa.Row[Any] | None,
    said: ReadMark,
    read_at: datetime,
    types: list[int],
) -> None:
    """Mark the range as ``said`` at ``read_at`` and recount its holds."""
    if mark is None or mark.read_at <= read_at:
        # an older read saved after a newer one changed no row the newer one wrote
        mark_row = {"property_id": property_id, "read_at": read_at} | asdict(said)
        upsert_many(conn, AVAILABILITY_READ_MARK, [mark_row], key=("property_id",))
    recount_range(conn, property_id, types, said.first_night, said.last_night)


@dataclass(frozen=True)
class _Read:
    """A PMS read being saved: free rooms (and their ids) per room type of its ``nights``."""

    property_id: str
    read_at: datetime
    free_rooms: Mapping[int, Mapping[date, int]]
    ids: Mapping[int, Mapping[date, frozenset[int]]]
    nights: Mapping[int, list[date]]

    def rows(self) -> Iterator[tuple[int, date, int, str | None]]:
        """(room type, night, free rooms, their ids as text) in the view's lock order."""
        texts: dict[frozenset[int] | None, str | None] = {None: None}  # the nights share a few sets
        for room_type_id in sorted(self.nights):
            per_night, type_ids = self.free_rooms[room_type_id], self.ids.get(room_type_id, {})
            for night in self.nights[room_type_id]:
                room_ids = type_ids.get(night)
                if room_ids not in texts:
                    texts[room_ids] = ids_text(room_ids)
                yield room_type_id, night, per_night[night], texts[room_ids]

    def digest(self) -> str:
        """What the read says night by night, as a digest."""
        text = "\n".join(f"{t}:{night.toordinal()}:{free}:{ids}" for t, night, free, ids in self.rows())
        return hashlib.blake2b(text.encode(), digest_size=16).hexdigest()


def _write_rows(
    conn: Connection,
    read: _Read,
    stored: Mapping[tuple[int, date], tuple[int, str | None]],
    *,
    dated: dict[str, Any] | None,
) -> None:
    """Upsert the rows of ``read`` that differ from ``stored``; the rest of the ``dated`` range
    (a whole-range read's) take the read's ``read_at``."""
    changed = [
        {
            "property_id": read.property_id,
            "room_type_id": room_type_id,
            "night": night,
            "free_rooms": free,
            "held": 0,
            "read_at": read.read_at,
            "stale": False,
            "free_room_ids": ids,
        }
        for room_type_id, night, free, ids in read.rows()
        if stored.get((room_type_id, night)) != (free, ids)
    ]
    if changed:
        stmt = insert_for(conn, AVAILABILITY_VIEW)
        stmt = stmt.on_conflict_do_update(
            index_elements=[V.property_id, V.room_type_id, V.night],
            set_={name: stmt.excluded[name] for name in ("free_rooms", "read_at", "stale", "free_room_ids")},
            # a slower read that started earlier must not overwrite a newer one
            where=AVAILABILITY_VIEW.c.read_at <= stmt.excluded.read_at,
        )
        conn.execute(stmt, changed)
    if dated is not None and len(changed) < sum(len(nights) for nights in read.nights.values()):
        _date_range(conn, dated, read.read_at)


def _date_range(conn: Connection, in_range: dict[str, Any], read_at: datetime) -> None:
    """The rows of the read's range (``_range_params``) take its ``read_at`` (they say what it said)."""
    conn.execute(_DATE_RANGE, in_range | {"b_read_at": read_at})


def recount_range(
    conn: Connection, property_id: str, room_type_ids: list[int], first: date, last: date
) -> None:
    """Set ``held`` of the view rows of ``first..last`` from the holds a read of their
    ``read_at`` cannot have seen (recounting a night between the ones that moved changes
    nothing), only where a hold may count: a row with ``held`` 0 and no hold row keeps 0."""
    conn.execute(_RECOUNT, _range_params(property_id, room_type_ids, first, last))


_SAME_NIGHT = sa.and_(H.property_id == V.property_id, H.room_type_id == V.room_type_id, H.night == V.night)
_RECOUNT = (
    sa.update(AVAILABILITY_VIEW)
    .where(_B_RANGE, sa.or_(V.held != 0, sa.select(H.night).where(_SAME_NIGHT).exists()))
    .values(
        held=sa.select(sa.func.count())
        .select_from(AVAILABILITY_HOLD)
        .where(_SAME_NIGHT, sa.or_(H.reflected_after.is_(None), H.reflected_after > V.read_at))
        .scalar_subquery()
    )
)


def ids_text(ids: frozenset[int] | None) -> str | None:
    return None if ids is None else ",".join(str(i) for i in sorted(ids))


def ids_of(text: str | None) -> frozenset[int] | None:
    if text is None:
        return None
    return frozenset(int(part) for part in text.split(",") if part)
