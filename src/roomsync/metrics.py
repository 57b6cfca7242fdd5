"""Every Prometheus metric roomsync exports, defined in this one place.

Label sets are bounded: ``endpoint`` is an operation name of the catalog (about 75), ``status``
an HTTP status code or ``error`` for a request that got no answer, ``priority`` one of four,
``property`` and ``listing`` come from the configured mapping, ``action`` from the closed set of
webhook event kinds (anything else is counted as ``unknown``), ``reason`` from the pause reasons.

A :class:`Metrics` owns its registry so that tests (and several daemons in one process) never
collide; the daemon exposes ``Metrics().registry`` on ``/metrics``.
"""

from __future__ import annotations

from prometheus_client import CollectorRegistry, Counter, Gauge, Histogram, ProcessCollector

REQUEST_BUCKETS = (0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1.0, 2.5, 5.0, 10.0, 30.0)
SYNC_BUCKETS = (0.1, 0.5, 1.0, 2.5, 5.0, 10.0, 30.0, 60.0, 120.0, 300.0)


RUN_KINDS = ("sync", "plan", "resync", "reconcile", "push_nights", "poll", "detect", "repush")
CHANGE_KINDS = ("availability", "closures", "prices")
"""What the front desk changes, by the read that sees it (``roomsync.core.activity.ChangeKind``)."""
RUN_RESULTS = ("ok", "ok_with_warnings", "partial", "failed", "no_budget")
PRIORITIES = ("guest", "availability", "prices", "reconcile")


def gauge_value(gauge: Gauge) -> float:
    """The current value of one gauge series (prometheus-client keeps it private)."""
    return float(gauge._value.get())


