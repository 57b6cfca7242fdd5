""""Why is this night what it is": the history of one listing's night, for people.

Shared by ``roomsync history LISTING NIGHT`` and the console's night page: the last confirmed
push of each field (the value the channel holds unless it drifted since), the PMS facts and the
rule it came from, the request that carried it and what started its run, then the whole timeline
of the night: every push, drift found by a channel read, guest check and booking.
"""

from __future__ import annotations

from dataclasses import dataclass
from datetime import UTC, date, datetime

from roomsync.adapters.store import Store
from roomsync.adapters.store.night_history import GuestEvent
from roomsync.core.listing import listing_text
from roomsync.core.night_history import EntryKind, HistoryEntry, JsonValue, last_push_per_field


@dataclass(frozen=True)
class TimelineItem:
    at: datetime
    kind: str
    text: str
    entry: HistoryEntry | None = None


@dataclass(frozen=True)
class NightStory:
    property_id: str
    account_id: str
    listing_id: str
    night: date
    current: dict[str, HistoryEntry]
    """The latest push of each field (``available``, ``count``, ``price``, ``restrictions``)."""
    timeline: list[TimelineItem]

    @property
    def listing(self) -> str:
        return listing_text(self.account_id, self.listing_id)


def _when(moment: datetime) -> str:
    return moment.astimezone(UTC).strftime("%Y-%m-%d %H:%M:%S")


def _value(value: JsonValue) -> str:
    return "-" if value is None else str(value)


def facts_text(entry: HistoryEntry) -> str:
    """The PMS facts of an entry in words."""
    facts = entry.facts
    words: list[str] = []
    if "free_rooms" in facts:
        words.append(f"free rooms {_value(facts['free_rooms'])}")
    if "room_free" in facts:
        words.append("a room free" if facts["room_free"] else "no room free")
    if "closed" in facts:
        words.append("room type closed" if facts.get("closed") else "room type open")
        if facts.get("property_closed"):
            words.append("property closed")
        if facts.get("own_reservations"):
            words.append(f"{facts['own_reservations']} held by channel bookings")
    if "pms_price" in facts:
        words.append(f"PMS price {_value(facts['pms_price'])}")
    read_at = str(facts.get("read_at") or "")
    read = f"the PMS read of {read_at[:19].replace('T', ' ')} UTC" if read_at else "the run's PMS read"
    rule = f"; rule {facts['rule']}" if facts.get("rule") else ""
    return f"{read} (room type {facts.get('room_type')}): {', '.join(words) or 'no facts'}{rule}"


def request_text(entry: HistoryEntry) -> str:
    request = entry.request
    if entry.kind is EntryKind.DRIFT:
        return "seen by a channel read"
    if entry.kind is EntryKind.PRICE_PUSH:
        return f"POST Prices ({request.get('elements')} elements), answered {request.get('result')}"
    operations = str(request.get("operations"))
    which = f"operations {operations}" if ".." in operations else f"operation {operations}"
    updated = request.get("updated_days")
    answer = f"; the channel answered {updated} days updated" if "updated_days" in request else ""
    return (
        f"{request.get('operation', '?')} request {request.get('request_index')} ({which}){answer}; "
        f"priority {request.get('priority')}"
    )


def run_text(entry: HistoryEntry) -> str:
    run = f"{entry.run_kind} run {entry.run_id}" if entry.run_id is not None else entry.run_kind or "run"
    return f"{run}, started by {entry.trigger}"


def _entry_line(entry: HistoryEntry) -> str:
    nights = (
        f"{entry.first_night}..{entry.last_night}" if entry.first_night != entry.last_night else "this night"
    )
    why = f"({nights}; {run_text(entry)})"
    if entry.kind is EntryKind.DRIFT:
        return (
            f"drift found: the channel showed {entry.field} = {_value(entry.new)} where roomsync had "
            f"pushed {_value(entry.old)} {why}"
        )
    return f"pushed {entry.field}: {_value(entry.old)} -> {_value(entry.new)} {why}"


def _guest_line(event: GuestEvent) -> str:
    return f"{event.text}; stay {event.start_date} +{event.nights}"


def night_story(store: Store, property_id: str, account_id: str, listing_id: str, night: date) -> NightStory:
    entries = store.history.entries(property_id, account_id, listing_id, night, night)
    timeline = [TimelineItem(e.at, e.kind.value, _entry_line(e), e) for e in entries]
    for event in store.history.guest_events(property_id, listing_id, night, night):
        timeline.append(TimelineItem(event.at, event.kind, _guest_line(event)))
    timeline.sort(key=lambda item: item.at)
    return NightStory(
        property_id, account_id, listing_id, night, last_push_per_field(entries, night), timeline
    )


def story_lines(story: NightStory) -> list[str]:
    """The answer in a few lines: the current values and why, then the timeline."""
    lines = [f"{story.listing} night {story.night} (property {story.property_id})"]
    if not story.current:
        lines.append("roomsync has pushed nothing to this night (within history_keep_days)")
    for field, entry in sorted(story.current.items()):
        lines.append(f"{field} = {_value(entry.new)}: pushed {_when(entry.at)} UTC ({run_text(entry)})")
        lines.append(f"  from {facts_text(entry)}")
        lines.append(f"  carried by {request_text(entry)}")
    if story.timeline:
        lines.append("timeline:")
        lines.extend(f"  {_when(item.at)}  {item.text}" for item in story.timeline)
    return lines


def story_as_dict(story: NightStory) -> dict[str, object]:
    def entry(e: HistoryEntry) -> dict[str, object]:
        return {
            "at": e.at.isoformat(),
            "kind": e.kind.value,
            "field": e.field,
            "old": e.old,
            "new": e.new,
            "first_night": e.first_night.isoformat(),
            "last_night": e.last_night.isoformat(),
            "facts": dict(e.facts),
            "request": dict(e.request),
            "trigger": e.trigger,
            "run_kind": e.run_kind,
            "run_id": e.run_id,
        }

    return {
        "property": story.property_id,
        "listing": story.listing,
        "night": story.night.isoformat(),
        "current": {field: entry(e) for field, e in story.current.items()},
        "timeline": [
            {"at": item.at.isoformat(), "kind": item.kind, "text": item.text} for item in story.timeline
        ],
    }
