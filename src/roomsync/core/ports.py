"""The small protocols the adapters implement, so callers never depend on a database.

The store (``roomsync.adapters.store``) implements them on SQLite and Postgres. They are
synchronous: each call is one short transaction.
"""

from __future__ import annotations

from collections.abc import Collection, Mapping, Sequence
from dataclasses import dataclass, field
from datetime import date, datetime, timedelta
from decimal import Decimal
from enum import StrEnum
from typing import Any, Protocol

from roomsync.core.activity import LearnedWeight
from roomsync.core.budget import BudgetSnapshot, Reserves, ServerLimits
from roomsync.core.catalog.types import Priority
from roomsync.core.listing import ListingKey as ListingKey  # the key the protocols take, kept importable here
from roomsync.core.listing import listing_text as listing_text
from roomsync.core.mapping import Mapping as PropertyMapping
from roomsync.core.property import PropertyRecord


@dataclass(frozen=True)
class StoredToken:
    access_token: str
    expires_at: datetime
    """UTC instant after which the token must not be used."""

    def __repr__(self) -> str:  # the token is a secret
        return f"StoredToken(expires_at={self.expires_at.isoformat()})"


class TokenStore(Protocol):
    def load_token(self, property_id: str) -> StoredToken | None: ...

    def save_token(self, property_id: str, token: StoredToken) -> None: ...

    def clear_token(self, property_id: str) -> None: ...


class BudgetStore(Protocol):
    def try_spend(
        self,
        property_id: str,
        day: date,
        priority: Priority,
        quota: int,
        reserves: Reserves,
        cost: int = 1,
    ) -> BudgetSnapshot | None:
        """Atomically count ``cost`` requests at ``priority`` if the budget allows it.

        Returns the snapshot after spending, or None (and counts a refusal) when the request
        would eat into the reserve of ``priority``. Safe against concurrent replicas.
        """
        ...

    def observe_server(
        self,
        property_id: str,
        day: date,
        quota: int,
        used: int,
        *,
        server_quota: int | None = None,
        resets_at: datetime | None = None,
    ) -> None:
        """Record what the server reported (usage headers or ``GET /v1/Usage``): the count never
        lowers; the server's limit and reset instant, when given, replace the ones kept."""
        ...

    def server_limits(self, property_id: str) -> ServerLimits | None:
        """What the server said last about the property's quota (limit, reset), if anything."""
        ...

    def snapshot(self, property_id: str, day: date, quota: int) -> BudgetSnapshot: ...

    def carry_over(self, property_id: str, from_day: date, to_day: date, quota: int) -> None:
        """Add the counts kept under ``from_day`` to ``to_day`` and drop ``from_day``: requests
        counted by UTC midnight before the server's reset was known belong to its period."""


# --- The store's further ports -------------------------------------------------------------
# Each method is one short transaction. Every key carries the property, so one database serves
# many properties and no call ever sees another property's rows. Timestamps are timezone-aware
# UTC; the adapter refuses naive ones.


@dataclass(frozen=True)
class ChannelDay:
    """What holds on the channel for one listing and day; None means "not known"."""

    day: date
    available: str | None = None
    """``available``, ``unavailable`` or ``default`` (the channel's words)."""
    count: int | None = None
    """Room-type listings: the count the channel holds (``availableCount``)."""
    price: Decimal | None = None
    min_nights: int | None = None
    max_nights: int | None = None
    cta: bool | None = None
    """Closed to arrival."""
    ctd: bool | None = None
    """Closed to departure."""


@dataclass(frozen=True)
class LedgerEntry:
    state: ChannelDay
    confirmed_at: datetime
    """When the channel last confirmed a write to this day."""


