"""The daemon as others see it: a property's status (what ``GET /admin/status`` answers,
``roomsync status`` prints and the console's pages show) and the refusal of a daemon that is
stopping.

Plain values: the daemon builds them (``roomsync.app.daemon.status``, ``.live_status``) and the
console reads them without importing the daemon (it is handed a desk that returns them,
``roomsync.app.console.ports``).
"""

from __future__ import annotations

from datetime import date, datetime

from pydantic import BaseModel, Field


class ShuttingDown(Exception):
    """The daemon is stopping and starts no new run."""


class PriceFillStatus(BaseModel):
    """Where the reading of the horizon's PMS prices stands."""

    horizon_nights: int
    unread_nights: int = Field(
        description="Nights of the horizon whose PMS price has not been read yet (for some room type)."
    )
    first_unread_night: date | None = Field(
        None, description="The first of them (they are read nearest first)."
    )
    read_by: date | None = Field(
        None, description="When they should all be read, at the reads the daemon's plan affords a day."
    )
    reads_per_day: int | None = Field(None, description="Price reads of unread nights a whole day affords.")
    policy: str = Field(description="unread_price_nights: keep (the channel's own price) or close.")
    explanation: str


class JobStatus(BaseModel):
    kind: str = Field(description="poll, prices (full sync), reconcile, repush or push (after webhooks).")
    every_seconds: float | None = Field(
        None, description="Planned seconds between runs (server time); None when not periodic or no budget."
    )
    next_run_at: datetime | None = None
    last_run_at: datetime | None = None
    last_result: str | None = None
    last_error: str | None = None
    healthy: bool = True


class ScheduleStatus(BaseModel):
    daemon_running: bool
    started_at: datetime | None = None
    poll_interval_seconds: float | None = Field(
        None, description="Seconds between availability polls (server time); None: none until the reset."
    )
    staleness_bound_seconds: float | None = Field(
        None, description="Longest a PMS change can wait before it reaches the channel."
    )
    polls_until_reset: int = 0
    detect_interval_seconds: float | None = Field(
        None,
        description="Seconds between closure and price detections (server time); None: none until the reset.",
    )
    detect_staleness_bound_seconds: float | None = Field(
        None, description="Longest a closure or price change can wait before it reaches the channel."
    )
    promised_p95_seconds: float | None = Field(
        None,
        description="What today's plan promises bookings and cancellations: 95 % of those made before "
        "the reset reach the channel within this, if they come as the learned week says.",
    )
    detect_promised_p95_seconds: float | None = Field(
        None, description="The same for closures, reopenings and price edits."
    )
    seconds_to_reset: float
    free_licence: bool
    explanation: str
    time_scale: float = 1.0
    jobs: list[JobStatus] = Field(default_factory=list)


class BudgetStatus(BaseModel):
    quota: int
    used: int
    used_local: int
    used_server: int
    remaining: int
    resets_at: datetime
    reserved: dict[str, int]
    refused: dict[str, int]


class ListingStatusRow(BaseModel):
    account_id: str
    listing_id: str
    state: str = Field("syncing", description="syncing, paused, not_connected, missing or never_synced.")
    reason: str | None = Field(None, description="Why the listing is not being synced, if it is not.")
    room_type_id: int | None = None
    kind: str | None = None
    mapped: bool = True
    paused: bool = False
    pause_reason: str | None = None
    approval_status: str | None = None
    sync_category: str | None = None
    last_synced_at: datetime | None = None
    last_sync_result: str | None = None
    drift_days: int | None = Field(None, description="Days found drifted by the last reconciliation.")


class InboxSummary(BaseModel):
    backlog: int
    oldest_age_seconds: float
    failed: int
    refused: int = Field(
        0, description="Events the service refused (4xx on a write): a booking not in the PMS, for a person."
    )
    dead_letters: int


class RunRow(BaseModel):
    id: int
    kind: str
    started_at: datetime
    finished_at: datetime | None = None
    result: str | None = None
    requests_spent: int = 0
    operations: int = 0
    price_elements: int = 0
    error: str | None = None


class FreshnessRow(BaseModel):
    kind: str = Field(description="availability (bookings, cancellations), closures or prices")
    read_at: datetime | None = Field(None, description="When the newest PMS read that sees it started.")
    age_seconds: float | None = Field(
        None, description="How old that read is: the staleness a hotel can see."
    )
    promised_p95_seconds: float | None = Field(
        None,
        description="What today's plan promises this kind of change: 95 % reach the channel within this "
        "(None: no run planned before the reset).",
    )


class PropertyStatus(BaseModel):
    property_id: str
    generated_at: datetime
    mapping_loaded: bool
    schedule: ScheduleStatus
    freshness: list[FreshnessRow] = Field(default_factory=list)
    budget: BudgetStatus
    prices: PriceFillStatus | None = Field(
        None, description="The horizon's nights whose PMS price has not been read yet, and when they will be."
    )
    listings: list[ListingStatusRow]
    inbox: InboxSummary
    recent_runs: list[RunRow]
