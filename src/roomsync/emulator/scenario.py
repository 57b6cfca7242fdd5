"""The properties the emulator starts with: the demo hotel, or a large generated one.

Both are deterministic for a seed and laid out relative to the emulator clock's today. The PMS
part comes from the PMS seeds (``roomsync.emulator.pms.seed``); this module adds the rental
channel (host accounts, listings mapped to PMS room types, their calendars and reservations) and
the channel manager (channel names, connected channels).

The demo's channel calendar is deliberately STALE, as if the last sync ran weeks ago: prices
drifted, recent PMS bookings and cancellations are not reflected, counts are off on some nights,
and the far future still shows the listing's default price. A first sync has real work to do.
"""

from __future__ import annotations

import copy
import math
import random
from dataclasses import dataclass
from datetime import UTC, date, datetime, time, timedelta
from decimal import Decimal
from typing import TYPE_CHECKING, Any

from roomsync.emulator.channel.calendar import AVAILABLE, UNAVAILABLE, ListingCalendar
from roomsync.emulator.channel.manager import ChannelManagerState, ChannelName, ConnectedChannel
from roomsync.emulator.channel.records import (
    CONNECTED_FULL,
    CONNECTED_UNDECIDED,
    STATUS_APPROVED,
    STATUS_NEW,
    Account,
    AvailabilityRules,
    ChannelReservation,
    GuestDetails,
    Listing,
)
from roomsync.emulator.channel.state import WINDOW_DAYS, ChannelState
from roomsync.emulator.clock import EmulatorClock
from roomsync.emulator.pms.seed import generate_pms, seed_demo_pms
from roomsync.emulator.quota import Credentials
from roomsync.emulator.state import EmulatorState, ScenarioInfo, UsageHeaders

if TYPE_CHECKING:
    from roomsync.emulator.pms.state import PmsState

SCENARIOS = ("demo", "generated")
CALENDAR_DAYS = WINDOW_DAYS + 1
DEFAULT_SEED = 7
PROPERTY_EXTERNAL_ID = "demo-hotel"


@dataclass(frozen=True)
class Sizes:
    """Sizes of a generated property."""

    listings: int = 1000
    units: int = 1
    """Rooms per room type: 1 gives single-unit listings, more gives room-type listings."""
    days: int = CALENDAR_DAYS
    occupancy: float = 0.3


# --- the PMS as the channel should see it ------------------------------------------------------


def _occupied_rooms(pms: PmsState, first: date, days: int) -> dict[int, bytearray]:
    """Per room, 1 on each night of ``first``..``first + days - 1`` that a reservation holds."""
    held = {room_id: bytearray(days) for room_id in pms.rooms}
    for reservation in pms.reservations.values():
        span = reservation.held_nights()
        if span is None or reservation.room_id not in held:
            continue
        begin = max((span[0] - first).days, 0)
        end = min((span[1] - first).days, days)
        if begin < end:
            held[reservation.room_id][begin:end] = b"\x01" * (end - begin)
    return held


def _free_counts(pms: PmsState, occupied: dict[int, bytearray], room_type_id: int, days: int) -> list[int]:
    free = [0] * days
    for room in pms.rooms.values():
        if room.room_type_id != room_type_id or not room.is_enabled:
            continue
        row = occupied[room.id]
        for i in range(days):
            if not row[i]:
                free[i] += 1
    return free


def _closed(pms: PmsState, room_type_id: int, first: date, days: int) -> set[int]:
    nights = set(pms.property_closures) | set(pms.room_type_closures.get(room_type_id, set()))
    return {(night - first).days for night in nights if 0 <= (night - first).days < days}


# --- the demo ---------------------------------------------------------------------------------


@dataclass(frozen=True)
class DemoListing:
    listing_id: str
    account_id: str
    name: str
    room_type_id: int
    room_index: int | None
    """Single-unit: which room (0-based) of the room type; None for room-type inventory."""
    total_inventory_count: int | None
    connected: str
    status: str
    permit_required: bool = False
    person_capacity: int = 2
    bedrooms: int = 1


