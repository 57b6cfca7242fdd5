"""CheckAvailability, MakeReservation and UpdateReservation: what roomsync answers, from which
view, and what a PMS read costs."""

from __future__ import annotations

import asyncio
from datetime import UTC, datetime
from typing import Any

import httpx
import pytest

from roomsync.app.sync.runs.full_sync import sync_property
from roomsync.core.mapping import parse_mapping
from roomsync.core.sync.desired import api_weekday
from support.webhooks import (
    DOUBLE_TYPE,
    DOUBLES,
    MAPPING,
    PROPERTY,
    TWIN_TYPE,
    TWINS,
    Harness,
    signed_headers,
)

AVAILABILITY_READ = "POST /v1/Availability/Room"


def check(harness: Harness, listing: str, start: int, nights: int) -> dict[str, Any]:
    return harness.check_event(listing, start, nights)


def make(harness: Harness, code: str, listing: str, start: int, nights: int) -> dict[str, Any]:
    return harness.make_event(code, listing, start, nights)


def update(harness: Harness, code: str, listing: str, start: int, nights: int) -> dict[str, Any]:
    return {
        "action": "UpdateReservation",
        "confirmationCode": code,
        "startDate": harness.day(start).isoformat(),
        "nights": str(nights),
        "listingId": listing,
        "numberOfGuests": "2",
        "listingBasePrice": "300.00",
    }


def answer(harness: Harness, payload: dict[str, Any]) -> bool:
    response = harness.post(payload)
    assert response.status_code == 200, response.text
    body = response.json()
    assert set(body) == {"succeed", "failure_code"} and body["failure_code"] is None
    succeed: bool = body["succeed"]
    return succeed


def last_reason(harness: Harness) -> str:
    return harness.answers(limit=1)[0].reason


def reads(harness: Harness) -> int:
    counts: dict[str, int] = harness.ctl("GET", "/requests")["counts"]
    return counts.get(AVAILABILITY_READ, 0)


async def test_a_free_stay_passes_and_the_impossible_ones_do_not(harness: Harness) -> None:
    assert answer(harness, check(harness, DOUBLES, 170, 3)) is True
    assert answer(harness, check(harness, "41009999", 170, 3)) is False
    assert "not in the mapping" in last_reason(harness)
    assert answer(harness, check(harness, DOUBLES, -2, 3)) is False
    assert "before today" in last_reason(harness)
    assert answer(harness, check(harness, DOUBLES, 170, 0)) is False
    assert "at least one night" in last_reason(harness)


@pytest.mark.parametrize("settings_overrides", [{"availability_view_max_age_seconds": 0.0}])
async def test_a_full_night_is_refused_with_that_night_as_the_reason(harness: Harness) -> None:
    harness.fill_pms(DOUBLE_TYPE, 175, 175, leave_free=0)
    assert answer(harness, check(harness, DOUBLES, 173, 4)) is False
    assert f"no room of type {DOUBLE_TYPE} is left on {harness.day(175)}" in last_reason(harness)
    assert answer(harness, check(harness, DOUBLES, 176, 2)) is True


async def test_the_listings_restrictions_are_kept(harness: Harness) -> None:
    start = harness.day(180)
    mapping = {
        **MAPPING,
        "listing": [
            {
                **entry,
                "restrictions": {"min_nights": 3, "max_nights": 7, "closed_to_arrival": [api_weekday(start)]},
            }
            if entry["listing_id"] == DOUBLES
            else entry
            for entry in MAPPING["listing"]
        ],
    }
    harness.store.mappings.replace_mapping(PROPERTY, parse_mapping(mapping))
    assert answer(harness, check(harness, DOUBLES, 181, 2)) is False
    assert "at least 3 nights" in last_reason(harness)
    assert answer(harness, check(harness, DOUBLES, 181, 8)) is False
    assert answer(harness, check(harness, DOUBLES, 180, 3)) is False
    assert "closed to arrival" in last_reason(harness)
    assert answer(harness, check(harness, DOUBLES, 181, 3)) is True


async def test_a_burst_of_checks_costs_one_pms_read(harness: Harness) -> None:
    before = reads(harness)
    body = check(harness, TWINS, 190, 5)

    async def one(client: httpx.AsyncClient, n: int) -> bool:
        content = __import__("json").dumps(body).encode()
        response = await client.post(
            harness.receiver_url, content=content, headers=signed_headers(content, webhook_id=f"burst-{n}")
        )
        result: bool = response.json()["succeed"]
        return result

    async with httpx.AsyncClient(timeout=30) as client:
        results = await asyncio.gather(*(one(client, n) for n in range(20)))
    assert results == [True] * 20
    assert reads(harness) == before + 1
    assert answer(harness, check(harness, TWINS, 191, 2)) is True  # inside the fresh view: no read
    assert reads(harness) == before + 1


