"""``roomsync demo``: the whole sync, end to end, against the bundled emulator of the service.

No configuration is needed: the emulator's demo hotel is served in a background thread on a free
loopback port, the settings point at it (its credentials are the emulator's), a database of the
demo's own is created afresh in ``<data_dir>/demo`` (the demo says so before anything else), a
mapping is suggested and loaded, a plan is shown, the property is synced, the front desk takes a
booking and changes a price, and the next syncs show what that costs. The emulator is new at every
run and so is the database, so every run prints the same result (a database kept from the last
run had its ledger of a channel that no longer exists: the second run planned 13 requests instead
of 393 and left three nights different). The settings' own database is never touched; the demo's
stays until the next run, and the last line says how ``roomsync status`` shows it.
"""

from __future__ import annotations

import asyncio
from dataclasses import dataclass
from datetime import date, timedelta
from decimal import Decimal
from pathlib import Path
from typing import Any

import httpx
import typer
from pydantic import SecretStr
from rich.console import Console
from rich.table import Table

from roomsync.adapters.store import display_url
from roomsync.app.cli_support import EXIT_FAILURE, engine_errors, fail, settings_or_exit
from roomsync.app.sync import SyncReport
from roomsync.app.sync.mapping_io import (
    check_currency,
    parse_mapping_toml,
    read_for_suggestion,
    read_pms_currency,
    render_toml,
    suggest,
)
from roomsync.app.sync.render import calendar_table, listings_table, make_console, summary_lines
from roomsync.app.sync.runs.full_sync import sync_property
from roomsync.app.sync.runs.plan import plan
from roomsync.app.sync.session import SyncSession, open_session
from roomsync.core.ports import listing_text
from roomsync.core.sync import Availability, DayState
from roomsync.emulator.app import create_app
from roomsync.emulator.scenario import DEFAULT_SEED, build_state
from roomsync.emulator.server import serve_in_thread
from roomsync.property_context import PropertyContext
from roomsync.settings import Settings

DEMO_DOMAIN = "demo-hotel"
DEMO_DIRECTORY = "demo"
"""The demo's own directory under ``data_dir``: its database and mapping, made afresh at each run."""
DEMO_FILES = ("roomsync.db", "roomsync.db-wal", "roomsync.db-shm", "demo-mapping.toml")
"""What a run leaves in :data:`DEMO_DIRECTORY`, removed at the start of the next (nothing else is)."""
SHOWN_LISTING = ("2001", "41000003")
"""The room-type listing whose calendar is shown before and after (the emulator's double rooms)."""
SHOWN_DAYS = 14
FRONT_DESK_PRICE = Decimal("129.00")


@dataclass
class SyncLine:
    label: str
    report: SyncReport


def demo(
    seed: int = typer.Option(DEFAULT_SEED, help="Seed of the demo hotel (same seed, same hotel)."),
) -> None:
    """Sync the emulator's demo hotel end to end and show what each step cost.

    It writes only to ``<data_dir>/demo`` (its own database and mapping, made afresh at each run,
    so every run gives the same result); the settings' database is never touched."""
    base = settings_or_exit()
    directory = base.data_dir / DEMO_DIRECTORY
    database_url = f"sqlite:///{directory / 'roomsync.db'}"
    console = make_console()
    console.print(
        f"roomsync demo writes only to {directory}: a database and a mapping of its own, made afresh "
        "at each run (every run gives the same result); the settings' database is not touched.",
        highlight=False,
        soft_wrap=True,
    )
    _start_afresh(directory)
    state = build_state("demo", seed)
    credentials = state.credentials
    with serve_in_thread(create_app(state)) as base_url:
        settings = base.model_copy(
            update={
                "base_url": base_url,
                "channel_name": state.channel_name,
                "username": credentials.username,
                "password": SecretStr(credentials.password),
                "domain": credentials.domain,
                "api_key": None,
                "property_id": DEMO_DOMAIN,
                "data_dir": directory,
                "database_url": database_url,
                "mapping_file": None,
            }
        )
        with engine_errors(settings):
            lines = asyncio.run(_run(settings, base_url, console))
    console.rule("what it cost")
    console.print(_cost_table(lines))
    hint = f"ROOMSYNC_DATABASE_URL={database_url} roomsync status --property {DEMO_DOMAIN}"
    console.print(
        f"The demo's data stays in {display_url(database_url)} until the next run: `{hint}` shows it.",
        highlight=False,
        soft_wrap=True,
    )
    if any(line.report.result in ("failed", "no_budget") for line in lines):
        raise typer.Exit(EXIT_FAILURE)


