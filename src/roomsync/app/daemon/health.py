"""Log a job's health only when it changes: "failed" once, "recovered" once.

A poll that fails every two minutes for an hour must not write thirty identical warnings (Home
Assistant's update coordinator does the same): the first failure is logged with its reason, a
different reason is logged again, and the first success after failures is logged as a recovery
with how long it was down.
"""

from __future__ import annotations

import logging
from dataclasses import dataclass
from datetime import datetime


@dataclass
class _Health:
    ok: bool = True
    reason: str | None = None
    since: datetime | None = None
    failures: int = 0


class HealthLog:
    def __init__(self, logger: logging.Logger | logging.LoggerAdapter[logging.Logger]) -> None:
        self._log = logger
        self._jobs: dict[str, _Health] = {}

    def healthy(self, job: str) -> bool:
        return self._jobs.get(job, _Health()).ok

    def reason(self, job: str) -> str | None:
        return self._jobs.get(job, _Health()).reason

    def success(self, job: str, at: datetime) -> None:
        health = self._jobs.setdefault(job, _Health())
        if not health.ok:
            down = (at - health.since).total_seconds() if health.since else 0.0
            self._log.info("%s recovered after %d failed run(s) over %.0f s", job, health.failures, down)
        self._jobs[job] = _Health(ok=True, since=at)

    def failure(self, job: str, reason: str, at: datetime) -> None:
        health = self._jobs.setdefault(job, _Health())
        if health.ok or health.reason != reason:
            self._log.warning("%s failed: %s", job, reason)
        if health.ok:
            health.since = at
            health.failures = 0
        health.ok = False
        health.reason = reason
        health.failures += 1