class CalendarLedger(Protocol):
    def read_days(self, listing: ListingKey, date_from: date, date_to: date) -> dict[date, LedgerEntry]:
        """The recorded days of ``date_from..date_to`` (both included); unrecorded days are absent."""
        ...

    def record_confirmed(
        self, listing: ListingKey, days: Sequence[ChannelDay], confirmed_at: datetime
    ) -> None:
        """Record days the channel confirmed, in one transaction.

        A field given as None keeps what was recorded before, so a price-only write records
        only prices. Call it only after the channel confirmed the write.
        """
        ...

    def forget_days(
        self, listing: ListingKey, date_from: date | None = None, date_to: date | None = None
    ) -> int:
        """Drop recorded days (all of the listing's when no range is given); returns how many."""
        ...


@dataclass(frozen=True)
class RateKey:
    """One rate of one room type on the property's connected channels."""

    property_id: str
    room_type_id: int
    room_rate_type: int
    """``1`` standard, ``2`` non-refundable."""


@dataclass(frozen=True)
class PushedPrice:
    price: Decimal
    pushed_at: datetime


class ChannelPriceLedger(Protocol):
    def read_pushed_prices(self, rate: RateKey, date_from: date, date_to: date) -> dict[date, PushedPrice]:
        """Prices last pushed for ``date_from..date_to`` (both included)."""
        ...

    def record_pushed_prices(
        self, rate: RateKey, prices: Mapping[date, Decimal], pushed_at: datetime
    ) -> None:
        """Record prices the service accepted, in one transaction (2 decimal places at most)."""
        ...


@dataclass(frozen=True)
class NightPrice:
    price: Decimal
    currency: str
    read_at: datetime


@dataclass(frozen=True)
class WindowTotal:
    """The PMS's total price of one stay: ``date_from`` first night, ``date_to`` departure day."""

    date_from: date
    date_to: date
    total: Decimal
    currency: str
    read_at: datetime


class PmsPriceCache(Protocol):
    def save_night_prices(
        self,
        property_id: str,
        room_type_id: int,
        prices: Mapping[date, Decimal],
        currency: str,
        read_at: datetime,
    ) -> None: ...

    def save_prices_of_types(
        self,
        property_id: str,
        prices: Mapping[int, Mapping[date, Decimal]],
        currency: str,
        read_at: datetime,
    ) -> None:
        """``save_night_prices`` of several room types, in one transaction."""
        ...

    def read_night_prices(
        self, property_id: str, room_type_id: int, first_night: date, last_night: date
    ) -> dict[date, NightPrice]:
        """Cached nightly prices of ``first_night..last_night`` (both included)."""
        ...

    def read_prices_of_types(
        self,
        property_id: str,
        room_type_ids: Collection[int],
        first_night: date,
        last_night: date,
        currency: str,
    ) -> dict[int, dict[date, Decimal]]:
        """The cached prices per room type of ``first_night..last_night`` in ``currency`` (any
        case), alone: what every run reads for its whole horizon (every type of ``room_type_ids``
        is a key, with no nights when none is cached)."""
        ...

    def save_window_total(self, property_id: str, room_type_id: int, total: WindowTotal) -> None: ...

    def read_window_total(
        self, property_id: str, room_type_id: int, date_from: date, date_to: date
    ) -> WindowTotal | None: ...

    def clear_pms_prices(self, property_id: str, room_type_id: int | None = None) -> None:
        """Forget cached prices and totals of one room type, or of the whole property."""
        ...


class MappingStore(Protocol):
    def replace_mapping(self, property_id: str, mapping: PropertyMapping) -> None:
        """Make ``mapping`` (as ``roomsync.core.mapping.parse_mapping`` returns it) the property's
        whole mapping, in one transaction."""
        ...

    def load_mapping(self, property_id: str) -> PropertyMapping | None:
        """The property's mapping, None when none was ever loaded."""
        ...

    def count_listings(self, property_id: str) -> int:
        """How many listings the property's mapping holds (0 without a mapping)."""
        ...


@dataclass(frozen=True)
class ListingState:
    listing: ListingKey
    paused: bool = False
    pause_reason: str | None = None
    approval_status: str | None = None
    """The channel's ``approvalStatus.statusCategory``, as last seen."""
    sync_category: str | None = None
    has_availability: bool | None = None
    last_synced_at: datetime | None = None
    last_sync_result: str | None = None


