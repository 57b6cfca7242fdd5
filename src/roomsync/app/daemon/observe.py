"""Wiring the daemon's parts to the metrics of :mod:`roomsync.metrics`.

* :class:`RequestMeter` is the clients' request hook: every HTTP request counted by operation and
  status, its latency observed, and authentication failures noticed (for the metric and readyz).
* :func:`set_budget_gauges` and :func:`set_store_gauges` (called by ``live_status.refresh_gauges``)
  set the gauges that describe stored state (budget, dead letters, inbox, listings), from the
  store: the budget's after each job, all of them before each scrape (the replica reads the
  store for all its properties at once); they send no request.
"""

from __future__ import annotations

import threading
from dataclasses import dataclass, field
from datetime import datetime

from roomsync.adapters.client import RequestRecord
from roomsync.adapters.store import Store
from roomsync.adapters.store.gauge_reads import GaugeFacts
from roomsync.app.daemon.status import SYNCED_RESULTS, listing_rows, rows_of
from roomsync.app.daemon_view import ListingStatusRow
from roomsync.app.sync.pauses import pause_label
from roomsync.core.budget import BudgetSnapshot, Reserves
from roomsync.core.catalog.types import Priority
from roomsync.core.ports import listing_text
from roomsync.metrics import Metrics, gauge_value
from roomsync.property_context import PropertyContext

AUTH_STATUSES = frozenset({401, 403})


@dataclass
class AuthState:
    """Whether the service accepts roomsync's credentials, as the last requests showed."""

    failing: bool = False
    last_failure: str | None = None
    last_checked: datetime | None = None


@dataclass
class RequestMeter:
    """The request hook shared by every client of the daemon (thread-safe, never raises)."""

    metrics: Metrics
    property_id: str
    auth: AuthState = field(default_factory=AuthState)
    _lock: threading.Lock = field(default_factory=threading.Lock)

    sent: int = 0
    """Requests counted so far (what was sent since the budget's gauges were read shows here)."""

    def __call__(self, record: RequestRecord) -> None:
        self.sent += 1
        status = "error" if record.status is None else str(record.status)
        self.metrics.requests.labels(self.property_id, record.operation, status).inc()
        self.metrics.request_seconds.labels(self.property_id, record.operation).observe(record.seconds)
        if record.status is None:
            return
        refused_token = record.operation == "request_token" and record.status in (400, 401)
        with self._lock:
            if refused_token or record.status in AUTH_STATUSES:
                self.metrics.auth_failures.labels(self.property_id).inc()
                self.auth.failing = True
                self.auth.last_failure = f"{record.operation} answered {record.status}"
            elif 200 <= record.status < 300:
                self.auth.failing = False


@dataclass
class GaugeState:
    """What the gauges need to remember between refreshes (refusal counters only go up)."""

    refused_seen: dict[Priority, int] = field(default_factory=dict)
    day: object = None


def set_budget_gauges(
    metrics: Metrics, state: GaugeState, snapshot: BudgetSnapshot, reserves: Reserves
) -> None:
    pid = snapshot.property_id
    metrics.budget_used.labels(pid).set(snapshot.used)
    metrics.budget_remaining.labels(pid).set(snapshot.remaining)
    metrics.budget_quota.labels(pid).set(snapshot.quota)
    if state.day != snapshot.day:  # a new quota day: the stored refusal counts start again at 0
        state.day = snapshot.day
        state.refused_seen = {}
    for priority in Priority:
        label = priority.name.lower()
        metrics.budget_reserved.labels(pid, label).set(reserves.count(priority, snapshot.quota))
        refused = snapshot.refused_by_priority.get(priority, 0)
        seen = state.refused_seen.get(priority, 0)
        if refused > seen:
            metrics.budget_refused.labels(pid, label).inc(refused - seen)
        state.refused_seen[priority] = max(refused, seen)


def set_store_gauges(metrics: Metrics, property_id: str, facts: GaugeFacts, now: datetime) -> None:
    """Dead letters, the inbox and the listings, as the store holds them (``facts``)."""
    metrics.dead_letters.labels(property_id).set(facts.dead_letters)
    backlog = facts.inbox
    metrics.inbox_backlog.labels(property_id).set(backlog.open)
    oldest = backlog.oldest_open_received_at
    age = 0.0 if oldest is None else max((now - oldest).total_seconds(), 0.0)
    metrics.inbox_oldest_age.labels(property_id).set(age)
    listings = facts.listings if facts.mapped else []
    set_listing_rows(metrics, property_id, rows_of(property_id, listings, facts.states, facts.facts, {}))


PAUSE_LABELS = ("not_connected", "missing", "room_type_missing", "unlinked", "suspend", "revoked", "other")


def set_listing_gauges(metrics: Metrics, store: Store, context: PropertyContext) -> None:
    """The listing gauges of one property, read from the store (its start)."""
    _, rows = listing_rows(store, context, {})
    set_listing_rows(metrics, context.property_id, rows)


def set_listing_rows(metrics: Metrics, property_id: str, rows: list[ListingStatusRow]) -> None:
    """Every mapped listing, synced or not: its last success (0 when it never succeeded, so a
    listing that never syncs is stale, and an alert can fire, instead of absent) and the count of
    listings not being synced by reason."""
    not_synced: dict[str, int] = dict.fromkeys(PAUSE_LABELS, 0)
    for row in rows:
        if not row.mapped:
            continue
        key = listing_text(row.account_id, row.listing_id)
        succeeded = (row.last_sync_result or "").startswith(SYNCED_RESULTS) and row.last_synced_at
        gauge = metrics.listing_last_success.labels(property_id, key)
        if succeeded and row.last_synced_at is not None:
            gauge.set(max(row.last_synced_at.timestamp(), gauge_value(gauge)))
        if row.state != "syncing" and row.state != "never_synced":
            not_synced[pause_label(row.reason or "")] += 1
    for label, count in not_synced.items():
        metrics.paused_listings.labels(property_id, label).set(count)
