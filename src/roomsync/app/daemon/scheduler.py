"""APScheduler 3 (``AsyncIOScheduler``) running chains of one-shot jobs.

The schedule is not a cron: each job, when it finishes, says when it should run next (the poll
from the budget, the others from their cadence), so each run is a one-shot ``date`` job, and a
name (``poll``, ``prices``...) has at most one run pending: scheduling it again replaces it. Each
run is its own APScheduler job (``poll#17``), because a job that schedules its own successor under
the same id while it is still finishing would see that successor skipped as a second instance.
Every job is added with ``max_instances=1`` and ``coalesce=True`` and no misfire limit (a late run
still runs), and the daemon holds one lock per property around every run, so no two runs overlap.

Delays given here are real seconds; the daemon has already multiplied them by ``time_scale``.
"""

from __future__ import annotations

import contextlib
import logging
from collections.abc import Awaitable, Callable
from datetime import UTC, datetime, timedelta

from apscheduler.jobstores.base import JobLookupError
from apscheduler.schedulers.asyncio import AsyncIOScheduler
from apscheduler.triggers.date import DateTrigger

Job = Callable[..., Awaitable[None]]
"""A coroutine function: APScheduler's asyncio executor awaits what it returns."""


def wall_now() -> datetime:
    return datetime.now(UTC)


class ChainScheduler:
    def __init__(self) -> None:
        self._scheduler = AsyncIOScheduler(timezone=UTC)
        self._pending: dict[str, str] = {}
        self._due: dict[str, datetime] = {}
        self._runs = 0
        # APScheduler logs every run at INFO; the daemon logs what matters itself
        logging.getLogger("apscheduler").setLevel(logging.WARNING)

    def start(self) -> None:
        self._scheduler.start()

    @property
    def running(self) -> bool:
        return bool(self._scheduler.running)

    def schedule(self, name: str, delay: float, job: Job, *args: object) -> datetime:
        """Run ``job(*args)`` once, ``delay`` real seconds from now (replacing its pending run)."""
        at = wall_now() + timedelta(seconds=max(delay, 0.0))
        self.cancel(name)
        self._runs += 1
        job_id = f"{name}#{self._runs}"
        self._pending[name] = job_id
        self._due[name] = at
        self._scheduler.add_job(
            job,
            trigger=DateTrigger(run_date=at),
            args=args,
            id=job_id,
            name=name,
            max_instances=1,
            coalesce=True,
            misfire_grace_time=None,
        )
        return at

    def cancel(self, name: str) -> None:
        """Drop the pending run of ``name``, if it has not started."""
        job_id = self._pending.pop(name, None)
        if job_id is not None:
            with contextlib.suppress(JobLookupError):
                self._scheduler.remove_job(job_id)

    def next_run(self, name: str) -> datetime | None:
        job_id = self._pending.get(name)
        job = self._scheduler.get_job(job_id) if job_id is not None else None
        return None if job is None else job.next_run_time

    def due(self, name: str) -> datetime | None:
        """When the latest run of ``name`` was scheduled for (its successor is due an interval later,
        however late it started)."""
        return self._due.get(name)

    def pause(self) -> None:
        """No more runs start; runs in progress go on (the daemon waits for them)."""
        if self._scheduler.running:
            self._scheduler.pause()

    def shutdown(self) -> None:
        """Stop the scheduler (its executor cancels runs still in progress: pause and wait first)."""
        if self._scheduler.running:
            self._scheduler.shutdown(wait=False)
