"""A front desk's bookings, cancellations, closures and price edits in a seeded random order, each
followed by a poll or a detection: after every run that could see all that changed, the channel
shows what the PMS holds (found wrong from outside by the busy-hour bench: a cancellation on the
single-unit studios that the polls left unshown)."""

from __future__ import annotations

import random
from datetime import timedelta

import pytest
from sync_harness import FIRST, LAST, Control, Emulator, SyncFactory, channel_mismatches, synced

from roomsync.adapters.store import Store
from roomsync.app.sync.runs.detect import detect_changes
from roomsync.app.sync.runs.poll import poll


@pytest.mark.parametrize(("seed", "steps"), [(1, 60), (2, 60), (3, 60), (4, 60), (21, 120)])
async def test_the_channel_shows_the_pms_after_each_run_that_could_see_the_changes(
    emulator: Emulator, control: Control, make_sync: SyncFactory, sqlite_store: Store, seed: int, steps: int
) -> None:
    """Seed 2 found touching closures merged into one run; seed 21, a known run reopened and then
    closed again across its edge before any detection (both read closed where nights were open)."""
    rng = random.Random(seed)
    sync = await synced(make_sync, sqlite_store, emulator, control)
    booked: list[tuple[int, list[str]]] = []
    closed: list[tuple[int, str, str]] = []
    unseen_by_polls = False  # a closure or price edit since the last detection
    unseen_by_detections = False  # a booking or cancellation since the last poll
    history: list[str] = []
    for step in range(steps):
        room_type = rng.choice([4, 4, 1, 2])
        start = FIRST + timedelta(days=rng.randint(1, 40))
        end = start + timedelta(days=rng.randint(0, 2))
        roll = rng.random()
        if booked and roll < 0.25:
            reservation, nights = booked.pop(rng.randrange(len(booked)))
            control.call("POST", "/pms/cancel", {"reservationId": reservation})
            history.append(f"cancel {reservation} {nights}")
            unseen_by_detections = True
        elif roll < 0.7:
            body = {"dateFrom": str(start), "dateTo": str(end + timedelta(days=1)),
                    "lastName": f"S{step}", "roomTypeId": room_type}  # fmt: skip
            answer = control.http.post("/pms/book", json=body)
            if answer.status_code == 200:
                reservation = int(answer.json()["reservationId"])
                booked.append((reservation, [str(start), str(end)]))
                history.append(f"book {reservation} type {room_type} {start}..{end}")
                unseen_by_detections = True
        elif roll < 0.85:
            if closed and rng.random() < 0.5:
                room_type, first, last = closed.pop(rng.randrange(len(closed)))
                body = {"dateFrom": first, "dateTo": last, "roomTypeId": room_type, "open": True}
            else:
                first, last = str(start), str(end)
                closed.append((room_type, first, last))
                body = {"dateFrom": first, "dateTo": last, "roomTypeId": room_type}
            control.call("POST", "/pms/close", body)
            history.append(f"close {body}")
            unseen_by_polls = True
        else:
            body = {"roomTypeId": room_type, "dateFrom": str(start), "dateTo": str(end), "price": "123.00"}
            control.call("POST", "/pms/price", body)
            history.append(f"price {body}")
            unseen_by_polls = True
        if rng.random() < 0.3:
            assert (await detect_changes(sync)).result == "ok", history
            unseen_by_polls = False
            history.append("detect")
        else:
            assert (await poll(sync)).result == "ok", history
            unseen_by_detections = False
            history.append("poll")
        if not unseen_by_polls and not unseen_by_detections:
            mismatches = channel_mismatches(emulator.state, control, FIRST, LAST)
            assert not mismatches, "\n".join(["after:", *history, "the channel differs:", *mismatches])
