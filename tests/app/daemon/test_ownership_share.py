"""Two replicas' ownership on a real Postgres: evening out the share never cuts a run short.

A replica that holds more than its share gives back the idle properties first, and a property
with a run in flight only at a check after the run has ended (``app/daemon/ownership.py``)."""

from __future__ import annotations

from collections.abc import Iterator

import pytest
import sqlalchemy as sa

from roomsync.adapters.store.ownership import PostgresOwnership
from support.postgres import scratch_postgres_database

pytestmark = pytest.mark.postgres

PROPERTIES = ["hotel-a", "hotel-b", "hotel-c", "hotel-d"]


@pytest.fixture
def engine() -> Iterator[sa.Engine]:
    with scratch_postgres_database("roomsync_ownership") as url:
        engine = sa.create_engine(url)
        try:
            yield engine
        finally:
            engine.dispose()


def test_busy_properties_are_kept_until_their_run_ends(engine: sa.Engine) -> None:
    first = PostgresOwnership(engine, "r1")
    first.connect()
    assert first.check(PROPERTIES).take == PROPERTIES  # alone: its share is everything
    second = PostgresOwnership(engine, "r2")
    second.connect()
    try:
        # two live replicas: a share of 2; three of r1's four are syncing
        change = first.check(PROPERTIES, frozenset({"hotel-a", "hotel-b", "hotel-c"}))
        assert (change.live_replicas, change.share) == (2, 2)
        assert change.give_back == ["hotel-d"]
        assert change.deferred == ["hotel-c"]
        first.release("hotel-d")
        assert second.check(PROPERTIES).take == ["hotel-d"]  # hotel-c is still r1's
        assert first.held() == {"hotel-a", "hotel-b", "hotel-c"}

        # hotel-c's run has ended: it goes now, and the busy ones stay
        change = first.check(PROPERTIES, frozenset({"hotel-a"}))
        assert (change.give_back, change.deferred) == (["hotel-c"], [])
        first.release("hotel-c")
        assert second.check(PROPERTIES).take == ["hotel-c"]
        assert first.held() == {"hotel-a", "hotel-b"}
        assert second.held() == {"hotel-c", "hotel-d"}
    finally:
        second.close()
        first.close()


def test_idle_properties_go_first_whatever_their_names(engine: sa.Engine) -> None:
    first = PostgresOwnership(engine, "r1")
    first.connect()
    first.check(PROPERTIES)
    second = PostgresOwnership(engine, "r2")
    second.connect()
    try:
        # the last two by name are busy: the first two (idle) are given back instead
        change = first.check(PROPERTIES, frozenset({"hotel-c", "hotel-d"}))
        assert (change.give_back, change.deferred) == (["hotel-a", "hotel-b"], [])
    finally:
        second.close()
        first.close()
