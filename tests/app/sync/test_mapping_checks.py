"""A mapping is checked against the service before it is loaded, and a room type that disappears
from the PMS later pauses its listings instead of closing them.

Real ``roomsync`` processes against the emulator over loopback; the wrong entries are made by
editing a mapping that ``mappings suggest`` wrote from the emulator's own listings and rooms.
"""

from __future__ import annotations

import tomllib
from datetime import timedelta
from pathlib import Path

from sync_harness import NOW, PUT_INVENTORY, Control, Emulator, SyncFactory, load_demo_mapping
from test_sync_cli import cli_env, run

from roomsync.adapters.store import Store
from roomsync.app.sync import ListingStatus
from roomsync.app.sync.runs.full_sync import sync_property


def suggested(tmp_path: Path, env: dict[str, str]) -> str:
    assert run(["db", "upgrade"], env).returncode == 0
    target = tmp_path / "suggested.toml"
    result = run(["mappings", "suggest", "-o", str(target)], env)
    assert result.returncode == 0, result.stderr
    return target.read_text()


def test_suggest_writes_the_pms_currency(tmp_path: Path, emulator: Emulator, control: Control) -> None:
    env = cli_env(tmp_path, emulator)
    text = suggested(tmp_path, env)
    assert tomllib.loads(text)["currency"] == "EUR"
    assert "XXX" not in text
    assert run(["mappings", "load", str(tmp_path / "suggested.toml")], env).returncode == 0


def test_load_refuses_entries_the_service_does_not_have_one_line_each(
    tmp_path: Path, emulator: Emulator, control: Control
) -> None:
    env = cli_env(tmp_path, emulator)
    text = suggested(tmp_path, env)
    wrong = (
        text.replace('listing_id = "41000003"', 'listing_id = "41999999"', 1)  # no such listing
        .replace('account_id = "2002"', 'account_id = "2999"', 1)  # no such account
        .replace("room_type_id = 3\n", "room_type_id = 77\n", 1)  # no such room type
    )
    assert wrong.count("41999999") == 1 and wrong.count('"2999"') == 1 and wrong.count("= 77") == 1
    file = tmp_path / "wrong.toml"
    file.write_text(wrong)
    control.clear_log()

    result = run(["mappings", "load", str(file)], env)

    assert result.returncode == 2
    assert "Traceback" not in result.stderr
    lines = [line for line in result.stderr.strip().splitlines() if line]
    assert any("41999999" in line and "no such listing" in line for line in lines), lines
    assert any("2999" in line and "account" in line for line in lines), lines
    assert any("77" in line and "room type" in line for line in lines), lines
    assert len(lines) >= 3
    assert control.total() <= 3  # a token, GET Listings and one CombinedExtended
    status = run(["status"], env)
    assert "no mapping loaded" in status.stdout  # nothing was loaded


async def test_a_room_type_gone_from_the_pms_pauses_its_listings_and_never_closes_them(
    emulator: Emulator, control: Control, make_sync: SyncFactory, sqlite_store: Store
) -> None:
    sync = make_sync(sqlite_store)
    load_demo_mapping(sqlite_store, sync.settings, emulator.state)
    first = await sync_property(sync)
    assert first.result == "ok"
    doubles = [o for o in first.listings if o.room_type_id == 1]
    assert doubles and all(o.status in (ListingStatus.WRITTEN, ListingStatus.UNCHANGED) for o in doubles)
    before = control.calendar("41000003", NOW.date(), NOW.date() + timedelta(days=30))

    pms = emulator.state.pms
    gone = {room_id: room for room_id, room in pms.rooms.items() if room.room_type_id == 1}
    for room_id in gone:  # the hotel deletes the room type's rooms in the PMS
        del pms.rooms[room_id]
    control.clear_log()
    second = await sync_property(make_sync(sqlite_store))

    paused = [o for o in second.listings if o.room_type_id == 1]
    assert paused and all(o.status is ListingStatus.PAUSED for o in paused), paused
    assert all("room type 1" in (o.reason or "") for o in paused)
    after = control.calendar("41000003", NOW.date(), NOW.date() + timedelta(days=30))
    assert after == before, "the listing of a vanished room type was written"
    state = next(
        s
        for s in sqlite_store.listing_states.list_listing_states(sync.property_id)
        if s.listing.listing_id == "41000003"
    )
    assert state.paused and "room type 1" in (state.pause_reason or "")

    pms.rooms.update(gone)  # back: the pause lifts itself at the next sync
    third = await sync_property(make_sync(sqlite_store))
    assert all(o.status is not ListingStatus.PAUSED for o in third.listings if o.room_type_id == 1)
    assert control.counts().get(PUT_INVENTORY, 0) >= 0
