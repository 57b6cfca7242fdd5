"""The emulated PMS: every record of document 02, the rules that span records, the front desk.

``PmsState`` is plain in-memory data (the app calls handlers one at a time, so no locks). Its
methods keep the invariants the handlers and the control surface rely on:

* no two reservations hold one room on one night (``Reservation.held_nights``: statuses 7, 8, 9,
  11 hold nothing; departed statuses 5, 6, 12 hold the nights before the recorded departure);
* ids are allocated per kind and never reused;
* availability is never stored: it is derived from rooms, reservations and closures on demand.

Methods that say no raise :class:`~roomsync.emulator.errors.ApiError`, which the app turns into
the service's error body and the control surface can show as it is.
"""

from __future__ import annotations

import random
import uuid
from collections.abc import Callable, Iterable
from dataclasses import dataclass, field, replace
from datetime import UTC, date, datetime, timedelta
from decimal import Decimal

from roomsync.emulator.errors import ApiError, conflict, invalid
from roomsync.emulator.pms import availability
from roomsync.emulator.pms.invoices import InvoiceDocument, TaxSettings, derive_invoice, money
from roomsync.emulator.pms.prices import PriceList
from roomsync.emulator.pms.records import (
    BOARDS,
    CANCELLED_STATUSES,
    DEPARTED_STATUSES,
    AgencyContract,
    BookingAgency,
    Customer,
    CustomerCategory,
    ExtraCharge,
    ExtraChargeCategory,
    Guest,
    Payment,
    PaymentDescription,
    Reservation,
    ReservationContract,
    ReservationExtraCharge,
    Room,
    RoomGroup,
    RoomType,
)

Clock = Callable[[], tuple[date, datetime]]

FIRST_IDS: dict[str, int] = {
    "room_type": 1,
    "room_group": 1,
    "room": 1,
    "price_list": 1,
    "booking_agency": 1,
    "agency_contract": 1,
    "customer_category": 1,
    "customer": 1001,
    "guest": 5001,
    "reservation": 10001,
    "reservation_contract": 701,
    "extra_charge_category": 1,
    "extra_charge": 1,
    "reservation_extra_charge": 20001,
    "payment": 30001,
    "payment_description": 1,
    "invoice": 901,
}
"""First id of each kind: distinct ranges, so an id of one kind is rarely a valid id of another."""

_COLLECTION_OF: dict[str, str] = {
    "room_type": "room_types",
    "room_group": "room_groups",
    "room": "rooms",
    "price_list": "price_lists",
    "booking_agency": "booking_agencies",
    "agency_contract": "agency_contracts",
    "customer_category": "customer_categories",
    "customer": "customers",
    "guest": "guests",
    "reservation": "reservations",
    "reservation_contract": "reservation_contracts",
    "extra_charge_category": "extra_charge_categories",
    "extra_charge": "extra_charges",
    "reservation_extra_charge": "reservation_extra_charges",
    "payment": "payments",
    "payment_description": "payment_descriptions",
    "invoice": "invoices",
}
"""The attribute holding the records of each id kind."""

STATUS_CHUNK = 2000
"""Reservations per chunk of ``POST /v2/Reservations/Status`` (documents 01 and 02)."""


def system_clock() -> tuple[date, datetime]:
    now = datetime.now(UTC)
    return now.date(), now


def not_found(what: str, ident: object, field_name: str | None = None) -> ApiError:
    return ApiError(404, "NOT_FOUND", f"{what} {ident} does not exist", field_name)


