"""Properties to start the emulator with: a small demo hotel, or a large generated one.

Both are reproducible from the ``random.Random`` they are given, relative to ``today`` (the
emulator clock's date), so a seeded demo always looks "current".
"""

from __future__ import annotations

import random
from array import array
from datetime import UTC, date, datetime, time, timedelta
from decimal import Decimal

from roomsync.emulator.pms.invoices import TaxSettings
from roomsync.emulator.pms.prices import PriceList
from roomsync.emulator.pms.records import (
    AgencyContract,
    BookingAgency,
    Customer,
    CustomerCategory,
    ExtraCharge,
    ExtraChargeCategory,
    ExtraChargeDescription,
    Guest,
    Payment,
    PaymentDescription,
    Reservation,
    ReservationContract,
    ReservationExtraCharge,
    Room,
    RoomGroup,
    RoomType,
    Title,
)
from roomsync.emulator.pms.state import PmsState

_DAY = timedelta(days=1)

FIRST_NAMES = (
    "Maria",
    "Giorgos",
    "Eleni",
    "Nikos",
    "Anna",
    "John",
    "Emma",
    "Lukas",
    "Sofia",
    "Pierre",
    "Chiara",
    "Javier",
    "Ingrid",
    "Tomasz",
    "Aiko",
    "Olivia",
    "Mateo",
    "Hannah",
    "Dimitra",
    "Kostas",
)
LAST_NAMES = (
    "Papadopoulou",
    "Georgiou",
    "Smith",
    "Muller",
    "Rossi",
    "Garcia",
    "Dubois",
    "Nowak",
    "Jensen",
    "Tanaka",
    "Brown",
    "Schmidt",
    "Lopez",
    "Ioannou",
    "Nikolaou",
    "Martin",
    "Bianchi",
    "Larsen",
    "Kowalski",
    "Wilson",
)
COUNTRIES = ("GR", "DE", "GB", "IT", "FR", "ES", "NL", "US", "PL", "SE")

# (English title, Greek title, base nightly price, number of rooms, adults base, adults max)
DEMO_ROOM_TYPES = (
    ("Double Room", "Δίκλινο δωμάτιο", 90, 8, 2, 2),
    ("Twin Room", "Δίκλινο με δύο κρεβάτια", 80, 6, 2, 2),
    ("Family Suite", "Οικογενειακή σουίτα", 160, 4, 3, 5),
    ("Studio Apartment", "Στούντιο", 110, 2, 2, 3),
)


def season_multipliers(start: date, days: int) -> list[float]:
    """Price factor per night from ``start``: high summer, shoulder, low season, and weekends."""
    by_month = {
        1: 0.8,
        2: 0.8,
        3: 0.85,
        4: 1.0,
        5: 1.05,
        6: 1.25,
        7: 1.5,
        8: 1.6,
        9: 1.25,
        10: 1.0,
        11: 0.8,
        12: 0.95,
    }
    factors = []
    for offset in range(days):
        night = start + timedelta(days=offset)
        factor = by_month[night.month]
        if night.weekday() in (4, 5):  # Friday and Saturday nights
            factor *= 1.15
        factors.append(factor)
    return factors


class PriceRows:
    """Nightly price rows (cents) for many room types over the same nights.

    The factors take few distinct values (months x weekend), so each room type prices those once
    and its row is an index lookup: far faster than rounding every night of every room type.
    """

    def __init__(self, factors: list[float]) -> None:
        self.distinct = sorted(set(factors))
        position = {factor: index for index, factor in enumerate(self.distinct)}
        self.index = [position[factor] for factor in factors]

    def row(self, base: int) -> array[int]:
        """Whole-currency nightly prices of a room type whose base price is ``base``, as cents."""
        lookup = [round(base * factor) * 100 for factor in self.distinct]
        return array("q", map(lookup.__getitem__, self.index))


def _noon(day: date) -> datetime:
    return datetime.combine(day, time(12, 0), tzinfo=UTC)


