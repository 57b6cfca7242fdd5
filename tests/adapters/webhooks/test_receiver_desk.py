"""The receiver is an adapter: it is handed its guest-check desk and knows nothing of how a check
is decided. Here it is handed a desk of the test's own (answering even stays yes, odd ones no) and
served over loopback on a real SQLite store: the guest checks reach the desk and carry its answer
back, every other event is stored without it, and the start and stop hooks run around the app,
the desk's gathered answers written before the stop hook."""

from __future__ import annotations

import asyncio
import json
import threading
from datetime import UTC, datetime, timedelta
from pathlib import Path
from typing import Any

import httpx

from roomsync.adapters.store import open_store
from roomsync.adapters.webhooks import Answered, GuestCheck, Verdict, create_receiver_app
from roomsync.core.ports import InboxStatus, NewDelivery, WebhookInbox
from roomsync.emulator.server import serve_in_thread
from roomsync.property_context import PropertyContext
from support.webhooks import HOST_A, PROPERTY, STUDIO_A, receiver_settings, signed_headers


class CountedAnswers:
    """Answers gathered in memory; ``flush`` counts them as written."""

    FLUSH_SECONDS = 30.0  # longer than the test: only the stop writes them

    def __init__(self) -> None:
        self.pending = 0
        self.written = 0
        self._lock = threading.Lock()

    def add(self) -> None:
        with self._lock:
            self.pending += 1

    def flush(self) -> int:
        with self._lock:
            count, self.pending = self.pending, 0
            self.written += count
            return count


class EvenStaysDesk:
    """Stores the check as the application's desk does, and answers yes to an even number of
    nights: an answer the receiver could not have made up itself."""

    def __init__(self, inbox: WebhookInbox) -> None:
        self.inbox = inbox
        self.answers = CountedAnswers()
        self.received: list[GuestCheck] = []

    async def receive(self, event: GuestCheck, delivery: NewDelivery) -> Answered:
        accepted = await asyncio.to_thread(self.inbox.accept_delivery, delivery)
        self.received.append(event)
        self.answers.add()
        return Answered(accepted, Verdict(event.nights % 2 == 0, "even stays only (the test's desk)"))


def check(nights: int) -> dict[str, Any]:
    start = (datetime.now(UTC) + timedelta(days=30)).date()
    return {
        "action": "CheckAvailability",
        "listingId": STUDIO_A,
        "startDate": start.isoformat(),
        "nights": nights,
    }


def test_the_receiver_hands_guest_checks_to_the_desk_it_was_given(tmp_path: Path) -> None:
    settings = receiver_settings(tmp_path)
    hooks: list[str] = []
    with open_store(settings, upgrade=True) as store:
        desk = EvenStaysDesk(store.inbox)

        async def started() -> None:
            hooks.append("start")

        async def stopped() -> None:
            hooks.append(f"stop after {desk.answers.written} answers written")

        app = create_receiver_app(
            PropertyContext.of(settings), store, desk=desk, on_start=started, on_stop=stopped
        )
        with serve_in_thread(app) as base_url, httpx.Client(timeout=30) as http:
            url = f"{base_url}/webhooks/RentalChannel"

            def post(payload: dict[str, Any], webhook_id: str) -> httpx.Response:
                body = json.dumps(payload).encode()
                return http.post(url, content=body, headers=signed_headers(body, webhook_id=webhook_id))

            assert hooks == ["start"]
            two, three = post(check(2), "wh-2"), post(check(3), "wh-3")
            assert (two.status_code, two.json()) == (200, {"succeed": True, "failure_code": None})
            assert (three.status_code, three.json()) == (200, {"succeed": False, "failure_code": None})
            unlink = post({"action": "ListingsUnlinked", "hostId": HOST_A, "listingIds": [STUDIO_A]}, "wh-u")
            assert unlink.json() == {"succeed": True, "failure_code": None}
            assert [event.nights for event in desk.received] == [2, 3]  # the unlink never reached it
            counts = store.inbox.count_by_status(PROPERTY)
            # the checks were stored by the desk (answered on receipt), the unlink by the receiver
            assert counts.get(InboxStatus.PENDING) == 1 and sum(counts.values()) == 3
            assert desk.answers.written == 0
        assert hooks == ["start", "stop after 2 answers written"]
