"""The client's side of the daily budget: ask before every request, listen to every answer."""

from __future__ import annotations

from collections.abc import Callable, Mapping
from dataclasses import replace
from datetime import UTC, date, datetime, timedelta
from typing import Protocol

from roomsync.adapters.client.errors import QuotaExhausted
from roomsync.core.budget import BudgetSnapshot, Reserves, budget_period, next_utc_midnight
from roomsync.core.catalog.types import Priority
from roomsync.core.ports import BudgetStore

__all__ = ["BudgetLedger", "QuotaGate", "UsageHeaders", "next_utc_midnight"]

Clock = Callable[[], datetime]

# A reset header larger than this is a Unix time, not a number of seconds (some services send
# the instant); 03-conventions says seconds, this keeps the other reading from meaning "31 years".
_EPOCH_THRESHOLD = 1_000_000_000


class BudgetLedger(BudgetStore, Protocol):
    """The :class:`BudgetStore` the client spends through, which can also give a spend back."""

    def release(self, property_id: str, day: date, priority: Priority, cost: int = 1) -> None:
        """Give back ``cost`` requests that :meth:`try_spend` counted at ``priority`` on ``day``
        and that never left this machine (no connection was made). Never below zero."""
        ...


class UsageHeaders:
    """Names of the usage-limit response headers (settings limit/remaining/reset_header)."""

    def __init__(self, limit: str, remaining: str, reset: str) -> None:
        self.limit = limit
        self.remaining = remaining
        self.reset = reset


def _int_header(headers: Mapping[str, str], name: str) -> int | None:
    value = headers.get(name)
    if value is None:
        return None
    try:
        return int(float(value.strip()))
    except ValueError:
        return None


