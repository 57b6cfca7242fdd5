"""The store's tables, as SQLModel classes (migrations 0001 and 0002 create exactly these).

Every table is keyed by ``property_id`` first, so one database serves many properties and each
query of one property reads one contiguous range of the primary key or of an index.
The repositories use the Core tables (``TABLES``) for set-based, race-free SQL.
"""

# No ``from __future__ import annotations``: SQLModel reads these annotations at class creation.

from datetime import date, datetime
from decimal import Decimal
from typing import Any

import sqlalchemy as sa
from sqlalchemy.dialects.postgresql import JSONB
from sqlalchemy.orm import registry
from sqlmodel import Field, SQLModel

from roomsync.adapters.store.column_types import ExactDecimal, Money, UtcDateTime

JSON_TYPE = sa.JSON().with_variant(JSONB(), "postgresql")


class StoreModel(SQLModel, registry=registry()):
    """Base of the store's tables: their own metadata, apart from any other SQLModel tables."""


def _utc(**kwargs: Any) -> Any:
    return Field(sa_type=UtcDateTime(), **kwargs)


def _money(**kwargs: Any) -> Any:
    return Field(sa_type=Money(), **kwargs)


def _exact(**kwargs: Any) -> Any:
    return Field(sa_type=ExactDecimal(), **kwargs)


class TokenRow(StoreModel, table=True):
    __tablename__ = "token"
    property_id: str = Field(primary_key=True)
    access_token: str = Field(sa_type=sa.Text())
    expires_at: datetime = _utc()


class BudgetDayRow(StoreModel, table=True):
    __tablename__ = "budget_day"
    property_id: str = Field(primary_key=True)
    day: date = Field(primary_key=True)
    """The budget period's key: the day before the server's reset instant ends it (the UTC date
    when the quota resets at 00:00 UTC), ``roomsync.core.budget.budget_period``."""
    quota: int
    used_local: int = 0
    used_server: int = 0
    server_quota: int | None = None
    """The daily limit the server stated (usage headers, ``GET /v1/Usage``), if it did."""
    server_resets_at: datetime | None = _utc(default=None, nullable=True)
    """The reset instant the server stated, if it did."""
    spent_guest: int = 0
    spent_availability: int = 0
    spent_prices: int = 0
    spent_reconcile: int = 0
    refused_guest: int = 0
    refused_availability: int = 0
    refused_prices: int = 0
    refused_reconcile: int = 0


class CalendarDayRow(StoreModel, table=True):
    __tablename__ = "calendar_day"
    property_id: str = Field(primary_key=True)
    account_id: str = Field(primary_key=True)
    listing_id: str = Field(primary_key=True)
    day: date = Field(primary_key=True)
    available: str | None = None
    count: int | None = None
    price: Decimal | None = _money(default=None, nullable=True)
    min_nights: int | None = None
    max_nights: int | None = None
    cta: bool | None = None
    ctd: bool | None = None
    confirmed_at: datetime = _utc()


class ChannelPriceRow(StoreModel, table=True):
    __tablename__ = "channel_price"
    property_id: str = Field(primary_key=True)
    room_type_id: int = Field(primary_key=True, sa_column_kwargs={"autoincrement": False})
    room_rate_type: int = Field(primary_key=True, sa_column_kwargs={"autoincrement": False})
    day: date = Field(primary_key=True)
    price: Decimal = _money()
    pushed_at: datetime = _utc()


class PmsNightPriceRow(StoreModel, table=True):
    __tablename__ = "pms_night_price"
    property_id: str = Field(primary_key=True)
    room_type_id: int = Field(primary_key=True, sa_column_kwargs={"autoincrement": False})
    night: date = Field(primary_key=True)
    price: Decimal = _money()
    currency: str
    read_at: datetime = _utc()


class StoreGenerationRow(StoreModel, table=True):
    """A token drawn anew, in the writing transaction, by every write of what ``what`` names of a
    property (``pms_prices``, ``mapping``): a reader that holds what a generation said need not
    read its rows again (``generations``)."""

    __tablename__ = "store_generation"
    property_id: str = Field(primary_key=True)
    what: str = Field(primary_key=True)
    generation: str


