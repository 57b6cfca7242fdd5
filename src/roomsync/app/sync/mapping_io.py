"""Loading a mapping (TOML, checked against the PMS currency) and suggesting a first one.

``load``: the TOML is parsed and validated by ``roomsync.core.mapping.parse_mapping``; then its
``currency`` is compared with the currency the PMS prices in, read from ONE ``CombinedExtended``
read of tonight. A mapping in another currency is refused: roomsync does not convert prices.

``suggest``: ONE ``GET Listings`` and ONE ``GET Rooms``; each listing is matched to the room type
whose title shares the most words with the listing's name (plural ``s`` ignored, every language's
title counted). A listing with ``totalInventoryCount`` uses room-type inventory (``kind =
"room_type"``), any other a single unit. Every room type gets a ``[[connected]]`` entry, since the
suggestion cannot know which ones the connected channels sell. The currency is taken from the
caller (the CLI's ``--currency``, or the demo's currency read); without one a placeholder is
written that ``load`` will refuse until it is replaced.
"""

from __future__ import annotations

import re
import tomllib
from collections import Counter
from dataclasses import dataclass
from datetime import date, timedelta
from pathlib import Path

from roomsync.adapters.client import ServiceClient
from roomsync.core.api.channel import Listing
from roomsync.core.api.pms.availability import RoomTypeAvailabilityExtendedRequest
from roomsync.core.api.pms.rooms import Room
from roomsync.core.catalog.types import Priority
from roomsync.core.mapping import Mapping, MappingError, parse_mapping

CURRENCY_PLACEHOLDER = "XXX"
_WORD = re.compile(r"[^\W\d_]+")


def read_mapping_text(path: Path) -> str:
    """The mapping file's text; ``MappingError`` naming the file when it cannot be one."""
    try:
        raw = path.read_bytes()
    except IsADirectoryError:
        raise MappingError(f"{path} is a directory, not a mapping file") from None
    except OSError as error:
        raise MappingError(f"{path}: {error.strerror or error}") from None
    if not raw.strip():
        raise MappingError(f"{path} is empty: write a mapping (config/mapping.example.toml shows one)")
    try:
        return raw.decode("utf-8")
    except UnicodeDecodeError as error:
        raise MappingError(
            f"{path} is not a TOML text file (byte 0x{raw[error.start]:02x} at position {error.start} is "
            "not UTF-8); write the mapping as text (config/mapping.example.toml shows one)"
        ) from None


def parse_mapping_toml(text: str, source: str) -> Mapping:
    try:
        data = tomllib.loads(text)
    except tomllib.TOMLDecodeError as error:
        raise MappingError(f"{source}: not valid TOML ({error})") from None
    return parse_mapping(data, source)


async def read_pms_currency(client: ServiceClient, today: date) -> str:
    """The currency of the PMS prices (one ``CombinedExtended`` read of tonight)."""
    answer = await client.room_type_availability_extended(
        RoomTypeAvailabilityExtendedRequest(date_from=today, date_to=today + timedelta(days=1)),
        priority=Priority.AVAILABILITY,
    )
    currencies = {room.currency_code.upper() for room in answer.available_rooms if room.currency_code}
    if not currencies:
        raise MappingError("the PMS did not say in which currency it prices (no currencyCode tonight)")
    if len(currencies) > 1:
        raise MappingError(f"the PMS prices in several currencies ({', '.join(sorted(currencies))})")
    return currencies.pop()


def check_currency(mapping: Mapping, pms_currency: str, source: str) -> None:
    if mapping.currency != pms_currency:
        raise MappingError(
            f"{source}: currency {mapping.currency} differs from the PMS currency {pms_currency}; "
            "roomsync does not convert prices: map listings priced in the PMS currency"
        )


@dataclass(frozen=True)
class RoomTypeInfo:
    id: int
    titles: tuple[str, ...]
    rooms: int

    @property
    def title(self) -> str:
        return self.titles[0] if self.titles else f"room type {self.id}"


