"""What each console page shows, gathered from the store and the running daemons (no request to
the service), through the desk the console is handed (:mod:`.ports`). Plain functions returning
plain data; ``app.py`` renders them with the templates."""

from __future__ import annotations

from dataclasses import dataclass, field
from datetime import UTC, date, datetime, timedelta

from roomsync.adapters.store import Store
from roomsync.app.console.ports import ConsoleDesk
from roomsync.app.daemon_view import PropertyStatus
from roomsync.core.night_history import EntryKind, HistoryEntry
from roomsync.core.ports import ListingKey
from roomsync.core.sync.desired import nights_through


@dataclass(frozen=True)
class Gauge:
    """Today's budget as shares of the quota, for a bar: used, reserved for higher priorities, left."""

    quota: int
    used: int
    reserved: int
    left: int
    resets_at: datetime

    def percent(self, part: int) -> float:
        return round(100 * part / self.quota, 1) if self.quota else 0.0


@dataclass(frozen=True)
class PropertyCard:
    property_id: str
    health: str
    """``ok``, or what is failing."""
    served_here: bool
    last_sync: datetime | None
    oldest_listing_sync_age: timedelta | None
    staleness_bound_seconds: float | None
    promised_p95_seconds: float | None
    """What today's plan promises bookings and cancellations (95 % within), and below closures and
    prices."""
    detect_promised_p95_seconds: float | None
    gauge: Gauge
    paused: list[tuple[ListingKey, str]]
    """Paused listings and why."""
    listings: int


def gauge_of(status: PropertyStatus) -> Gauge:
    budget = status.budget
    reserved = min(max(budget.reserved.values(), default=0), budget.remaining)
    return Gauge(budget.quota, budget.used, reserved, budget.remaining - reserved, budget.resets_at)


def card_of(desk: ConsoleDesk, property_id: str, now: datetime) -> PropertyCard:
    status = desk.property_status(property_id, now)
    failing = [
        f"{job.kind}: {job.last_error or job.last_result}" for job in status.schedule.jobs if not job.healthy
    ]
    start_failure = desk.start_failure(property_id)
    if start_failure is not None:
        failing.insert(0, start_failure)
    context = desk.contexts[property_id]
    if context.paused:
        failing.insert(0, f"property paused: {context.paused_reason or 'by an admin'}")
    synced = [row.last_synced_at for row in status.listings if row.mapped and row.last_synced_at]
    finished = [run.finished_at for run in status.recent_runs if run.finished_at is not None]
    return PropertyCard(
        property_id=property_id,
        health="ok" if not failing else "; ".join(failing),
        served_here=desk.daemon_of(property_id) is not None,
        last_sync=max(finished) if finished else None,
        oldest_listing_sync_age=(now - min(synced)) if synced else None,
        staleness_bound_seconds=status.schedule.staleness_bound_seconds,
        promised_p95_seconds=status.schedule.promised_p95_seconds,
        detect_promised_p95_seconds=status.schedule.detect_promised_p95_seconds,
        gauge=gauge_of(status),
        paused=[
            (ListingKey(property_id, row.account_id, row.listing_id), row.reason or row.state)
            for row in status.listings
            if row.state in ("paused", "not_connected", "missing")
        ],
        listings=sum(1 for row in status.listings if row.mapped),
    )


@dataclass
class NightRow:
    night: date
    pms_free: int | None = None
    pms_price: str | None = None
    pushed: dict[str, object] = field(default_factory=dict)
    pushed_at: datetime | None = None
    channel: dict[str, object] = field(default_factory=dict)
    """What the channel confirmed last (a write or a read): the ledger."""
    drifted: set[str] = field(default_factory=set)
    """Fields whose channel value differs from roomsync's last push: a channel read (a resync, its
    plan, a reconciliation) found what someone else set there."""
    drift: bool = False
    """The channel shows another value than roomsync pushed (``drifted``), or a read recorded drift
    in the history that no push has repaired since (the repair failed)."""


def calendar_rows(
    store: Store, key: ListingKey, room_type_id: int, first: date, last: date
) -> list[NightRow]:
    """One row per night: the PMS (last read), roomsync's last push, the channel (ledger)."""
    nights = nights_through(first, last)
    rows = {night: NightRow(night) for night in nights}
    view = store.availability_view.read_nights(key.property_id, room_type_id, nights)
    for night, seen in view.items():
        rows[night].pms_free = seen.free_rooms
    prices = store.pms_prices.read_night_prices(key.property_id, room_type_id, first, last)
    for night, price in prices.items():
        rows[night].pms_price = f"{price.price} {price.currency}"
    entries = store.history.entries(key.property_id, key.account_id, key.listing_id, first, last)
    _apply_history(rows, entries)
    for night, entry in store.calendar.read_days(key, first, last).items():
        state = entry.state
        shown: dict[str, object] = {"available": state.available, "count": state.count}
        if state.price is not None:
            shown["price"] = int(state.price)
        row = rows[night]
        row.channel = {name: value for name, value in shown.items() if value is not None}
        # the ledger takes what a channel read saw, the history only what roomsync pushed
        row.drifted = {name for name, value in row.pushed.items() if row.channel.get(name) != value}
        row.drift = row.drift or bool(row.drifted)
    return [rows[night] for night in nights]


def _apply_history(rows: dict[date, NightRow], entries: list[HistoryEntry]) -> None:
    """Fold the entries (oldest first) over the nights: the last push per field, open drift."""
    for entry in entries:
        night = max(entry.first_night, min(rows))
        end = min(entry.last_night, max(rows))
        while night <= end:
            row = rows[night]
            if entry.kind is EntryKind.PUSH:
                row.pushed[entry.field] = entry.new
                row.pushed_at = entry.at
                row.drift = False
            elif entry.kind is EntryKind.DRIFT:
                row.drift = True
            night += timedelta(days=1)


def webhook_page(store: Store, property_id: str, limit: int = 50) -> dict[str, object]:
    records = store.webhook_records
    return {
        "events": records.recent_inbox(property_id, limit, None),
        "answers": records.recent_answers(property_id, limit),
        "dead_letters": store.dead_letters.list_dead_letters(property_id, limit),
        "counts": store.inbox.count_by_status(property_id),
    }


def utc_now() -> datetime:
    return datetime.now(UTC)
