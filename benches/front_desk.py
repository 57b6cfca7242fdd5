"""The demo hotel's front desk, and how soon the channel shows what it does: the pieces the
freshness benches share (``bench_freshness_week.py``, ``bench_busy_hour.py``).

* :class:`FrontDesk` makes changes in the emulator's PMS through its control surface (bookings,
  cancellations, closures and reopenings, price edits), records what the channel should then show,
  and after each run of the daemon reads the channel back (:meth:`FrontDesk.check`): a change
  reached the channel with the first run after which the channel shows it.
* :func:`timed` wraps the daemon's scheduled runs to know when each began (the emulator's clock),
  how long it really took, and how late it started against the daemon's own plan.
* :func:`busy_hours` and :func:`best_p95`: the least any schedule could do on the week's front
  desk (:data:`HOURLY`); :func:`window_p95`: the same for changes spread evenly over a window.
"""

from __future__ import annotations

import asyncio
import bisect
import contextlib
import random
import statistics
import tempfile
import time
from collections.abc import Awaitable, Callable, Coroutine, Iterator, Sequence
from dataclasses import dataclass, field
from datetime import UTC, date, datetime, timedelta
from pathlib import Path
from typing import Any, TypeVar

import httpx

from roomsync.app.daemon import run_kinds
from roomsync.app.daemon.run_kinds import Runs
from roomsync.emulator.app import create_app
from roomsync.emulator.clock import EmulatorClock
from roomsync.emulator.scenario import build_state
from roomsync.emulator.server import serve_in_thread

NIGHTS_CHANGED = 44
"""Changes fall on the next 44 nights (the demo's property closure starts on night 45)."""
LISTINGS = {1: [("41000003", False)], 2: [("41000004", False)], 4: [("41000001", True), ("41000002", True)]}
"""Room type -> (listing, single unit?) the demo mapping sells."""

HOURLY = (2.0, 1.0, 0.5, 0.3, 0.3, 0.9, 2.0, 4.0, 6.0, 7.0, 7.0, 6.5,
          5.5, 5.0, 6.0, 6.5, 6.5, 6.5, 6.0, 5.0, 4.0, 3.0, 1.5, 3.0)  # fmt: skip
"""Relative front-desk activity per local hour: 07-23 carry 91 of 101, scaled below to 90 %."""

MIX = (("booking", 23), ("cancellation", 7), ("closure", 9), ("price", 20))
"""The week's mix of changes (issue 18's outside test)."""
KINDS = tuple(kind for kind, _ in MIX)

Key = tuple[str, str, str]
"""(listing, night, what): what is ``availability`` or ``price``."""


def hour_weights() -> list[float]:
    busy = sum(HOURLY[7:23])
    quiet = sum(HOURLY) - busy
    return [w * (0.9 / busy if 7 <= h < 23 else 0.1 / quiet) for h, w in enumerate(HOURLY)]


def change_times(rng: random.Random, start: datetime, days: int, per_day: int) -> list[tuple[datetime, str]]:
    """The week's front desk: ``per_day`` changes a day at times drawn from :func:`hour_weights`."""
    weights = hour_weights()
    kinds = [kind for kind, share in MIX for _ in range(share)]
    planned = []
    for day in range(days):
        for _ in range(per_day):
            hour = rng.choices(range(24), weights)[0]
            at = start + timedelta(days=day, hours=hour, seconds=rng.uniform(0, 3600))
            planned.append((at, rng.choice(kinds)))
    return sorted(planned)


@dataclass
class Change:
    kind: str
    at: datetime
    expected: dict[Key, Any]
    latency: float | None = None
    superseded: bool = False
    on_closed: bool = False
    """A booking's or cancellation's nights include one the desk had closed: the channel shows
    its count only with that closure, so it waits for the detection that sees the closure."""
    promised: float | None = None
    """The p95 the daemon's plan promised this kind of change when it was made (seconds)."""
    late: float = 0.0
    """Simulated seconds the run that showed it began after its due time: compressed time
    multiplies the daemon's real delays (a run waiting for the property behind another, the event
    loop busy) by ``1 / time_scale``, so at real time this part of the latency would be almost nil."""