@dataclass(frozen=True)
class Suggestion:
    listing: Listing
    room_type: RoomTypeInfo | None
    kind: str
    score: int


def room_types_of(rooms: list[Room]) -> list[RoomTypeInfo]:
    counts: Counter[int] = Counter()
    titles: dict[int, tuple[str, ...]] = {}
    for room in rooms:
        if room.room_type is None:
            continue
        counts[room.room_type.id] += 1
        if room.room_type.id not in titles:
            english = [t.title for t in room.room_type.titles if (t.language_code or "").lower() == "en"]
            others = [t.title for t in room.room_type.titles if t.title not in english]
            titles[room.room_type.id] = tuple(english + others)
    return [RoomTypeInfo(type_id, titles[type_id], counts[type_id]) for type_id in sorted(counts)]


def _words(text: str) -> set[str]:
    return {word.lower().removesuffix("s") for word in _WORD.findall(text) if len(word) > 1}


def suggest(listings: list[Listing], room_types: list[RoomTypeInfo]) -> list[Suggestion]:
    suggestions = []
    for listing in listings:
        kind = "room_type" if listing.total_inventory_count else "single"
        best: RoomTypeInfo | None = None
        best_score = 0
        for room_type in room_types:
            score = max((len(_words(listing.name) & _words(title)) for title in room_type.titles), default=0)
            if kind == "room_type" and listing.total_inventory_count == room_type.rooms:
                score += 1  # the same number of rooms is a hint, never enough on its own
            if score > best_score:
                best, best_score = room_type, score
        suggestions.append(Suggestion(listing, best if best_score > 0 else None, kind, best_score))
    return suggestions


async def read_for_suggestion(client: ServiceClient) -> tuple[list[Listing], list[RoomTypeInfo]]:
    """``GET Listings`` and ``GET Rooms``: two requests."""
    listings = await client.list_listings(priority=Priority.RECONCILE)
    rooms = await client.list_rooms(priority=Priority.RECONCILE)
    return listings, room_types_of(rooms)


def _quote(text: str) -> str:
    return '"' + text.replace("\\", "\\\\").replace('"', '\\"') + '"'


def render_toml(suggestions: list[Suggestion], room_types: list[RoomTypeInfo], currency: str | None) -> str:
    """A mapping file for the suggestions; unmatched listings are written commented out."""
    shown_currency = currency or CURRENCY_PLACEHOLDER
    lines = [
        "# roomsync mapping suggested from the channel's listings and the PMS room types.",
        "# Check every match before loading it with `roomsync mappings load FILE`.",
        "",
    ]
    if currency is None:
        lines.append("# Replace XXX with the currency the PMS prices in (loading checks it).")
    lines.append(f"currency = {_quote(shown_currency)}")
    for suggestion in suggestions:
        listing = suggestion.listing
        lines.append("")
        lines.append(
            f"# {listing.name} (connected: {listing.connected.value}, "
            f"status: {listing.approval_status.status_category.value})"
        )
        if listing.connected.value not in ("Full", "Limited"):
            lines.append("# not connected yet: roomsync skips it until the host connects it")
        comment = ""
        if suggestion.room_type is None:
            lines.append("# no room type matched its name: fill in room_type_id and uncomment")
            comment = "# "
        else:
            lines.append(f"# matched to {suggestion.room_type.title} ({suggestion.room_type.rooms} rooms)")
        room_type_id = suggestion.room_type.id if suggestion.room_type else 0
        lines += [
            f"{comment}[[listing]]",
            f"{comment}room_type_id = {room_type_id}",
            f"{comment}account_id = {_quote(listing.account_id)}",
            f"{comment}listing_id = {_quote(listing.listing_id)}",
            f"{comment}kind = {_quote(suggestion.kind)}",
            f"{comment}currency = {_quote(shown_currency)}",
        ]
    for room_type in room_types:
        lines += [
            "",
            f"# {room_type.title}: its prices go to the connected channels (delete to stop)",
            "[[connected]]",
            f"room_type_id = {room_type.id}",
            "standard = true",
        ]
    return "\n".join(lines) + "\n"
