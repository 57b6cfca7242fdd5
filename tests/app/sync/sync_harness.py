"""Helpers of the sync tests (a test module per run kind): the emulator's control surface, an
independent model of what the channel should show, and a mapping of the demo hotel built from the
scenario's own hints.

"Expected" values here never come from the sync: free rooms are read from the emulator's
``/_emulator/pms/availability`` read-back, closures and rack-rate prices from the emulator's PMS
state, and the channel from ``/_emulator/channel/calendar`` and ``/_emulator/channel-manager/prices``.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from datetime import UTC, date, datetime, timedelta
from decimal import ROUND_HALF_UP, Decimal
from pathlib import Path
from typing import Any, Protocol

import httpx

from roomsync.adapters.client import RetryPolicy
from roomsync.adapters.store import Store
from roomsync.adapters.store.webhook_records import ChannelBooking
from roomsync.app.sync.mapping_io import parse_mapping_toml
from roomsync.app.sync.runs.full_sync import sync_property
from roomsync.app.sync.runs.property_sync import PropertySync
from roomsync.core.api.channel import Availability, InventoryOperation, InventoryUpdate
from roomsync.emulator.state import EmulatorState
from roomsync.metrics import Metrics
from roomsync.settings import Settings

NOW = datetime.now(UTC).replace(microsecond=0)
"""The emulator's frozen instant and the engine's clock (today's date, so CLI subprocesses agree)."""

USERNAME, PASSWORD, DOMAIN = "demo", "demo", "demo-hotel"
CHANNEL = "RentalChannel"
PUT_INVENTORY = f"PUT /v1/ChannelManager/{CHANNEL}/Inventory"
READ_INVENTORY = f"POST /v1/ChannelManager/{CHANNEL}/Inventory"
POST_PRICES = "POST /v1/ChannelManager/Prices"
WRITES = (PUT_INVENTORY, POST_PRICES)
HORIZON = 120
"""Nights synced in these tests: the demo's closures (nights 20-22, 45-46, 100-104) fall inside."""
FIRST = NOW.date()
LAST = FIRST + timedelta(days=HORIZON - 1)
DETECT_NIGHTS = 60
"""The nights a detection checks in the tests that run one (``detect_nights``)."""
NEAR = FIRST + timedelta(days=DETECT_NIGHTS - 1)
AVAILABILITY_ROOM = "POST /v1/Availability/Room"
"""The PMS's free-room read."""
DOUBLES = ("2001", "41000003")
"""The room-type listing of room type 1 (account, listing)."""
FAST_RETRIES = RetryPolicy(max_retries=2, backoff_base=0.001, backoff_max=0.01, max_wait=2.0, settle=0.0)
"""The client's retries in these tests: as many, without the waits."""
ROOM_TYPE_LISTING = "41000003"  # sells room type 1
SUITES_LISTING = "41000004"  # sells room type 2


@dataclass
class Emulator:
    url: str
    state: EmulatorState


class SyncFactory(Protocol):
    def __call__(self, store: Store, metrics: Metrics | None = None, **settings: Any) -> PropertySync: ...


def load_demo_mapping(
    store: Store, settings: Settings, state: EmulatorState, *, connected: bool = True
) -> None:
    mapping = parse_mapping_toml(demo_mapping_toml(state, connected=connected), "demo mapping")
    store.mappings.replace_mapping(settings.effective_property_id, mapping)


async def synced(make_sync: SyncFactory, store: Store, emulator: Emulator, control: Control) -> PropertySync:
    """The demo property after one full sync (detecting ``DETECT_NIGHTS`` nights), the log cleared."""
    sync = make_sync(store, detect_nights=DETECT_NIGHTS)
    load_demo_mapping(store, sync.settings, emulator.state)
    assert (await sync_property(sync)).result == "ok"
    control.clear_log()
    return sync


def imported_booking(
    property_id: str, code: str, listing_id: str, room_type_id: int, start: date, nights: int, room_id: int
) -> ChannelBooking:
    """The webhook bridge's record of a channel reservation it placed in the PMS (room ``room_id``)."""
    return ChannelBooking(
        property_id=property_id,
        confirmation_code=code,
        listing_id=listing_id,
        room_type_id=room_type_id,
        start_date=start,
        nights=nights,
        status_type="accept",
        last_action="ReservationAcceptanceConfirmation",
        updated_at=NOW,
        pms_status=3,
        pms_room_id=room_id,
        pms_date_from=start,
        pms_date_to=start + timedelta(days=nights),
    )


def night(offset: int) -> str:
    """The night ``offset`` nights from today, as the control surface takes it."""
    return str(FIRST + timedelta(days=offset))


def settings_for(base_url: str, tmp_path: Path, **overrides: Any) -> Settings:
    values: dict[str, Any] = {
        "base_url": base_url,
        "username": USERNAME,
        "password": PASSWORD,
        "domain": DOMAIN,
        "data_dir": tmp_path,
        "horizon_days": HORIZON,
        **overrides,
    }
    return Settings(**values)


@dataclass
class Control:
    base_url: str
    http: httpx.Client = field(init=False)

    def __post_init__(self) -> None:
        self.http = httpx.Client(base_url=f"{self.base_url}/_emulator", timeout=15.0)

    def call(self, method: str, path: str, body: dict[str, Any] | None = None, **params: Any) -> Any:
        response = self.http.request(method, path, json=body, params=params or None)
        assert response.status_code == 200, f"{method} {path}: {response.status_code} {response.text}"
        return response.json()

    def reset(self, now: datetime) -> None:
        self.call("POST", "/clock", {"now": now.isoformat(), "frozen": True})
        self.call("POST", "/reset", {"scenario": "demo", "seed": 7})
        self.call("POST", "/quota", {"dailyQuota": 1500, "freeLicence": False, "usedCalls": 0})
        self.call("DELETE", "/faults")
        self.call("DELETE", "/requests")

    def counts(self) -> dict[str, int]:
        counts: dict[str, int] = self.call("GET", "/requests", limit=1)["counts"]
        return counts

    def total(self) -> int:
        return int(self.call("GET", "/requests", limit=1)["total"])

    def clear_log(self) -> None:
        self.call("DELETE", "/requests")

    def writes(self) -> int:
        counts = self.counts()
        return sum(counts.get(key, 0) for key in WRITES)

    def calendar(self, listing_id: str, first: date, last: date) -> dict[date, dict[str, Any]]:
        answer = self.call(
            "GET", f"/channel/calendar/{listing_id}", **{"from": first.isoformat(), "to": last.isoformat()}
        )
        return {date.fromisoformat(day["date"]): day for day in answer["days"]}

    def free_rooms(self, first: date, last: date) -> dict[int, dict[date, int]]:
        answer = self.call("GET", "/pms/availability", **{"from": first.isoformat(), "to": last.isoformat()})
        return {
            int(type_id): {date.fromisoformat(night): free for night, free in nights.items()}
            for type_id, nights in answer["freeRooms"].items()
        }

    def connected_prices(self, first: date, last: date) -> list[dict[str, Any]]:
        self.call("POST", "/channel-manager/process")
        rows: list[dict[str, Any]] = self.call(
            "GET", "/channel-manager/prices", **{"from": first.isoformat(), "to": last.isoformat()}
        )["channels"]
        return rows

    def close(self) -> None:
        self.http.close()


# --- the demo hotel's mapping, from the scenario's hints -------------------------------------


def demo_mapping_toml(state: EmulatorState, *, connected: bool = True) -> str:
    """Every demo listing mapped to the room type the scenario says it sells, with a few rules;
    room types 1-4 feed the connected channels unless ``connected`` is False."""
    lines = ['currency = "EUR"']
    for hint in state.scenario.hints["listings"]:
        kind = "room_type" if hint["inventory"] == "room-type" else "single"
        lines += [
            "[[listing]]",
            f"room_type_id = {hint['pmsRoomTypeId']}",
            f'account_id = "{hint["accountId"]}"',
            f'listing_id = "{hint["listingId"]}"',
            f'kind = "{kind}"',
            'currency = "EUR"',
        ]
        rule = LISTING_RULES.get(hint["listingId"], {})
        if "price" in rule:
            lines += ["[listing.price]", *rule["price"]]
        if "restrictions" in rule:
            lines += ["[listing.restrictions]", *rule["restrictions"]]
    for room_type_id in (1, 2, 3, 4) if connected else ():
        lines += ["[[connected]]", f"room_type_id = {room_type_id}", "standard = true"]
        if room_type_id == 1:
            lines.append("non_refundable_discount_percent = 10")
    return "\n".join(lines) + "\n"


LISTING_RULES: dict[str, dict[str, list[str]]] = {
    "41000002": {"price": ["markup_percent = 10", "markup_amount = 5"]},
    "41000004": {"restrictions": ["min_nights = 2", "closed_to_arrival = [0]"]},
}


# --- what the channel should show, computed from the PMS state -----------------------------------


def half_up(value: Decimal, unit: str = "1") -> Decimal:
    return value.quantize(Decimal(unit), rounding=ROUND_HALF_UP)


def nightly_price(state: EmulatorState, room_type_id: int, night: date) -> Decimal | None:
    rack = state.pms.rack_rate()
    return None if rack is None else rack.price(room_type_id, night)


def expected_channel_day(
    state: EmulatorState, hint: dict[str, Any], night: date, free: int, reserved: int
) -> dict[str, Any]:
    """What ``/channel/calendar`` should show for a synced listing on ``night``."""
    room_type_id = hint["pmsRoomTypeId"]
    closed = night in state.pms.property_closures or night in state.pms.room_type_closures.get(
        room_type_id, set()
    )
    rules = LISTING_RULES.get(hint["listingId"], {})
    markup, amount = Decimal(0), Decimal(0)
    for line in rules.get("price", []):
        name, _, value = line.partition(" = ")
        if name == "markup_percent":
            markup = Decimal(value)
        else:
            amount = Decimal(value)
    price = nightly_price(state, room_type_id, night)
    expected: dict[str, Any] = {}
    if price is not None:
        expected["dailyPrice"] = float(half_up(price * (100 + markup) / 100 + amount))
    if hint["inventory"] == "room-type":
        expected["availability"] = "unavailable" if closed else "available"
        expected["availableCount"] = min(free, hint["units"])
    else:
        # a night the channel's own reservation holds reads unavailable whatever was pushed
        expected["availability"] = "available" if free > 0 and not closed and not reserved else "unavailable"
    if "restrictions" in rules:
        expected["minNights"] = 2
        expected["closedToArrival"] = (night.weekday() + 1) % 7 == 0
        expected["closedToDeparture"] = False
    return expected


def channel_mismatches(state: EmulatorState, control: Control, first: date, last: date) -> list[str]:
    """Every (listing, night, field) where a connected listing's channel differs from the PMS."""
    free = control.free_rooms(first, last)
    problems: list[str] = []
    for hint in state.scenario.hints["listings"]:
        if hint["connected"] not in ("Full", "Limited"):
            continue
        days = control.calendar(hint["listingId"], first, last)
        for night in _nights(first, last):
            day = days[night]
            # a single-unit listing is free when its room type has a free room (the core's rule)
            reserved = day["reserved"] if hint["inventory"] == "single-unit" else 0
            wanted = expected_channel_day(state, hint, night, free[hint["pmsRoomTypeId"]][night], reserved)
            for name, value in wanted.items():
                if day[name] != value:
                    problems.append(
                        f"{hint['listingId']} {night} {name}: channel {day[name]!r}, PMS says {value!r}"
                    )
    return problems


def connected_mismatches(state: EmulatorState, control: Control, first: date, last: date) -> list[str]:
    rows = control.connected_prices(first, last)
    two_way = [c.id for c in state.manager.channels if c.is_reservations_only == 0]
    held = {(row["channelId"], row["roomTypeId"], row["roomRateType"]): row["prices"] for row in rows}
    problems: list[str] = []
    for channel_id in two_way:
        for room_type_id in (1, 2, 3, 4):
            rates = (1, 2) if room_type_id == 1 else (1,)
            for rate in rates:
                prices = held.get((channel_id, room_type_id, rate), {})
                for night in _nights(first, last):
                    price = nightly_price(state, room_type_id, night)
                    if price is None:
                        continue
                    wanted = half_up(price, "0.01")
                    if rate == 2:
                        wanted = half_up(wanted * Decimal("0.9"), "0.01")
                    got = prices.get(night.isoformat())
                    if got is None or Decimal(str(got)) != wanted:
                        problems.append(
                            f"channel {channel_id} type {room_type_id} rate {rate} {night}: {got} != {wanted}"
                        )
    return problems


def assert_converged(emulator: Emulator, control: Control) -> None:
    """The channel calendars and the connected channels' prices show the PMS over the horizon."""
    mismatches = channel_mismatches(emulator.state, control, FIRST, LAST)
    assert mismatches == [], f"{len(mismatches)} differences, first: {mismatches[:5]}"
    price_mismatches = connected_mismatches(emulator.state, control, FIRST, LAST)
    assert price_mismatches == [], f"{len(price_mismatches)} differences, first: {price_mismatches[:5]}"


def pushed_types(emulator: Emulator) -> set[int]:
    """The room types of the listings connected on the channel: the only ones whose closures the
    check reads around (a type whose listings are all unconnected cannot be pushed to)."""
    hints = emulator.state.scenario.hints["listings"]
    return {h["pmsRoomTypeId"] for h in hints if h["connected"] in ("Full", "Limited")}


def block_body(listing: tuple[str, str], first: date, last: date) -> InventoryUpdate:
    """A channel write making ``listing`` unavailable over ``first..last``: what someone else
    changing the calendar behind roomsync's back sends."""
    return InventoryUpdate(
        account_id=listing[0],
        listing_id=listing[1],
        operations=[
            InventoryOperation(
                date_from=first, date_to=last, set_available=True, available=Availability.UNAVAILABLE
            )
        ],
    )


def _nights(first: date, last: date) -> list[date]:
    return [first + timedelta(days=n) for n in range((last - first).days + 1)]


def closure_check_reads(state: EmulatorState, room_type_ids: set[int], first: date, last: date) -> int:
    """The reads of a closure check over ``first..last`` (at most 365 nights) when the store knows
    the PMS's room-type closures: one window, plus one more at each night where a closed run of a
    mapped type starts or the night after it ends, inside the window. Counted here from the
    emulator's own closures, not by roomsync's code."""
    assert (last - first).days < 365
    edges: set[date] = set()
    for room_type_id, closed in state.pms.room_type_closures.items():
        if room_type_id not in room_type_ids:
            continue
        for night in closed:
            if first <= night <= last:
                before, after = night - timedelta(days=1), night + timedelta(days=1)
                if before not in closed and night > first:
                    edges.add(night)
                if after not in closed and after <= last:
                    edges.add(after)
    return 1 + len(edges)
