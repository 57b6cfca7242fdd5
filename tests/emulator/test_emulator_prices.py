"""POST /v1/ChannelManager/Prices: element validation, the Channel response and the async queue."""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

import pytest
from emulator_http import Emu, day

PRICES = "/v1/ChannelManager/Prices"


def element(first: int, last: int, room_type: int = 1, rate: int = 1, price: float = 120.0) -> dict[str, Any]:
    return {
        "dateFrom": day(first),
        "dateTo": day(last),
        "roomTypeId": room_type,
        "roomRateType": rate,
        "price": price,
    }


def push(emu: Emu, *elements: dict[str, Any]) -> Any:
    return emu.call("POST", PRICES, {"pricesForDateRanges": list(elements)})


@pytest.fixture
def slow_queue(emu: Emu) -> Iterator[Emu]:
    """The queue holds batches until processed through the control surface."""
    emu.ctl("POST", "/channel-manager/settings", {"processingDelaySeconds": 600})
    yield emu
    emu.ctl("POST", "/channel-manager/settings", {"processingDelaySeconds": 0.2})


def channel_prices(emu: Emu, first: int, last: int, room_type: int = 1) -> dict[int, dict[str, float]]:
    table = emu.ctl("GET", f"/channel-manager/prices?from={day(first)}&to={day(last)}&roomTypeId={room_type}")
    return {row["channelId"]: row["prices"] for row in table["channels"] if row["roomRateType"] == 1}


def test_a_valid_batch_is_queued_and_applied_later_to_the_two_way_channels(slow_queue: Emu) -> None:
    emu = slow_queue
    answer = push(emu, element(1, 3, price=99.5))
    assert answer.json() == {"result": 1, "channelErrors": [], "channelWarnings": [], "serviceErrors": []}
    assert channel_prices(emu, 1, 3) == {}
    assert emu.ctl("GET", "/channel-manager/settings")["pending"] == 1
    assert emu.ctl("POST", "/channel-manager/process") == {"processed": 1}
    expected = {day(i): 99.5 for i in (1, 2, 3)}
    # Channel 78 is one-way (reservations only) and takes no prices.
    assert channel_prices(emu, 1, 3) == {76: expected, 77: expected}
    job = emu.ctl("GET", "/channel-manager/jobs")[-1]
    assert (job["state"], job["outcome"]["result"]) == ("done", 1)


def test_the_queue_empties_by_itself(emu: Emu) -> None:
    push(emu, element(5, 5, price=101))
    assert emu.ctl("POST", "/channel-manager/wait", {"timeout": 5})["done"] is True
    assert channel_prices(emu, 5, 5)[76] == {day(5): 101}


def test_a_span_of_365_days_is_allowed_and_366_is_not(emu: Emu) -> None:
    assert push(emu, element(0, 365)).json()["result"] == 1
    refused = push(emu, element(0, 366))
    assert refused.status_code == 400
    assert refused.json()["error"]["field"] == "pricesForDateRanges.0.dateTo"


def test_date_from_after_date_to_is_refused(emu: Emu) -> None:
    refused = push(emu, element(4, 3))
    assert refused.status_code == 400
    assert refused.json()["error"]["field"] == "pricesForDateRanges.0.dateTo"


def test_a_room_rate_type_other_than_1_or_2_is_refused(emu: Emu) -> None:
    assert push(emu, element(1, 1, rate=2)).json()["result"] == 1
    refused = push(emu, element(1, 1, rate=3))
    assert refused.status_code == 400
    assert refused.json()["error"]["field"] == "pricesForDateRanges.0.roomRateType"


def test_an_unknown_room_type_is_a_service_error_and_nothing_is_queued(slow_queue: Emu) -> None:
    emu = slow_queue
    answer = push(emu, element(1, 2, price=80), element(1, 2, room_type=99)).json()
    assert answer["result"] == 3
    assert [e["code"] for e in answer["serviceErrors"]] == ["UNKNOWN_ROOM_TYPE"]
    assert "pricesForDateRanges.1" in answer["serviceErrors"][0]["message"]
    assert emu.ctl("GET", "/channel-manager/settings")["pending"] == 0


def test_channels_whose_contracts_use_different_price_lists_are_an_error(emu: Emu) -> None:
    emu.ctl("POST", "/channel-manager/channels/77", {"priceListId": 2})
    answer = push(emu, element(1, 2)).json()
    assert answer["result"] == 3
    assert answer["serviceErrors"][0]["code"] == "PRICE_LISTS_DIFFER"


def test_a_price_outside_the_sane_range_is_ok_with_a_warning(slow_queue: Emu) -> None:
    emu = slow_queue
    answer = push(emu, element(1, 1, price=4.0)).json()
    assert answer["result"] == 2
    assert answer["channelWarnings"][0]["code"] == "PRICE_OUT_OF_RANGE"
    emu.ctl("POST", "/channel-manager/process")
    assert channel_prices(emu, 1, 1)[76] == {day(1): 4.0}
    assert emu.ctl("GET", "/channel-manager/jobs")[-1]["outcome"]["result"] == 2


def test_a_failing_channel_makes_the_processed_batch_an_error(slow_queue: Emu) -> None:
    emu = slow_queue
    emu.ctl("POST", "/channel-manager/channels/77", {"failing": True})
    assert push(emu, element(1, 1, price=111)).json()["result"] == 1
    emu.ctl("POST", "/channel-manager/process")
    outcome = emu.ctl("GET", "/channel-manager/jobs")[-1]["outcome"]
    assert outcome["result"] == 3
    assert [e["channelId"] for e in outcome["channelErrors"]] == [77]
    assert channel_prices(emu, 1, 1) == {76: {day(1): 111}}


def test_a_past_range_is_a_service_error(emu: Emu) -> None:
    answer = push(emu, element(-5, -1)).json()
    assert answer["result"] == 3
    assert answer["serviceErrors"][0]["code"] == "PAST_RANGE"