def seed_demo_pms(rng: random.Random, *, today: date | None = None) -> PmsState:
    """The demo hotel: 4 room types, 20 rooms, a year of seasonal prices, guests and bookings."""
    today = today or datetime.now(UTC).date()
    now = _noon(today)
    state = PmsState(
        taxes=TaxSettings(vat_percentage=Decimal("13"), extra_tax_percentage=Decimal("0")),
        promo_codes={"WELCOME10": Decimal("10")},
        clock=lambda: (today, now),
        rng=random.Random(rng.getrandbits(64)),
    )
    _demo_catalog(state)
    start = today - timedelta(days=60)
    days = 60 + 400
    rows = PriceRows(season_multipliers(start, days))
    rack = PriceList(state.allocate_id("price_list"), "Rack Rate", "EUR", start, is_rack_rate=True)
    partner = PriceList(state.allocate_id("price_list"), "Partner net rates", "EUR", start)
    state.price_lists[rack.id] = rack
    state.price_lists[partner.id] = partner
    group_main = RoomGroup(state.allocate_id("room_group"), "Main building")
    group_garden = RoomGroup(state.allocate_id("room_group"), "Garden wing")
    state.room_groups.update({group_main.id: group_main, group_garden.id: group_garden})
    floor = 1
    for english, greek, base, count, adults_base, adults_max in DEMO_ROOM_TYPES:
        room_type = RoomType(
            state.allocate_id("room_type"),
            [Title(english, "en", 1), Title(greek, "el", 0)],
        )
        state.room_types[room_type.id] = room_type
        rack.rows[room_type.id] = rows.row(base)
        partner.rows[room_type.id] = rows.row(round(base * 0.85))
        group = group_main if floor <= 2 else group_garden
        for number in range(1, count + 1):
            room = Room(
                state.allocate_id("room"),
                f"{floor}{number:02d}",
                room_type.id,
                group.id,
                clean_status=rng.choice((0, 1, 1, 1)),
                num_adults_base=adults_base,
                num_adults_max=adults_max,
            )
            state.rooms[room.id] = room
        floor += 1
    agency_ota = BookingAgency(state.allocate_id("booking_agency"), "Online travel agency")
    agency_tour = BookingAgency(state.allocate_id("booking_agency"), "Tour operator")
    state.booking_agencies.update({agency_ota.id: agency_ota, agency_tour.id: agency_tour})
    contract = AgencyContract(
        state.allocate_id("agency_contract"),
        agency_tour.id,
        partner.id,
        start,
        start + timedelta(days=days - 1),
        "Tour operator allotment",
    )
    state.agency_contracts[contract.id] = contract
    _demo_reservations(state, rng, today, now)
    # A maintenance closure of the suites and a property closure for a staff event.
    state.close([today + timedelta(days=20 + i) for i in range(3)], room_type_id=3)
    state.close([today + timedelta(days=45 + i) for i in range(2)])
    state.close([today + timedelta(days=100 + i) for i in range(5)], room_type_id=4)
    return state


def _demo_catalog(state: PmsState) -> None:
    for title in ("Food & beverage", "Services", "Point of sale"):
        category = ExtraChargeCategory(state.allocate_id("extra_charge_category"), title)
        state.extra_charge_categories[category.id] = category
    items = (
        (1, "Breakfast", "Πρωινό", "12.00", 1, 1, "Continental breakfast buffet"),
        (1, "Dinner", "Δείπνο", "25.00", 1, 2, "Three-course dinner"),
        (2, "Parking", "Στάθμευση", "10.00", 1, 3, "Covered parking, per day"),
        (2, "Airport transfer", "Μεταφορά από αεροδρόμιο", "35.00", 1, 4, None),
        (2, "Late check-out", "Αργή αναχώρηση", "20.00", 0, 5, None),
        (3, "POS item", "Είδος POS", "0.00", 0, 9, "Generic item for point-of-sale tickets"),
    )
    for category_id, english, greek, price, ibe, priority, description in items:
        item = ExtraCharge(
            state.allocate_id("extra_charge"),
            category_id,
            Decimal(price),
            [Title(english, "en", 1), Title(greek, "el", 0)],
            is_ibe_enabled=ibe,
            priority=priority,
            descriptions=[ExtraChargeDescription(description, "en")] if description else [],
        )
        state.extra_charges[item.id] = item
        if english == "POS item":
            state.pos_extra_charge_id = item.id
    for title in ("VIP", "Corporate", "Returning guest"):
        customer_category = CustomerCategory(state.allocate_id("customer_category"), title)
        state.customer_categories[customer_category.id] = customer_category
    for text, enabled in (
        ("Deposit", 1),
        ("Balance on arrival", 1),
        ("Prepayment 30%", 1),
        ("Old deposit", 0),
    ):
        planned = PaymentDescription(state.allocate_id("payment_description"), text, enabled)
        state.payment_descriptions[planned.id] = planned


