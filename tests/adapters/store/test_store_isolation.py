"""Two properties in one database, written with the very same keys, never see each other's rows."""

from __future__ import annotations

from datetime import UTC, date, datetime, timedelta
from decimal import Decimal

from roomsync.adapters.store import Store
from roomsync.core.budget import Reserves
from roomsync.core.catalog.types import Priority
from roomsync.core.mapping import parse_mapping
from roomsync.core.ports import ChannelDay, ListingKey, NewDelivery, RateKey, StoredToken, WindowTotal

AT = datetime(2027, 7, 1, 9, 0, tzinfo=UTC)
DAY = date(2027, 7, 1)


def write_everything(store: Store, property_id: str, marker: int) -> None:
    """The same keys for every property; ``marker`` tells the properties' values apart."""
    listing = ListingKey(property_id, "host", "L1")
    store.tokens.save_token(property_id, StoredToken(f"token-{marker}", AT))
    store.budget.try_spend(property_id, DAY, Priority.GUEST, 100, Reserves(), cost=marker)
    store.calendar.record_confirmed(listing, [ChannelDay(DAY, "available", marker)], AT)
    store.channel_prices.record_pushed_prices(RateKey(property_id, 1, 1), {DAY: Decimal(marker)}, AT)
    store.pms_prices.save_night_prices(property_id, 1, {DAY: Decimal(marker)}, "EUR", AT)
    window = WindowTotal(DAY, DAY + timedelta(days=1), Decimal(marker), "EUR", AT)
    store.pms_prices.save_window_total(property_id, 1, window)
    store.mappings.replace_mapping(
        property_id,
        parse_mapping(
            {
                "currency": "EUR",
                "listing": [
                    {
                        "room_type_id": marker,
                        "account_id": "host",
                        "listing_id": "L1",
                        "kind": "single",
                        "currency": "EUR",
                    }
                ],
            }
        ),
    )
    store.listing_states.set_approval_status(listing, f"status-{marker}")
    store.sync_runs.start_run(property_id, f"kind-{marker}", AT)
    store.inbox.accept_delivery(NewDelivery(property_id, "A", f"body-{marker}", "key", AT, webhook_id="w"))
    store.dead_letters.add_dead_letter(property_id, AT, f"reason-{marker}", "", {})
    store.reservation_links.claim_link(property_id, "HMSAMECODE", f"listing-{marker}", AT)


def read_everything(store: Store, property_id: str) -> list[object]:
    listing = ListingKey(property_id, "host", "L1")
    token = store.tokens.load_token(property_id)
    mapping = store.mappings.load_mapping(property_id)
    [item] = store.inbox.claim_batch(property_id, 10, AT)
    link = store.reservation_links.get_link(property_id, "HMSAMECODE")
    window = store.pms_prices.read_window_total(property_id, 1, DAY, DAY + timedelta(days=1))
    return [
        token and token.access_token,
        store.budget.snapshot(property_id, DAY, 100).used_local,
        store.calendar.read_days(listing, DAY, DAY)[DAY].state.count,
        store.channel_prices.read_pushed_prices(RateKey(property_id, 1, 1), DAY, DAY)[DAY].price,
        store.pms_prices.read_night_prices(property_id, 1, DAY, DAY)[DAY].price,
        window and window.total,
        mapping and [entry.room_type_id for entry in mapping.listings],
        [state.approval_status for state in store.listing_states.list_listing_states(property_id)],
        [run.kind for run in store.sync_runs.recent_runs(property_id)],
        item.body,
        [letter.reason for letter in store.dead_letters.list_dead_letters(property_id)],
        link and link.listing_id,
    ]


def test_two_properties_never_see_each_others_rows(
    store: Store, property_id: str, other_property_id: str
) -> None:
    write_everything(store, property_id, 1)
    write_everything(store, other_property_id, 2)

    assert read_everything(store, property_id) == [
        "token-1",
        1,
        1,
        Decimal("1.00"),
        Decimal("1.00"),
        Decimal("1.00"),
        [1],
        ["status-1"],
        ["kind-1"],
        "body-1",
        ["reason-1"],
        "listing-1",
    ]
    assert read_everything(store, other_property_id) == [
        "token-2",
        2,
        2,
        Decimal("2.00"),
        Decimal("2.00"),
        Decimal("2.00"),
        [2],
        ["status-2"],
        ["kind-2"],
        "body-2",
        ["reason-2"],
        "listing-2",
    ]

    store.tokens.clear_token(property_id)
    store.calendar.forget_days(ListingKey(property_id, "host", "L1"))
    store.pms_prices.clear_pms_prices(property_id)
    assert store.tokens.load_token(other_property_id) is not None
    assert store.calendar.read_days(ListingKey(other_property_id, "host", "L1"), DAY, DAY) != {}
    assert store.pms_prices.read_night_prices(other_property_id, 1, DAY, DAY) != {}
