"""The connected-price repair (``roomsync.app.sync.runs.repush``) against the emulator over loopback
HTTP: every connected-channel price again in one ``POST Prices``, from the cached PMS prices.

The connected channels' prices are spoiled behind roomsync's back through the API, as another
application would; what the repair costs is counted in the emulator's request log, and the prices
the channels hold are judged against the emulator's PMS state (sync_harness).
"""

from __future__ import annotations

from datetime import timedelta
from decimal import Decimal

from sync_harness import (
    FIRST,
    LAST,
    POST_PRICES,
    Control,
    Emulator,
    SyncFactory,
    assert_converged,
    connected_mismatches,
    half_up,
    load_demo_mapping,
    nightly_price,
    synced,
)

from roomsync.adapters.store import Store
from roomsync.app.sync import PricesResult
from roomsync.app.sync.runs.full_sync import sync_property
from roomsync.app.sync.runs.repush import repush_connected_prices
from roomsync.core.api.channel_manager import PriceForDateRange, PricesRequest, RoomRateType

SPOILT = Decimal("11.11")
"""A price inside the channels' usual range that no PMS price of the demo rounds to."""
CONNECTED_RATES = [(1, RoomRateType.STANDARD), (1, RoomRateType.NON_REFUNDABLE)] + [
    (room_type_id, RoomRateType.STANDARD) for room_type_id in (2, 3, 4)
]
"""What the demo mapping's [[connected]] room types feed (type 1 with a non-refundable rate)."""


def spoil_every_connected_price() -> PricesRequest:
    return PricesRequest(
        prices_for_date_ranges=[
            PriceForDateRange(
                date_from=FIRST, date_to=LAST, room_type_id=room_type_id, room_rate_type=rate, price=SPOILT
            )
            for room_type_id, rate in CONNECTED_RATES
        ]
    )


def two_way_channels(emulator: Emulator) -> list[int]:
    return [c.id for c in emulator.state.manager.channels if c.is_reservations_only == 0]


async def test_every_connected_price_is_pushed_again_from_the_cache_in_one_request(
    emulator: Emulator, control: Control, make_sync: SyncFactory, sqlite_store: Store
) -> None:
    sync = await synced(make_sync, sqlite_store, emulator, control)
    assert connected_mismatches(emulator.state, control, FIRST, LAST) == []
    await sync.client.push_prices(spoil_every_connected_price())
    spoilt = connected_mismatches(emulator.state, control, FIRST, LAST)
    nights = [FIRST + timedelta(days=n) for n in range((LAST - FIRST).days + 1)]
    priced = [
        (t, night) for t, _ in CONNECTED_RATES for night in nights if nightly_price(emulator.state, t, night)
    ]
    assert len(spoilt) == len(two_way_channels(emulator)) * len(priced)  # every price the PMS has
    # the ledger cannot see it: a full sync pushes no price
    control.clear_log()
    assert (await sync_property(sync)).result == "ok"
    assert control.counts().get(POST_PRICES, 0) == 0
    # the front desk changes prices the cache does not know yet: the repair reads no PMS
    changed = [FIRST + timedelta(days=n) for n in range(30, 34)]
    cached = {night: nightly_price(emulator.state, 2, night) for night in changed}
    control.call(
        "POST",
        "/pms/price",
        {"roomTypeId": 2, "dateFrom": str(changed[0]), "dateTo": str(changed[-1]), "price": "123.45"},
    )
    control.clear_log()

    report = await repush_connected_prices(sync)

    assert report.result == "ok" and report.prices.result is PricesResult.OK, report.prices.messages
    assert control.counts() == {POST_PRICES: 1}  # no PMS read, no token, one batch
    # every connected price is right again, but the four nights the PMS changed since the cache:
    # those hold the cached price
    left = connected_mismatches(emulator.state, control, FIRST, LAST)
    channels = two_way_channels(emulator)
    assert sorted(line.split(":")[0] for line in left) == sorted(
        f"channel {channel} type 2 rate 1 {night}" for channel in channels for night in changed
    )
    held = {
        (row["channelId"], row["roomTypeId"], row["roomRateType"]): row["prices"]
        for row in control.connected_prices(FIRST, LAST)
    }
    for channel in channels:
        for night in changed:
            price = cached[night]
            assert price is not None
            assert Decimal(str(held[(channel, 2, 1)][night.isoformat()])) == half_up(price, "0.01")
    runs = sqlite_store.sync_runs.recent_runs(sync.property_id, kind="repush")
    assert [run.result for run in runs] == ["ok"]

    # the next full sync reads the changed prices and pushes them
    assert (await sync_property(sync)).result == "ok"
    assert_converged(emulator, control)


async def test_without_connected_room_types_there_is_nothing_to_re_push(
    emulator: Emulator, control: Control, make_sync: SyncFactory, sqlite_store: Store
) -> None:
    sync = make_sync(sqlite_store)
    load_demo_mapping(sqlite_store, sync.settings, emulator.state, connected=False)
    assert (await sync_property(sync)).result == "ok"  # the PMS prices are cached all the same
    before = control.connected_prices(FIRST, LAST)
    control.clear_log()

    report = await repush_connected_prices(sync)

    assert report.result == "ok"
    assert report.notes == ["no [[connected]] room types in the mapping: nothing to re-push"]
    assert report.prices.result is PricesResult.NOT_CONFIGURED
    assert control.total() == 0
    assert control.connected_prices(FIRST, LAST) == before
    runs = sqlite_store.sync_runs.recent_runs(sync.property_id, kind="repush")
    assert [run.result for run in runs] == ["ok"]