@dataclass
class PmsState:
    """All data of the emulated property."""

    currency_code: str = "EUR"
    taxes: TaxSettings = field(default_factory=TaxSettings)
    exchange_rates: dict[str, Decimal] = field(
        default_factory=lambda: {"EUR": Decimal("1"), "USD": Decimal("1.08"), "GBP": Decimal("0.85")}
    )
    """Units of each currency per one unit of the property's currency (for ``currencyCode``)."""
    promo_codes: dict[str, Decimal] = field(default_factory=dict)
    """Promo code -> percentage off the stay price in ``CombinedExtended``."""
    clock: Clock = system_clock
    """The emulator's clock (today in the property's calendar, now in UTC), for front-desk calls."""
    rng: random.Random = field(default_factory=lambda: random.Random(0))
    """Source of group GUIDs, so a seeded emulator is reproducible."""

    room_types: dict[int, RoomType] = field(default_factory=dict)
    room_groups: dict[int, RoomGroup] = field(default_factory=dict)
    rooms: dict[int, Room] = field(default_factory=dict)
    price_lists: dict[int, PriceList] = field(default_factory=dict)
    room_type_closures: dict[int, set[date]] = field(default_factory=dict)
    property_closures: set[date] = field(default_factory=set)
    booking_agencies: dict[int, BookingAgency] = field(default_factory=dict)
    agency_contracts: dict[int, AgencyContract] = field(default_factory=dict)
    customer_categories: dict[int, CustomerCategory] = field(default_factory=dict)
    customers: dict[int, Customer] = field(default_factory=dict)
    guests: dict[int, Guest] = field(default_factory=dict)
    reservations: dict[int, Reservation] = field(default_factory=dict)
    reservation_contracts: dict[int, ReservationContract] = field(default_factory=dict)
    extra_charge_categories: dict[int, ExtraChargeCategory] = field(default_factory=dict)
    extra_charges: dict[int, ExtraCharge] = field(default_factory=dict)
    reservation_extra_charges: dict[int, ReservationExtraCharge] = field(default_factory=dict)
    payments: dict[int, Payment] = field(default_factory=dict)
    payment_descriptions: dict[int, PaymentDescription] = field(default_factory=dict)
    invoices: dict[int, InvoiceDocument] = field(default_factory=dict)
    pos_extra_charge_id: int | None = None
    """The generic catalog item POS tickets are charged as; None until one is configured."""
    next_ids: dict[str, int] = field(default_factory=lambda: dict(FIRST_IDS))

    # --- ids and look-ups ---------------------------------------------------------------------

    def allocate_id(self, kind: str) -> int:
        """A new id of ``kind``; ids placed by hand (a scenario, a test) are skipped, never reused."""
        taken = getattr(self, _COLLECTION_OF.get(kind, ""), None) or {}
        ident = self.next_ids[kind]
        while ident in taken:
            ident += 1
        self.next_ids[kind] = ident + 1
        return ident

    def _today_now(self, today: date | None, now: datetime | None) -> tuple[date, datetime]:
        if today is not None and now is not None:
            return today, now
        clock_today, clock_now = self.clock()
        return today or clock_today, now or clock_now

    def room(self, room_id: int, field_name: str | None = None) -> Room:
        try:
            return self.rooms[room_id]
        except KeyError:
            raise not_found("room", room_id, field_name) from None

    def room_type(self, room_type_id: int, field_name: str | None = None) -> RoomType:
        try:
            return self.room_types[room_type_id]
        except KeyError:
            raise not_found("room type", room_type_id, field_name) from None

    def customer(self, customer_id: int, field_name: str | None = None) -> Customer:
        try:
            return self.customers[customer_id]
        except KeyError:
            raise not_found("customer", customer_id, field_name) from None

    def guest(self, guest_id: int, field_name: str | None = None) -> Guest:
        try:
            return self.guests[guest_id]
        except KeyError:
            raise not_found("guest", guest_id, field_name) from None

    def reservation(self, reservation_id: int, field_name: str | None = None) -> Reservation:
        try:
            return self.reservations[reservation_id]
        except KeyError:
            raise not_found("reservation", reservation_id, field_name) from None

    def price_list(self, price_list_id: int, field_name: str | None = None) -> PriceList:
        try:
            return self.price_lists[price_list_id]
        except KeyError:
            raise not_found("price list", price_list_id, field_name) from None

    def rack_rate(self) -> PriceList | None:
        return next((pl for pl in self.price_lists.values() if pl.is_rack_rate), None)

    def booking_agency(self, agency_id: int, field_name: str | None = None) -> BookingAgency:
        try:
            return self.booking_agencies[agency_id]
        except KeyError:
            raise not_found("booking agency", agency_id, field_name) from None

    def agency_contract(self, contract_id: int, field_name: str | None = None) -> AgencyContract:
        try:
            return self.agency_contracts[contract_id]
        except KeyError:
            raise not_found("contract", contract_id, field_name) from None

    # --- rooms and occupancy ------------------------------------------------------------------

    def sorted_rooms(self) -> list[Room]:
        return [self.rooms[room_id] for room_id in sorted(self.rooms)]

    def blocking_reservation(
        self, room_id: int, date_from: date, date_to: date, ignoring: int | None = None
    ) -> Reservation | None:
        """A reservation that holds ``room_id`` on a night of ``[date_from, date_to)``, if any."""
        for other in self.reservations.values():
            if other.room_id != room_id or other.id == ignoring:
                continue
            span = other.held_nights()
            if span is not None and span[0] < date_to and date_from < span[1]:
                return other
        return None

    def free_room_of_type(
        self, room_type_id: int, date_from: date, date_to: date, ignoring: int | None = None
    ) -> Room | None:
        for room in self.sorted_rooms():
            if (
                room.room_type_id == room_type_id
                and room.is_enabled
                and self.blocking_reservation(room.id, date_from, date_to, ignoring) is None
            ):
                return room
        return None

    def ensure_room_free(
        self, room: Room, date_from: date, date_to: date, ignoring: int | None = None
    ) -> None:
        if not room.is_enabled:
            raise conflict(f"room {room.title} ({room.id}) is not enabled", "roomId")
        blocker = self.blocking_reservation(room.id, date_from, date_to, ignoring)
        if blocker is not None:
            span = blocker.held_nights()
            assert span is not None
            first = max(span[0], date_from)
            raise conflict(
                f"room {room.title} ({room.id}) is not free on {first.isoformat()}: "
                f"reservation {blocker.id} holds it",
                "roomId",
            )

    # --- prices ---------------------------------------------------------------------------------

    def price_list_for(
        self,
        *,
        price_list_id: int | None = None,
        contract_id: int | None = None,
        booking_agency_id: int | None = None,
        night: date | None = None,
    ) -> PriceList | None:
        """The price list a sale uses: the given one, the contract's, the agency's, else rack rate."""
        if price_list_id is not None:
            return self.price_list(price_list_id, "priceListId")
        if contract_id is not None:
            return self.price_list(self.agency_contract(contract_id, "contractId").price_list_id)
        if booking_agency_id is not None and night is not None:
            for contract in self.agency_contracts.values():
                if (
                    contract.booking_agency_id == booking_agency_id
                    and contract.date_from <= night <= contract.date_to
                ):
                    return self.price_list(contract.price_list_id)
        return self.rack_rate()

    def convert(self, amount: Decimal, currency_code: str, field_name: str = "currencyCode") -> Decimal:
        """``amount`` in the property's currency, expressed in ``currency_code``."""
        rate = self.exchange_rates.get(currency_code.upper())
        if rate is None:
            raise invalid(
                field_name, f"unknown currency {currency_code!r}; known: {sorted(self.exchange_rates)}"
            )
        return money(amount * rate)

    # --- availability -----------------------------------------------------------------------------

    def room_calendars(
        self, first_night: date, last_night: date, group_dates: bool
    ) -> list[availability.RoomCalendar]:
        return availability.room_calendars(
            self.sorted_rooms(), self.reservations.values(), first_night, last_night, group_dates=group_dates
        )

    def combined(self, date_from: date, date_to: date) -> availability.CombinedAvailability:
        return availability.combined(
            sorted(self.room_types),
            self.sorted_rooms(),
            self.reservations.values(),
            self.room_type_closures,
            self.property_closures,
            date_from,
            date_to,
        )

    def contracts_in(
        self, date_from: date, date_to: date, booking_agency_id: int | None
    ) -> list[AgencyContract]:
        """Agency contracts valid on a night of ``[date_from, date_to)``; of one agency if given."""
        last_night = date_to - timedelta(days=1)
        return [
            contract
            for contract in sorted(self.agency_contracts.values(), key=lambda c: c.id)
            if contract.date_from <= last_night
            and date_from <= contract.date_to
            and (booking_agency_id is None or contract.booking_agency_id == booking_agency_id)
        ]

    def stay_prices(
        self,
        date_from: date,
        date_to: date,
        *,
        booking_agency_id: int | None,
        promo_code: str | None,
        currency_code: str | None,
    ) -> tuple[dict[int, Decimal | None], str]:
        """Per room type, the price of one unit over ``[date_from, date_to)``, and its currency."""
        price_list = self.price_list_for(booking_agency_id=booking_agency_id, night=date_from)
        currency = (currency_code or (price_list.currency_code if price_list else self.currency_code)).upper()
        discount = Decimal("0")
        if promo_code:
            discount = self.promo_codes.get(promo_code.upper(), Decimal("0"))
        prices: dict[int, Decimal | None] = {}
        for room_type_id in sorted(self.room_types):
            total = price_list.total(room_type_id, date_from, date_to) if price_list else None
            if total is not None:
                total = total * (100 - discount) / 100
                total = self.convert(total, currency) if currency != self.currency_code else money(total)
            prices[room_type_id] = total
        if currency != self.currency_code:
            self.convert(Decimal("0"), currency)  # an unknown currency is an error even with no price
        return prices, currency

    # --- reservations -------------------------------------------------------------------------------

    def create_reservation(
        self,
        *,
        customer_id: int,
        date_from: date,
        date_to: date,
        status: int,
        today: date,
        now: datetime,
        room_id: int | None = None,
        room_type_id: int | None = None,
        price_list_id: int | None = None,
        total_agreed_price: Decimal | None = None,
        currency_code: str | None = None,
        board: str | None = None,
        num_adults: int | None = None,
        num_children: int | None = None,
        booking_agency_id: int | None = None,
        booking_agency_reference_code: str | None = None,
        contract_id: int | None = None,
        notes: str | None = None,
    ) -> Reservation:
        """Make a reservation after checking every rule; nothing changes if one fails."""
        check_stay(date_from, date_to)
        check_status(status, "reservationStatus")
        self.customer(customer_id, "customer.id")
        if booking_agency_id is not None:
            self.booking_agency(booking_agency_id, "bookingAgencyId")
        if contract_id is not None:
            self.agency_contract(contract_id, "contractId")
        board = board or "RO"
        if board not in BOARDS:
            raise invalid("board", f"board must be one of {', '.join(BOARDS)}, not {board!r}")
        if num_adults is not None and num_adults < 1:
            raise invalid("numAdults", "numAdults must be at least 1")
        if currency_code is not None:
            self.convert(Decimal("0"), currency_code)  # an unknown currency is 400 currencyCode
        probe = Reservation(
            id=0,
            customer_id=customer_id,
            room_id=0,
            room_type_id=0,
            date_from=date_from,
            date_to=date_to,
            reservation_status_id=status,
            price_list_id=None,
            currency_code="",
            total_agreed_price=Decimal(0),
            normal_price=Decimal(0),
            create_date=now,
            last_update=now,
            actual_reservation_date=today,
        )
        set_departure(probe, status, today)
        room = self._resolve_room(room_id, room_type_id, probe)
        room_type_id = room_type_id if room_type_id is not None else room.room_type_id
        price_list = self.price_list_for(
            price_list_id=price_list_id,
            contract_id=contract_id,
            booking_agency_id=booking_agency_id,
            night=date_from,
        )
        if price_list is None:
            raise invalid("priceListId", "PriceListId is required: the property has no rack rate price list")
        normal_price = price_list.total(room_type_id, date_from, date_to)
        if total_agreed_price is None:
            if normal_price is None:
                raise invalid(
                    "totalAgreedPrice",
                    f"price list {price_list.id} has no price for every night of the stay; "
                    "send totalAgreedPrice",
                )
            total_agreed_price = normal_price
        if total_agreed_price < 0:
            raise invalid("totalAgreedPrice", "totalAgreedPrice cannot be negative")
        reservation = Reservation(
            id=self.allocate_id("reservation"),
            customer_id=customer_id,
            room_id=room.id,
            room_type_id=room_type_id,
            date_from=date_from,
            date_to=date_to,
            reservation_status_id=status,
            price_list_id=price_list.id,
            currency_code=(currency_code or price_list.currency_code).upper(),
            total_agreed_price=money(total_agreed_price),
            normal_price=money(normal_price if normal_price is not None else total_agreed_price),
            create_date=now,
            last_update=now,
            actual_reservation_date=today,
            board=board,
            num_adults=num_adults if num_adults is not None else room.num_adults_base,
            num_children=num_children or 0,
            booking_agency_id=booking_agency_id,
            booking_agency_reference_code=booking_agency_reference_code,
            contract_id=contract_id,
            notes=notes,
            departed_on=probe.departed_on,
        )
        if status in CANCELLED_STATUSES:
            reservation.cancel_date = now
            reservation.pre_cancellation_total_agreed_price = reservation.total_agreed_price
        self.reservations[reservation.id] = reservation
        return reservation

    def _resolve_room(self, room_id: int | None, room_type_id: int | None, reservation: Reservation) -> Room:
        """The room a new reservation gets: the one asked for, or a free one of the type asked for."""
        if room_type_id is not None:
            self.room_type(room_type_id, "roomTypeId")
        if room_id is None:
            if room_type_id is None:
                raise invalid("roomTypeId", "roomTypeId or roomId is required")
            return self._pick_room(room_type_id, reservation)
        room = self.room(room_id, "roomId")
        if room_type_id is not None and room.room_type_id != room_type_id:
            raise invalid(
                "roomTypeId",
                f"room {room.title} ({room.id}) is of room type {room.room_type_id}, not {room_type_id}",
            )
        span = reservation.held_nights()
        if span is not None:
            self.ensure_room_free(room, span[0], span[1], ignoring=reservation.id)
        return room

    def _pick_room(self, room_type_id: int, reservation: Reservation) -> Room:
        """A room of the type that is free on every night ``reservation`` would hold."""
        span = reservation.held_nights()
        if span is None:
            candidates = [r for r in self.sorted_rooms() if r.room_type_id == room_type_id]
            if not candidates:
                raise conflict(f"room type {room_type_id} has no rooms", "roomTypeId")
            return candidates[0]
        free = self.free_room_of_type(room_type_id, span[0], span[1], ignoring=reservation.id)
        if free is None:
            raise conflict(
                f"no room of room type {room_type_id} is free on every night of "
                f"{reservation.date_from.isoformat()}..{reservation.date_to.isoformat()}",
                "roomTypeId",
            )
        return free

    def change_stay(
        self,
        reservation: Reservation,
        *,
        room_id: int | None = None,
        room_type_id: int | None = None,
        date_from: date | None = None,
        date_to: date | None = None,
        status: int | None = None,
        today: date,
        now: datetime,
    ) -> None:
        """Move, resize or re-status a reservation, keeping every room single-booked.

        Nothing changes when a rule fails. A room is checked only for the nights the change adds,
        so a reservation whose room was disabled meanwhile can still be edited or shortened.
        """
        probe = replace(
            reservation,
            date_from=date_from or reservation.date_from,
            date_to=date_to or reservation.date_to,
            guest_ids=list(reservation.guest_ids),
        )
        check_stay(probe.date_from, probe.date_to)
        if status is not None:
            check_status(status, "reservationStatusId")
            if status != reservation.reservation_status_id:
                set_status(probe, status, today, now)
        if room_type_id is not None:
            self.room_type(room_type_id, "roomTypeId")
        span = probe.held_nights()
        if room_id is not None:
            room = self.room(room_id, "roomId")
            if room_type_id is not None and room.room_type_id != room_type_id:
                raise invalid(
                    "roomTypeId",
                    f"room {room.title} ({room.id}) is of room type {room.room_type_id}, not {room_type_id}",
                )
            probe.room_type_id = room_type_id if room_type_id is not None else room.room_type_id
        elif room_type_id is not None and room_type_id != reservation.room_type_id:
            room = self._pick_room(room_type_id, probe)
            probe.room_type_id = room_type_id
        else:
            room = self.room(reservation.room_id)
        old_span = reservation.held_nights()
        grows = old_span is None or (span is not None and (span[0] < old_span[0] or span[1] > old_span[1]))
        if span is not None and (room.id != reservation.room_id or grows):
            self.ensure_room_free(room, span[0], span[1], ignoring=reservation.id)
        probe.room_id = room.id
        probe.last_update = now
        self._reprice(reservation, probe)
        vars(reservation).update(vars(probe))

    def _reprice(self, old: Reservation, new: Reservation) -> None:
        """New nights or room type: a new normal price; an agreed price that followed it follows."""
        if (old.date_from, old.date_to, old.room_type_id) == (new.date_from, new.date_to, new.room_type_id):
            return
        price_list = self.price_lists.get(new.price_list_id) if new.price_list_id is not None else None
        normal = price_list.total(new.room_type_id, new.date_from, new.date_to) if price_list else None
        if normal is None:
            return
        if old.total_agreed_price == old.normal_price:
            new.total_agreed_price = money(normal)
        new.normal_price = money(normal)

    def set_reservation_status(
        self, reservation: Reservation, status: int, *, today: date, now: datetime
    ) -> None:
        self.change_stay(reservation, status=status, today=today, now=now)

    def group_members(self, reservation: Reservation) -> list[Reservation]:
        """The reservation and the others of its group, by id."""
        if not reservation.group_id:
            return [reservation]
        return sorted(
            (r for r in self.reservations.values() if r.group_id == reservation.group_id), key=lambda r: r.id
        )

    def new_group_id(self) -> str:
        return str(uuid.UUID(int=self.rng.getrandbits(128), version=4))

    def extra_charges_of(self, reservation_id: int) -> list[ReservationExtraCharge]:
        return sorted(
            (c for c in self.reservation_extra_charges.values() if c.reservation_id == reservation_id),
            key=lambda c: c.id,
        )

    def payments_of(self, reservation_ids: Iterable[int]) -> list[Payment]:
        wanted = set(reservation_ids)
        return sorted((p for p in self.payments.values() if p.reservation_id in wanted), key=lambda p: p.id)

    def total_extra_charges(self, reservation_id: int) -> Decimal:
        return money(sum((c.total for c in self.extra_charges_of(reservation_id)), Decimal("0")))

    def total_payments(self, reservation_id: int) -> Decimal:
        return money(sum((p.amount_currency for p in self.payments_of([reservation_id])), Decimal("0")))

    def total_extra_taxes(self, reservation: Reservation) -> Decimal:
        return money(reservation.total_agreed_price * self.taxes.extra_tax_percentage / 100)

    def balance(self, reservation: Reservation) -> Decimal:
        """What the customer still owes: agreed price + extra charges + extra taxes - payments."""
        return money(
            reservation.total_agreed_price
            + self.total_extra_charges(reservation.id)
            + self.total_extra_taxes(reservation)
            - self.total_payments(reservation.id)
        )

    def payment_status(self, reservation: Reservation) -> int:
        """``0`` unpaid, ``1`` partially paid, ``2`` paid (the extended reservation's ``status``)."""
        paid = self.total_payments(reservation.id)
        if paid <= 0:
            return 0 if self.balance(reservation) > 0 else 2
        return 2 if self.balance(reservation) <= 0 else 1

    # --- invoices ---------------------------------------------------------------------------------

    def invoice_preview(self, reservation: Reservation, *, today: date, now: datetime) -> InvoiceDocument:
        return derive_invoice(
            reservation,
            self.customer(reservation.customer_id),
            self.room_type(reservation.room_type_id).title,
            self.extra_charges_of(reservation.id),
            self.payments_of([reservation.id]),
            self.taxes,
            issue_date=today,
            create_date=now,
        )

    def issue_invoice(
        self, reservation_id: int, *, issue_date: date | None = None, now: datetime | None = None
    ) -> InvoiceDocument:
        """Front desk: issue the reservation's invoice (frozen from its preview)."""
        today, now = self._today_now(issue_date, now)
        reservation = self.reservation(reservation_id)
        document = self.invoice_preview(reservation, today=today, now=now)
        # An issued invoice is a document: later changes to the customer or payments don't alter it.
        document.customer = replace(document.customer, categories=list(document.customer.categories))
        document.id = self.allocate_id("invoice")
        document.number = f"A-{document.id:06d}"
        for index, line in enumerate(document.lines, start=1):
            line.id = document.id * 100 + index
        self.invoices[document.id] = document
        reservation.invoice_id = document.id
        reservation.invoice_number = document.number
        for payment in document.payments:
            payment.invoice_id = payment.invoice_id or document.id
        document.payments = [replace(payment) for payment in document.payments]
        return document

    # --- the front desk (called by the control surface and the seed) -----------------------------------

    def book(
        self,
        *,
        date_from: date,
        date_to: date,
        last_name: str,
        first_name: str | None = None,
        room_type_id: int | None = None,
        room_id: int | None = None,
        status: int = 3,
        price: Decimal | None = None,
        booking_agency_id: int | None = None,
        booking_agency_reference_code: str | None = None,
        num_adults: int | None = None,
        today: date | None = None,
        now: datetime | None = None,
    ) -> int:
        """Front desk: book a stay (nights ``date_from``..``date_to - 1``) for a new customer."""
        today, now = self._today_now(today, now)
        check_stay(date_from, date_to)
        if room_type_id is not None:
            self.room_type(room_type_id, "roomTypeId")
        if room_id is not None:
            self.room(room_id, "roomId")
        if not last_name:
            raise invalid("lastName", "lastName is required")
        customer_id = self.allocate_id("customer")
        self.customers[customer_id] = Customer(id=customer_id, last_name=last_name, first_name=first_name)
        try:
            reservation = self.create_reservation(
                customer_id=customer_id,
                date_from=date_from,
                date_to=date_to,
                status=status,
                room_id=room_id,
                room_type_id=room_type_id,
                total_agreed_price=price,
                booking_agency_id=booking_agency_id,
                booking_agency_reference_code=booking_agency_reference_code,
                num_adults=num_adults,
                today=today,
                now=now,
            )
        except ApiError:
            del self.customers[customer_id]  # the id stays used: ids are never reused
            raise
        return reservation.id

    def cancel(self, reservation_id: int, *, today: date | None = None, now: datetime | None = None) -> None:
        """Front desk: cancel (7; 8 for a tentative one, 11 for one that came from a channel)."""
        today, now = self._today_now(today, now)
        reservation = self.reservation(reservation_id)
        current = reservation.reservation_status_id
        status = {1: 8, 2: 11, 10: 11}.get(current, 7)
        if current in CANCELLED_STATUSES:
            return
        self.set_reservation_status(reservation, status, today=today, now=now)

    def check_in(
        self, reservation_id: int, *, today: date | None = None, now: datetime | None = None
    ) -> None:
        today, now = self._today_now(today, now)
        self.set_reservation_status(self.reservation(reservation_id), 4, today=today, now=now)

    def check_out(
        self, reservation_id: int, *, today: date | None = None, now: datetime | None = None
    ) -> None:
        """Front desk: check out (5, or 6 when the guest leaves before the departure day)."""
        today, now = self._today_now(today, now)
        reservation = self.reservation(reservation_id)
        status = 6 if today < reservation.date_to else 5
        self.set_reservation_status(reservation, status, today=today, now=now)

    def change_price(
        self,
        room_type_id: int,
        nights_to_change: Iterable[date],
        price: Decimal | None,
        price_list_id: int | None = None,
    ) -> None:
        """Front desk: set the nightly price of ``room_type_id`` (rack rate unless a list is given)."""
        self.room_type(room_type_id, "roomTypeId")
        price_list = self.price_list(price_list_id) if price_list_id is not None else self.rack_rate()
        if price_list is None:
            raise invalid("priceListId", "the property has no rack rate price list; name one")
        if price is not None and price < 0:
            raise invalid("price", "a nightly price cannot be negative")
        price_list.set_prices(room_type_id, nights_to_change, price)

    def close(self, nights_to_close: Iterable[date], room_type_id: int | None = None) -> None:
        """Front desk: close the room type (or, with None, the whole property) on ``nights``."""
        self._closures(room_type_id).update(nights_to_close)

    def open(self, nights_to_open: Iterable[date], room_type_id: int | None = None) -> None:
        """Front desk: reopen what ``close`` closed on ``nights``."""
        self._closures(room_type_id).difference_update(nights_to_open)

    def _closures(self, room_type_id: int | None) -> set[date]:
        if room_type_id is None:
            return self.property_closures
        self.room_type(room_type_id, "roomTypeId")
        return self.room_type_closures.setdefault(room_type_id, set())

    def set_room(
        self, room_id: int, *, is_enabled: int | None = None, clean_status: int | None = None
    ) -> None:
        """Front desk: enable/disable a room or mark it cleaned/not cleaned."""
        room = self.room(room_id)
        if is_enabled is not None:
            room.is_enabled = is_enabled
        if clean_status is not None:
            room.clean_status = clean_status