@pytest.mark.parametrize(
    "settings_overrides", [{"availability_view_max_age_seconds": 600.0, "time_scale": 0.0001}]
)
async def test_a_compressed_clock_compresses_the_views_max_age(harness: Harness) -> None:
    """600 s of daemon time at time_scale 0.0001 is 0.06 real s: a view read a second ago is hours
    old on the compressed clock, so the next check reads the PMS again (a test's emulated day
    must not answer guests from a view read hours of its time ago)."""
    assert answer(harness, check(harness, TWINS, 192, 2)) is True
    before = reads(harness)
    await asyncio.sleep(1.0)
    assert answer(harness, check(harness, TWINS, 192, 2)) is True
    assert reads(harness) == before + 1


@pytest.mark.parametrize("settings_overrides", [{"availability_view_max_age_seconds": 0.0}])
async def test_without_budget_the_check_is_answered_from_the_view_as_it_is(harness: Harness) -> None:
    assert answer(harness, check(harness, TWINS, 195, 2)) is True
    before = reads(harness)
    today = datetime.now(UTC).date()
    harness.store.budget.observe_server(PROPERTY, today, 1500, 1500)  # the day's quota is gone
    assert answer(harness, check(harness, TWINS, 195, 2)) is True  # the stale view still says free
    assert answer(harness, check(harness, TWINS, 200, 2)) is False  # never read: roomsync cannot know
    assert "budget" in last_reason(harness)
    assert reads(harness) == before


async def test_a_repeated_make_reservation_holds_once(harness: Harness) -> None:
    harness.fill_pms(TWIN_TYPE, 205, 206, leave_free=1)
    assert answer(harness, make(harness, "HMREPEAT01", TWINS, 205, 2)) is True
    assert answer(harness, make(harness, "HMREPEAT01", TWINS, 205, 2)) is True  # the same guest again
    assert "already holds" in last_reason(harness)
    assert answer(harness, make(harness, "HMOTHER002", TWINS, 205, 1)) is False


@pytest.mark.parametrize("settings_overrides", [{"availability_view_max_age_seconds": 0.0}])
async def test_an_alteration_counts_the_reservations_own_nights_as_free(harness: Harness) -> None:
    code = harness.book(TWINS, 210, 2)["confirmationCode"]
    harness.settle()
    await harness.drain()
    harness.fill_pms(TWIN_TYPE, 209, 213, leave_free=0)  # every other twin room is taken
    assert answer(harness, update(harness, code, TWINS, 210, 1)) is True
    assert answer(harness, update(harness, code, TWINS, 211, 1)) is True
    assert answer(harness, update(harness, code, TWINS, 210, 3)) is False
    assert str(harness.day(212)) in last_reason(harness)
    assert answer(harness, update(harness, "HMUNKNOWN1", TWINS, 210, 2)) is False


async def test_a_night_the_pms_closed_is_refused_before_the_channel_shows_it(harness: Harness) -> None:
    """The front desk closes the doubles on one night: once a sync has located the closure, a guest
    asking for a stay over that night hears no, with the closure as the reason, and a stay beside
    it still hears yes (the channel's calendar may not show the closure yet: the desk must not
    depend on it)."""
    from roomsync.app.sync.runs.property_sync import PropertySync
    from roomsync.metrics import Metrics

    closed = harness.day(150)
    harness.ctl(
        "POST",
        "/pms/close",
        {"dateFrom": closed.isoformat(), "dateTo": closed.isoformat(), "roomTypeId": DOUBLE_TYPE},
    )
    assert answer(harness, check(harness, DOUBLES, 149, 3)) is True  # no sync has seen it yet
    sync = PropertySync.of(harness.context, harness.store, harness.client, metrics=Metrics())
    synced = await sync_property(sync)
    assert synced.result in ("ok", "ok_with_warnings"), synced.error
    await asyncio.sleep(2.1)  # the desk's closures are cached for 2 s
    assert answer(harness, check(harness, DOUBLES, 149, 3)) is False
    assert last_reason(harness) == f"the PMS has room type {DOUBLE_TYPE} closed on {closed}"
    assert answer(harness, make(harness, "HMCLOSED1", DOUBLES, 150, 1)) is False
    assert answer(harness, check(harness, DOUBLES, 151, 2)) is True, last_reason(harness)  # the night after
    assert answer(harness, check(harness, TWINS, 150, 1)) is True  # another room type is not closed
