"""When each kind of one property's runs comes next: the first runs when the daemon starts (or the
schedule continued from the store, :mod:`.resume`), then each run's successor when it ends.

The full sync, the reconciliation and the re-push keep their cadence at a fixed rate; the poll
and the detection are planned again after each run (:class:`~.planner.Planner`). The runs
themselves are the daemon's: this module only says when (through :class:`~.scheduler.ChainScheduler`).
Every wait is multiplied by ``time_scale``.
"""

from __future__ import annotations

import logging
import math
import random
from collections.abc import Awaitable, Callable
from datetime import datetime

from roomsync.app.daemon.jobs import JobRecord
from roomsync.app.daemon.planner import Planner
from roomsync.app.daemon.resume import ScheduleResume, aware
from roomsync.app.daemon.run_kinds import DETECT, POLL, PRICES, RECONCILE, REPUSH
from roomsync.app.daemon.scheduler import ChainScheduler, wall_now

SLOWER_JOBS = (PRICES, RECONCILE)
"""The jobs at a fixed cadence that read the whole horizon (and may wait for the reset)."""

DETECTION_KEPT_WITHIN = 0.25
"""A detection due by an earlier plan runs when the plan made again at its start wants it at most
this share of its interval later; otherwise it waits for that plan."""

POLL_FIRST_MARGIN = 1.0
"""Server seconds after the poll's due time at which a detection that yielded to it comes due
(:meth:`Schedule._detection_yields_to_poll`): the poll starts first and the detection waits its
turn."""

ScheduledRun = Callable[[str], Awaitable[float | None]]
"""Runs one scheduled kind: the real seconds it held the property's lock (its wait for the lock
left out), or None when the daemon is stopping (the run has no successor then)."""


