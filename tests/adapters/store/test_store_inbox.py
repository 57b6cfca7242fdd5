"""The webhook inbox (dedupe, in-order claim per reservation) and the dead letters."""

from __future__ import annotations

import hashlib
import threading
from datetime import UTC, datetime, timedelta

from roomsync.adapters.store import Store, open_store
from roomsync.core.ports import InboxStatus, NewDelivery
from roomsync.settings import Settings

AT = datetime(2027, 6, 1, 10, 0, tzinfo=UTC)


def delivery(
    property_id: str,
    body: str,
    webhook_id: str | None = None,
    reservation: str | None = None,
    action: str = "ReservationUpdated",
    parsed_ok: bool = True,
) -> NewDelivery:
    return NewDelivery(
        property_id=property_id,
        action=action,
        body=body,
        content_key=hashlib.sha256(body.encode()).hexdigest(),
        received_at=AT,
        webhook_id=webhook_id,
        reservation_key=reservation,
        parsed_ok=parsed_ok,
    )


def test_a_retried_delivery_is_stored_once(store: Store, property_id: str) -> None:
    first = store.inbox.accept_delivery(delivery(property_id, '{"n": 1}', webhook_id="wh-1"))
    assert first.duplicate is False
    # a retry carries the same X-Webhook-Id, even if its body was re-serialised
    retry = store.inbox.accept_delivery(delivery(property_id, '{"n":1}', webhook_id="wh-1"))
    assert (retry.id, retry.duplicate) == (first.id, True)

    # without a webhook id, the content key is what recognises the repeat
    plain = store.inbox.accept_delivery(delivery(property_id, '{"n": 2}'))
    again = store.inbox.accept_delivery(delivery(property_id, '{"n": 2}'))
    assert (again.id, again.duplicate) == (plain.id, True)
    assert plain.duplicate is False and plain.id != first.id

    assert store.inbox.count_by_status(property_id) == {
        InboxStatus.PENDING: 2,
        InboxStatus.PROCESSING: 0,
        InboxStatus.DONE: 0,
        InboxStatus.FAILED: 0,
        InboxStatus.REFUSED: 0,
    }


def test_the_same_delivery_to_two_properties_is_two_items(
    store: Store, property_id: str, other_property_id: str
) -> None:
    mine = store.inbox.accept_delivery(delivery(property_id, "{}", webhook_id="wh-1"))
    theirs = store.inbox.accept_delivery(delivery(other_property_id, "{}", webhook_id="wh-1"))
    assert not mine.duplicate and not theirs.duplicate and mine.id != theirs.id
    assert store.inbox.get_item(other_property_id, mine.id) is None


def test_claims_follow_each_reservations_order(store: Store, property_id: str) -> None:
    made = store.inbox.accept_delivery(delivery(property_id, "1", "w1", "HMAAAAAAAA", "MakeReservation"))
    other = store.inbox.accept_delivery(delivery(property_id, "2", "w2", "HMBBBBBBBB", "MakeReservation"))
    altered = store.inbox.accept_delivery(delivery(property_id, "3", "w3", "HMAAAAAAAA", "UpdateReservation"))
    listing = store.inbox.accept_delivery(
        delivery(property_id, "4", "w4", None, "ListingApprovalStatusChanged")
    )

    batch = store.inbox.claim_batch(property_id, 10, AT)
    assert [item.id for item in batch] == [made.id, other.id, listing.id]
    assert {(item.status, item.attempts) for item in batch} == {(InboxStatus.PROCESSING, 1)}
    assert store.inbox.claim_batch(property_id, 10, AT) == []  # the alteration waits for its booking

    store.inbox.mark_done(property_id, made.id, AT + timedelta(seconds=1))
    assert [item.id for item in store.inbox.claim_batch(property_id, 10, AT)] == [altered.id]
    done = store.inbox.get_item(property_id, made.id)
    assert done is not None and (done.status, done.processed_at) == (
        InboxStatus.DONE,
        AT + timedelta(seconds=1),
    )


def test_a_retry_waits_and_keeps_later_items_of_its_reservation_waiting(
    store: Store, property_id: str
) -> None:
    first = store.inbox.accept_delivery(delivery(property_id, "1", "w1", "HMAAAAAAAA"))
    second = store.inbox.accept_delivery(delivery(property_id, "2", "w2", "HMAAAAAAAA"))
    [claimed] = store.inbox.claim_batch(property_id, 10, AT)
    assert claimed.id == first.id

    retry_at = AT + timedelta(minutes=5)
    store.inbox.mark_failed(property_id, first.id, "PMS answered 503", AT, retry_at=retry_at)
    assert store.inbox.claim_batch(property_id, 10, AT + timedelta(minutes=4)) == []
    [retried] = store.inbox.claim_batch(property_id, 10, retry_at)
    assert (retried.id, retried.attempts, retried.last_error) == (first.id, 2, "PMS answered 503")

    store.inbox.mark_failed(property_id, first.id, "gave up", AT + timedelta(minutes=6))
    failed = store.inbox.get_item(property_id, first.id)
    assert failed is not None and failed.status is InboxStatus.FAILED
    # failed for good no longer holds the reservation's later deliveries back
    assert [item.id for item in store.inbox.claim_batch(property_id, 10, retry_at)] == [second.id]


def test_stale_claims_are_released(store: Store, property_id: str) -> None:
    stored = store.inbox.accept_delivery(delivery(property_id, "1", "w1"))
    store.inbox.claim_batch(property_id, 10, AT)
    assert store.inbox.release_stale(property_id, AT) == 0  # claimed at AT, not before
    assert store.inbox.release_stale(property_id, AT + timedelta(minutes=10)) == 1
    [again] = store.inbox.claim_batch(property_id, 10, AT + timedelta(minutes=10))
    assert (again.id, again.attempts) == (stored.id, 2)


