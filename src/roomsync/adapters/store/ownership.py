"""Which replica serves which property: owned through Postgres, one owner at a time.

Several ``roomsync serve`` processes (replicas) on one Postgres share the properties out. A
replica owns a property while it holds the property's **session advisory lock** on one
dedicated connection (``pg_try_advisory_lock(91, hashtext(property_id))``); Postgres gives a lock
to one session at a time and releases every lock of a session when its connection ends, so a
replica that dies (killed, host lost, connection cut) frees its properties at once, and no lease,
clock or home-made consensus is involved (docs/architecture.md says why this over lease rows or a
job library).

Each replica also holds a lock of its own (``pg_try_advisory_lock(92, hashtext(replica))``), so
counting the holders of those locks in ``pg_locks`` counts the live replicas. Every check (every
``ownership_check_seconds``), a replica:

1. makes sure its connection, hence its locks, is still there (if not, it has lost everything:
   it stops every property at once and reconnects);
2. computes its fair share, ``ceil(active properties / live replicas)``;
3. gives back what it holds beyond the share (each property stopped first, then unlocked), and
   tries to take properties nobody holds until it reaches its share.

A give-back for the share's sake is not urgent (the property is served meanwhile), so it never
cuts a run short: the replica names the properties with a run in flight (``busy``), keeps those
first, and gives back a busy one only at a check after its run has ended. (Replicas started
together first take what is free, then even out: cancelling a cold full sync to hand it over
threw away most of its requests, 55 to 71 of 83 in a measured start of three replicas.)

So no replica holds more than its share plus the busy properties it is about to give back, a new
replica takes its share within a check of the others' runs ending, and a dead replica's
properties are taken within one check.

SQLite has no locks between processes: :class:`SoleOwnership` owns every property, and the
replica refuses to start if another holds the database (``roomsync.app.daemon.lock``).
"""

from __future__ import annotations

import logging
import math
from dataclasses import dataclass, field
from typing import Protocol

import sqlalchemy as sa
from sqlalchemy.engine import Connection, Engine

log = logging.getLogger("roomsync.ownership")

PROPERTY_LOCK_SPACE = 91
REPLICA_LOCK_SPACE = 92


@dataclass
class OwnershipChange:
    """What a check decided: properties to start (now held) and to stop then give back."""

    take: list[str] = field(default_factory=list)
    give_back: list[str] = field(default_factory=list)
    deferred: list[str] = field(default_factory=list)
    """Properties beyond the share kept until their run in flight ends (given back at a later check)."""
    lost: list[str] = field(default_factory=list)
    """Properties lost without being given back (the connection holding the locks ended)."""
    live_replicas: int = 1
    share: int = 0


class Ownership(Protocol):
    def check(self, active: list[str], busy: frozenset[str] = frozenset()) -> OwnershipChange:
        """Decide what to take and give back; ``busy``: the held properties with a run in flight."""
        ...

    def release(self, property_id: str) -> None: ...

    def held(self) -> set[str]: ...

    def close(self) -> None: ...


class SoleOwnership:
    """One replica on a database that cannot coordinate (SQLite): it owns every property."""

    def __init__(self) -> None:
        self._held: set[str] = set()

    def check(self, active: list[str], busy: frozenset[str] = frozenset()) -> OwnershipChange:
        wanted = set(active)
        change = OwnershipChange(
            take=sorted(wanted - self._held), give_back=sorted(self._held - wanted), share=len(wanted)
        )
        self._held |= wanted
        return change

    def release(self, property_id: str) -> None:
        self._held.discard(property_id)

    def held(self) -> set[str]:
        return set(self._held)

    def close(self) -> None:
        self._held.clear()


