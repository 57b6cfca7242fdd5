"""A MakeReservation answered too late for the channel's 3 seconds takes no room: the guest has
been told the dates are gone, and the hold would wait for a confirmation that never comes."""

from __future__ import annotations

import json
from datetime import UTC, datetime, timedelta
from pathlib import Path

import httpx

from roomsync.adapters.store import open_store
from roomsync.app.webhooks import create_receiver_app
from roomsync.core.mapping import parse_mapping
from roomsync.emulator.server import serve_in_thread
from roomsync.property_context import PropertyContext
from support.webhooks import (
    MAPPING,
    PROPERTY,
    STUDIO_A,
    STUDIO_TYPE,
    receiver_settings,
    signed_headers,
)


class StallingClock:
    """The receiver's clock: the delivery arrives now; everything after it, 3 seconds later."""

    def __init__(self) -> None:
        self.arrived = datetime.now(UTC)
        self.calls = 0

    def __call__(self) -> datetime:
        self.calls += 1
        return self.arrived if self.calls == 1 else self.arrived + timedelta(seconds=3)


def test_a_late_make_reservation_is_refused_without_a_hold(tmp_path: Path) -> None:
    settings = receiver_settings(tmp_path)
    clock = StallingClock()
    night = clock.arrived.date() + timedelta(days=30)
    with open_store(settings, upgrade=True) as store:
        store.mappings.replace_mapping(PROPERTY, parse_mapping(MAPPING))
        view = store.availability_view
        view.save_read(PROPERTY, clock.arrived, {STUDIO_TYPE: {night: 2}})
        app = create_receiver_app(PropertyContext.of(settings), store, clock=clock)
        with serve_in_thread(app) as base_url:
            body = json.dumps(
                {
                    "action": "MakeReservation",
                    "confirmationCode": "HMLATE0001",
                    "startDate": night.isoformat(),
                    "nights": "1",
                    "listingId": STUDIO_A,
                    "numberOfGuests": "2",
                    "guestDetails": {
                        "localizedDescription": "2 guests",
                        "adults": 2,
                        "children": 0,
                        "infants": 0,
                    },
                    "listingBasePrice": "100.00",
                    "guestId": "g",
                    "specialOfferId": None,
                }
            ).encode()
            response = httpx.post(
                f"{base_url}/webhooks/RentalChannel", content=body, headers=signed_headers(body)
            )
        assert response.json() == {"succeed": False, "failure_code": None}
        (answer,) = store.webhook_records.recent_answers(PROPERTY)  # written as the app stopped
        assert "too late to hold" in answer.reason
        assert view.holds_of(PROPERTY, "HMLATE0001") == {}
        assert view.read_nights(PROPERTY, STUDIO_TYPE, [night])[night].bookable == 2
