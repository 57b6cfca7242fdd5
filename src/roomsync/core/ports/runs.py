"""The ports of the sync runs and what they leave: the runs' log, the properties served, each
listing's sync state and the learned week."""

from __future__ import annotations

from collections.abc import Collection, Mapping, Sequence
from dataclasses import dataclass, field
from datetime import date, datetime, timedelta
from typing import Any, Protocol

from roomsync.core.activity import LearnedWeight
from roomsync.core.listing import ListingKey
from roomsync.core.property import PropertyRecord


@dataclass(frozen=True)
class SyncRun:
    id: int
    property_id: str
    kind: str
    """``sync``, ``resync``, ``reconcile``, ..."""
    started_at: datetime
    finished_at: datetime | None = None
    result: str | None = None
    requests_spent: int = 0
    operations: int = 0
    price_elements: int = 0
    error: str | None = None
    heartbeat_at: datetime | None = None
    """When the run in progress last recorded that it was alive."""
    price_fill_reads: int = 0
    """Of ``requests_spent``, the reads of nights that had no cached PMS price (a cold cache's fill)."""


ABANDONED = "abandoned"
"""The result of a run whose process died before recording its end."""


@dataclass(frozen=True)
class KindSpend:
    """What the ended runs of one kind spent over some time: how many, and their requests."""

    runs: int
    requests: int


class SyncRunStore(Protocol):
    def start_run(self, property_id: str, kind: str, started_at: datetime) -> int:
        """Record a run that started (alive as of ``started_at``); returns its id."""
        ...

    def beat_run(self, property_id: str, run_id: int, at: datetime) -> None:
        """Record that the run in progress is alive at ``at``."""
        ...

    def close_silent_runs(
        self, property_id: str, silent_since: datetime, at: datetime, keep: Collection[int] = ()
    ) -> list[int]:
        """Close as ``abandoned`` (finished ``at``) the runs still open whose last sign of life
        is older than ``silent_since``, except ``keep`` (the caller's own runs in flight, alive
        whatever their heartbeat says); returns their ids."""
        ...

    def finish_run(
        self,
        property_id: str,
        run_id: int,
        finished_at: datetime,
        result: str,
        *,
        requests_spent: int = 0,
        operations: int = 0,
        price_elements: int = 0,
        error: str | None = None,
        price_fill_reads: int = 0,
    ) -> None: ...

    def recent_runs(self, property_id: str, limit: int = 20, kind: str | None = None) -> list[SyncRun]:
        """The latest runs, newest first."""
        ...

    def latest_start(
        self, property_id: str, kinds: Collection[str], results: Collection[str]
    ) -> datetime | None:
        """When the latest run of one of ``kinds`` that ended with one of ``results`` started."""
        ...

    def spent_since(self, property_id: str, since: datetime) -> dict[str, KindSpend]:
        """Per kind, the runs that started at or after ``since`` and have ended, and the requests
        they spent (a run in progress has not said yet)."""
        ...


class PropertyStore(Protocol):
    """The deployment's properties (``roomsync.core.property``); no secret is ever stored."""

    def add_property(self, record: PropertyRecord) -> None:
        """Add it; ``PropertyExists`` if its id is taken."""

    def change_property(
        self,
        property_id: str,
        *,
        overrides: Mapping[str, Any | None] | None = None,
        secret_refs: Mapping[str, str | None] | None = None,
    ) -> PropertyRecord:
        """Merge settings and secret references (None unsets one); ``PropertyNotFound``."""
        ...

    def set_paused(self, property_id: str, paused: bool, reason: str | None) -> None: ...

    def remove_property(self, property_id: str) -> None: ...

    def get_property(self, property_id: str) -> PropertyRecord | None: ...

    def list_properties(self) -> list[PropertyRecord]: ...


NightSpan = tuple[date, date]
"""A run of consecutive nights, both ends included."""


@dataclass(frozen=True)
class LocatedClosures:
    """The closures a sync located in the PMS (``roomsync.app.sync.closures``): runs of closed
    nights of the whole property and per room type. Room types absent are not known closed."""

    property_wide: tuple[NightSpan, ...] = ()
    room_types: Mapping[int, tuple[NightSpan, ...]] = field(default_factory=dict)


@dataclass(frozen=True)
class ListingFacts:
    """What ``GET Listings`` said of a mapped listing that ``ListingState`` does not hold."""

    listing: ListingKey
    missing: bool
    """Not among the channel's listings (unlinked, removed, or its account unauthorized)."""
    total_inventory_count: int | None
    """The cap of a room-type listing's count, if the channel states one."""
    read_at: datetime


@dataclass(frozen=True)
class StoredDigest:
    """A listing's sync digest (``roomsync.app.sync.fingerprint``) and the version of its row.

    ``version`` counts every change of the row (0: no row yet); a writer that read version ``v``
    may set the digest only while the row is still at ``v`` (compare-and-set)."""

    listing: ListingKey
    digest: str | None
    version: int


class SyncStateStore(Protocol):
    """What the sync keeps between runs that costs requests to learn again, as typed rows
    written per key. Where two writers can meet (two replicas during a takeover, the CLI beside the
    daemon, a poll or push beside a full sync) the writes are conditional: facts read earlier never
    overwrite facts read later, and a digest is kept only if nobody touched its row meanwhile."""

    def located_closures(self, property_id: str) -> LocatedClosures: ...

    def save_closures(
        self,
        property_id: str,
        read_at: datetime,
        property_wide: Sequence[NightSpan],
        room_types: Mapping[int, Sequence[NightSpan]],
    ) -> set[int | None]:
        """Replace the property's runs and those of each of ``room_types`` (an empty sequence: the
        type is open), each scope only if no later read is stored. Returns the scopes left as
        they were because a later read was there (``None`` is the property's)."""
        ...

    def listing_facts(self, property_id: str) -> dict[ListingKey, ListingFacts]:
        """The facts stored of the property's listings, per listing."""
        ...

    def save_listing_facts(self, facts: Sequence[ListingFacts]) -> int:
        """Upsert each listing's facts unless a later read of it is stored; returns rows written."""
        ...

    def digests(self, property_id: str) -> dict[ListingKey, StoredDigest]:
        """The property's digest rows there are, per listing (a listing without one is at
        version 0)."""
        ...

    def keep_digest(self, listing: ListingKey, digest: str, read_version: int) -> StoredDigest:
        """Set the digest if the row is still at ``read_version``; otherwise leave it. Returns the
        row as it now stands (compare the version with ``read_version + 1`` to know who won)."""
        ...

    def forget_digests(self, listings: Collection[ListingKey]) -> None:
        """Clear the digests of ``listings`` and move their versions on (their ledgers changed
        outside a full sync: a full sync in progress must not keep a digest it computed before)."""
        ...


class ActivityStore(Protocol):
    """The learned shape of the week per kind of change (``roomsync.core.activity``), as rows a
    replica taking a property over finds as its previous owner left them."""

    def learned(self, property_id: str, kind: str) -> dict[int, LearnedWeight]:
        """The learned weight of each hour of the week that has one (as last written)."""
        ...

    def observe(
        self, property_id: str, kind: str, hour_of_week: int, at: datetime, half_life: timedelta, count: float
    ) -> None:
        """Decay the hour's weight to ``at`` and add ``count`` (one read and one write of one row)."""
        ...