@dataclass(frozen=True)
class RunTiming:
    kind: str
    started_at: datetime
    real_seconds: float
    late_seconds: float | None = None
    """Simulated seconds the run began after the daemon's schedule had it due (waiting for the
    property's lock behind another run included); None when the schedule's due time is unknown."""


def timed(
    kind: str,
    run: Callable[[Runs], Awaitable[Any]],
    clock: EmulatorClock,
    timings: list[RunTiming],
    due: Callable[[], tuple[datetime | None, float]] | None = None,
) -> Callable[[Runs], Awaitable[Any]]:
    """``run`` (one of ``run_kinds.SCHEDULED_RUNS``), recording a :class:`RunTiming` when it ends.
    ``due`` answers the wall-clock instant the schedule had the run due and the time scale then."""

    async def measured(runs: Runs) -> Any:
        started_at, began = clock.now(), time.perf_counter()
        late = None
        if due is not None:
            at, scale = due()
            if at is not None:
                late = max((datetime.now(UTC) - at).total_seconds(), 0.0) / scale
        try:
            return await run(runs)
        finally:
            timings.append(RunTiming(kind, started_at, time.perf_counter() - began, late))

    return measured


def schedule_due(daemon: Any, kind: str) -> Callable[[], tuple[datetime | None, float]]:
    """When the daemon's schedule had its latest ``kind`` run due (the chain scheduler's record,
    read for the bench only) and the daemon's time scale."""

    def due() -> tuple[datetime | None, float]:
        scheduler = getattr(daemon.schedule, "_scheduler", None)
        at = scheduler.due(kind) if scheduler is not None and hasattr(scheduler, "due") else None
        return at, daemon.settings.time_scale

    return due


@contextlib.contextmanager
def measured_runs(clock: EmulatorClock, timings: list[RunTiming], daemon: Any = None) -> Iterator[None]:
    """Wrap the polls, detections and full syncs with :func:`timed` (the daemon looks each run's
    function up when it runs), and put the daemon's own functions back afterwards."""
    kinds = (run_kinds.POLL, run_kinds.DETECT, run_kinds.PRICES)
    original = {kind: run_kinds.SCHEDULED_RUNS[kind] for kind in kinds}
    for kind in kinds:
        due = schedule_due(daemon, kind) if daemon is not None else None
        run_kinds.SCHEDULED_RUNS[kind] = timed(kind, original[kind], clock, timings, due)
    try:
        yield
    finally:
        run_kinds.SCHEDULED_RUNS.update(original)