class PmsWindowTotalRow(StoreModel, table=True):
    __tablename__ = "pms_window_total"
    property_id: str = Field(primary_key=True)
    room_type_id: int = Field(primary_key=True, sa_column_kwargs={"autoincrement": False})
    date_from: date = Field(primary_key=True)
    date_to: date = Field(primary_key=True)
    total: Decimal = _money()
    currency: str
    read_at: datetime = _utc()


class PropertyMappingRow(StoreModel, table=True):
    __tablename__ = "property_mapping"
    property_id: str = Field(primary_key=True)
    currency: str
    """The PMS's currency, as the mapping declares it."""


_MAPPING_OF_PROPERTY = "property_mapping.property_id"


class ListingMappingRow(StoreModel, table=True):
    __tablename__ = "listing_mapping"
    __table_args__ = (sa.Index("ix_listing_mapping_room_type", "property_id", "room_type_id"),)
    property_id: str = Field(primary_key=True, foreign_key=_MAPPING_OF_PROPERTY, ondelete="CASCADE")
    account_id: str = Field(primary_key=True)
    listing_id: str = Field(primary_key=True)
    position: int
    """Order of the entry in the mapping it was loaded from."""
    room_type_id: int
    kind: str
    currency: str
    markup_percent: Decimal = _exact()
    markup_amount: Decimal = _exact()
    min_nights: int | None = None
    max_nights: int | None = None
    closed_to_arrival: list[int] = Field(sa_type=JSON_TYPE)
    """Weekdays, 0 = Sunday (document 01)."""
    closed_to_departure: list[int] = Field(sa_type=JSON_TYPE)
    availability_rules: dict[str, Any] | None = Field(default=None, sa_type=JSON_TYPE, nullable=True)


class ConnectedPushRow(StoreModel, table=True):
    __tablename__ = "connected_push"
    property_id: str = Field(primary_key=True, foreign_key=_MAPPING_OF_PROPERTY, ondelete="CASCADE")
    room_type_id: int = Field(primary_key=True, sa_column_kwargs={"autoincrement": False})
    position: int
    standard: bool
    non_refundable_discount_percent: Decimal | None = _exact(default=None, nullable=True)


class ListingStateRow(StoreModel, table=True):
    __tablename__ = "listing_state"
    property_id: str = Field(primary_key=True)
    account_id: str = Field(primary_key=True)
    listing_id: str = Field(primary_key=True)
    paused: bool = False
    pause_reason: str | None = None
    approval_status: str | None = None
    sync_category: str | None = None
    has_availability: bool | None = None
    last_synced_at: datetime | None = _utc(default=None, nullable=True)
    last_sync_result: str | None = None


class SyncRunRow(StoreModel, table=True):
    __tablename__ = "sync_run"
    __table_args__ = (
        sa.Index("ix_sync_run_property_started", "property_id", "started_at"),
        sa.Index("ix_sync_run_property_open", "property_id", "result"),
    )
    id: int | None = Field(default=None, primary_key=True)
    property_id: str
    kind: str
    started_at: datetime = _utc()
    finished_at: datetime | None = _utc(default=None, nullable=True)
    result: str | None = None
    requests_spent: int = 0
    operations: int = 0
    price_elements: int = 0
    error: str | None = Field(default=None, sa_type=sa.Text())
    heartbeat_at: datetime | None = _utc(default=None, nullable=True)
    price_fill_reads: int = Field(default=0, sa_column_kwargs={"server_default": sa.text("0")})


class WebhookInboxRow(StoreModel, table=True):
    __tablename__ = "webhook_inbox"
    __table_args__ = (
        sa.UniqueConstraint("property_id", "webhook_id", name="uq_webhook_inbox_webhook_id"),
        sa.UniqueConstraint("property_id", "content_key", name="uq_webhook_inbox_content_key"),
        # claim: the pending items of a property, oldest first
        sa.Index("ix_webhook_inbox_status", "property_id", "status", "id"),
        # claim: is an earlier item of the same reservation still open?
        sa.Index("ix_webhook_inbox_reservation", "property_id", "reservation_key", "id"),
    )
    id: int | None = Field(default=None, primary_key=True)
    property_id: str
    webhook_id: str | None = None
    content_key: str
    action: str
    reservation_key: str | None = None
    received_at: datetime = _utc()
    body: str = Field(sa_type=sa.Text())
    parsed_ok: bool
    status: str
    attempts: int = 0
    last_error: str | None = Field(default=None, sa_type=sa.Text())
    not_before: datetime | None = _utc(default=None, nullable=True)
    """A retried item is not claimed before this time."""
    claimed_at: datetime | None = _utc(default=None, nullable=True)
    claimed_by: str | None = None
    """The claiming worker, ``<replica>/<incarnation>``: a restarted replica takes its own back."""
    processed_at: datetime | None = _utc(default=None, nullable=True)