class ListingStateStore(Protocol):
    def get_listing_state(self, listing: ListingKey) -> ListingState:
        """The recorded state, or the default state of a listing never seen."""
        ...

    def list_listing_states(self, property_id: str) -> list[ListingState]: ...

    def set_paused(self, listing: ListingKey, paused: bool, reason: str | None = None) -> None: ...

    def set_approval_status(self, listing: ListingKey, status: str) -> None: ...

    def set_sync_category(self, listing: ListingKey, category: str) -> None: ...

    def set_has_availability(self, listing: ListingKey, has_availability: bool) -> None: ...

    def record_listing_sync(self, listing: ListingKey, at: datetime, result: str) -> None: ...


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


@dataclass(frozen=True)
class PendingPush:
    """One change the overbooking guard must push: nights of a room type whose occupancy changed
    in the PMS through ``source_listing_id`` (None: not through one listing)."""

    id: int
    property_id: str
    room_type_id: int
    nights: tuple[date, ...]
    source_listing_id: str | None
    recorded_at: datetime


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


class PendingPushStore(Protocol):
    """Targeted pushes recorded before they are made, so that a replica taking a property over
    makes the ones its previous owner had not finished, and none it had."""

    def record(
        self,
        property_id: str,
        room_type_id: int,
        nights: Collection[date],
        source_listing_id: str | None,
        at: datetime,
    ) -> int:
        """Record one change; returns its id."""
        ...

    def claim(self, property_id: str, claimant: str, at: datetime) -> list[PendingPush]:
        """Mark every unclaimed change of the property as ``claimant``'s and return them (oldest
        first); a change claimed already is not returned again."""
        ...

    def done(self, property_id: str, claimant: str) -> int:
        """Delete the changes ``claimant`` claimed (pushed, or given up); returns how many."""
        ...

    def release_claims(self, property_id: str) -> int:
        """Unclaim every change of the property (its new owner does this: whoever claimed them
        stopped before finishing); returns how many."""
        ...

    def waiting(self, property_id: str) -> int:
        """Changes recorded and not done (claimed or not)."""
        ...


class InboxStatus(StrEnum):
    PENDING = "pending"
    PROCESSING = "processing"
    DONE = "done"
    FAILED = "failed"
    REFUSED = "refused"
    """The service refused a request applying it needs (a 4xx such as 400 on a create): sending
    it again would fail the same way, so it waits for a person to fix the cause and replay it."""


@dataclass(frozen=True)
class NewDelivery:
    """A webhook delivery as the receiver hands it to the inbox."""

    property_id: str
    action: str
    body: str
    """The raw body, as received."""
    content_key: str
    """Fallback dedupe key when the delivery has no ``X-Webhook-Id`` (e.g. SHA-256 of the body)."""
    received_at: datetime
    webhook_id: str | None = None
    reservation_key: str | None = None
    """Confirmation code: deliveries of one reservation are processed in the order received."""
    parsed_ok: bool = True
    """False stores the delivery as ``failed`` straight away, for the record."""
    applied_on_receipt: bool = False
    """True stores it ``done`` straight away: a guest check (answered while the guest waited) or
    an event that is only kept has nothing left for the worker to do."""
    wait_for_disk: bool = True
    """False lets the store commit without waiting for its disk (Postgres: the write-ahead log
    flush): for guest checks, whose record nothing processes later and whose effect, a hold, is
    written in a transaction of its own that does wait."""


@dataclass(frozen=True)
class AcceptedDelivery:
    id: int
    duplicate: bool
    """True when the delivery was already in the inbox (``id`` is the earlier one's)."""


@dataclass(frozen=True)
class InboxItem:
    id: int
    property_id: str
    action: str
    body: str
    content_key: str
    received_at: datetime
    status: InboxStatus
    attempts: int
    webhook_id: str | None = None
    reservation_key: str | None = None
    parsed_ok: bool = True
    last_error: str | None = None
    processed_at: datetime | None = None


