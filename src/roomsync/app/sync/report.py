"""What one run did (or, for a plan, would do), for the CLI, the daemon and tests."""

from __future__ import annotations

from collections import Counter
from dataclasses import dataclass, field
from datetime import date, datetime
from enum import StrEnum

from roomsync.core.budget import BudgetSnapshot
from roomsync.core.catalog.types import Priority
from roomsync.core.ports import ListingKey, listing_text
from roomsync.core.sync import InventoryRequestPlan, PriceElement

COMMAND_LINE = "command line"
"""The trigger of a run nobody else names: one started from the command line."""

WRITE_OPERATIONS = frozenset({"update_inventory", "push_prices"})


class ListingStatus(StrEnum):
    WRITTEN = "written"
    """The channel accepted every planned request."""
    UNCHANGED = "unchanged"
    """The channel already holds the desired calendar: nothing sent."""
    PLANNED = "planned"
    """Dry run: the requests were planned, not sent."""
    PAUSED = "paused"
    """Not synced: unlinked, suspended, not connected (``reason`` says which)."""
    NO_BUDGET = "no_budget"
    """The day's budget refused a request of this listing at its priority."""
    FAILED = "failed"
    """The service refused a request or could not be reached; ``reason`` has the error."""
    SKIPPED = "skipped"
    """Left for the next full sync (``push_nights`` on a listing the ledger does not know yet)."""


@dataclass
class ListingOutcome:
    account_id: str
    listing_id: str
    room_type_id: int
    kind: str
    status: ListingStatus
    reason: str | None = None
    read_channel: bool = False
    """The channel calendar was read (first sync, resync, reconcile) instead of using the ledger."""
    days_changed: int = 0
    days_new: int = 0
    """Of ``days_changed``, the nights written for the first time, or given their first price: the
    horizon's new last night when the date moves (its rooms by the next poll, its price by the
    full sync that reads it), a listing's first sync. Written, but no change of the PMS."""
    operations: int = 0
    requests: list[InventoryRequestPlan] = field(default_factory=list)
    priority: Priority | None = None
    drift_days: int = 0
    """Reconcile: days whose channel state differed from the ledger."""

    @property
    def key(self) -> str:
        return listing_text(self.account_id, self.listing_id)

    @property
    def write_requests(self) -> int:
        return len(self.requests)


class PricesResult(StrEnum):
    NOTHING_TO_SEND = "nothing_to_send"
    PLANNED = "planned"
    OK = "ok"
    OK_WITH_WARNINGS = "ok_with_warnings"
    ERROR = "error"
    NO_BUDGET = "no_budget"
    FAILED = "failed"
    NOT_CONFIGURED = "not_configured"


@dataclass
class PricesOutcome:
    result: PricesResult = PricesResult.NOT_CONFIGURED
    elements: tuple[PriceElement, ...] = ()
    messages: list[str] = field(default_factory=list)
    """Warnings (result 2) or errors (result 3, or the failure) as the service gave them."""


@dataclass
class PmsSummary:
    room_types: int = 0
    availability_reads: int = 0
    closure_reads: int = 0
    price_reads: int = 0
    prices_complete: bool = True
    prices_failed: str | None = None
    """A price read failed for good (the run is partial; what was read before it is kept)."""
    prices_changed: int = 0
    price_edits: int = 0
    """The front-desk price edits among them (runs of nights of a room type: ``PmsPrices.edits``)."""
    prices_unknown: int = 0
    price_fill_reads: int = 0
    """Reads of nights that had no cached price (the cold cache's fill), a part of ``price_reads``."""
    prices_unread_nights: int = 0
    """Nights of the horizon still without a PMS price for some room type after the run."""
    first_unread_night: date | None = None
    closures_located: tuple[int, ...] = ()
    closures_remembered: tuple[int, ...] = ()
    closures_changed: tuple[int, ...] = ()
    """Room types whose closed nights differ from what the store knew (detection)."""
    property_closures_changed: bool = False
    closure_edits: int = 0
    """The runs of nights whose closure changed (:func:`roomsync.app.sync.closures.closure_edits`)."""