@dataclass
class FrontDesk:
    control: httpx.AsyncClient
    rng: random.Random
    horizon: int = NIGHTS_CHANGED
    """Changes fall on nights 1..horizon from today."""
    avoid: frozenset[date] = frozenset()
    """Nights no change is made on (the demo's property closure, which the desk's expectations
    do not model)."""
    bookings: list[tuple[int, int, list[date]]] = field(default_factory=list)
    closed: list[tuple[int, list[date]]] = field(default_factory=list)
    """The desk's closures still to be reopened, as it made them (it reopens one of them whole)."""
    closed_nights: dict[int, set[date]] = field(default_factory=dict)
    """The nights the PMS holds closed, per room type. Not the union of ``closed``: a reopening
    opens every night of its range, those of an overlapping closure too, which stays in ``closed``
    (a desk that expected those nights closed would wait for a change there that the channel,
    rightly, never shows)."""
    changes: list[Change] = field(default_factory=list)
    skipped: int = 0
    ended_at: datetime | None = None

    async def now(self) -> datetime:
        return datetime.fromisoformat((await self.control.get("/clock")).json()["now"])

    async def availability(self, room_type_id: int, nights: list[date]) -> dict[Key, Any]:
        params = {"from": min(nights).isoformat(), "to": max(nights).isoformat()}
        answer = (await self.control.get("/pms/availability", params=params)).json()
        free = answer["freeRooms"][str(room_type_id)]
        closed = self.closed_nights.get(room_type_id, set())
        wanted: dict[Key, Any] = {}
        for listing_id, single in LISTINGS[room_type_id]:
            for night in nights:
                rooms = free[night.isoformat()]
                if night in closed:
                    value: Any = ("unavailable", None if single else rooms)
                elif single:
                    value = ("available" if rooms else "unavailable", None)
                else:
                    value = ("available", rooms)
                wanted[(listing_id, night.isoformat(), "availability")] = value
        return wanted

    async def shown(self, keys: set[Key], held: set[Key] | None = None) -> dict[Key, Any]:
        """What the channel shows for ``keys``; ``held`` gets those of a single-unit listing's
        nights that one of the channel's own reservations holds (they show ``unavailable``
        whatever the PMS says: no change of the desk's can be seen there)."""
        by_listing: dict[str, list[str]] = {}
        for listing_id, night, _ in keys:
            by_listing.setdefault(listing_id, []).append(night)
        shown: dict[Key, Any] = {}
        for listing_id, nights in by_listing.items():
            params = {"from": min(nights), "to": max(nights)}
            days = (await self.control.get(f"/channel/calendar/{listing_id}", params=params)).json()["days"]
            for day in days:
                single = day["availableCount"] is None
                availability = "unavailable" if day["reserved"] and single else day["availability"]
                shown[(listing_id, day["date"], "availability")] = (availability, day["availableCount"])
                if day["reserved"] and single and held is not None:
                    held.add((listing_id, day["date"], "availability"))
                shown[(listing_id, day["date"], "price")] = round(float(day["dailyPrice"]), 2)
        return {key: value for key, value in shown.items() if key in keys}

    def nights(self, today: date, length: int) -> list[date]:
        for _ in range(50):
            start = today + timedelta(days=self.rng.randint(1, self.horizon - length + 1))
            nights = [start + timedelta(days=n) for n in range(length)]
            if not self.avoid.intersection(nights):
                break
        return nights

    async def work(self, kind: str, today: date) -> None:
        at = await self.now()
        room_type_id = self.rng.choice(sorted(LISTINGS))
        before: dict[Key, Any]
        on_closed = False
        if kind == "cancellation" and self.bookings:
            reservation_id, room_type_id, nights = self.bookings.pop(self.rng.randrange(len(self.bookings)))
            on_closed = bool(self.closed_nights.get(room_type_id, set()) & set(nights))
            before = await self.availability(room_type_id, nights)
            await self.control.post("/pms/cancel", json={"reservationId": reservation_id})
            after = await self.availability(room_type_id, nights)
        elif kind in ("booking", "cancellation"):
            kind = "booking"
            closed = self.closed_nights.get(room_type_id, set())
            for _ in range(20):
                nights = self.nights(today, self.rng.randint(1, 3))
                if closed.intersection(nights):
                    continue
                before = await self.availability(room_type_id, nights)
                body = {
                    "dateFrom": nights[0].isoformat(),
                    "dateTo": (nights[-1] + timedelta(days=1)).isoformat(),
                    "lastName": f"Desk{len(self.changes)}",
                    "roomTypeId": room_type_id,
                }
                answer = await self.control.post("/pms/book", json=body)
                if answer.status_code == 200:
                    self.bookings.append((answer.json()["reservationId"], room_type_id, nights))
                    break
            else:
                self.skipped += 1
                return
            after = await self.availability(room_type_id, nights)
        elif kind == "closure":
            if self.closed and self.rng.random() < 0.5:  # a reopening of an earlier stop-sell
                room_type_id, nights = self.closed.pop(self.rng.randrange(len(self.closed)))
                before = await self.availability(room_type_id, nights)
                body = {"dateFrom": nights[0].isoformat(), "dateTo": nights[-1].isoformat(),
                        "roomTypeId": room_type_id, "open": True}  # fmt: skip
            else:
                nights = self.nights(today, self.rng.randint(1, 3))
                before = await self.availability(room_type_id, nights)
                self.closed.append((room_type_id, nights))
                body = {"dateFrom": nights[0].isoformat(), "dateTo": nights[-1].isoformat(),
                        "roomTypeId": room_type_id}  # fmt: skip
            await self.control.post("/pms/close", json=body)
            nights_closed = self.closed_nights.setdefault(room_type_id, set())
            if body.get("open"):
                nights_closed.difference_update(nights)
            else:
                nights_closed.update(nights)
            after = await self.availability(room_type_id, nights)
        else:
            nights = self.nights(today, self.rng.randint(1, 7))
            price = float(self.rng.randint(60, 240))  # whole euros: the channel's dailyPrice is whole
            listings = [listing for listing, _ in LISTINGS[room_type_id]]
            keys = {(listing, n.isoformat(), "price") for listing in listings for n in nights}
            before = await self.shown(keys)
            body = {"roomTypeId": room_type_id, "dateFrom": nights[0].isoformat(),
                    "dateTo": nights[-1].isoformat(), "price": f"{price:.2f}"}  # fmt: skip
            await self.control.post("/pms/price", json=body)
            after = dict.fromkeys(keys, price)
        held: set[Key] = set()
        shown = await self.shown(set(after), held)
        must = {
            key: value
            for key, value in after.items()
            if value != before.get(key)
            and shown[key] == before[key]
            and key not in held
            and key[1] >= today.isoformat()  # a night already past is no one's to sell
        }
        for earlier in self.changes:  # a later change on the same night overtakes an earlier one
            if earlier.latency is None and not earlier.superseded:
                for key in set(earlier.expected) & set(after):
                    del earlier.expected[key]
                earlier.superseded = not earlier.expected
        if must:
            self.changes.append(Change(kind, at, must, on_closed=on_closed))

    async def check(self, run: RunTiming) -> None:
        pending = [c for c in self.changes if c.latency is None and not c.superseded]
        if not pending:
            return
        shown = await self.shown({key for change in pending for key in change.expected})
        for change in pending:
            if all(shown.get(key) == value for key, value in change.expected.items()):
                change.latency = max((run.started_at - change.at).total_seconds(), 0.0) + run.real_seconds
                change.late = min(
                    run.late_seconds or 0.0, max((run.started_at - change.at).total_seconds(), 0.0)
                )