class WebhookInbox(Protocol):
    def accept_delivery(self, delivery: NewDelivery) -> AcceptedDelivery:
        """Store a delivery once: a repeat (same webhook id, or same content key) is a duplicate."""
        ...

    def claim_batch(
        self, property_id: str, limit: int, claimed_at: datetime, claimed_by: str | None = None
    ) -> list[InboxItem]:
        """Claim up to ``limit`` pending items, oldest first, marking them ``processing``.

        An item is not claimed while an earlier item of the same reservation is pending or
        processing, so one reservation's deliveries are processed in order. Safe when several
        workers claim at once.
        """
        ...

    def mark_done(self, property_id: str, item_id: int, at: datetime) -> None: ...

    def mark_failed(
        self, property_id: str, item_id: int, error: str, at: datetime, retry_at: datetime | None = None
    ) -> None:
        """Record a failure: back to ``pending`` (claimable from ``retry_at``) or, without
        ``retry_at``, ``failed`` for good."""
        ...

    def mark_refused(self, property_id: str, item_id: int, error: str, at: datetime) -> None:
        """Record that the service refused what the item needs: ``refused``, never retried on its
        own (``roomsync webhooks replay`` puts it back)."""
        ...

    def release_own_earlier_claims(self, property_id: str, replica: str, incarnation: str) -> int:
        """Put back to pending the items earlier incarnations of ``replica`` claimed (it was killed)."""
        ...

    def release_stale(self, property_id: str, claimed_before: datetime) -> int:
        """Put items claimed before ``claimed_before`` (a worker died) back to pending."""
        ...

    def get_item(self, property_id: str, item_id: int) -> InboxItem | None: ...

    def count_by_status(self, property_id: str) -> dict[InboxStatus, int]: ...


@dataclass(frozen=True)
class DeadLetter:
    id: int
    property_id: str
    received_at: datetime
    reason: str
    body: str
    headers: dict[str, str]
    """As received, with every secret-bearing header's value replaced."""


class DeadLetterStore(Protocol):
    def add_dead_letter(
        self, property_id: str, received_at: datetime, reason: str, body: str, headers: Mapping[str, str]
    ) -> int:
        """Keep a delivery that cannot be processed; secret-bearing headers are stripped."""
        ...

    def list_dead_letters(self, property_id: str, limit: int = 100) -> list[DeadLetter]:
        """Newest first."""
        ...

    def count_dead_letters(self, property_id: str) -> int: ...


@dataclass(frozen=True)
class ReservationLink:
    """Which PMS reservation a channel reservation became."""

    property_id: str
    confirmation_code: str
    status: str
    """``creating`` (claimed, not yet in the PMS), ``created``, ``cancelled``, ``failed``, ..."""
    created_at: datetime
    updated_at: datetime
    listing_id: str | None = None
    pms_reservation_id: int | None = None
    pms_customer_id: int | None = None
    last_payout: Decimal | None = None


class ReservationLinkStore(Protocol):
    def claim_link(
        self, property_id: str, confirmation_code: str, listing_id: str | None, at: datetime
    ) -> bool:
        """Record that a replica is creating the PMS reservation of ``confirmation_code``.

        True for the one caller that claimed it, False when it was already claimed or created,
        so a reservation is never created twice, even by two replicas at once.
        """
        ...

    def get_link(self, property_id: str, confirmation_code: str) -> ReservationLink | None: ...

    def record_created(
        self,
        property_id: str,
        confirmation_code: str,
        pms_reservation_id: int,
        pms_customer_id: int | None,
        at: datetime,
    ) -> None: ...

    def set_link_status(
        self,
        property_id: str,
        confirmation_code: str,
        status: str,
        at: datetime,
        last_payout: Decimal | None = None,
    ) -> None:
        """Change the status (and the last payout when given)."""
        ...