class DeadLetterRow(StoreModel, table=True):
    __tablename__ = "dead_letter"
    __table_args__ = (sa.Index("ix_dead_letter_property", "property_id", "id"),)
    id: int | None = Field(default=None, primary_key=True)
    property_id: str
    received_at: datetime = _utc()
    reason: str = Field(sa_type=sa.Text())
    body: str = Field(sa_type=sa.Text())
    headers: dict[str, str] = Field(sa_type=JSON_TYPE)


class NightHistoryRow(StoreModel, table=True):
    """The history of nights (``roomsync.core.night_history``): one row per run of consecutive nights
    that one confirmed request (or channel read) changed alike; kept ``history_keep_days``."""

    __tablename__ = "night_history"
    __table_args__ = (
        sa.Index("ix_night_history_listing", "property_id", "account_id", "listing_id", "last_night"),
        sa.Index("ix_night_history_at", "property_id", "at"),
    )
    id: int | None = Field(default=None, primary_key=True)
    property_id: str
    account_id: str
    listing_id: str
    first_night: date
    last_night: date
    at: datetime = _utc()
    kind: str
    field: str
    old_value: Any = Field(default=None, sa_type=JSON_TYPE, nullable=True)
    new_value: Any = Field(default=None, sa_type=JSON_TYPE, nullable=True)
    facts: dict[str, Any] = Field(default_factory=dict, sa_type=JSON_TYPE)
    request: dict[str, Any] = Field(default_factory=dict, sa_type=JSON_TYPE)
    trigger: str = Field(sa_type=sa.Text())
    run_kind: str
    run_id: int | None = None


class ReservationLinkRow(StoreModel, table=True):
    __tablename__ = "reservation_link"
    __table_args__ = (sa.Index("ix_reservation_link_pms_reservation", "property_id", "pms_reservation_id"),)
    property_id: str = Field(primary_key=True)
    confirmation_code: str = Field(primary_key=True)
    listing_id: str | None = None
    status: str
    pms_reservation_id: int | None = Field(default=None, sa_type=sa.BigInteger())
    pms_customer_id: int | None = Field(default=None, sa_type=sa.BigInteger())
    last_payout: Decimal | None = _money(default=None, nullable=True)
    created_at: datetime = _utc()
    updated_at: datetime = _utc()


# --- migration 0002: what the webhook receiver answers guests from, and what it applied ----------


class AvailabilityViewRow(StoreModel, table=True):
    """Free rooms per room type and night as the PMS last said, plus roomsync's own holds since."""

    __tablename__ = "availability_view"
    property_id: str = Field(primary_key=True)
    room_type_id: int = Field(primary_key=True, sa_column_kwargs={"autoincrement": False})
    night: date = Field(primary_key=True)
    free_rooms: int
    """Rooms of the type free that night in the PMS read of ``read_at``."""
    held: int = 0
    """Holds the read of ``read_at`` cannot have seen; a booking needs ``free_rooms - held >= 1``."""
    read_at: datetime = _utc()
    """When the PMS read that gave ``free_rooms`` started."""
    stale: bool = False
    """Set when roomsync knows the PMS changed (a cancellation): re-read before trusting it."""
    free_room_ids: str | None = Field(default=None, sa_type=sa.Text())
    """The ids of those free rooms, comma-separated (a stay needs one room free every night);
    None for a row written before roomsync kept them."""