DEMO_ACCOUNTS = (
    Account(
        "2001",
        "eleni@example.com",
        "Eleni",
        "Papadopoulou",
        "+30 210 555 0101",
        "https://pictures.example.com/2001.jpg",
        "https://pictures.example.com/2001-large.jpg",
    ),
    Account("2002", "nikos@example.com", "Nikos", "Georgiou", None),
)

DEMO_LISTINGS = (
    DemoListing("41000001", "2001", "Studio by the old harbour", 4, 0, None, CONNECTED_FULL, STATUS_APPROVED),
    DemoListing("41000002", "2001", "Sunny studio with balcony", 4, 1, None, CONNECTED_FULL, STATUS_APPROVED),
    DemoListing(
        "41000003", "2001", "Double rooms, Main building", 1, None, 8, CONNECTED_FULL, STATUS_APPROVED
    ),
    DemoListing("41000004", "2002", "Twin rooms near the beach", 2, None, 6, CONNECTED_FULL, STATUS_APPROVED),
    # Not yet connected: connecting it needs totalInventoryCount (the first try fails with notes).
    DemoListing(
        "41000005",
        "2002",
        "Family suites, Garden wing",
        3,
        None,
        None,
        CONNECTED_UNDECIDED,
        STATUS_NEW,
        person_capacity=5,
        bedrooms=2,
    ),
    # Not yet connected: the host has not entered the permit the city requires.
    DemoListing(
        "41000006",
        "2002",
        "The corner suite",
        3,
        3,
        None,
        CONNECTED_UNDECIDED,
        STATUS_NEW,
        permit_required=True,
        person_capacity=5,
        bedrooms=2,
    ),
)


def _demo_channel(
    pms: PmsState, rng: random.Random, today: date
) -> tuple[ChannelState, list[dict[str, Any]]]:
    channel = ChannelState(rng=random.Random(rng.getrandbits(64)))
    for account in DEMO_ACCOUNTS:
        channel.accounts[account.id] = copy.deepcopy(account)
    rack = pms.rack_rate()
    occupied = _occupied_rooms(pms, today, CALENDAR_DAYS)
    rooms_by_type: dict[int, list[int]] = {}
    for room in pms.sorted_rooms():
        rooms_by_type.setdefault(room.room_type_id, []).append(room.id)
    hints: list[dict[str, Any]] = []
    for spec in DEMO_LISTINGS:
        room_ids = rooms_by_type[spec.room_type_id]
        if spec.room_index is None and spec.listing_id == "41000005":
            # Three of the four suites are sold as a room type; the fourth is its own listing.
            room_ids = room_ids[:3]
        room_id = room_ids[spec.room_index] if spec.room_index is not None else None
        base = rack.cents(spec.room_type_id, today) if rack else 10000
        listing = Listing(
            account_id=spec.account_id,
            listing_id=spec.listing_id,
            name=spec.name,
            calendar=ListingCalendar(today, CALENDAR_DAYS),
            property_group="hotels" if spec.room_index is None else "apartments",
            property_category="hotel" if spec.room_index is None else "apartment",
            room_category="private_room" if spec.room_index is None else "entire_home",
            bedrooms=spec.bedrooms,
            beds=spec.bedrooms + 1,
            status_category=spec.status,
            connected=spec.connected,
            published_once=spec.status == STATUS_APPROVED,
            street="Akti Miaouli 12",
            city="Piraeus",
            zip_code="185 38",
            state="Attica",
            country_code="GR",
            person_capacity=spec.person_capacity,
            permit_or_tax_id="" if spec.permit_required else f"00000{spec.listing_id[-3:]}K0123",
            permit_required=spec.permit_required,
            room_type_inventory=spec.room_index is None,
            total_inventory_count=spec.total_inventory_count,
            property_external_id=PROPERTY_EXTERNAL_ID if spec.total_inventory_count else None,
            # The default daily price is last year's flat rate: the far future is stale.
            default_price_cents=round(base * 0.9 / 100) * 100,
            rules=AvailabilityRules(default_min_nights=2 if spec.room_index is not None else 1),
            pms_room_type_id=spec.room_type_id,
            pms_room_id=room_id,
        )
        _stale_calendar(listing, pms, occupied, room_ids, rng, today)
        channel.listings[listing.listing_id] = listing
        hints.append(_hint(listing, len(room_ids)))
    _demo_channel_reservations(channel, occupied, rng, today)
    return channel, hints


