"""The guest-check answer log on a real database: an answer no column can hold (a 40-digit
``nights`` from a malformed check) is logged and dropped, and never keeps the others unwritten."""

from __future__ import annotations

import logging
import uuid
from datetime import UTC, date, datetime

import pytest

from roomsync.adapters.store import open_store
from roomsync.adapters.store.webhook_records import CheckoutAnswer
from roomsync.app.webhooks.checkout import AnswerLog


def answer(property_id: str, nights: int, inbox_id: int) -> CheckoutAnswer:
    return CheckoutAnswer(
        property_id=property_id,
        action="CheckAvailability",
        listing_id="41000003",
        start_date=date(2027, 5, 1),
        nights=nights,
        succeed=False,
        reason="the stay lies beyond the channel calendar (730 days ahead)",
        answered_at=datetime(2026, 11, 22, 12, 0, tzinfo=UTC),
        inbox_id=inbox_id,
    )


def test_an_unstorable_answer_is_logged_and_the_others_are_written(
    store_url: str, caplog: pytest.LogCaptureFixture
) -> None:
    property_id = f"answers-{uuid.uuid4().hex[:8]}"
    with open_store(store_url) as store:
        records = store.webhook_records
        answers = AnswerLog(records)
        answers.add(answer(property_id, 2, 1))
        answers.add(answer(property_id, 10**40, 2))
        answers.add(answer(property_id, 3, 3))
        with caplog.at_level(logging.WARNING, logger="roomsync.webhooks.checkout"):
            assert answers.flush() == 2
        assert answers.flush() == 0  # the refused one does not come back
        answers.add(answer(property_id, 4, 4))
        assert answers.flush() == 1
        stored = records.recent_answers(property_id)
    assert sorted((a.inbox_id, a.nights) for a in stored) == [(1, 2), (3, 3), (4, 4)]
    refused = [r.getMessage() for r in caplog.records if r.levelno == logging.ERROR]
    assert len(refused) == 1
    assert "inbox event 2" in refused[0] and str(10**40) in refused[0] and "dropped" in refused[0]


def test_a_due_flush_that_fails_never_fails_the_check(store_url: str) -> None:
    property_id = f"answers-{uuid.uuid4().hex[:8]}"
    with open_store(store_url) as store:
        records = store.webhook_records
        answers = AnswerLog(records)
        answers.FLUSH_COUNT = 1  # every add flushes
        answers.add(answer(property_id, 10**40, 1))  # would raise before: the check answered 503
        answers.add(answer(property_id, 2, 2))
        assert [a.inbox_id for a in records.recent_answers(property_id)] == [2]