def _start_afresh(directory: Path) -> None:
    """Remove what the last run left in ``directory`` (only :data:`DEMO_FILES`), or stop with one
    line when the directory cannot be used."""
    try:
        directory.mkdir(parents=True, exist_ok=True)
        for name in DEMO_FILES:
            (directory / name).unlink(missing_ok=True)
    except OSError as error:
        why = error.strerror or str(error)
        raise fail(f"cannot prepare the demo's directory {directory}: {why}", EXIT_FAILURE) from None


async def _run(settings: Settings, base_url: str, console: Console) -> list[SyncLine]:
    async with (
        open_session(PropertyContext.of(settings), upgrade=True) as session,
        httpx.AsyncClient(base_url=f"{base_url}/_emulator", timeout=10) as control,
    ):
        today = session.sync.clock().date()
        console.rule("roomsync demo")
        console.print(
            f"emulator (demo hotel) on {base_url}; database {session.store.url}; "
            f"property {session.sync.property_id}; horizon {settings.horizon_days} nights from {today}",
            highlight=False,
        )
        await _load_mapping(session, console, today)
        shown = [today + timedelta(days=n) for n in range(SHOWN_DAYS)]
        before = await _channel_days(control, SHOWN_LISTING[1], shown)
        lines: list[SyncLine] = []

        console.rule("1. plan (dry run)")
        planned = await plan(session.sync)
        _print(console, planned)
        lines.append(SyncLine("plan (reads only)", planned))

        console.rule("2. first sync")
        first = await sync_property(session.sync)
        _print(console, first)
        lines.append(SyncLine("first sync", first))

        console.rule("3. the front desk: a booking and a price change")
        for message in await _front_desk(control, today):
            console.print(message, highlight=False)

        console.rule("4. sync after the front desk's changes")
        second = await sync_property(session.sync)
        _print(console, second)
        lines.append(SyncLine("sync after the changes", second))

        console.rule("5. sync with nothing changed")
        quiet = await sync_property(session.sync)
        _print(console, quiet)
        lines.append(SyncLine("sync, nothing changed", quiet))

        after = await _channel_days(control, SHOWN_LISTING[1], shown)
        console.rule(f"listing {SHOWN_LISTING[0]}/{SHOWN_LISTING[1]} on the channel")
        console.print(
            calendar_table(
                "before the first sync -> after the last (availability, count, price)", shown, before, after
            )
        )
        return lines


async def _load_mapping(session: SyncSession, console: Console, today: date) -> None:
    console.rule("mapping: suggested from GET Listings + GET Rooms, checked against the PMS currency")
    listings, room_types = await read_for_suggestion(session.client)
    currency = await read_pms_currency(session.client, today)
    suggestions = suggest(listings, room_types)
    text = render_toml(suggestions, room_types, currency)
    path = session.settings.data_dir / "demo-mapping.toml"
    path.write_text(text)
    mapping = parse_mapping_toml(text, str(path))
    check_currency(mapping, currency, str(path))
    await asyncio.to_thread(session.store.mappings.replace_mapping, session.sync.property_id, mapping)
    table = Table(title=f"mapping (written to {path})")
    for column in ("listing", "name", "room type", "kind", "connected"):
        table.add_column(column)
    for suggestion in suggestions:
        listing = suggestion.listing
        table.add_row(
            listing_text(listing.account_id, listing.listing_id),
            listing.name,
            suggestion.room_type.title if suggestion.room_type else "-",
            suggestion.kind,
            listing.connected.value,
        )
    console.print(table)
    console.print(
        f"currency {currency}; {len(mapping.connected)} room types priced on the connected channels",
        highlight=False,
    )