CLAIM_TIMEOUT = timedelta(seconds=Settings.model_fields["webhook_claim_timeout_seconds"].default)


def upkeep_then_claim(
    store: Store, property_id: str, worker: str, now: datetime
) -> tuple[int, int, list[int]]:
    """What a worker named ``replica/incarnation`` does at ``now`` (``InboxWorker._upkeep``, then
    its claim): take back its replica's earlier incarnations' claims, take over claims older than
    the claim timeout, claim. The counts released, and the ids claimed."""
    replica, _, incarnation = worker.partition("/")
    own = store.inbox.release_own_earlier_claims(property_id, replica, incarnation)
    stale = store.inbox.release_stale(property_id, now - CLAIM_TIMEOUT)
    return own, stale, [item.id for item in store.inbox.claim_batch(property_id, 10, now, claimed_by=worker)]


def test_a_restarted_replica_takes_its_claims_back_at_once_another_only_after_the_timeout(
    store: Store, second_store: Store, store_url: str, property_id: str
) -> None:
    ids = [
        store.inbox.accept_delivery(delivery(property_id, str(n), f"w{n}", f"HM{n:08d}")).id for n in range(3)
    ]

    def attempts() -> list[int | None]:
        return [item.attempts if (item := store.inbox.get_item(property_id, i)) else None for i in ids]

    other_replica = "replica_a/1-cafe"  # also what an unescaped LIKE 'replica_a/%' would confuse with A
    with open_store(store_url) as third_store:
        # worker A claims the events, then its process is killed
        assert upkeep_then_claim(store, property_id, "replica-a/1-dead", AT) == (0, 0, ids)

        # another replica, a second later: A's claims are not its to take yet
        assert upkeep_then_claim(third_store, property_id, other_replica, AT + timedelta(seconds=1)) == (
            0, 0, [],
        )

        # A restarted (same replica, a new incarnation), on its own connection: at once
        restarted = AT + timedelta(seconds=2)
        assert upkeep_then_claim(second_store, property_id, "replica-a/2-new", restarted) == (3, 0, ids)
        assert attempts() == [2, 2, 2]
        # the new incarnation's own claims stay its own
        assert second_store.inbox.release_own_earlier_claims(property_id, "replica-a", "2-new") == 0

        # the other replica waits the whole timeout from the restarted worker's claim...
        just_before = restarted + CLAIM_TIMEOUT - timedelta(seconds=1)
        assert upkeep_then_claim(third_store, property_id, other_replica, just_before) == (0, 0, [])
        # ...and then takes them over
        after = restarted + CLAIM_TIMEOUT + timedelta(seconds=1)
        assert upkeep_then_claim(third_store, property_id, other_replica, after) == (0, 3, ids)
    assert attempts() == [3, 3, 3]
    assert store.inbox.count_by_status(property_id)[InboxStatus.PROCESSING] == 3


def test_an_unparsed_delivery_is_kept_as_failed_and_never_claimed(store: Store, property_id: str) -> None:
    stored = store.inbox.accept_delivery(delivery(property_id, "{not json", "w1", parsed_ok=False))
    item = store.inbox.get_item(property_id, stored.id)
    assert item is not None
    assert (item.status, item.parsed_ok, item.body) == (InboxStatus.FAILED, False, "{not json")
    assert store.inbox.claim_batch(property_id, 10, AT) == []


def test_concurrent_workers_claim_disjoint_batches(
    store: Store, second_store: Store, property_id: str
) -> None:
    ids = {
        store.inbox.accept_delivery(delivery(property_id, str(n), f"w{n}", f"HM{n:08d}")).id
        for n in range(60)
    }
    workers_count = 6
    start = threading.Barrier(workers_count)
    claimed: list[list[int]] = [[] for _ in range(workers_count)]
    errors: list[BaseException] = []

    def worker(index: int) -> None:
        replica = store if index % 2 else second_store
        try:
            start.wait()
            while batch := replica.inbox.claim_batch(property_id, 4, AT):
                claimed[index].extend(item.id for item in batch)
        except BaseException as error:
            errors.append(error)

    threads = [threading.Thread(target=worker, args=(i,)) for i in range(workers_count)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()

    assert errors == []
    every_claim = [item_id for batch in claimed for item_id in batch]
    assert sorted(every_claim) == sorted(ids)  # each item claimed exactly once
    assert store.inbox.count_by_status(property_id)[InboxStatus.PROCESSING] == 60


def test_dead_letters_are_kept_without_secrets(
    store: Store, property_id: str, other_property_id: str
) -> None:
    headers = {
        "Content-Type": "application/json",
        "X-Webhook-Id": "wh-9",
        "X-Webhook-Signature": "t=1,v1=abc",
        "Authorization": "Bearer very-secret",
        "apikey": "k-123",
    }
    first = store.dead_letters.add_dead_letter(property_id, AT, "bad signature", "{}", headers)
    second = store.dead_letters.add_dead_letter(property_id, AT + timedelta(seconds=1), "not JSON", "<x>", {})

    letters = store.dead_letters.list_dead_letters(property_id)
    assert [letter.id for letter in letters] == [second, first]
    kept = letters[1]
    assert (kept.reason, kept.body, kept.received_at) == ("bad signature", "{}", AT)
    assert kept.headers == {
        "Content-Type": "application/json",
        "X-Webhook-Id": "wh-9",
        "X-Webhook-Signature": "[stripped]",
        "Authorization": "[stripped]",
        "apikey": "[stripped]",
    }
    assert store.dead_letters.count_dead_letters(property_id) == 2
    assert store.dead_letters.list_dead_letters(other_property_id) == []
