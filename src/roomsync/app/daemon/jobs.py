"""What each kind of the daemon's runs did last, and whether it is healthy.

A run's end is written in its kind's :class:`JobRecord` (what the status shows) and in the
:class:`~.health.HealthLog` (which logs a kind's health only when it changes). A failure is said
in one short, stable line, so a run failing the same way again is not logged again.
"""

from __future__ import annotations

from dataclasses import dataclass
from datetime import datetime

from roomsync.app.daemon.health import HealthLog
from roomsync.app.sync import ListingStatus, SyncReport
from roomsync.app.sync.report import HEALTHY_RESULTS


@dataclass
class JobRecord:
    last_run_at: datetime | None = None
    last_result: str | None = None
    last_error: str | None = None


def describe_failure(report: SyncReport) -> str:
    """A short, stable reason (health is logged again only when the reason changes)."""
    if report.result == "no_budget":
        return "the day's budget refuses its requests until the quota resets"
    if report.result == "failed":
        return (report.error or "failed").splitlines()[0][:300]
    troubled = [
        f"{o.key} {o.status.value}"
        for o in report.listings
        if o.status in (ListingStatus.FAILED, ListingStatus.NO_BUDGET)
    ]
    if report.prices.result.value in ("error", "failed", "no_budget"):
        troubled.append(f"connected prices {report.prices.result.value}")
    return ("partly failed: " + ", ".join(troubled))[:300]


def service_failed(report: SyncReport) -> bool:
    """The run failed or stopped short because of the service (an error, a read that gave up), not
    because the budget refused it: only the former is worth trying again soon."""
    if report.result == "failed":
        return True
    if report.result != "partial":
        return False
    return (
        report.pms.prices_failed is not None
        or any(o.status is ListingStatus.FAILED for o in report.listings)
        or report.prices.result.value in ("error", "failed")
    )


def record_crash(
    jobs: dict[str, JobRecord], health: HealthLog, kind: str, crash: str | None, now: datetime
) -> None:
    """A run of ``kind`` raised instead of returning its report."""
    record = jobs.setdefault(kind, JobRecord())
    record.last_run_at = now
    record.last_result, record.last_error = "failed", crash
    health.failure(kind, crash or "failed", now)


def record_report(
    jobs: dict[str, JobRecord], health: HealthLog, kind: str, report: SyncReport, now: datetime
) -> bool:
    """A run of ``kind`` ended with ``report``; whether it ended healthy."""
    record = jobs.setdefault(kind, JobRecord())
    record.last_run_at = now
    record.last_result, record.last_error = report.result, report.error
    if report.result in HEALTHY_RESULTS:
        health.success(kind, now)
        return True
    health.failure(kind, describe_failure(report), now)
    return False
