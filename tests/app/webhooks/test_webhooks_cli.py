"""``roomsync webhooks``: the tables, show, replay (an event, a dead letter), resume."""

from __future__ import annotations

import json
from collections.abc import Iterator
from datetime import UTC, datetime
from pathlib import Path

import pytest
from typer.testing import CliRunner

from roomsync.adapters.store import Store, open_store
from roomsync.adapters.webhooks.keys import content_key
from roomsync.app.commands.webhooks import app
from roomsync.core.api.webhooks import parse_webhook
from roomsync.core.ports import InboxStatus, ListingKey, NewDelivery
from support.webhooks import HOST_A, PROPERTY, STUDIO_A

AT = datetime(2027, 3, 1, 9, 0, tzinfo=UTC)
UNLINK = json.dumps({"action": "ListingsUnlinked", "hostId": HOST_A, "listingIds": [STUDIO_A]})


@pytest.fixture
def store(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Iterator[Store]:
    url = f"sqlite:///{tmp_path / 'roomsync.db'}"
    monkeypatch.setenv("ROOMSYNC_DATABASE_URL", url)
    monkeypatch.setenv("ROOMSYNC_PROPERTY_ID", PROPERTY)
    with open_store(url, upgrade=True) as opened:
        yield opened


def run(*args: str) -> tuple[int, str]:
    result = CliRunner().invoke(app, list(args))
    return result.exit_code, result.output + (result.stderr if result.stderr_bytes else "")


def stored_event(store: Store, body: str = UNLINK, webhook_id: str = "wh-1") -> int:
    event = parse_webhook(body.encode())
    return store.inbox.accept_delivery(
        NewDelivery(PROPERTY, event.action, body, content_key(event, webhook_id), AT, webhook_id)
    ).id


def test_the_overview_lists_events_and_dead_letters(store: Store) -> None:
    stored_event(store)
    store.dead_letters.add_dead_letter(
        PROPERTY, AT, "webhook body is not valid JSON", "{oops", {"x-webhook-id": "w"}
    )
    code, output = run("--limit", "5")
    assert code == 0, output
    assert "ListingsUnlinked" in output and "pending" in output
    assert "not valid JSON" in output and "{oops" in output


def test_show_prints_the_body(store: Store) -> None:
    item = stored_event(store)
    code, output = run("show", str(item))
    assert code == 0, output
    assert '"listingIds"' in output and STUDIO_A in output
    code, output = run("show", "999")
    assert code == 1 and "no inbox event 999" in output


def test_replay_queues_a_done_event_again(store: Store) -> None:
    item = stored_event(store)
    (claimed,) = store.inbox.claim_batch(PROPERTY, 1, AT)
    store.inbox.mark_done(PROPERTY, claimed.id, AT)
    code, output = run("replay", str(item))
    assert code == 0, output
    found = store.inbox.get_item(PROPERTY, item)
    assert found is not None and found.status is InboxStatus.PENDING
    code, output = run("replay", str(item))
    assert code == 0 and "waiting in the queue already" in output


def test_replay_of_a_dead_letter_feeds_it_to_the_parser_again(store: Store) -> None:
    readable = store.dead_letters.add_dead_letter(
        PROPERTY, AT, "was refused", UNLINK, {"X-Webhook-Id": "wh-9"}
    )
    broken = store.dead_letters.add_dead_letter(PROPERTY, AT, "not JSON", "{oops", {})
    code, output = run("replay", "--dead-letter", str(readable))
    assert code == 0 and "is inbox event" in output, output
    assert store.inbox.count_by_status(PROPERTY)[InboxStatus.PENDING] == 1
    code, output = run("replay", "--dead-letter", str(broken))
    assert code == 1 and "still cannot be read" in output


def test_resume_lifts_a_pause(store: Store) -> None:
    key = ListingKey(PROPERTY, HOST_A, STUDIO_A)
    store.listing_states.set_paused(key, True, "host_suspended: host 2001 restricted login")
    code, output = run("resume", STUDIO_A)
    assert code == 0 and "host_suspended" in output, output
    assert store.listing_states.get_listing_state(key).paused is False
    code, output = run("resume", STUDIO_A)
    assert code == 1 and "not paused" in output