def _random_customer(state: PmsState, rng: random.Random) -> Customer:
    first, last = rng.choice(FIRST_NAMES), rng.choice(LAST_NAMES)
    customer = Customer(
        state.allocate_id("customer"),
        last,
        first,
        email=f"{first.lower()}.{last.lower()}@example.com",
        mobile=f"69{rng.randrange(10_000_000, 99_999_999)}",
        billing_city=rng.choice(("Athens", "Berlin", "London", "Milan", "Paris", "Madrid")),
        country_code=rng.choice(COUNTRIES),
    )
    if rng.random() < 0.2:
        customer.categories.append(state.customer_categories[rng.choice(list(state.customer_categories))])
    state.customers[customer.id] = customer
    return customer


def _demo_reservations(state: PmsState, rng: random.Random, today: date, now: datetime) -> None:
    """Stays per room from 40 days ago to 150 days ahead, denser near today."""
    first = today - timedelta(days=40)
    horizon = today + timedelta(days=150)
    for room in state.sorted_rooms():
        night = first + timedelta(days=rng.randrange(0, 4))
        while night < horizon:
            length = rng.choice((1, 2, 2, 3, 3, 4, 5, 7))
            date_to = night + timedelta(days=length)
            _seed_stay(state, rng, room, night, date_to, today, now)
            ahead = max(0, (night - today).days)
            night = date_to + timedelta(days=rng.randrange(0, 5 + ahead // 4))
    # A few cancellations: they hold no room, so they may overlap anything.
    for _ in range(6):
        room = rng.choice(state.sorted_rooms())
        date_from = today + timedelta(days=rng.randrange(1, 90))
        customer = _random_customer(state, rng)
        reservation = state.create_reservation(
            customer_id=customer.id,
            date_from=date_from,
            date_to=date_from + 2 * _DAY,
            status=7,
            room_id=room.id,
            today=today,
            now=now - timedelta(days=rng.randrange(1, 20)),
        )
        reservation.create_date = reservation.cancel_date = now - timedelta(days=rng.randrange(1, 5))
    # A long stay under a rental contract.
    long_stays = [r for r in state.reservations.values() if r.num_nights >= 7 and r.date_from > today]
    if long_stays:
        stay = long_stays[0]
        contract = ReservationContract(
            state.allocate_id("reservation_contract"), stay.id, stay.date_from, stay.date_to
        )
        state.reservation_contracts[contract.id] = contract
    # Two rooms booked together.
    future = sorted(
        (r for r in state.reservations.values() if r.date_from > today + 5 * _DAY), key=lambda r: r.id
    )
    if len(future) >= 2:
        group_id = state.new_group_id()
        future[0].group_id = future[1].group_id = group_id


def _seed_stay(
    state: PmsState,
    rng: random.Random,
    room: Room,
    date_from: date,
    date_to: date,
    today: date,
    now: datetime,
) -> None:
    if date_to <= today:
        status = rng.choice((5, 5, 5, 5, 12))
    elif date_from <= today:
        status = 4
    else:
        status = rng.choice((3, 3, 3, 3, 1, 2, 10))
    agency = rng.choice((None, None, 1, 2))
    customer = _random_customer(state, rng)
    booked = min(today, date_from) - timedelta(days=rng.randrange(1, 60))
    reservation = state.create_reservation(
        customer_id=customer.id,
        date_from=date_from,
        date_to=date_to,
        status=status,
        room_id=room.id,
        booking_agency_id=agency,
        booking_agency_reference_code=f"BK{rng.randrange(10**8, 10**9)}" if agency else None,
        board=rng.choice(("RO", "BB", "BB", "HB")),
        num_adults=rng.randint(1, room.num_adults_max),
        today=today,
        now=now,
    )
    reservation.actual_reservation_date = booked
    reservation.create_date = reservation.last_update = _noon(booked)
    reservation.is_channel_reservation = int(status in (2, 10))
    guest = Guest(
        state.allocate_id("guest"),
        customer.first_name or "Guest",
        customer.last_name,
        is_primary_guest=1,
        reservation_id=reservation.id,
        email=customer.email,
        nationality_country_id=customer.country_code,
    )
    state.guests[guest.id] = guest
    reservation.guest_ids.append(guest.id)
    if status in (4, 5, 12):
        _seed_folio(state, rng, reservation, today, now)


def _seed_folio(
    state: PmsState, rng: random.Random, reservation: Reservation, today: date, now: datetime
) -> None:
    """Extra charges and payments of a stay that has begun; an invoice once it has ended."""
    for _ in range(rng.randrange(0, 3)):
        item = state.extra_charges[rng.choice((1, 2, 3))]
        charge = ReservationExtraCharge(
            state.allocate_id("reservation_extra_charge"),
            reservation.id,
            item.id,
            item.title,
            Decimal(rng.randint(1, 3)),
            item.unit_price,
            min(today, reservation.date_from + timedelta(days=rng.randrange(reservation.num_nights))),
            now,
        )
        state.reservation_extra_charges[charge.id] = charge
    departed = reservation.date_to <= today
    # A departed guest has settled everything; one in house has paid a 30% deposit.
    amount = state.balance(reservation) if departed else (reservation.total_agreed_price * Decimal("0.3"))
    amount = amount.quantize(Decimal("0.01"))
    payment = Payment(
        state.allocate_id("payment"),
        reservation.id,
        reservation.date_to if departed else min(today, reservation.date_from),
        amount,
        reservation.currency_code,
        amount,
        payment_method_id=rng.choice((1, 2, 3)),
        planned_payment_description=None if departed else "Deposit",
    )
    state.payments[payment.id] = payment
    if reservation.date_to <= today:
        state.issue_invoice(reservation.id, issue_date=reservation.date_to, now=_noon(reservation.date_to))


def generate_pms(
    rng: random.Random,
    room_types: int,
    rooms_per_type: int,
    days: int,
    *,
    today: date | None = None,
    occupancy: float = 0.3,
    booked_days: int = 90,
) -> PmsState:
    """A large property for benchmarks: ``room_types`` x ``rooms_per_type`` rooms, ``days`` of prices.

    Reservations fill about ``occupancy`` of the rooms' nights over the first ``booked_days``
    nights (stays are booked near-term). They are built directly, without the per-reservation
    rule checks (stays are laid out so that none overlap), so a 1,000-room-type, 730-day property
    takes well under a second.
    """
    if room_types < 1 or rooms_per_type < 1 or days < 1:
        raise ValueError("room_types, rooms_per_type and days must all be at least 1")
    if not 0 <= occupancy < 1:
        raise ValueError("occupancy must be in [0, 1)")
    today = today or datetime.now(UTC).date()
    now = _noon(today)
    state = PmsState(clock=lambda: (today, now), rng=random.Random(rng.getrandbits(64)))
    rows = PriceRows(season_multipliers(today, days))
    rack = PriceList(state.allocate_id("price_list"), "Rack Rate", "EUR", today, is_rack_rate=True)
    state.price_lists[rack.id] = rack
    group = RoomGroup(state.allocate_id("room_group"), "Main building")
    state.room_groups[group.id] = group
    for type_index in range(room_types):
        room_type = RoomType(state.allocate_id("room_type"), [Title(f"Room type {type_index + 1}", "en", 1)])
        state.room_types[room_type.id] = room_type
        rack.rows[room_type.id] = rows.row(rng.randrange(50, 300))
        for number in range(rooms_per_type):
            room = Room(state.allocate_id("room"), f"{type_index + 1}-{number + 1}", room_type.id, group.id)
            state.rooms[room.id] = room
    if occupancy > 0:
        _generate_stays(state, rng, today, now, min(days, booked_days), occupancy)
    return state


def _generate_stays(
    state: PmsState, rng: random.Random, today: date, now: datetime, days: int, occupancy: float
) -> None:
    mean_stay = 3
    mean_gap = mean_stay * (1 - occupancy) / occupancy
    rack = state.rack_rate()
    assert rack is not None
    # A pool of returning customers: a property with 10^5 reservations needs no 10^5 customers.
    customer_ids = []
    for _ in range(min(5000, max(10, len(state.rooms)))):
        customer = Customer(state.allocate_id("customer"), rng.choice(LAST_NAMES), rng.choice(FIRST_NAMES))
        state.customers[customer.id] = customer
        customer_ids.append(customer.id)
    for room in state.rooms.values():
        offset = int(rng.expovariate(1 / mean_gap)) if mean_gap else 0
        while offset < days:
            length = rng.randint(1, 2 * mean_stay - 1)
            date_from = today + timedelta(days=offset)
            date_to = date_from + timedelta(days=length)
            price = rack.total(room.room_type_id, date_from, date_to) or Decimal("0")
            customer_id = rng.choice(customer_ids)
            reservation_id = state.allocate_id("reservation")
            state.reservations[reservation_id] = Reservation(
                id=reservation_id,
                customer_id=customer_id,
                room_id=room.id,
                room_type_id=room.room_type_id,
                date_from=date_from,
                date_to=date_to,
                reservation_status_id=3,
                price_list_id=rack.id,
                currency_code="EUR",
                total_agreed_price=price,
                normal_price=price,
                create_date=now,
                last_update=now,
                actual_reservation_date=today,
            )
            offset += length + (int(rng.expovariate(1 / mean_gap)) if mean_gap else 0)