def _stale_calendar(
    listing: Listing,
    pms: PmsState,
    occupied: dict[int, bytearray],
    room_ids: list[int],
    rng: random.Random,
    today: date,
) -> None:
    """The calendar as the last sync (weeks ago) left it; see the module docstring."""
    calendar = listing.calendar
    rack = pms.rack_rate()
    type_id = listing.pms_room_type_id or 0
    synced_days = 120
    closed = _closed(pms, type_id, today, synced_days)
    for offset in range(synced_days):
        night = today + timedelta(days=offset)
        cents = rack.cents(type_id, night) if rack else -1
        if cents > 0:
            drift = rng.random()
            # Most nights carry the price of the last sync, some a price changed since.
            calendar.price_cents[offset] = (
                cents if drift < 0.8 else round(cents * (0.9 if drift < 0.9 else 1.1))
            )
    if listing.room_type_inventory:
        free = [0] * synced_days
        for room_id in room_ids:
            row = occupied[room_id]
            for i in range(synced_days):
                free[i] += not row[i]
        for offset in range(synced_days):
            count = free[offset] + (1 if rng.random() < 0.15 else 0)
            calendar.count[offset] = min(count, len(room_ids))
            calendar.availability[offset] = UNAVAILABLE if offset in closed else AVAILABLE
    elif listing.pms_room_id is not None:
        row = occupied[listing.pms_room_id]
        for offset in range(synced_days):
            booked = bool(row[offset]) or offset in closed
            if rng.random() < 0.25:
                booked = not booked  # a booking or cancellation the channel has not heard of
            calendar.availability[offset] = UNAVAILABLE if booked else AVAILABLE


def _demo_channel_reservations(
    channel: ChannelState, occupied: dict[int, bytearray], rng: random.Random, today: date
) -> None:
    """Two accepted channel bookings the PMS does not know yet, and one cancelled one."""
    now = datetime.combine(today, time(9, 30), tzinfo=UTC)
    studio = channel.listings["41000001"]
    doubles = channel.listings["41000003"]
    twins = channel.listings["41000004"]
    picks: list[tuple[Listing, date, int, str]] = []
    studio_row = occupied[studio.pms_room_id or 0]
    start = next((o for o in range(10, 60) if not any(studio_row[o : o + 3])), 10)
    picks.append((studio, today + timedelta(days=start), 3, "accept"))
    picks.append((doubles, today + timedelta(days=14), 2, "accept"))
    picks.append((twins, today + timedelta(days=30), 4, "cancelled_by_guest"))
    names = (("Ingrid", "Larsen"), ("Marco", "Bianchi"), ("Claire", "Martin"))
    for (listing, start_date, nights, status), (first, last) in zip(picks, names, strict=True):
        code = channel.new_confirmation_code()
        nightly = Decimal(listing.calendar.price_cents[(start_date - today).days]) / 100
        base = (nightly * nights).quantize(Decimal("0.01"))
        reservation = ChannelReservation(
            confirmation_code=code,
            account_id=listing.account_id,
            listing_id=listing.listing_id,
            start_date=start_date,
            nights=nights,
            guest_id=str(rng.randrange(10**8, 10**9)),
            guest_first_name=first,
            guest_last_name=last,
            guest_email=f"{first.lower()}.{rng.randrange(1000, 9999)}@guest.example.com",
            guest_phone_numbers=[f"+4512{rng.randrange(100000, 999999)}"],
            guest_details=GuestDetails(2, 0, 0),
            status_type=status,
            currency=listing.currency,
            base_price=base,
            cleaning_fee=Decimal("25.00"),
            host_fee=(base * Decimal("0.03")).quantize(Decimal("0.01")),
            cancellation_payout=(base / 2).quantize(Decimal("0.01")) if status != "accept" else Decimal("0"),
            thread_id=f"T{code}",
            created_at=now - timedelta(days=3),
            updated_at=now - timedelta(days=1),
            booked_at=now - timedelta(days=3),
        )
        channel.add_reservation(reservation)