def busy_hours(share: float) -> float:
    """Hours of a day that carry ``share`` of the front desk's changes, busiest hours first (the
    last one counted in part). A schedule that leaves a change at most ``L`` seconds unseen needs a
    run every ``L`` seconds through those hours: with changes arriving uniformly within an hour, ``n``
    runs in an hour leave at most ``n * L`` of its 3,600 seconds within ``L`` of the next run, so no
    schedule gets ``share`` of the changes within ``L`` with fewer than ``3600 * busy_hours / L``
    runs a day (filling the busiest hours first is the cheapest way: a linear programme)."""
    left, hours = share, 0.0
    for weight in sorted(hour_weights(), reverse=True):
        if left <= 1e-12:
            break
        part = min(1.0, left / weight)
        hours += part
        left -= weight * part
    return hours


def best_p95(runs_per_day: float) -> float:
    """The lowest p95 wait any schedule of ``runs_per_day`` runs can give this front desk (s)."""
    return 3600 * busy_hours(0.95) / runs_per_day if runs_per_day > 0 else float("inf")


def covered_share(hours: float) -> float:
    """The most of a day's changes that runs leaving ``hours`` hours of the day within ``L`` of
    the next run can show within ``L``: the busiest hours first (the inverse of :func:`busy_hours`)."""
    share = 0.0
    for weight in sorted(hour_weights(), reverse=True):
        if hours <= 0:
            break
        share += weight * min(1.0, hours)
        hours -= 1.0
    return share


def best_p95_by_day(runs_by_day: Sequence[float], changes_by_day: Sequence[int]) -> float:
    """The lowest p95 wait any schedule making ``runs_by_day[d]`` runs on day ``d`` can give the
    ``changes_by_day[d]`` changes of that day, pooled (s): the least ``L`` for which the runs of
    every day, each leaving ``L`` seconds before it (the argument of :func:`busy_hours`), reach
    95 % of all the changes within ``L``. A day is given one run more than it made: the next
    day's runs reach at most the last ``L`` seconds before midnight, one run's worth, so the
    figure stays a bound for waits up to a day; past a day it is the week's mean's, :func:`best_p95`
    (a free licence's one or two detections a day, whose changes wait into the next day).

    :func:`best_p95` of the week's mean runs a day is lower when the days differ: it lets a quiet
    day's runs serve a busy day's changes, which no schedule can do across the quota's daily reset.
    A detection costs one request per check window, one more for each edge of a closed run it knows
    (``1 + 2k``), so a day with four closed runs known makes a third of the detections of a day with
    none on the same budget (the week bench's seed 9: 104, then 36)."""
    mean = best_p95(sum(runs_by_day) / len(runs_by_day)) if runs_by_day else float("inf")
    total = sum(changes_by_day)
    if total <= 0:
        return float("inf")

    def shown(wait: float) -> float:
        return sum(
            n * covered_share((runs + 1) * wait / 3600)
            for runs, n in zip(runs_by_day, changes_by_day, strict=True)
        )

    if shown(86_400.0) < 0.95 * total - 1e-9:
        return mean
    return least_wait(lambda wait: shown(wait) >= 0.95 * total - 1e-9, low=0.0)


