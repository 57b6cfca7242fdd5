"""The channel manager: channel names, the property's connected channels and the Prices queue.

``POST /v1/ChannelManager/Prices`` checks every element at once and answers the Channel response:
``result`` 3 with ``serviceErrors`` when any element is invalid (nothing is queued), else the batch
is queued and the answer is ``result`` 1, or 2 with ``channelWarnings`` for prices outside the
sane range. Queued batches are applied later (:meth:`ChannelManagerState.process`), to every
two-way connected channel; a channel marked failing rejects its part (the job's own result is 3).
The prices each channel ends up with are readable through the control surface.
"""

from __future__ import annotations

from array import array
from collections.abc import Callable
from dataclasses import dataclass, field
from datetime import date, timedelta
from decimal import Decimal
from enum import StrEnum

MAX_SPAN_DAYS = 365
STANDARD_RATE = 1
NON_REFUNDABLE_RATE = 2
NO_PRICE = -1


@dataclass
class ChannelName:
    id: int
    name: str


@dataclass
class ConnectedChannel:
    id: int
    channel_name_id: int
    channel_property_id: str
    title: str
    is_reservations_only: int = 0
    parameters: list[tuple[str, str]] = field(default_factory=list)
    price_list_id: int = 1
    """The price list of the channel's contract (document 01: all must use the same one)."""
    failing: bool = False
    """Fault: the channel rejects every price batch (the job ends with result 3)."""


@dataclass
class PriceElement:
    date_from: date
    date_to: date
    room_type_id: int
    room_rate_type: int
    price: Decimal


@dataclass(frozen=True)
class Problem:
    """One entry of channelErrors, channelWarnings or serviceErrors."""

    code: str
    message: str
    element: int | None = None
    channel_id: int | None = None

    def describe(self) -> dict[str, object]:
        return {
            "code": self.code,
            "message": self.message,
            "element": self.element,
            "channelId": self.channel_id,
        }


@dataclass
class ChannelResponse:
    result: int
    channel_errors: list[Problem] = field(default_factory=list)
    channel_warnings: list[Problem] = field(default_factory=list)
    service_errors: list[Problem] = field(default_factory=list)

    def describe(self) -> dict[str, object]:
        return {
            "result": self.result,
            "channelErrors": [p.describe() for p in self.channel_errors],
            "channelWarnings": [p.describe() for p in self.channel_warnings],
            "serviceErrors": [p.describe() for p in self.service_errors],
        }


class JobState(StrEnum):
    QUEUED = "queued"
    DONE = "done"


@dataclass
class PriceJob:
    id: int
    received_at: str
    elements: list[PriceElement]
    accepted: ChannelResponse
    state: JobState = JobState.QUEUED
    outcome: ChannelResponse | None = None

    def describe(self) -> dict[str, object]:
        return {
            "id": self.id,
            "receivedAt": self.received_at,
            "state": self.state.value,
            "elements": len(self.elements),
            "accepted": self.accepted.describe(),
            "outcome": self.outcome.describe() if self.outcome else None,
        }


@dataclass
class PriceRow:
    """Nightly prices in cents from ``start``; ``NO_PRICE`` where the channel has none."""

    start: date
    cents: array[int] = field(default_factory=lambda: array("q"))

    def set_range(self, first: date, last: date, cents: int) -> None:
        if first < self.start:
            shift = (self.start - first).days
            self.cents[0:0] = array("q", [NO_PRICE]) * shift
            self.start = first
        begin, end = (first - self.start).days, (last - self.start).days + 1
        if end > len(self.cents):
            self.cents.extend(array("q", [NO_PRICE]) * (end - len(self.cents)))
        self.cents[begin:end] = array("q", [cents]) * (end - begin)

    def get(self, day: date) -> int:
        offset = (day - self.start).days
        return self.cents[offset] if 0 <= offset < len(self.cents) else NO_PRICE