class Schedule:
    """The chains of one property's scheduled runs; see the module docstring."""

    def __init__(
        self,
        planner: Planner,
        run: ScheduledRun,
        *,
        rng: random.Random,
        log: logging.Logger | logging.LoggerAdapter[logging.Logger],
    ) -> None:
        self.planner = planner
        self.settings = planner.settings
        self._run = run
        self.rng = rng
        self.log = log
        self._scheduler = ChainScheduler()
        self._firing: set[str] = set()
        """Scheduled kinds whose run has started (waiting for the lock or running)."""
        self._stopping = False
        self._last_detection: datetime | None = None
        """When the last scheduled detection started (wall time)."""
        self._first_full_sync = False
        """The property's first full sync is pending (it never waits for the reset)."""
        self._detection_took: float | None = None
        """Real seconds the last scheduled detection held the property's lock."""
        self._detection_yielded = False
        """The pending detection already let a poll go first."""

    def start(self) -> None:
        self._scheduler.start()

    def first_runs(self, resume: ScheduleResume | None, prices: JobRecord) -> None:
        """The first full sync at once (give or take the jitter), or the schedule the store shows
        continued (``prices``: the full syncs' record, given the last one's end); the
        reconciliation and the re-push an interval from now."""
        scale = self.settings.time_scale
        if resume is None:
            self._first_full_sync = True
            self._schedule(PRICES, self._jitter())
        else:
            self._continue(resume, prices)
        self._schedule(RECONCILE, self.planner.reconcile_interval() * scale + self._jitter())
        self._schedule(REPUSH, self.settings.repush_interval_seconds * scale + self._jitter())
        if resume is None:
            plan = self.planner.plan
            self.log.info(
                "serving property %s: first full sync now, then %s",
                self.planner.property_id,
                plan.explanation if plan else "polling as the budget allows",
            )

    def _continue(self, resume: ScheduleResume, record: JobRecord) -> None:
        """Continue the schedule the store shows (:mod:`.resume`): each job when it is due,
        counted from its last run, at once when that is past."""
        last = resume.full_sync
        assert last.finished_at is not None
        self.planner.resumed_from(last)
        record.last_run_at, record.last_result = aware(last.finished_at), last.result
        now = self.planner.clock()
        scale = self.settings.time_scale
        plan = self.planner.replan()
        started = aware(last.started_at)

        def wait(since: datetime, interval: float) -> float:
            return max(0.0, interval * scale - (now - since).total_seconds())

        self._schedule(PRICES, wait(started, self.planner.full_sync_interval()) + self._jitter())
        last_detection = resume.last_started.get(DETECT)
        if last_detection is not None:
            self._last_detection = wall_now() - (now - last_detection) * scale
        for kind, interval in ((POLL, plan.interval), (DETECT, plan.detect_interval)):
            if math.isfinite(interval):
                self._schedule(kind, wait(resume.last_started.get(kind, started), interval))
            else:
                self._schedule(kind, self._after_reset(plan.seconds_to_reset))
        self.log.info(
            "serving property %s: its last full sync (run %d) ended %s at %s; the schedule goes on "
            "from the store, the next full sync in %.0f s, then %s",
            self.planner.property_id,
            last.id,
            last.result,
            record.last_run_at.isoformat(timespec="seconds"),
            wait(started, self.planner.full_sync_interval()) / scale,
            plan.explanation,
        )

    async def _fire(self, kind: str) -> None:
        due = self._scheduler.due(kind) or wall_now()
        if kind in SLOWER_JOBS and self._slower_job_deferred(kind):
            return
        if kind == DETECT:
            if self._detection_covered() or self._detection_yields_to_poll() or self._detection_deferred():
                return
            self._last_detection = wall_now()
        self._firing.add(kind)
        try:
            took = await self._run(kind)
        finally:
            self._firing.discard(kind)
        if took is None:
            return
        if kind == DETECT:  # how long it holds up a poll: a wait for another run's lock does not
            self._detection_took = took
        # fixed rate: the next run is due an interval after this one was due, not after it ended,
        # so the time a run takes (or waits for another) does not stretch the schedule
        behind = (wall_now() - due).total_seconds()
        scale = self.settings.time_scale
        if kind == PRICES:
            self._schedule(PRICES, self.planner.full_sync_interval() * scale - behind)
        elif kind == RECONCILE:
            self._schedule(RECONCILE, self.planner.reconcile_interval() * scale - behind)
        elif kind == REPUSH:
            self._schedule(REPUSH, self.settings.repush_interval_seconds * scale - behind)
        if kind == POLL or (kind == PRICES and POLL not in self._firing):
            # both read availability: the next poll counts from this one (a poll already under way
            # schedules its own successor: one chain of polls, never two)
            self._schedule_poll(behind)
        if kind == POLL:
            self._keep_detection_on_plan()
        if kind == DETECT or (kind in SLOWER_JOBS and DETECT not in self._firing):
            # a full sync or reconciliation read all a detection reads: the next counts from it
            self._schedule_detect(behind)

    def _slower_job_deferred(self, kind: str) -> bool:
        """Put off a full sync or reconciliation that the day cannot pay for now until just
        after the quota's reset (:func:`.reset_wait.waits_for_reset`); never the first full sync."""
        if kind == PRICES and self._first_full_sync:
            self._first_full_sync = False
            return False
        # both came due after the same reset: the one that fired first has spent nothing yet
        another = any(other in self._firing for other in SLOWER_JOBS if other != kind)
        why = self.planner.slower_job_waits(kind, another_runs=another)
        if why is None:
            return False
        seconds_to_reset = self.planner.seconds_to_reset() or 0.0
        self._schedule(kind, self._after_reset(seconds_to_reset))
        self.log.info(
            "%s waits for the quota's reset (in %.1f h): %s",
            "full sync" if kind == PRICES else "reconciliation",
            seconds_to_reset / 3600,
            why,
        )
        return True

    def _detection_covered(self) -> bool:
        """Put off a detection while a full sync or reconciliation runs or is about to (within
        ``detect_min_seconds``): it reads all the detection would, and its end schedules the next
        detection. Both waited for the reset and came due together: a free licence's detection
        first, then the full sync, spent the day's change-driven reads twice."""
        scale = self.settings.time_scale
        soon = self.settings.detect_min_seconds
        for kind in SLOWER_JOBS:
            due = self.due_in(kind)
            if kind in self._firing or (due is not None and due <= soon):
                self._schedule(DETECT, ((due or 0.0) + soon) * scale)
                return True
        return False

    def _detection_yields_to_poll(self) -> bool:
        """Let the poll due before this detection would end run first, the detection just after it:
        the runs of a property take turns, and a poll that waits for a detection leaves a gap
        longer than its interval, then (the polls keep a fixed rate) a shorter one, where the
        polls' p95 is made. A detection's interval is several polls', so the few seconds it waits
        cost its p95 less. In the week bench's traces a detection of 3-12 requests delayed the
        next poll by 20-45 simulated seconds on a 172-second interval (runs take 288 times longer
        in simulated time there than they would at one day a day)."""
        took, due = self._detection_took, self._scheduler.due(POLL)
        if self._detection_yielded or took is None or due is None or POLL in self._firing:
            self._detection_yielded = False  # once a detection: the poll may have been put off
            return False
        poll_in = (due - wall_now()).total_seconds()
        if poll_in > took:
            return False
        self._detection_yielded = True
        self._schedule(DETECT, max(poll_in, 0.0) + POLL_FIRST_MARGIN * self.settings.time_scale)
        return True

    def _detection_deferred(self) -> bool:
        """Put off a detection that the plan made again now wants later: its time was
        set by the plan after the last detection, and the runs since may have spent what it
        counted on. A free licence's detection planned 12 h ahead ran when the plan had none left
        before the reset, took the day's last 21 requests, and the full sync and reconciliation
        after it were refused (the week bench's trace, 2026-12-06)."""
        plan = self.planner.replan()
        scale = self.settings.time_scale
        if not math.isfinite(plan.detect_interval):
            self._schedule(DETECT, self._after_reset(plan.seconds_to_reset))
            return True
        wait = self._plan_wants_detection_in(plan.detect_interval)
        if wait is None or wait <= DETECTION_KEPT_WITHIN * plan.detect_interval:
            return False
        self._schedule(DETECT, wait * scale)
        return True

    def _keep_detection_on_plan(self) -> None:
        """Bring the pending detection forward when the plan just made (a poll's) wants it sooner
        than it is due, by more than :data:`DETECTION_KEPT_WITHIN` of its interval; never put it
        off (that is :meth:`_detection_deferred`'s, at its start). The week bench's traces found
        a detection put off to the reset when the evening's full sync and reconciliation had spent
        the day, and none ran again until the next full sync six hours later, while the plans of
        the night's polls had one due every 23-27 minutes (3 of 12 three-day runs, 2026-12-07):
        the polls' plans now keep the detections on time whatever put them off."""
        plan = self.planner.plan
        if plan is None or not math.isfinite(plan.detect_interval):
            return
        if DETECT in self._firing or any(kind in self._firing for kind in SLOWER_JOBS):
            return  # their end schedules the next detection
        wait = self._plan_wants_detection_in(plan.detect_interval)
        if wait is None:
            return
        wanted = max(wait, 0.0)
        due = self.due_in(DETECT)
        if due is not None and due <= wanted + DETECTION_KEPT_WITHIN * plan.detect_interval:
            return
        self._schedule(DETECT, wanted * self.settings.time_scale)

    def _plan_wants_detection_in(self, detect_interval: float) -> float | None:
        """Seconds of server time until a plan with ``detect_interval`` wants the next detection,
        counted from the last one's start (negative: overdue); None before the first."""
        if self._last_detection is None:
            return None
        since = (wall_now() - self._last_detection).total_seconds() / self.settings.time_scale
        return detect_interval - since

    def _schedule_poll(self, took: float = 0.0) -> None:
        plan = self.planner.replan()
        if math.isfinite(plan.interval):
            delay = plan.interval * self.settings.time_scale - took
        else:  # nothing left for polling today: wait for the reset, then spread out
            delay = self._after_reset(plan.seconds_to_reset)
        self._schedule(POLL, delay)

    def _schedule_detect(self, took: float = 0.0) -> None:
        plan = self.planner.replan()
        if math.isfinite(plan.detect_interval):
            delay = plan.detect_interval * self.settings.time_scale - took
        else:
            delay = self._after_reset(plan.seconds_to_reset)
        self._schedule(DETECT, delay)

    def _after_reset(self, seconds_to_reset: float) -> float:
        """Real seconds until just after the quota's reset (jittered, so properties spread out)."""
        return seconds_to_reset * self.settings.time_scale + self._jitter()

    def _jitter(self) -> float:
        return self.rng.uniform(0.0, self.settings.schedule_jitter_seconds) * self.settings.time_scale

    def _schedule(self, kind: str, delay: float) -> None:
        if self._stopping:
            return
        self._scheduler.schedule(kind, delay, self._fire, kind)

    def next_run(self, kind: str) -> datetime | None:
        return self._scheduler.next_run(kind)

    def due_in(self, kind: str) -> float | None:
        """Seconds of server time (the plan's, before ``time_scale``) until ``kind``'s pending run."""
        at = self._scheduler.due(kind)  # our own record: APScheduler's job store may be changing
        if at is None:
            return None
        return max((at - wall_now()).total_seconds(), 0.0) / self.settings.time_scale

    def pause(self) -> None:
        """Schedule nothing more and start no pending run; runs in progress go on."""
        self._stopping = True
        self._scheduler.pause()  # not shutdown: APScheduler's executor would cancel runs in flight

    def shutdown(self) -> None:
        self._scheduler.shutdown()
