"""Everything the emulator holds: the PMS, the rental channel, the channel manager, and the
service machinery around them (clock, credentials and tokens, quota, faults, webhooks, request log).

Handlers reach it as ``call.state``: ``call.state.pms`` (``PmsState``, document 02),
``call.state.channel`` (:class:`~roomsync.emulator.channel.state.ChannelState`, document 01),
``call.state.manager`` (:class:`~roomsync.emulator.channel.manager.ChannelManagerState`).
Build one with :func:`roomsync.emulator.scenario.build_state`.
"""

from __future__ import annotations

import random
from collections import Counter, deque
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

from roomsync.emulator.channel.manager import ChannelManagerState
from roomsync.emulator.channel.state import ChannelState
from roomsync.emulator.clock import EmulatorClock
from roomsync.emulator.faults import Faults
from roomsync.emulator.quota import Credentials, DailyQuota, TokenRegistry
from roomsync.emulator.webhook_delivery import WebhookDispatcher

if TYPE_CHECKING:
    from roomsync.emulator.pms.state import PmsState


@dataclass(frozen=True)
class UsageHeaders:
    """Names of the usage-limit response headers (settings of roomsync, 03-conventions)."""

    limit: str = "X-RateLimit-Limit"
    remaining: str = "X-RateLimit-Remaining"
    reset: str = "X-RateLimit-Reset"


@dataclass(frozen=True)
class LoggedRequest:
    at: str
    method: str
    template: str
    """The operation's path template as routed (channel segment filled in), or the raw path."""
    operation: str | None
    status: int
    format: str
    counted: bool
    agent: str = ""
    """The request's User-Agent (roomsync names its replica and the part that sent it)."""
    dates: str = ""
    """``dateFrom..dateTo`` of a request whose body has them (which nights a read asked for)."""

    def describe(self) -> dict[str, object]:
        return {
            "at": self.at,
            "method": self.method,
            "path": self.template,
            "operation": self.operation,
            "status": self.status,
            "format": self.format,
            "counted": self.counted,
            "agent": self.agent,
            "dates": self.dates,
        }


@dataclass
class RequestLog:
    """Every API request: per-endpoint counts and the most recent requests."""

    recent: deque[LoggedRequest] = field(default_factory=lambda: deque(maxlen=2000))
    counts: Counter[str] = field(default_factory=Counter)
    statuses: Counter[str] = field(default_factory=Counter)
    total: int = 0

    def record(self, entry: LoggedRequest) -> None:
        key = f"{entry.method} {entry.template}"
        self.recent.append(entry)
        self.counts[key] += 1
        self.statuses[f"{key} {entry.status}"] += 1
        self.total += 1

    def clear(self) -> None:
        self.recent.clear()
        self.counts.clear()
        self.statuses.clear()
        self.total = 0

    def describe(self, limit: int = 200) -> dict[str, object]:
        return {
            "total": self.total,
            "counts": dict(sorted(self.counts.items())),
            "byStatus": dict(sorted(self.statuses.items())),
            "recent": [entry.describe() for entry in list(self.recent)[-limit:]],
        }


@dataclass
class ScenarioInfo:
    name: str
    seed: int
    sizes: dict[str, int] = field(default_factory=dict)
    hints: dict[str, Any] = field(default_factory=dict)
    """What a caller needs to drive the scenario (listing to room-type mapping, credentials...)."""


@dataclass
class EmulatorState:
    clock: EmulatorClock
    pms: PmsState
    channel: ChannelState
    manager: ChannelManagerState
    scenario: ScenarioInfo
    channel_name: str = "RentalChannel"
    credentials: Credentials = field(default_factory=Credentials)
    headers: UsageHeaders = field(default_factory=UsageHeaders)
    rng: random.Random = field(default_factory=random.Random)
    tokens: TokenRegistry = field(init=False)
    quota: DailyQuota = field(init=False)
    faults: Faults = field(init=False)
    webhooks: WebhookDispatcher = field(init=False)
    log: RequestLog = field(default_factory=RequestLog)
    prices_delay_seconds: float = 0.2
    """Real seconds before a queued Prices batch is applied (the queue is asynchronous)."""
    prices_wake: Callable[[], None] = field(default=lambda: None)
    """Set by the app's prices worker: called when a batch is queued."""

    def __post_init__(self) -> None:
        self.tokens = TokenRegistry(self.clock)
        self.quota = DailyQuota(self.clock)
        self.faults = Faults(rng=random.Random(self.rng.random()))
        self.webhooks = WebhookDispatcher(self.clock, random.Random(self.rng.random()))
        self.channel.emit = self.webhooks.enqueue_event
        self.manager.on_queued = self._prices_queued

    def _prices_queued(self) -> None:
        self.prices_wake()

    def replace_world(
        self, pms: PmsState, channel: ChannelState, manager: ChannelManagerState, scenario: ScenarioInfo
    ) -> None:
        """Swap in a freshly seeded PMS, channel and channel manager; clear counters and records.

        The receiver registration and the webhook settings stay; tokens, quota use, faults,
        deliveries and the request log are cleared.
        """
        self.pms = pms
        self.channel = channel
        self.manager = manager
        self.scenario = scenario
        self.channel.emit = self.webhooks.enqueue_event
        self.manager.on_queued = self._prices_queued
        self.tokens.expire_all()
        self.quota.set_used(0)
        self.quota.free_licence = False
        self.faults.clear()
        self.webhooks.delay_seconds = 0.0
        self.webhooks.clear()
        self.log.clear()