class AvailabilityHoldRow(StoreModel, table=True):
    """One night a channel reservation occupies, as roomsync knows it."""

    __tablename__ = "availability_hold"
    __table_args__ = (sa.Index("ix_availability_hold_night", "property_id", "room_type_id", "night"),)
    property_id: str = Field(primary_key=True)
    confirmation_code: str = Field(primary_key=True)
    night: date = Field(primary_key=True)
    room_type_id: int
    held_at: datetime = _utc()
    reflected_after: datetime | None = _utc(default=None, nullable=True)
    """When the PMS was known to hold the night too; a PMS read started later includes it."""
    room_id: int | None = None
    """The room the hold keeps for the stay (one room free on every night), if roomsync chose one."""


class CheckoutAnswerRow(StoreModel, table=True):
    """What roomsync answered a CheckAvailability, MakeReservation or UpdateReservation, and why."""

    __tablename__ = "checkout_answer"
    __table_args__ = (sa.Index("ix_checkout_answer_property", "property_id", "id"),)
    id: int | None = Field(default=None, primary_key=True)
    property_id: str
    action: str
    confirmation_code: str | None = None
    listing_id: str
    start_date: date
    nights: int
    succeed: bool
    reason: str = Field(sa_type=sa.Text())
    answered_at: datetime = _utc()
    inbox_id: int | None = None


PROPERTY_WIDE = 0
"""``room_type_id`` of the closures of the whole property (PMS room type ids start at 1)."""


class ClosureScopeRow(StoreModel, table=True):
    """When the closures of one scope (the property, or one room type) were last read: the row a
    writer locks and compares, so an earlier read never replaces a later one."""

    __tablename__ = "closure_scope"
    property_id: str = Field(primary_key=True)
    room_type_id: int = Field(primary_key=True, sa_column_kwargs={"autoincrement": False})
    """A room type, or ``PROPERTY_WIDE``."""
    read_at: datetime = _utc()


class LocatedClosureRow(StoreModel, table=True):
    """A run of closed nights of one scope, as the last sync located it (a cache of requests)."""

    __tablename__ = "located_closure"
    property_id: str = Field(primary_key=True)
    room_type_id: int = Field(primary_key=True, sa_column_kwargs={"autoincrement": False})
    first_night: date = Field(primary_key=True)
    last_night: date


class ListingFactRow(StoreModel, table=True):
    """What ``GET Listings`` last said of a mapped listing beyond ``listing_state``."""

    __tablename__ = "listing_fact"
    property_id: str = Field(primary_key=True)
    account_id: str = Field(primary_key=True)
    listing_id: str = Field(primary_key=True)
    missing: bool = False
    total_inventory_count: int | None = None
    read_at: datetime = _utc()


class ListingDigestRow(StoreModel, table=True):
    """A listing's sync digest: its ledger is its desired calendar for these inputs. ``version``
    moves on at every change (compare-and-set)."""

    __tablename__ = "listing_digest"
    property_id: str = Field(primary_key=True)
    account_id: str = Field(primary_key=True)
    listing_id: str = Field(primary_key=True)
    digest: str | None = Field(default=None, nullable=True)
    version: int = 1


class PendingPushRow(StoreModel, table=True):
    """A change the overbooking guard has to push (nights in ``pending_push_night``)."""

    __tablename__ = "pending_push"
    __table_args__ = (sa.Index("ix_pending_push_property", "property_id", "id"),)
    id: int | None = Field(default=None, primary_key=True)
    property_id: str
    room_type_id: int
    source_listing_id: str | None = None
    recorded_at: datetime = _utc()
    claimed_by: str | None = None
    """The flush that is pushing it (None: waiting)."""
    claimed_at: datetime | None = _utc(default=None, nullable=True)


class PendingPushNightRow(StoreModel, table=True):
    __tablename__ = "pending_push_night"
    push_id: int = Field(
        primary_key=True,
        foreign_key="pending_push.id",
        ondelete="CASCADE",
        sa_column_kwargs={"autoincrement": False},
    )
    night: date = Field(primary_key=True)