def check_stay(
    date_from: date, date_to: date, from_field: str = "dateFrom", to_field: str = "dateTo"
) -> None:
    """PMS stays are nights: ``dateFrom`` the first night, ``dateTo`` the departure day (03)."""
    if date_from >= date_to:
        raise invalid(
            to_field,
            f"{to_field} ({date_to.isoformat()}) must be after {from_field} ({date_from.isoformat()}): "
            "a stay is at least one night",
        )


def check_status(status: int, field_name: str) -> None:
    if not 1 <= status <= 12:
        raise invalid(field_name, f"{field_name} must be a reservation status 1-12, not {status}")


def set_departure(reservation: Reservation, status: int, today: date) -> None:
    """Record when a guest leaves: entering a departed status frees the nights from today on."""
    if status in DEPARTED_STATUSES:
        if reservation.reservation_status_id not in DEPARTED_STATUSES or reservation.departed_on is None:
            reservation.departed_on = min(max(today, reservation.date_from), reservation.date_to)
    else:
        reservation.departed_on = None


def set_status(reservation: Reservation, status: int, today: date, now: datetime) -> None:
    """Apply a status change and its bookkeeping (cancellation date, departure day)."""
    old = reservation.reservation_status_id
    set_departure(reservation, status, today)
    if status in CANCELLED_STATUSES and old not in CANCELLED_STATUSES:
        reservation.cancel_date = now
        reservation.pre_cancellation_total_agreed_price = reservation.total_agreed_price
    elif status not in CANCELLED_STATUSES:
        reservation.cancel_date = None
    reservation.reservation_status_id = status
