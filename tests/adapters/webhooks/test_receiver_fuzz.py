"""Thousands of malformed deliveries, valid events interleaved: the receiver never answers 5xx, and
every valid event lands in the inbox.

150 examples of 10-30 deliveries, four in five malformed: about 2,000 malformed bodies (random
bytes and text, JSON of any shape, valid events with one field dropped, retyped or nested, an
unknown action, JSON nested 20,000 deep, a stay of 100,000 nights) and 400 valid events of every
kind, each signed so that it reaches the parser.
"""

from __future__ import annotations

import json
import uuid
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import httpx
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from roomsync.adapters.store import Store, open_store
from roomsync.app.webhooks import create_receiver_app
from roomsync.core.api import webhooks as events
from roomsync.core.mapping import parse_mapping
from roomsync.emulator.server import serve_in_thread
from roomsync.property_context import PropertyContext
from strategies import from_model
from support.webhooks import MAPPING, PROPERTY, receiver_settings, signed_headers

EVENT_MODELS = sorted(set(events.EVENT_TYPES.values()), key=lambda model: model.__name__)


@pytest.fixture(scope="module")
def receiver(tmp_path_factory: pytest.TempPathFactory) -> Iterator[tuple[str, Store]]:
    """A receiver with no PMS client (guest checks answer from the view alone) on loopback."""
    directory: Path = tmp_path_factory.mktemp("fuzz")
    settings = receiver_settings(directory, webhook_max_body_bytes=65536)
    with open_store(settings, upgrade=True) as store:
        store.mappings.replace_mapping(PROPERTY, parse_mapping(MAPPING))
        with serve_in_thread(create_receiver_app(PropertyContext.of(settings), store)) as base_url:
            yield f"{base_url}/webhooks/RentalChannel", store


def valid_events() -> st.SearchStrategy[dict[str, Any]]:
    return (
        st.sampled_from(EVENT_MODELS)
        .flatmap(from_model)
        .map(lambda event: event.model_dump(mode="json", by_alias=True))
    )


json_values = st.recursive(
    st.none() | st.booleans() | st.integers() | st.floats(allow_nan=False) | st.text(max_size=20),
    lambda inner: st.lists(inner, max_size=4) | st.dictionaries(st.text(max_size=10), inner, max_size=4),
    max_leaves=12,
)


@st.composite
def broken_events(draw: st.DrawFn) -> bytes:
    """A valid event with one thing wrong: a field dropped, retyped, or the action changed."""
    event = draw(valid_events())
    keys = sorted(event)
    key = draw(st.sampled_from(keys))
    how = draw(st.sampled_from(["drop", "retype", "action", "nest"]))
    if how == "drop" and key != "action":
        del event[key]
    elif how == "action":
        event["action"] = draw(st.text(max_size=30) | st.integers() | st.none())
    elif how == "nest":
        event[key] = draw(json_values)
    else:
        event[key] = draw(st.sampled_from([None, [], {}, "x", -1, 10**40, "9" * 50, True, 1.5]))
    return json.dumps(event).encode()


malformed_bodies = st.one_of(
    st.binary(max_size=200),
    st.text(max_size=200).map(str.encode),
    json_values.map(lambda value: json.dumps(value).encode()),
    broken_events(),
    st.integers(min_value=1, max_value=20000).map(lambda depth: b"[" * depth + b"]" * depth),
    st.just(
        b'{"action": "CheckAvailability", "startDate": "9999-12-31", "nights": "100000", "listingId": "1"}'
    ),
)

deliveries = st.lists(
    st.tuples(st.sampled_from(["malformed"] * 4 + ["valid"]), malformed_bodies, valid_events()),
    min_size=10,
    max_size=30,
)


@settings(
    max_examples=150,
    deadline=None,
    suppress_health_check=[HealthCheck.function_scoped_fixture, HealthCheck.too_slow],
)
@given(batch=deliveries)
def test_no_5xx_and_no_valid_event_lost(
    receiver: tuple[str, Store], batch: list[tuple[str, bytes, Any]]
) -> None:
    url, store = receiver
    sent_valid: list[str] = []
    with httpx.Client(timeout=30) as client:
        for kind, broken, valid in batch:
            webhook_id = str(uuid.uuid4())
            body = json.dumps(valid).encode() if kind == "valid" else broken
            response = client.post(url, content=body, headers=signed_headers(body, webhook_id=webhook_id))
            assert response.status_code < 500, (response.status_code, response.text, body[:200])
            assert response.headers["content-type"] == "application/json"
            if kind == "valid":
                assert response.status_code == 200, (response.text, body[:300])
                sent_valid.append(webhook_id)
            elif response.status_code != 200:
                assert response.json()["succeed"] is False and response.json()["reason"]
    stored = {row.webhook_id for row in store.webhook_records.recent_inbox(PROPERTY, limit=100_000)}
    assert set(sent_valid) <= stored