async def _front_desk(control: httpx.AsyncClient, today: date) -> list[str]:
    """Book a double room for two nights and change the doubles' price for four nights."""
    free = (
        await _get(
            control,
            "/pms/availability",
            {"from": today.isoformat(), "to": (today + timedelta(days=13)).isoformat()},
        )
    )["freeRooms"]["1"]
    start = next(
        (
            today + timedelta(days=n)
            for n in range(1, 12)
            if all(free[(today + timedelta(days=n + k)).isoformat()] > 0 for k in range(2))
        ),
        today + timedelta(days=1),
    )
    booked = await _post(
        control,
        "/pms/book",
        {
            "dateFrom": start.isoformat(),
            "dateTo": (start + timedelta(days=2)).isoformat(),
            "lastName": "Demo",
            "roomTypeId": 1,
        },
    )
    price_from = today + timedelta(days=7)
    await _post(
        control,
        "/pms/price",
        {
            "roomTypeId": 1,
            "dateFrom": price_from.isoformat(),
            "dateTo": (price_from + timedelta(days=3)).isoformat(),
            "price": str(FRONT_DESK_PRICE),
        },
    )
    return [
        f"booked room {booked['roomId']} (Double Room) for the nights {start} and "
        f"{start + timedelta(days=1)} (PMS reservation {booked['reservationId']})",
        f"Double Room costs {FRONT_DESK_PRICE} a night from {price_from} to {price_from + timedelta(days=3)}",
    ]


async def _channel_days(
    control: httpx.AsyncClient, listing_id: str, days: list[date]
) -> dict[date, DayState]:
    """The listing's calendar as the emulator holds it (the control surface, no request counted)."""
    answer = await _get(
        control, f"/channel/calendar/{listing_id}", {"from": days[0].isoformat(), "to": days[-1].isoformat()}
    )
    calendar: dict[date, DayState] = {}
    for day in answer["days"]:
        price = Decimal(str(day["dailyPrice"]))
        calendar[date.fromisoformat(day["date"])] = DayState(
            Availability(day["availability"]),
            count=day["availableCount"],
            price=int(price) if price == price.to_integral_value() else None,
        )
    return calendar


async def _get(control: httpx.AsyncClient, path: str, params: dict[str, str]) -> Any:
    response = await control.get(path, params=params)
    if response.status_code != 200:
        raise fail(f"emulator {path}: {response.status_code} {response.text}", EXIT_FAILURE)
    return response.json()


async def _post(control: httpx.AsyncClient, path: str, body: dict[str, Any]) -> Any:
    response = await control.post(path, json=body)
    if response.status_code != 200:
        raise fail(f"emulator {path}: {response.status_code} {response.text}", EXIT_FAILURE)
    return response.json()


def _print(console: Console, report: SyncReport) -> None:
    console.print(listings_table(report))
    for line in summary_lines(report):
        console.print(line, highlight=False)


def _cost_table(lines: list[SyncLine]) -> Table:
    table = Table(title="requests per step (the budget is 1,500 a day for the whole property)")
    for column in ("step", "requests", "reads", "writes", "inventory operations", "price elements", "result"):
        table.add_column(column, justify="right" if column not in ("step", "result") else "left")
    for line in lines:
        report = line.report
        operations = report.planned_operations if report.dry_run else report.operations
        elements = len(report.prices.elements) if report.dry_run else report.price_elements_sent
        table.add_row(
            line.label,
            str(report.requests),
            str(report.requests - report.writes),
            str(report.writes),
            str(operations),
            str(elements),
            report.result,
        )
    return table
