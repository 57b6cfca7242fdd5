"""Calling PMS handlers the way the emulator app does, without HTTP: body decoded from JSON or XML
through the operation's request model, the answer encoded in the asked format and read back."""

from __future__ import annotations

import json
from dataclasses import dataclass
from datetime import UTC, date, datetime, timedelta
from decimal import Decimal
from types import SimpleNamespace
from typing import Any

from roomsync.core.catalog import by_name
from roomsync.core.codec import PayloadFormat, decode, encode
from roomsync.emulator.app import load_handlers
from roomsync.emulator.pms.invoices import TaxSettings
from roomsync.emulator.pms.prices import PriceList
from roomsync.emulator.pms.records import (
    AgencyContract,
    BookingAgency,
    CustomerCategory,
    ExtraCharge,
    ExtraChargeCategory,
    PaymentDescription,
    Room,
    RoomGroup,
    RoomType,
    Title,
)
from roomsync.emulator.pms.state import PmsState
from roomsync.emulator.registry import Call

HANDLERS = load_handlers()

TODAY = date(2027, 6, 1)


def day(offset: int) -> str:
    return (TODAY + timedelta(days=offset)).isoformat()


def small_property(today: date) -> PmsState:
    """Type 1 "Double" (rooms 101, 102), type 2 "Suite" (room 201); rack 100.00 / 200.00 a night
    for 90 nights from ``today``; a tour operator whose contract uses a partner list (Double 80.00);
    a breakfast and a generic POS item; payment descriptions "Deposit" and "Old" (disabled); 10% VAT."""
    state = PmsState(taxes=TaxSettings(vat_percentage=Decimal("10")))
    state.room_types[1] = RoomType(1, [Title("Double", "en", 1), Title("Diklino", "el", 0)])
    state.room_types[2] = RoomType(2, [Title("Suite")])
    state.room_groups[1] = RoomGroup(1, "Main")
    state.rooms[1] = Room(1, "101", 1, 1)
    state.rooms[2] = Room(2, "102", 1, 1)
    state.rooms[3] = Room(3, "201", 2, 1, num_adults_max=4)
    nights = [today + timedelta(days=i) for i in range(90)]
    rack = PriceList(1, "Rack", "EUR", today, is_rack_rate=True)
    rack.set_prices(1, nights, Decimal("100"))
    rack.set_prices(2, nights, Decimal("200"))
    partner = PriceList(2, "Partner", "EUR", today)
    partner.set_prices(1, nights, Decimal("80"))
    state.price_lists.update({1: rack, 2: partner})
    state.booking_agencies[1] = BookingAgency(1, "Tour operator")
    state.agency_contracts[1] = AgencyContract(1, 1, 2, today, nights[-1])
    state.customer_categories[1] = CustomerCategory(1, "VIP")
    state.extra_charge_categories[1] = ExtraChargeCategory(1, "Food")
    state.extra_charges[1] = ExtraCharge(1, 1, Decimal("12.50"), [Title("Breakfast")], is_ibe_enabled=1)
    state.extra_charges[2] = ExtraCharge(2, 1, Decimal("0"), [Title("POS item")])
    state.pos_extra_charge_id = 2
    state.payment_descriptions[1] = PaymentDescription(1, "Deposit", 1)
    state.payment_descriptions[2] = PaymentDescription(2, "Old", 0)
    return state


@dataclass
class Desk:
    """A PMS state and the emulator day the calls happen on."""

    pms: PmsState
    today: date
    now: datetime

    def call(
        self, name: str, body: Any = None, fmt: PayloadFormat = PayloadFormat.JSON, **params: object
    ) -> Any:
        """Run operation ``name``; the answer as the JSON value a client would read (None if empty)."""
        operation = by_name(name)
        model = None
        if operation.request is not None:
            raw = body if isinstance(body, (bytes, str)) else json.dumps(body, default=str)
            model = decode(
                operation.request, raw, fmt if isinstance(body, (bytes, str)) else PayloadFormat.JSON
            )
        state = SimpleNamespace(pms=self.pms)
        result = HANDLERS[name](
            Call(operation, {k: str(v) for k, v in params.items()}, model, state, self.today, self.now)  # type: ignore[arg-type]
        )
        if result is None:
            return None
        assert operation.response is not None and isinstance(result, operation.response)
        # Both payload forms must carry the answer: XML read back equals the object sent.
        again = decode(operation.response, encode(result, PayloadFormat.XML), PayloadFormat.XML)
        assert encode(again, PayloadFormat.JSON) == encode(result, PayloadFormat.JSON)
        return json.loads(encode(result, PayloadFormat.JSON))


def desk(pms: PmsState, today: date) -> Desk:
    return Desk(pms, today, datetime.combine(today, datetime.min.time(), tzinfo=UTC).replace(hour=10))