def _demo_manager(pms: PmsState) -> ChannelManagerState:
    rack = pms.rack_rate()
    price_list = rack.id if rack else 1
    return ChannelManagerState(
        names=[
            ChannelName(1, "BookingCom"),
            ChannelName(2, "Expedia"),
            ChannelName(3, "Agoda"),
            ChannelName(4, "RentalChannel"),
        ],
        channels=[
            ConnectedChannel(
                76,
                1,
                "1780229",
                "BookingCom 1780229",
                parameters=[("has_derived_pricing", "0")],
                price_list_id=price_list,
            ),
            ConnectedChannel(77, 2, "EXP-55821", "Expedia 55821", price_list_id=price_list),
            ConnectedChannel(
                78, 3, "AG-3301", "Agoda 3301", is_reservations_only=1, price_list_id=price_list
            ),
        ],
    )


def _hint(listing: Listing, units: int) -> dict[str, Any]:
    return {
        "listingId": listing.listing_id,
        "accountId": listing.account_id,
        "inventory": "room-type" if listing.room_type_inventory else "single-unit",
        "pmsRoomTypeId": listing.pms_room_type_id,
        "pmsRoomId": listing.pms_room_id,
        "units": units,
        "connected": listing.connected,
        "statusCategory": listing.status_category,
    }


# --- the generator ----------------------------------------------------------------------------