class QuotaGate:
    """Spends the budget of one property through a :class:`BudgetStore` and tracks the reset.

    ``quota`` is the configured daily quota; once the server states its own limit, that limit is
    the budget (the server is the truth about the licence: a free licence's 100 wins over a
    configured 1,500). The budget period ends at the server's reset instant
    (``core.budget.budget_period``), never at this machine's own midnight. What the server said
    is kept in the store, so every process (a restart, ``roomsync budget``) starts from it.
    """

    def __init__(
        self,
        store: BudgetLedger,
        property_id: str,
        *,
        quota: int,
        reserves: Reserves,
        headers: UsageHeaders,
        clock: Clock,
    ) -> None:
        self._store = store
        self._property_id = property_id
        self._configured_quota = quota
        self._server_quota: int | None = None
        self._reserves = reserves
        self._headers = headers
        self._clock = clock
        self._server_reset: datetime | None = None
        # the row as this gate's last spend left it, with the server's count observed since:
        # what the store would answer now unless another process spent in between
        self._latest: BudgetSnapshot | None = None
        known = store.server_limits(property_id)
        if known is not None:
            self._server_quota = known.quota
            self._server_reset = known.resets_at

    @property
    def property_id(self) -> str:
        return self._property_id

    @property
    def reserves(self) -> Reserves:
        return self._reserves

    @property
    def quota(self) -> int:
        return self._configured_quota if self._server_quota is None else self._server_quota

    def today(self) -> date:
        """The key of the budget period now (the UTC date unless the server resets at another hour)."""
        return budget_period(self._clock(), self._server_reset)[0]

    def resets_at(self) -> datetime:
        """When the quota resets: the server's reset instant if it ever said one, else 00:00 UTC."""
        return budget_period(self._clock(), self._server_reset)[1]

    def snapshot(self) -> BudgetSnapshot:
        return self._store.snapshot(self._property_id, self.today(), self.quota)

    def latest(self) -> BudgetSnapshot | None:
        """Today's budget as this gate's last spend found it in the store, with the server's count
        observed since (no store read); None before a spend today, and after a refusal or a release
        (each changed the row behind the spend's back). Another process's spends since then are
        not in it: :meth:`snapshot` reads the store."""
        latest = self._latest
        if latest is None or latest.day != self.today() or latest.quota != self.quota:
            return None
        return latest

    def refusal(self, priority: Priority, operation: str, *, cost: int = 1) -> QuotaExhausted:
        """The error for a request of ``priority`` that the budget does not allow."""
        snap = self.snapshot()
        reserve = self._reserves.count(priority, self.quota)
        resets_at = self.resets_at()
        in_minutes = max(int((resets_at - self._clock()).total_seconds() // 60), 0)
        why = f"{reserve} are kept for higher priorities" if reserve else "nothing is left"
        return QuotaExhausted(
            f"{operation}: daily quota refuses a {priority.name} request "
            f"({cost} needed): {snap.remaining} of {self.quota} requests remain today and {why}; "
            f"the quota resets at {resets_at.isoformat(timespec='seconds')} "
            f"(in {in_minutes // 60} h {in_minutes % 60} min)",
            operation=operation,
            priority=priority,
            remaining=snap.remaining,
            reserve=reserve,
            resets_at=resets_at,
        )

    def allows(self, priority: Priority, cost: int) -> bool:
        """Whether ``cost`` requests at ``priority`` would be allowed now (spends nothing)."""
        return self.snapshot().allows(priority, self._reserves, cost)

    def spend(self, priority: Priority, operation: str) -> BudgetSnapshot:
        """Count one request at ``priority`` or raise :class:`QuotaExhausted` (nothing is sent)."""
        spent = self._store.try_spend(self._property_id, self.today(), priority, self.quota, self._reserves)
        self._latest = spent
        if spent is None:
            raise self.refusal(priority, operation)
        return spent

    def release(self, spent: BudgetSnapshot, priority: Priority) -> None:
        """Give back one request counted by :meth:`spend` (``spent`` is what it returned) whose
        request was never sent: the service never saw it, so the day's budget must not pay it."""
        self._latest = None
        self._store.release(self._property_id, spent.day, priority)

    def server_exhausted(
        self, priority: Priority, operation: str, wait: float, reason: str
    ) -> QuotaExhausted:
        """The error for a 429 whose ``Retry-After`` runs to the reset: the server's day is spent."""
        resets_at = self._clock() + timedelta(seconds=wait)
        before, provisional = self.today(), self._server_reset is None
        self._server_reset = resets_at
        if provisional:
            self._store.carry_over(self._property_id, before, self.today(), self.quota)
        self._latest = None
        self._store.observe_server(
            self._property_id, self.today(), self.quota, self.quota, resets_at=resets_at
        )
        return QuotaExhausted(
            f"{operation}: the service's daily quota is spent ({reason}); the quota resets at "
            f"{resets_at.isoformat(timespec='seconds')}, so the client does not sleep until then",
            operation=operation,
            priority=priority,
            remaining=0,
            reserve=self._reserves.count(priority, self.quota),
            resets_at=resets_at,
            status=429,
        )

    def observe_headers(self, headers: Mapping[str, str]) -> None:
        """Record the usage-limit headers of a response (other applications share the quota)."""
        limit = _int_header(headers, self._headers.limit)
        remaining = _int_header(headers, self._headers.remaining)
        reset = _int_header(headers, self._headers.reset)
        now = self._clock()
        used = None
        if limit is not None and limit > 0 and remaining is not None:
            used = max(limit - remaining, 0)
        if reset is not None and reset >= 0:
            provisional = self._server_reset is None
            before = self.today()
            if reset > _EPOCH_THRESHOLD:
                self._server_reset = datetime.fromtimestamp(reset, tz=UTC)
            else:
                self._server_reset = now + timedelta(seconds=reset)
            if provisional or self._same_server_day(before, used):
                self._latest = None  # the counts move to the server's period
                # what was counted by UTC midnight before the server said when its day ends
                # belongs to the server's period (else a process started after UTC midnight but
                # before the server's reset keeps two ledgers of one day); so does what was
                # counted under a key that moved within the server's day
                self._store.carry_over(self._property_id, before, self.today(), self.quota)
        if limit is not None and limit > 0:
            self._server_quota = limit
        if used is not None:
            self._observed(used)
            self._store.observe_server(
                self._property_id,
                self.today(),
                self.quota,
                used,
                server_quota=limit,
                resets_at=self._server_reset,
            )

    def _same_server_day(self, before: date, used: int | None) -> bool:
        """Whether the period's key moved from ``before`` while the server's day did not turn: the
        reset instant is this clock plus the seconds the server says are left, so it moves when
        the two clocks run at different rates, and a key computed from it can cross a date. The
        server's count says which it is: it never goes down within its day. A compressed day
        (the server's clock 1,440 times as fast as the daemon's) moved the key a day back once the
        server's time of day passed the daemon's, and the requests counted before were forgotten:
        the day spent 1,072 of its ceiling's 900 (test_daemon_day run at 00:56 UTC)."""
        if used is None or self.today() == before:
            return False
        return used >= self._store.snapshot(self._property_id, before, self.quota).used_server

    def observe_usage(self, used_calls: int, daily_quota: int) -> None:
        """Record the answer of ``GET /v1/Usage``."""
        self._server_quota = daily_quota
        self._observed(used_calls)
        self._store.observe_server(
            self._property_id, self.today(), self.quota, used_calls, server_quota=daily_quota
        )

    def _observed(self, used: int) -> None:
        """Bring :meth:`latest` along with a server count that the store keeps (it never lowers it)."""
        latest = self._latest
        if latest is not None and used > latest.used_server:
            self._latest = replace(latest, used_server=used)