class ChannelReservationRow(StoreModel, table=True):
    """A channel reservation as the last applied event showed it, and what the PMS was given."""

    __tablename__ = "channel_reservation"
    property_id: str = Field(primary_key=True)
    confirmation_code: str = Field(primary_key=True)
    listing_id: str
    room_type_id: int | None = None
    start_date: date
    nights: int
    status_type: str
    """The channel's ``statusType`` (``accept``, ``cancelled_by_guest``, ``pending``, ...)."""
    channel_updated_at: datetime | None = _utc(default=None, nullable=True)
    """The event's ``updatedAt``: an older event than the one applied is not applied."""
    last_action: str
    pms_status: int | None = None
    pms_room_id: int | None = Field(default=None, sa_type=sa.BigInteger())
    pms_date_from: date | None = None
    pms_date_to: date | None = None
    pms_total: Decimal | None = _money(default=None, nullable=True)
    unpushed_nights: str | None = Field(default=None, sa_type=sa.Text())
    """Nights whose push to the other listings failed (ISO dates, comma-separated), tried again."""
    updated_at: datetime = _utc()


class PropertyRow(StoreModel, table=True):
    """A property of the deployment (``roomsync properties add``): the settings it sets for itself
    and references to its secrets (``env:VAR`` / ``file:PATH``), never a secret in clear."""

    __tablename__ = "property"
    property_id: str = Field(primary_key=True)
    overrides: dict[str, Any] = Field(default_factory=dict, sa_type=JSON_TYPE)
    secret_refs: dict[str, str] = Field(default_factory=dict, sa_type=JSON_TYPE)
    paused: bool = False
    paused_reason: str | None = Field(default=None, sa_type=sa.Text(), nullable=True)
    created_at: datetime = _utc()


class ActivityWeightRow(StoreModel, table=True):
    """How many changes of one kind the schedule saw in one hour of the property's local week,
    decayed to ``updated_at`` (``roomsync.core.activity``)."""

    __tablename__ = "activity_weight"
    property_id: str = Field(primary_key=True)
    kind: str = Field(primary_key=True)
    hour_of_week: int = Field(primary_key=True, sa_column_kwargs={"autoincrement": False})
    weight: float
    updated_at: datetime = _utc()


class AvailabilityReadMarkRow(StoreModel, table=True):
    """What the last whole-range PMS read saved into ``availability_view`` said, as a digest: a
    poll whose read says the same (most of them) dates the rows without reading them back."""

    __tablename__ = "availability_read_mark"
    property_id: str = Field(primary_key=True)
    room_type_ids: str
    """The read's room types, comma-separated in ascending order."""
    first_night: date
    last_night: date
    digest: str
    """A digest of what the read said night by night: free rooms and their ids (``availability_reads``)."""
    read_at: datetime = _utc()


METADATA = StoreModel.metadata
TABLES = METADATA.tables

TOKEN = TABLES["token"]
BUDGET_DAY = TABLES["budget_day"]
CALENDAR_DAY = TABLES["calendar_day"]
CHANNEL_PRICE = TABLES["channel_price"]
PMS_NIGHT_PRICE = TABLES["pms_night_price"]
STORE_GENERATION = TABLES["store_generation"]
PMS_WINDOW_TOTAL = TABLES["pms_window_total"]
PROPERTY_MAPPING = TABLES["property_mapping"]
LISTING_MAPPING = TABLES["listing_mapping"]
CONNECTED_PUSH = TABLES["connected_push"]
LISTING_STATE = TABLES["listing_state"]
SYNC_RUN = TABLES["sync_run"]
WEBHOOK_INBOX = TABLES["webhook_inbox"]
DEAD_LETTER = TABLES["dead_letter"]
NIGHT_HISTORY = TABLES["night_history"]
RESERVATION_LINK = TABLES["reservation_link"]
AVAILABILITY_VIEW = TABLES["availability_view"]
AVAILABILITY_HOLD = TABLES["availability_hold"]
CHECKOUT_ANSWER = TABLES["checkout_answer"]
CHANNEL_RESERVATION = TABLES["channel_reservation"]
CLOSURE_SCOPE = TABLES["closure_scope"]
LOCATED_CLOSURE = TABLES["located_closure"]
LISTING_FACT = TABLES["listing_fact"]
LISTING_DIGEST = TABLES["listing_digest"]
PENDING_PUSH = TABLES["pending_push"]
PENDING_PUSH_NIGHT = TABLES["pending_push_night"]
PROPERTY = TABLES["property"]
ACTIVITY_WEIGHT = TABLES["activity_weight"]
AVAILABILITY_READ_MARK = TABLES["availability_read_mark"]