@dataclass
class ChannelManagerState:
    names: list[ChannelName] = field(default_factory=list)
    channels: list[ConnectedChannel] = field(default_factory=list)
    jobs: list[PriceJob] = field(default_factory=list)
    prices: dict[tuple[int, int, int], PriceRow] = field(default_factory=dict)
    """By (channel id, room type id, room rate type)."""
    sane_min: Decimal = Decimal("10")
    sane_max: Decimal = Decimal("5000")
    on_queued: Callable[[], None] | None = None

    def two_way(self) -> list[ConnectedChannel]:
        return [c for c in self.channels if c.is_reservations_only == 0]

    def submit(
        self,
        elements: list[PriceElement],
        *,
        today: date,
        received_at: str,
        room_type_exists: Callable[[int], bool],
    ) -> ChannelResponse:
        """Check the batch; queue it unless an element is invalid."""
        errors: list[Problem] = []
        warnings: list[Problem] = []
        if not elements:
            errors.append(Problem("EMPTY_REQUEST", "pricesForDateRanges is empty"))
        for index, element in enumerate(elements):
            errors.extend(self._element_errors(index, element, today, room_type_exists))
            if not errors and not self.sane_min <= element.price <= self.sane_max:
                warnings.append(
                    Problem(
                        "PRICE_OUT_OF_RANGE",
                        f"price {element.price} is outside the usual range {self.sane_min}..{self.sane_max}",
                        index,
                    )
                )
        channels = self.two_way()
        if not channels:
            errors.append(Problem("NO_CHANNELS", "the property has no two-way connected channel"))
        elif len({c.price_list_id for c in channels}) > 1:
            errors.append(
                Problem(
                    "PRICE_LISTS_DIFFER",
                    "the contracts of the connected channels use different price lists "
                    f"({sorted({c.price_list_id for c in channels})}); they must use the same one",
                )
            )
        if errors:
            return ChannelResponse(result=3, service_errors=errors)
        accepted = ChannelResponse(result=2 if warnings else 1, channel_warnings=warnings)
        self.jobs.append(PriceJob(len(self.jobs) + 1, received_at, elements, accepted))
        if self.on_queued is not None:
            self.on_queued()
        return accepted

    @staticmethod
    def _element_errors(
        index: int, element: PriceElement, today: date, room_type_exists: Callable[[int], bool]
    ) -> list[Problem]:
        problems: list[Problem] = []
        if element.date_from > element.date_to:
            problems.append(
                Problem(
                    "INVALID_RANGE", f"dateFrom {element.date_from} is after dateTo {element.date_to}", index
                )
            )
        elif (element.date_to - element.date_from).days > MAX_SPAN_DAYS:
            problems.append(
                Problem(
                    "RANGE_TOO_LONG",
                    f"dateTo - dateFrom is {(element.date_to - element.date_from).days} days; "
                    f"at most {MAX_SPAN_DAYS} are allowed",
                    index,
                )
            )
        if element.date_to < today:
            problems.append(
                Problem("PAST_RANGE", f"dateTo {element.date_to} is before today ({today})", index)
            )
        if element.room_rate_type not in (STANDARD_RATE, NON_REFUNDABLE_RATE):
            problems.append(
                Problem(
                    "INVALID_RATE_TYPE", f"roomRateType must be 1 or 2, got {element.room_rate_type}", index
                )
            )
        if not room_type_exists(element.room_type_id):
            problems.append(
                Problem("UNKNOWN_ROOM_TYPE", f"room type {element.room_type_id} does not exist", index)
            )
        if element.price <= 0:
            problems.append(Problem("INVALID_PRICE", f"price must be positive, got {element.price}", index))
        return problems

    def pending(self) -> int:
        return sum(1 for job in self.jobs if job.state is JobState.QUEUED)

    def process(self) -> int:
        """Apply every queued batch to the two-way channels; returns how many were processed."""
        done = 0
        for job in self.jobs:
            if job.state is not JobState.QUEUED:
                continue
            errors: list[Problem] = []
            warnings = list(job.accepted.channel_warnings)
            for channel in self.two_way():
                if channel.failing:
                    errors.append(
                        Problem(
                            "CHANNEL_REJECTED", f"{channel.title} rejected the update", channel_id=channel.id
                        )
                    )
                    continue
                for element in job.elements:
                    key = (channel.id, element.room_type_id, element.room_rate_type)
                    row = self.prices.setdefault(key, PriceRow(start=element.date_from))
                    row.set_range(element.date_from, element.date_to, int(element.price * 100))
            result = 3 if errors else (2 if warnings else 1)
            job.outcome = ChannelResponse(result, channel_errors=errors, channel_warnings=warnings)
            job.state = JobState.DONE
            done += 1
        return done

    def price_table(
        self, first: date, last: date, channel_id: int | None = None, room_type_id: int | None = None
    ) -> list[dict[str, object]]:
        """Prices each channel holds for the nights ``first``..``last`` (control surface)."""
        rows: list[dict[str, object]] = []
        for (cid, rtid, rate), row in sorted(self.prices.items()):
            if (channel_id is not None and cid != channel_id) or (
                room_type_id is not None and rtid != room_type_id
            ):
                continue
            days: dict[str, float] = {}
            day = first
            while day <= last:
                cents = row.get(day)
                if cents != NO_PRICE:
                    days[day.isoformat()] = cents / 100
                day += timedelta(days=1)
            rows.append({"channelId": cid, "roomTypeId": rtid, "roomRateType": rate, "prices": days})
        return rows