HEALTHY_RESULTS = frozenset({"ok", "ok_with_warnings"})
"""A run's results that leave the property in step (the recorder's ``result``): what the daemon's
health, its schedule's resume and the age of the newest read count as a run that ended well."""


@dataclass
class SyncReport:
    kind: str
    property_id: str
    started_at: datetime
    first_night: date | None = None
    last_night: date | None = None
    dry_run: bool = False
    finished_at: datetime | None = None
    run_id: int | None = None
    result: str = "running"
    error: str | None = None
    listings: list[ListingOutcome] = field(default_factory=list)
    prices: PricesOutcome = field(default_factory=PricesOutcome)
    pms: PmsSummary = field(default_factory=PmsSummary)
    requests_by_operation: Counter[str] = field(default_factory=Counter)
    notes: list[str] = field(default_factory=list)
    budget_remaining: int | None = None
    budget_quota: int | None = None
    budget: BudgetSnapshot | None = field(default=None, repr=False, compare=False)
    """The budget read when the run ended (the daemon's gauges take it rather than read it again)."""
    trigger: str = COMMAND_LINE
    """What started the run (the history of its nights says it: ``history.RunStamp``)."""

    @property
    def requests(self) -> int:
        """Requests this run sent (token requests and retries included)."""
        return sum(self.requests_by_operation.values())

    @property
    def writes(self) -> int:
        return sum(n for op, n in self.requests_by_operation.items() if op in WRITE_OPERATIONS)

    @property
    def operations(self) -> int:
        return sum(o.operations for o in self.listings if o.status is ListingStatus.WRITTEN)

    @property
    def planned_operations(self) -> int:
        return sum(o.operations for o in self.listings)

    @property
    def planned_write_requests(self) -> int:
        listing_writes = sum(o.write_requests for o in self.listings if o.status is not ListingStatus.PAUSED)
        return listing_writes + (1 if self.prices.elements else 0)

    @property
    def price_elements_sent(self) -> int:
        if self.prices.result in (PricesResult.OK, PricesResult.OK_WITH_WARNINGS):
            return len(self.prices.elements)
        return 0

    def outcome(self, listing: ListingKey) -> ListingOutcome | None:
        """The outcome of ``listing`` in this run, if it had one."""
        if listing.property_id != self.property_id:
            return None
        for candidate in self.listings:
            if candidate.account_id == listing.account_id and candidate.listing_id == listing.listing_id:
                return candidate
        return None


def report_as_dict(report: SyncReport) -> dict[str, object]:
    """The report for ``--json`` and the console: what the tables show, as plain data."""
    return {
        "kind": report.kind,
        "property": report.property_id,
        "run_id": report.run_id,
        "dry_run": report.dry_run,
        "result": report.result,
        "error": report.error,
        "first_night": report.first_night.isoformat() if report.first_night else None,
        "last_night": report.last_night.isoformat() if report.last_night else None,
        "started_at": report.started_at.isoformat(),
        "finished_at": report.finished_at.isoformat() if report.finished_at else None,
        "requests": report.requests,
        "writes": report.writes,
        "requests_by_operation": dict(report.requests_by_operation),
        "listings": [
            {
                "listing": outcome.key,
                "room_type_id": outcome.room_type_id,
                "kind": outcome.kind,
                "status": outcome.status.value,
                "reason": outcome.reason,
                "read_channel": outcome.read_channel,
                "days_changed": outcome.days_changed,
                "operations": outcome.operations,
                "write_requests": outcome.write_requests,
                "priority": outcome.priority.name.lower() if outcome.priority is not None else None,
                "drift_days": outcome.drift_days,
            }
            for outcome in report.listings
        ],
        "prices": {
            "result": report.prices.result.value,
            "elements": len(report.prices.elements),
            "messages": list(report.prices.messages),
        },
        "notes": list(report.notes),
        "budget_remaining": report.budget_remaining,
        "budget_quota": report.budget_quota,
    }
