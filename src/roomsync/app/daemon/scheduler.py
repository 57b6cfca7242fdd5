"""APScheduler 3 (``AsyncIOScheduler``) running chains of one-shot jobs.

The schedule is not a cron: each job, when it finishes, says when it should run next (the poll
from the budget, the others from their cadence), so every job is a ``date`` trigger replaced after
each run. Every job is added with ``max_instances=1`` and ``coalesce=True`` (never two runs of one
job at once, a late run is one run) and no misfire limit (a late run still runs). The daemon also
holds one lock per property around every run, so different jobs never overlap either.

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
        self._scheduler.add_job(
            job,
            trigger=DateTrigger(run_date=at),
            args=args,
            id=name,
            name=name,
            replace_existing=True,
            max_instances=1,
            coalesce=True,
            misfire_grace_time=None,
        )
        return at

    def cancel(self, name: str) -> None:
        with contextlib.suppress(JobLookupError):
            self._scheduler.remove_job(name)

    def next_run(self, name: str) -> datetime | None:
        job = self._scheduler.get_job(name)
        return None if job is None else job.next_run_time

    def shutdown(self) -> None:
        """No more runs start; runs in progress are the daemon's to wait for."""
        if self._scheduler.running:
            self._scheduler.shutdown(wait=False)