class PostgresOwnership:
    """Ownership by session advisory locks on one dedicated connection (see the module docstring)."""

    def __init__(self, engine: Engine, replica: str) -> None:
        self._engine = engine
        self.replica = replica
        self._conn: Connection | None = None
        self._held: set[str] = set()

    def connect(self) -> None:
        """Open the lock connection and take this replica's own lock (it counts as live from now)."""
        self._connection()

    def _connection(self) -> Connection:
        if self._conn is None:
            conn = self._engine.connect().execution_options(isolation_level="AUTOCOMMIT")
            got = conn.execute(
                sa.text("SELECT pg_try_advisory_lock(:space, hashtext(:replica))"),
                {"space": REPLICA_LOCK_SPACE, "replica": self.replica},
            ).scalar()
            if not got:
                conn.close()
                raise RuntimeError(
                    f"another replica named {self.replica!r} is connected to this database: give each "
                    "replica its own replica_id"
                )
            self._conn = conn
        return self._conn

    def _drop_connection(self) -> list[str]:
        lost = sorted(self._held)
        self._held.clear()
        if self._conn is not None:
            try:
                self._conn.invalidate()
                self._conn.close()
            except Exception:  # already gone
                pass
            self._conn = None
        return lost

    def check(self, active: list[str], busy: frozenset[str] = frozenset()) -> OwnershipChange:
        try:
            return self._check(active, busy)
        except Exception as error:
            lost = self._drop_connection()
            if lost:
                log.error(
                    "the connection holding the property locks failed (%s): stopping %d properties",
                    error,
                    len(lost),
                )
            else:
                log.warning("ownership check failed (%s); trying again", error)
            return OwnershipChange(lost=lost)

    def _check(self, active: list[str], busy: frozenset[str]) -> OwnershipChange:
        conn = self._connection()
        # the locks still held by this session: if the server restarted, they are gone
        held_keys = set(
            conn.execute(
                sa.text(
                    "SELECT objid::bigint FROM pg_locks WHERE locktype = 'advisory' AND granted "
                    "AND pid = pg_backend_pid() AND classid = :space AND objsubid = 2"
                ),
                {"space": PROPERTY_LOCK_SPACE},
            ).scalars()
        )
        keys = self._keys(conn, set(active) | self._held)
        lost = sorted(p for p in self._held if keys[p] % 2**32 not in {k % 2**32 for k in held_keys})
        self._held -= set(lost)
        live = int(
            conn.execute(
                sa.text(
                    "SELECT count(DISTINCT pid) FROM pg_locks WHERE locktype = 'advisory' AND granted "
                    "AND classid = :space AND objsubid = 2 "
                    "AND database = (SELECT oid FROM pg_database WHERE datname = current_database())"
                ),
                {"space": REPLICA_LOCK_SPACE},
            ).scalar()
            or 1
        )
        wanted = set(active)
        share = math.ceil(len(wanted) / live) if wanted else 0
        change = OwnershipChange(lost=lost, live_replicas=live, share=share)
        change.give_back = sorted(self._held - wanted)  # paused or removed
        keep = sorted(self._held & wanted, key=lambda p: (p not in busy, p))  # the busy ones first
        if len(keep) > share:
            beyond = keep[share:]
            change.give_back += [p for p in beyond if p not in busy]
            change.deferred = [p for p in beyond if p in busy]
            keep = keep[:share]
        room = share - len(keep)
        for property_id in sorted(wanted - self._held):
            if room <= 0:
                break
            got = conn.execute(
                sa.text("SELECT pg_try_advisory_lock(:space, hashtext(:pid))"),
                {"space": PROPERTY_LOCK_SPACE, "pid": property_id},
            ).scalar()
            if got:
                self._held.add(property_id)
                change.take.append(property_id)
                room -= 1
        return change

    @staticmethod
    def _keys(conn: Connection, property_ids: set[str]) -> dict[str, int]:
        if not property_ids:
            return {}
        rows = conn.execute(
            sa.text("SELECT p, hashtext(p) FROM unnest(CAST(:ids AS text[])) AS p"),
            {"ids": sorted(property_ids)},
        ).all()
        return {row[0]: int(row[1]) for row in rows}

    def release(self, property_id: str) -> None:
        if property_id not in self._held or self._conn is None:
            self._held.discard(property_id)
            return
        try:
            self._conn.execute(
                sa.text("SELECT pg_advisory_unlock(:space, hashtext(:pid))"),
                {"space": PROPERTY_LOCK_SPACE, "pid": property_id},
            )
        finally:
            self._held.discard(property_id)

    def held(self) -> set[str]:
        return set(self._held)

    def close(self) -> None:
        self._drop_connection()