def least_wait(reaches: Callable[[float], bool], *, low: float, high: float = 86_400.0) -> float:
    """The least wait (s, to half a second) from ``low`` to ``high`` for which ``reaches`` holds,
    ``reaches`` growing with the wait (``high`` when none does)."""
    while high - low > 0.5:
        middle = (low + high) / 2
        low, high = (low, middle) if reaches(middle) else (middle, high)
    return high


def window_p95(runs: float, window_seconds: float) -> float:
    """The lowest p95 wait ``runs`` runs can give changes spread evenly over ``window_seconds``:
    ``n`` runs leave at most ``n * L`` of the window within ``L`` of the next run (the argument of
    :func:`busy_hours`), so 95 % within ``L`` needs ``n * L >= 0.95 * window``."""
    return 0.95 * window_seconds / runs if runs > 0 else float("inf")


def percentile(values: Sequence[float], share: float) -> float:
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, round(share * (len(ordered) - 1)))]


def promise_of(plan: Any, kind: str) -> float | None:
    """What the daemon's plan (a ``PollPlan``, None before the first) promises ``kind``: bookings
    and cancellations are seen by the polls, closures and prices by the detection."""
    if plan is None:
        return None
    promised = plan.promised_p95 if kind in ("booking", "cancellation") else plan.detect_promised_p95
    return float(promised)


def promised_p95s(changes: Sequence[Change], kind: str) -> list[float]:
    """The promises made to ``kind``'s counted changes (those with a finite one)."""
    return [
        c.promised
        for c in changes
        if c.kind == kind and not c.superseded and c.promised is not None and c.promised < float("inf")
    ]


def promise_line(changes: Sequence[Change], kind: str, p95: float) -> str | None:
    """The promises the plan made ``kind``'s changes beside their measured ``p95`` (None: none)."""
    promises = promised_p95s(changes, kind)
    if not promises:
        return None
    median = statistics.median(promises)
    return (
        f"{'':>12}  the plan promised a p95 of {median:.0f} s (median over the changes, "
        f"{min(promises):.0f}-{max(promises):.0f} s): measured {p95 / median:.2f}x it"
    )


def on_time_line(changes: Sequence[Change], kind: str) -> str:
    """``kind``'s p95 less each showing run's lateness against its due time (see ``Change.late``):
    what the same schedule gives where real delays are not stretched by the compression."""
    counted = [c for c in changes if c.kind == kind and not c.superseded and c.latency is not None]
    less = [max((c.latency or 0.0) - c.late, 0.0) for c in counted]
    stretched = sum(1 for c in counted if c.late > 0)
    return (
        f"{'':>12}  less the showing runs' lateness ({stretched} of {len(counted)} ran late): "
        f"p50 {statistics.median(less):.0f} s, p95 {percentile(less, 0.95):.0f} s"
    )


def latencies_of(changes: Sequence[Change], kind: str) -> tuple[list[float], int]:
    """The latencies of ``kind``'s changes still to be seen (not overtaken), and how many of them
    the channel never showed."""
    counted = [c for c in changes if c.kind == kind and not c.superseded]
    latencies = [c.latency for c in counted if c.latency is not None]
    return latencies, len(counted) - len(latencies)


