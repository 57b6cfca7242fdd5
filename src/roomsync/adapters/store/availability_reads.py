"""A PMS read saved into the availability view (:mod:`.availability_view`), and the helpers the
view's holds share with it: a read's room ids as text, and the recount of ``held``.

Every poll saves its 365-night read, so the save writes only what changed: the nights whose
free rooms moved are upserted row by row, the rest take the read's ``read_at`` in one UPDATE
over the read's range, and ``held`` is recounted only where a hold may count (rewriting every row
was a quarter of a replica's CPU, issue 26). The range's rows are locked first, in (room type,
night) order as every writer of the view locks them, so no other read lands between the
comparison and the write.
"""

from __future__ import annotations

from collections.abc import Mapping
from datetime import date, datetime
from typing import Any

import sqlalchemy as sa
from sqlalchemy.engine import Connection, Engine

from roomsync.adapters.store._sql import insert_for, write_tx
from roomsync.adapters.store.tables import AVAILABILITY_HOLD, AVAILABILITY_VIEW

V = AVAILABILITY_VIEW.c
H = AVAILABILITY_HOLD.c


def save_read(
    engine: Engine,
    property_id: str,
    read_at: datetime,
    free_rooms: Mapping[int, Mapping[date, int]],
    free_room_ids: Mapping[int, Mapping[date, frozenset[int]]] | None,
) -> None:
    """Record a PMS read that started at ``read_at`` (see the module docstring)."""
    reads = {t: sorted(per_night) for t, per_night in free_rooms.items() if per_night}
    if not reads:
        return
    ids = free_room_ids or {}
    types = sorted(reads)
    first, last = min(n[0] for n in reads.values()), max(n[-1] for n in reads.values())
    span = (last - first).days + 1
    # a poll's read is one range of nights for every room type; were it not, the range would
    # date nights the read never saw, so each night of such a read is written as it came
    one_range = all(len(nights) == span for nights in reads.values())
    in_range = sa.and_(V.property_id == property_id, V.room_type_id.in_(types), V.night.between(first, last))
    with write_tx(engine) as conn:
        stored: dict[tuple[int, date], tuple[int, str | None]] = {}
        if one_range:
            found = conn.execute(
                sa.select(V.room_type_id, V.night, V.free_rooms, V.free_room_ids)
                .where(in_range)
                .order_by(V.room_type_id, V.night)
                .with_for_update()
            )
            stored = {(t, night): (free, text) for t, night, free, text in found}
        changed = _changed_rows(property_id, read_at, free_rooms, ids, reads, stored)
        if changed:
            stmt = insert_for(conn, AVAILABILITY_VIEW)
            stmt = stmt.on_conflict_do_update(
                index_elements=[V.property_id, V.room_type_id, V.night],
                set_={
                    name: stmt.excluded[name] for name in ("free_rooms", "read_at", "stale", "free_room_ids")
                },
                # a slower read that started earlier must not overwrite a newer one
                where=AVAILABILITY_VIEW.c.read_at <= stmt.excluded.read_at,
            )
            conn.execute(stmt, changed)
        if one_range and len(changed) < span * len(types):
            conn.execute(
                sa.update(AVAILABILITY_VIEW)
                .where(in_range, V.read_at <= read_at)
                .values(read_at=read_at, stale=False)
            )
        recount_range(conn, property_id, types, first, last)


def _changed_rows(
    property_id: str,
    read_at: datetime,
    free_rooms: Mapping[int, Mapping[date, int]],
    ids: Mapping[int, Mapping[date, frozenset[int]]],
    reads: Mapping[int, list[date]],
    stored: Mapping[tuple[int, date], tuple[int, str | None]],
) -> list[dict[str, Any]]:
    """The view rows of a read whose free rooms differ from what the view holds, in lock order."""
    changed = []
    texts: dict[frozenset[int] | None, str | None] = {}  # the nights of a read share their sets
    for room_type_id in sorted(reads):
        per_night, type_ids = free_rooms[room_type_id], ids.get(room_type_id, {})
        for night in reads[room_type_id]:
            room_ids = type_ids.get(night)
            if room_ids not in texts:
                texts[room_ids] = ids_text(room_ids)
            now = (per_night[night], texts[room_ids])
            if stored.get((room_type_id, night)) != now:
                changed.append(
                    {
                        "property_id": property_id,
                        "room_type_id": room_type_id,
                        "night": night,
                        "free_rooms": now[0],
                        "held": 0,
                        "read_at": read_at,
                        "stale": False,
                        "free_room_ids": now[1],
                    }
                )
    return changed


def recount_range(
    conn: Connection, property_id: str, room_type_ids: list[int], first: date, last: date
) -> None:
    """Set ``held`` of the view rows of ``first..last`` from the holds a read of their
    ``read_at`` cannot have seen (recounting a night between the ones that moved changes
    nothing), only where a hold may count: a row with ``held`` 0 and no hold row keeps 0."""
    counted = (
        sa.select(sa.func.count())
        .select_from(AVAILABILITY_HOLD)
        .where(
            H.property_id == V.property_id,
            H.room_type_id == V.room_type_id,
            H.night == V.night,
            sa.or_(H.reflected_after.is_(None), H.reflected_after > V.read_at),
        )
        .scalar_subquery()
    )
    any_hold = (
        sa.select(H.night)
        .where(H.property_id == V.property_id, H.room_type_id == V.room_type_id, H.night == V.night)
        .exists()
    )
    conn.execute(
        sa.update(AVAILABILITY_VIEW)
        .where(
            V.property_id == property_id,
            V.room_type_id.in_(room_type_ids),
            V.night.between(first, last),
            sa.or_(V.held != 0, any_hold),
        )
        .values(held=counted)
    )


def ids_text(ids: frozenset[int] | None) -> str | None:
    return None if ids is None else ",".join(str(i) for i in sorted(ids))


def ids_of(text: str | None) -> frozenset[int] | None:
    if text is None:
        return None
    return frozenset(int(part) for part in text.split(",") if part)