def _generated_channel(
    pms: PmsState, rng: random.Random, today: date, sizes: Sizes
) -> tuple[ChannelState, list[dict[str, Any]]]:
    """One listing per PMS room type; single-unit when a type has one room, else room-type."""
    channel = ChannelState(rng=random.Random(rng.getrandbits(64)))
    hosts = max(1, math.ceil(sizes.listings / 100))
    for index in range(hosts):
        account = Account(f"{3001 + index}", f"host{index + 1}@example.com", "Host", f"Number {index + 1}")
        channel.accounts[account.id] = account
    rack = pms.rack_rate()
    rooms_by_type: dict[int, list[int]] = {}
    for room in pms.rooms.values():
        rooms_by_type.setdefault(room.room_type_id, []).append(room.id)
    hints: list[dict[str, Any]] = []
    days = sizes.days
    for index, room_type_id in enumerate(sorted(pms.room_types)):
        calendar = ListingCalendar(today, days)
        row = rack.rows.get(room_type_id) if rack else None
        if row is not None:
            begin = (today - rack.start).days if rack else 0
            prices = row[begin : begin + days]
            calendar.price_cents[0 : len(prices)] = prices
            # A stale calendar: about 5% of the nights carry an old price.
            for offset in rng.sample(range(len(prices)), k=len(prices) // 20):
                calendar.price_cents[offset] = round(prices[offset] * 1.1)
        for offset in rng.sample(range(days), k=days // 50):
            calendar.availability[offset] = UNAVAILABLE
        room_ids = rooms_by_type.get(room_type_id, [])
        room_type_listing = sizes.units > 1
        listing = Listing(
            account_id=f"{3001 + index % hosts}",
            listing_id=f"{50000001 + index}",
            name=f"Listing {index + 1}",
            calendar=calendar,
            street=f"Street {index + 1}",
            city="Athens",
            status_category=STATUS_APPROVED,
            connected=CONNECTED_FULL,
            published_once=True,
            room_type_inventory=room_type_listing,
            total_inventory_count=len(room_ids) if room_type_listing else None,
            property_external_id=PROPERTY_EXTERNAL_ID if room_type_listing else None,
            default_price_cents=row[0] if row is not None and len(row) else 10000,
            pms_room_type_id=room_type_id,
            pms_room_id=None if room_type_listing or not room_ids else room_ids[0],
        )
        channel.listings[listing.listing_id] = listing
        hints.append(_hint(listing, len(room_ids)))
    return channel, hints


# --- building ---------------------------------------------------------------------------------


def build_world(
    name: str, seed: int, today: date, sizes: Sizes | None = None
) -> tuple[PmsState, ChannelState, ChannelManagerState, ScenarioInfo]:
    """The PMS, channel and channel manager of scenario ``name``, deterministic for ``seed``."""
    rng = random.Random(seed)
    if name == "demo":
        pms = seed_demo_pms(random.Random(rng.getrandbits(64)), today=today)
        channel, hints = _demo_channel(pms, rng, today)
        info = ScenarioInfo(name, seed, {"listings": len(hints), "rooms": len(pms.rooms)})
    elif name == "generated":
        sizes = sizes or Sizes()
        if sizes.listings < 1 or sizes.units < 1 or not 1 <= sizes.days <= CALENDAR_DAYS:
            raise ValueError(f"listings and units must be at least 1 and days 1..{CALENDAR_DAYS}")
        pms = generate_pms(
            random.Random(rng.getrandbits(64)),
            sizes.listings,
            sizes.units,
            sizes.days,
            today=today,
            occupancy=sizes.occupancy,
        )
        channel, hints = _generated_channel(pms, rng, today, sizes)
        info = ScenarioInfo(
            name, seed, {"listings": sizes.listings, "units": sizes.units, "days": sizes.days}
        )
    else:
        raise ValueError(f"unknown scenario {name!r}; known: {', '.join(SCENARIOS)}")
    info.hints = {"listings": hints, "propertyExternalId": PROPERTY_EXTERNAL_ID}
    return pms, channel, _demo_manager(pms), info


def _wire_clock(pms: PmsState, clock: EmulatorClock) -> None:
    pms.clock = lambda: (clock.today(), clock.now())


def build_state(
    scenario: str = "demo",
    seed: int = DEFAULT_SEED,
    *,
    clock: EmulatorClock | None = None,
    channel_name: str = "RentalChannel",
    credentials: Credentials | None = None,
    headers: UsageHeaders | None = None,
    sizes: Sizes | None = None,
) -> EmulatorState:
    """A ready emulator state for ``scenario`` ("demo" or "generated")."""
    clock = clock or EmulatorClock()
    pms, channel, manager, info = build_world(scenario, seed, clock.today(), sizes)
    _wire_clock(pms, clock)
    state = EmulatorState(
        clock=clock,
        pms=pms,
        channel=channel,
        manager=manager,
        scenario=info,
        channel_name=channel_name,
        credentials=credentials or Credentials(),
        headers=headers or UsageHeaders(),
        rng=random.Random(seed),
    )
    info.hints["domain"] = state.credentials.domain
    info.hints["username"] = state.credentials.username
    return state


def load_scenario(state: EmulatorState, scenario: str, seed: int, sizes: Sizes | None = None) -> None:
    """Replace the world of ``state`` with a freshly built ``scenario`` (control surface reset)."""
    pms, channel, manager, info = build_world(scenario, seed, state.clock.today(), sizes)
    _wire_clock(pms, state.clock)
    info.hints.update(domain=state.credentials.domain, username=state.credentials.username)
    state.replace_world(pms, channel, manager, info)


DEMO_MAPPING_TOML = """currency = "EUR"

[[listing]]
room_type_id = 4
account_id = "2001"
listing_id = "41000001"
kind = "single"
currency = "EUR"

[[listing]]
room_type_id = 4
account_id = "2001"
listing_id = "41000002"
kind = "single"
currency = "EUR"

[[listing]]
room_type_id = 1
account_id = "2001"
listing_id = "41000003"
kind = "room_type"
currency = "EUR"

[[listing]]
room_type_id = 2
account_id = "2002"
listing_id = "41000004"
kind = "room_type"
currency = "EUR"

[[listing]]
room_type_id = 3
account_id = "2002"
listing_id = "41000005"
kind = "room_type"
currency = "EUR"

[[connected]]
room_type_id = 1
standard = true
non_refundable_discount_percent = 10

[[connected]]
room_type_id = 2
standard = true
"""
"""A mapping of the demo hotel for the daemon's tests and benchmarks: two single-unit studios
(room type 4), the doubles (1), the twins (2), the family suites (3, not yet connected on the
channel, so roomsync keeps them paused); the doubles and twins priced on connected channels."""