def schedule_p95(run_starts: Sequence[datetime], start: datetime, changes_by_day: Sequence[int]) -> float:
    """The p95 wait the runs starting at ``run_starts`` give changes made as this front desk makes
    them (:func:`hour_weights`, day ``d`` carrying ``changes_by_day[d]`` of them from ``start``),
    each waiting for the next run's start: the schedule's own figure, free of the few dozen
    changes a run of the bench draws (its p95 moves by a third between runs of the same code).

    Exact: between two runs (within an hour) the waits are spread evenly from the gap down to
    nothing, so the share of the changes waiting longer than ``w`` is a sum of pieces, and the
    p95 the least ``w`` (to a hundredth of a second) where it is 5 %. Changes after the last run
    are not counted. It sampled the day every 30 s before: runs spaced evenly at a multiple of
    30 s fell on the samples, the longest wait of each gap was never drawn, and the evenly placed
    schedules (:func:`evenly_within_hours`, the traces' midnight placements) read 7-12 % low,
    some below the bound itself (2026-12-07)."""
    starts = sorted(run_starts)
    weights = hour_weights()
    pieces: list[tuple[float, float, float]] = []  # (density a second, least wait, longest wait)
    for day, count in enumerate(changes_by_day):
        for hour, weight in enumerate(weights):
            if not count or weight <= 0:
                continue
            density = weight * count / 3600.0
            begin = start + timedelta(days=day, hours=hour)
            end = begin + timedelta(hours=1)
            index = bisect.bisect_left(starts, begin)
            at = begin
            while at < end and index < len(starts):
                run = starts[index]
                until = min(run, end)
                if until > at:  # changes in at..until wait for ``run``
                    pieces.append((density, (run - until).total_seconds(), (run - at).total_seconds()))
                at = until
                index += 1
    total = sum(density * (longest - least) for density, least, longest in pieces)
    if total <= 0:
        return float("inf")

    def longer_than(wait: float) -> float:
        return sum(
            density * (longest - max(wait, least)) for density, least, longest in pieces if longest > wait
        )

    low, high = 0.0, max(longest for _, _, longest in pieces)
    while high - low > 0.01:
        middle = (low + high) / 2
        low, high = (low, middle) if longer_than(middle) <= 0.05 * total else (middle, high)
    return high


def evenly_within_hours(run_starts: Sequence[datetime], start: datetime) -> list[datetime]:
    """The same runs as ``run_starts``, each hour of each day keeping its count, spaced evenly
    within the hour: :func:`schedule_p95` of them against that of the runs as they came tells how
    much the spacing inside an hour costs, apart from how the runs were shared out over the hours
    (which is what ``benches/model_run_weights.py`` models, at 1.16x the bound)."""
    counts: dict[tuple[int, int], int] = {}
    for at in run_starts:
        if at >= start:
            key = ((at - start).days, at.hour)
            counts[key] = counts.get(key, 0) + 1
    evened = []
    for (day, hour), count in counts.items():
        for index in range(count):
            evened.append(start + timedelta(days=day, hours=hour, seconds=(index + 1) * 3600 / count))
    return sorted(evened)


def changes_by_day(changes: Sequence[Change], kind: str, start: datetime, days: int) -> list[int]:
    """How many of ``kind``'s counted changes (not overtaken) were made on each day from ``start``."""
    counts = [0] * days
    for change in changes:
        if change.kind == kind and not change.superseded and change.at >= start:
            counts[min((change.at - start).days, days - 1)] += 1
    return counts


def spread(values: Sequence[float], unit: str = "", digits: int = 0) -> str:
    """``min-max (median)`` of figures from several seeds."""
    finite = [v for v in values if v == v and v != float("inf")]
    if not finite:
        return "n/a"
    low, high, mid = min(finite), max(finite), statistics.median(finite)
    return f"{low:,.{digits}f}-{high:,.{digits}f}{unit} (median {mid:,.{digits}f}{unit})"


Outcome = TypeVar("Outcome")
SeedRun = Callable[[int, Any, str, EmulatorClock, Path], Coroutine[Any, Any, Outcome]]
"""One seed's bench: (seed, the emulator's state, its address, its clock, a scratch data directory)."""


def each_seed(first: int, count: int, run: SeedRun[Outcome]) -> list[Outcome]:
    """``run`` for seeds ``first .. first + count - 1``, each against a demo hotel of its own: the
    emulator served over loopback, its clock frozen at 23:00 today for the bench to advance."""
    outcomes: list[Outcome] = []
    for seed in range(first, first + count):
        start = datetime.combine(datetime.now(UTC).date(), datetime.min.time(), UTC) + timedelta(hours=23)
        clock = EmulatorClock(start, frozen=True)
        state = build_state("demo", seed, clock=clock)
        with serve_in_thread(create_app(state)) as base_url, tempfile.TemporaryDirectory() as tmp:
            outcomes.append(asyncio.run(run(seed, state, base_url, clock, Path(tmp))))
        print(flush=True)
    return outcomes