class Metrics:
    """The metric families of one roomsync process."""

    def __init__(self, registry: CollectorRegistry | None = None) -> None:
        self.registry = registry or CollectorRegistry()
        r = self.registry
        # process_cpu_seconds_total, process_resident_memory_bytes, process_open_fds, ... (Linux /proc)
        ProcessCollector(registry=r)
        self.requests = Counter(
            "roomsync_requests", "Requests sent to the service, by property, operation and HTTP status.",
            ["property", "endpoint", "status"], registry=r,
        )
        self.request_seconds = Histogram(
            "roomsync_request_duration_seconds", "Time from sending a request to its answer.",
            ["property", "endpoint"], buckets=REQUEST_BUCKETS, registry=r,
        )
        self.budget_used = Gauge(
            "roomsync_budget_used_requests", "Requests used today (all applications of the property).",
            ["property"], registry=r,
        )
        self.budget_remaining = Gauge(
            "roomsync_budget_remaining_requests", "Requests left today.", ["property"], registry=r,
        )
        self.budget_quota = Gauge(
            "roomsync_budget_quota_requests", "The property's daily quota.", ["property"], registry=r,
        )
        self.budget_reserved = Gauge(
            "roomsync_budget_reserved_requests", "Requests kept back from each priority.",
            ["property", "priority"], registry=r,
        )
        self.budget_refused = Counter(
            "roomsync_budget_refused", "Requests refused locally to keep a priority's reserve.",
            ["property", "priority"], registry=r,
        )
        self.sync_runs = Counter(
            "roomsync_sync_runs", "Sync runs by kind and result.", ["property", "kind", "result"], registry=r,
        )
        self.sync_seconds = Histogram(
            "roomsync_sync_duration_seconds", "Duration of sync runs.", ["property", "kind"],
            buckets=SYNC_BUCKETS, registry=r,
        )
        self.operations_sent = Counter(
            "roomsync_inventory_operations_sent", "Inventory operations confirmed by the channel.",
            ["property"], registry=r,
        )
        self.price_elements_sent = Counter(
            "roomsync_price_elements_sent", "Connected-channel price elements accepted.",
            ["property"], registry=r,
        )
        self.drift_days = Counter(
            "roomsync_drift_days", "Listing-days found drifted by reconciliation.", ["property"], registry=r,
        )
        self.webhooks = Counter(
            "roomsync_webhooks", "Webhook deliveries by property, action and result.",
            ["property", "action", "result"], registry=r,
        )
        self.inbox_backlog = Gauge(
            "roomsync_inbox_backlog_events", "Webhook events received but not yet processed.",
            ["property"], registry=r,
        )
        self.inbox_oldest_age = Gauge(
            "roomsync_inbox_oldest_age_seconds", "Age of the oldest unprocessed webhook event.",
            ["property"], registry=r,
        )
        self.refused_events = Gauge(
            "roomsync_webhook_events_refused",
            "Webhook events the service refused to apply (a 4xx on a write, a booking not in the PMS): "
            "they wait for a person to fix the cause and replay them.",
            ["property"], registry=r,
        )
        self.dead_letters = Gauge(
            "roomsync_dead_letters", "Deliveries kept for a person to look at.", ["property"], registry=r,
        )
        self.paused_listings = Gauge(
            "roomsync_paused_listings", "Listings roomsync may not push to, by reason.",
            ["property", "reason"], registry=r,
        )
        self.listing_last_success = Gauge(
            "roomsync_listing_last_success_timestamp_seconds",
            "Unix time of the last successful sync of a listing; time() minus this is its staleness.",
            ["property", "listing"], registry=r,
        )
        self.auth_failures = Counter(
            "roomsync_auth_failures", "Authentication failures against the service.",
            ["property"], registry=r,
        )
        self.poll_interval = Gauge(
            "roomsync_poll_interval_seconds", "Availability polling interval planned from the budget.",
            ["property"], registry=r,
        )
        self.staleness_bound = Gauge(
            "roomsync_staleness_bound_seconds",
            "Longest a PMS change can wait before it reaches the channel, under the current plan.",
            ["property"], registry=r,
        )
        self.detect_interval = Gauge(
            "roomsync_detect_interval_seconds",
            "Closure and price detection interval planned from the budget and the learned week.",
            ["property"], registry=r,
        )
        self.detect_staleness_bound = Gauge(
            "roomsync_detect_staleness_bound_seconds",
            "Longest a closure or price change can wait before it reaches the channel, under the "
            "current plan.",
            ["property"], registry=r,
        )
        self.promised_p95 = Gauge(
            "roomsync_promised_p95_seconds",
            "What today's plan promises each kind of change (availability, closures, prices): 95 % of "
            "those made before the quota resets reach the channel within this, if they come as the "
            "learned week says; compare with time() - roomsync_pms_read_timestamp_seconds.",
            ["property", "kind"], registry=r,
        )
        self.pms_read_time = Gauge(
            "roomsync_pms_read_timestamp_seconds",
            "Unix time of the newest PMS read that sees each kind of change (availability, closures, "
            "prices); time() minus this is the staleness a hotel can see.",
            ["property", "kind"], registry=r,
        )
        self.prices_unread_nights = Gauge(
            "roomsync_prices_unread_nights",
            "Nights of the horizon whose PMS price has not been read yet (a first start the day's budget "
            "could not afford at once); the channel keeps its own price or closes them "
            "(unread_price_nights).",
            ["property"], registry=r,
        )
        self.targeted_pushes = Counter(
            "roomsync_targeted_pushes", "Targeted pushes of webhook-driven occupancy changes, by result.",
            ["property", "result"], registry=r,
        )
        self.targeted_push_changes = Counter(
            "roomsync_targeted_push_changes",
            "Occupancy changes reported by the webhook bridge; several collapse into one targeted push.",
            ["property"], registry=r,
        )

    def start_property(self, property_id: str) -> None:
        """Create the property's counter series at 0, so a rate or an alert over them works from
        the first scrape instead of when the first event happens."""
        pid = property_id
        for kind in RUN_KINDS:
            for result in RUN_RESULTS:
                self.sync_runs.labels(pid, kind, result)
        for priority in PRIORITIES:
            self.budget_refused.labels(pid, priority)
        for counter in (
            self.auth_failures,
            self.operations_sent,
            self.price_elements_sent,
            self.drift_days,
            self.targeted_push_changes,
        ):
            counter.labels(pid)
        for result in RUN_RESULTS:
            self.targeted_pushes.labels(pid, result)
        self.refused_events.labels(pid).set(0)

    def metric_names(self) -> set[str]:
        """Every sample name this process can export (for the dashboard test)."""
        names: set[str] = set()
        for family in self.registry.collect():
            names.add(family.name)
            names.update(sample.name for sample in family.samples)
        return names
