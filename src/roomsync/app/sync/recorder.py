"""The run record: every run of a property as a row of ``store.sync_runs``, kept alive by a
heartbeat while it works, closed with its result, and counted in the metrics.

Each run function (``roomsync.app.sync.runs``) hands its body to :meth:`RunRecorder.run`; the body fills a
:class:`~roomsync.app.sync.report.SyncReport`, the recorder decides the result from it (or from
the exception that ended it), counts the requests the run sent, and records all of it. A plan is
not recorded (it writes nothing) but its report is completed the same way.
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
import time
from collections import Counter
from collections.abc import Awaitable, Callable
from datetime import datetime
from typing import TYPE_CHECKING

from roomsync.adapters.client import QuotaExhausted, ServiceError
from roomsync.adapters.store import Store
from roomsync.app.sync.errors import NoMapping
from roomsync.app.sync.report import COMMAND_LINE, ListingStatus, PricesResult, SyncReport
from roomsync.metrics import Metrics
from roomsync.property_context import PropertyContext

if TYPE_CHECKING:
    from roomsync.adapters.client import ServiceClient

log = logging.getLogger("roomsync.sync")

RunBody = Callable[[SyncReport], Awaitable[None]]


class RunRecorder:
    """Records the runs of one property (see the module docstring)."""

    def __init__(
        self,
        context: PropertyContext,
        store: Store,
        client: ServiceClient,
        *,
        metrics: Metrics | None,
        clock: Callable[[], datetime],
    ) -> None:
        self.property_id = context.property_id
        self.settings = context.settings
        self.store = store
        self.client = client
        self.metrics = metrics
        self.clock = clock
        self.runs_in_flight: set[int] = set()
        """Ids of the runs in progress here (alive, whatever their heartbeat says)."""
        self.runs_starting = 0
        """Runs whose row is being written and whose id is not in ``runs_in_flight`` yet."""

    async def run(
        self, kind: str, dry_run: bool, body: RunBody, *, trigger: str = COMMAND_LINE
    ) -> SyncReport:
        """Run ``body`` as one recorded run of ``kind`` started by ``trigger``; a crash is recorded,
        then raised again."""
        started = self.clock()
        clock_started = time.perf_counter()
        report = SyncReport(
            kind=kind, property_id=self.property_id, started_at=started, dry_run=dry_run, trigger=trigger
        )
        sent_before = Counter(self.client.requests_sent.by_operation)
        if not dry_run:
            # the row is visible to the sweeper before its id is in runs_in_flight: say so
            self.runs_starting += 1
            try:
                report.run_id = await asyncio.to_thread(
                    self.store.sync_runs.start_run, self.property_id, kind, started
                )
                self.runs_in_flight.add(report.run_id)
            finally:
                self.runs_starting -= 1
        failure: BaseException | None = None
        beating = None
        if report.run_id is not None:
            beating = asyncio.create_task(self._beat(report.run_id))
        try:
            await body(report)
            report.result = result_of(report)
        except QuotaExhausted as refused:
            report.result, report.error = "no_budget", str(refused)
        except (ServiceError, NoMapping) as error:
            report.result, report.error = "failed", str(error)
            if isinstance(error, NoMapping):
                failure = error
        except BaseException as error:  # a crash: record it, then let it go on
            report.result, report.error = "failed", f"{type(error).__name__}: {error}"
            failure = error
        if beating is not None:
            beating.cancel()
            with contextlib.suppress(asyncio.CancelledError):
                await beating
        report.finished_at = self.clock()
        sent = Counter(self.client.requests_sent.by_operation)
        sent.subtract(sent_before)
        report.requests_by_operation = +sent
        # a run that sent requests has the row its last spend returned (a quiet poll spared a
        # store read, issue 26); a run that sent none reads it
        latest = self.client.latest_budget() if report.requests_by_operation else None
        report.budget = budget = latest if latest is not None else self.client.budget()
        report.budget_remaining, report.budget_quota = budget.remaining, budget.quota
        if report.run_id is not None:
            try:
                await asyncio.to_thread(self._finish, report)
            finally:
                self.runs_in_flight.discard(report.run_id)
        self._measure(report, time.perf_counter() - clock_started)
        if failure is not None:
            raise failure
        return report

    async def _beat(self, run_id: int) -> None:
        """Record every ``run_heartbeat_seconds`` that the run is alive (a killed process stops,
        and the daemon later closes the run as abandoned)."""
        interval = self.settings.run_heartbeat_seconds * self.settings.time_scale
        warned = False
        while True:
            await asyncio.sleep(interval)
            try:
                await asyncio.to_thread(self.store.sync_runs.beat_run, self.property_id, run_id, self.clock())
            except Exception as error:  # a missed beat only risks the run being called abandoned
                if not warned:
                    log.warning("sync run %d could not record its heartbeat: %s", run_id, error)
                    warned = True

    def _finish(self, report: SyncReport) -> None:
        assert report.run_id is not None and report.finished_at is not None
        detail = report.error
        if report.prices.messages and report.prices.result is not PricesResult.OK:
            prefix = (
                "price warnings" if report.prices.result is PricesResult.OK_WITH_WARNINGS else "price errors"
            )
            detail = "; ".join(filter(None, [detail, f"{prefix}: " + " | ".join(report.prices.messages)]))
        self.store.sync_runs.finish_run(
            self.property_id,
            report.run_id,
            report.finished_at,
            report.result,
            requests_spent=report.requests,
            operations=report.operations,
            price_elements=report.price_elements_sent,
            error=detail,
            price_fill_reads=report.pms.price_fill_reads,
        )

    def _measure(self, report: SyncReport, seconds: float) -> None:
        metrics = self.metrics
        if metrics is None or report.dry_run:
            return
        pid = self.property_id
        metrics.sync_runs.labels(pid, report.kind, report.result).inc()
        metrics.sync_seconds.labels(pid, report.kind).observe(seconds)
        metrics.operations_sent.labels(pid).inc(report.operations)
        metrics.price_elements_sent.labels(pid).inc(report.price_elements_sent)
        finished = (report.finished_at or self.clock()).timestamp()
        for outcome in report.listings:  # the listings not being synced are counted from the store
            if outcome.status in (ListingStatus.WRITTEN, ListingStatus.UNCHANGED):
                metrics.listing_last_success.labels(pid, outcome.key).set(finished)
            if outcome.drift_days:
                metrics.drift_days.labels(pid).inc(outcome.drift_days)


def result_of(report: SyncReport) -> str:
    """The run's result from what its report holds."""
    if report.dry_run:
        return "planned"
    trouble = {ListingStatus.FAILED, ListingStatus.NO_BUDGET}
    if report.pms.prices_failed is not None:
        return "partial"
    if any(o.status in trouble for o in report.listings) or report.prices.result in (
        PricesResult.ERROR,
        PricesResult.FAILED,
        PricesResult.NO_BUDGET,
    ):
        return "partial"
    if report.prices.result is PricesResult.OK_WITH_WARNINGS:
        return "ok_with_warnings"
    return "ok"
