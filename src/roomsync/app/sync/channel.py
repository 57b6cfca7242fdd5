"""One listing of one run: desired vs current, compiled, sent, recorded.

The current calendar is the ledger (no request) on an incremental sync; it is the channel itself,
read with ONE ``POST Inventory`` over the window, on ``resync`` and on ``reconcile``, where drift
is the question. A listing the ledger does not know at all (its first sync) is not read: its
desired calendar is written whole, every managed group of every night as maximal runs, so a cold
start costs one ``PUT`` per listing instead of a read and a ``PUT``; the ledger then knows it.
The difference becomes one ``PUT Inventory`` per listing (more only when the changed dates exceed
``max_dates_per_request``), at the ``AVAILABILITY`` priority when it changes availability or a
count, else at ``PRICES``.

The ledger is written only after the channel confirmed a request, in one transaction per
request, and the history of the nights it changed (``history_writer.py``) right after it. A crash
between the two leaves the ledger stale: the next sync compiles the same operations again and
re-sends them, which is harmless because an operation sets absolute values. After a channel read
the whole window is recorded (the read is a confirmation too), so the next sync has a complete
baseline.
"""

from __future__ import annotations

import asyncio
from collections.abc import Callable, Collection, Mapping, Sequence
from dataclasses import dataclass
from datetime import date, datetime, timedelta

from roomsync.adapters.client import (
    QuotaExhausted,
    RetriableError,
    ServiceClient,
    ServiceError,
    UnexpectedResponse,
)
from roomsync.adapters.store import Store
from roomsync.app.sync.history_writer import RunStamp, drift_entries, push_entries, store_entries
from roomsync.app.sync.ledger import calendar_from_ledger, ledger_days
from roomsync.app.sync.listing_desired import engine_kind, listing_desired, restriction_rule
from roomsync.app.sync.pms import PmsFacts
from roomsync.app.sync.report import ListingOutcome, ListingStatus
from roomsync.core.api.channel import InventoryQuery
from roomsync.core.catalog.types import Priority
from roomsync.core.mapping import ListingMapping
from roomsync.core.ports import ListingKey, ListingState
from roomsync.core.sync import (
    DayState,
    Field,
    InventoryRequestPlan,
    apply_operations,
    compile_operations,
    groups_of,
    operations_from_diff,
    shows_alike,
    whole_calendar,
)
from roomsync.core.sync.convert import calendar_from_read, inventory_update

Clock = Callable[[], datetime]


@dataclass(frozen=True)
class ListingRun:
    """What every listing of one run shares."""

    client: ServiceClient
    store: Store
    property_id: str
    nights: Sequence[date]
    """The nights to bring in step (the horizon, a resync window, or the nights of a push)."""
    clock: Clock
    max_dates_per_request: int
    stamp: RunStamp
    """The run's kind, id and trigger, for the history of the nights it writes."""
    close_unpriced: bool = False
    """A night with no known PMS price is pushed unavailable (``unread_price_nights = "close"``)."""
    dry_run: bool = False
    read_channel: bool = False
    """Read the channel even when the ledger knows the listing (resync, reconcile)."""
    read_priority: Priority = Priority.AVAILABILITY
    write_priority: Priority | None = None
    """Force the priority of the writes (the overbooking guard uses GUEST)."""
    require_ledger: bool = False
    """Skip a listing the ledger does not know instead of reading its channel (push_nights)."""
    trust_digests: bool = False
    """Take a listing whose inputs did not change since its last sync as unchanged (fingerprint.py)."""
    record_every_listing: bool = False
    """Record the sync of an unchanged listing too, however recent its last record: a full pass
    (the daemon resumes a schedule when every listing was synced since the last full sync started,
    ``estimates.synced_every_listing_since``); the frequent runs keep ``RECORD_UNCHANGED_EVERY``."""

    @property
    def first(self) -> date:
        return self.nights[0]

    @property
    def last(self) -> date:
        return self.nights[-1]


def write_priority(plan_requests: Sequence[object]) -> Priority:
    """AVAILABILITY when an operation changes availability or a count, else PRICES."""
    for request in plan_requests:
        for operation in getattr(request, "operations", ()):
            if operation.available is not None or operation.count is not None:
                return Priority.AVAILABILITY
    return Priority.PRICES


async def sync_listing(
    run: ListingRun,
    listing: ListingMapping,
    facts: PmsFacts,
    *,
    own_reserved: Mapping[date, int],
    count_cap: int | None,
    state: ListingState | None = None,
    digest: str | None = None,
    last_digest: str | None = None,
) -> ListingOutcome:
    outcome = ListingOutcome(
        listing.account_id,
        listing.listing_id,
        listing.room_type_id,
        listing.kind.value,
        ListingStatus.UNCHANGED,
    )
    key = listing.listing_key(run.property_id)
    try:
        if not (run.trust_digests and digest is not None and digest == last_digest):
            await _sync(run, listing, key, facts, own_reserved, count_cap, outcome)
    except QuotaExhausted as refused:
        outcome.status = ListingStatus.NO_BUDGET
        outcome.reason = str(refused)
    except ServiceError as error:
        outcome.status = ListingStatus.FAILED
        outcome.reason = str(error)
    if not run.dry_run and outcome.status is not ListingStatus.SKIPPED:
        result = (
            outcome.status.value if outcome.reason is None else f"{outcome.status.value}: {outcome.reason}"
        )
        now = run.clock()
        if run.record_every_listing or _worth_recording(state, result[:500], now):
            await asyncio.to_thread(run.store.listing_states.record_listing_sync, key, now, result[:500])
    return outcome


async def _sync(
    run: ListingRun,
    listing: ListingMapping,
    key: ListingKey,
    facts: PmsFacts,
    own_reserved: Mapping[date, int],
    count_cap: int | None,
    outcome: ListingOutcome,
) -> None:
    entries = await asyncio.to_thread(run.store.calendar.read_days, key, run.first, run.last)
    wanted = set(run.nights)
    ledger = {day: state for day, state in calendar_from_ledger(entries).items() if day in wanted}
    if not ledger and not run.read_channel and run.require_ledger:
        outcome.status = ListingStatus.SKIPPED
        outcome.reason = "not synced yet: the next full sync writes its calendar"
        return
    from_channel = run.read_channel
    unknown = not ledger and not from_channel  # never synced: written whole, not read first
    if from_channel:
        inventory = await run.client.read_inventory(
            InventoryQuery(
                account_id=listing.account_id,
                listing_id=listing.listing_id,
                date_from=run.first,
                date_to=run.last,
            ),
            priority=run.read_priority,
        )
        read_at = run.clock()
        current = {
            day: state for day, state in calendar_from_read(inventory, ledger).items() if day in wanted
        }
        outcome.read_channel = True
        managed = _managed_groups(listing)
        outcome.drift_days = sum(
            1 for day, state in ledger.items() if _drifted(state, current.get(day), managed)
        )
        if outcome.drift_days:
            # a plan's read too: it becomes the ledger's baseline below, so the resync confirmed
            # after it finds no drift of its own; the history keeps what this read found
            drift = drift_entries(key, ledger, current, managed, read_at, run.stamp)
            keep_days = run.stamp.keep_days
            await asyncio.to_thread(store_entries, run.store, run.property_id, drift, read_at, keep_days)
    else:
        current = ledger
    desired = listing_desired(
        listing,
        run.nights,
        free_rooms=facts.free_rooms.get(listing.room_type_id, {}),
        closed=facts.closures.closed_for(listing.room_type_id),
        property_closed=facts.closures.property_closed,
        nightly_prices=facts.prices.prices.get(listing.room_type_id, {}),
        own_reserved_rooms=own_reserved,
        current=current,
        count_cap=count_cap,
        close_unpriced=run.close_unpriced,
    )
    kind = engine_kind(listing.kind)
    if unknown:
        groups = _managed_groups(listing)  # unmanaged restrictions: the host's own stay untouched
        requests = operations_from_diff(whole_calendar(desired, groups), run.max_dates_per_request)
    else:
        requests = compile_operations(kind, desired, current, max_dates_per_request=run.max_dates_per_request)
    outcome.requests = requests
    outcome.operations = sum(len(request.operations) for request in requests)
    changed = {d for r in requests for op in r.operations for d in _days(op.date_from, op.date_to)}
    outcome.days_changed = len(changed)
    outcome.days_new = sum(1 for day in changed if _first_sent(current.get(day), desired.get(day)))
    if requests:
        outcome.priority = run.write_priority or write_priority(requests)
    if from_channel and (run.dry_run or not requests):
        # the read confirms what the channel holds: it becomes the ledger's baseline (kept by a
        # plan too, so the sync that follows it does not read the channel a second time)
        await asyncio.to_thread(
            run.store.calendar.record_confirmed, key, ledger_days(current, current), read_at
        )
    if not requests:
        outcome.status = ListingStatus.UNCHANGED
        return
    if run.dry_run:
        outcome.status = ListingStatus.PLANNED
        return
    applied: dict[date, DayState] = dict(current)
    for index, request in enumerate(requests):
        try:
            answer = await run.client.update_inventory(
                inventory_update(listing.account_id, listing.listing_id, request), priority=outcome.priority
            )
        except (RetriableError, UnexpectedResponse):
            await asyncio.to_thread(_forget_written_days, run.store, key, request)
            raise
        confirmed_at = run.clock()
        before, applied = applied, apply_operations(applied, request.operations)
        if (from_channel or unknown) and index == 0:
            days: Collection[date] = applied  # the read (or nothing) plus this write: the baseline
        else:
            days = {d for op in request.operations for d in _days(op.date_from, op.date_to)}
        await asyncio.to_thread(
            run.store.calendar.record_confirmed, key, ledger_days(applied, days), confirmed_at
        )
        # the ledger advanced: the same confirmed write is the history of these nights
        pushed = push_entries(
            run.property_id,
            listing,
            facts,
            before,
            request,
            index,
            {"updated_days": answer.updated_days, "priority": _priority_name(outcome.priority)},
            confirmed_at,
            own_reserved=own_reserved,
            count_cap=count_cap,
            run=run.stamp,
        )
        keep_days = run.stamp.keep_days
        await asyncio.to_thread(store_entries, run.store, run.property_id, pushed, confirmed_at, keep_days)
    outcome.status = ListingStatus.WRITTEN


def _forget_written_days(store: Store, key: ListingKey, request: InventoryRequestPlan) -> None:
    """Forget the ledger's days of a write that may have been applied though it failed (an
    attempt timed out, or its answer could not be read): what the channel holds there is not
    known any more, so the next run writes those days again instead of trusting the ledger."""
    for operation in request.operations:
        store.calendar.forget_days(key, operation.date_from, operation.date_to)


def _priority_name(priority: Priority | None) -> str | None:
    return priority.name.lower() if priority is not None else None


def _managed_groups(listing: ListingMapping) -> list[Field]:
    """The field groups roomsync writes for ``listing``: restrictions only when the mapping sets some."""
    groups: list[Field] = [g for g in groups_of(engine_kind(listing.kind)) if g is not Field.RESTRICTIONS]
    if restriction_rule(listing.restrictions) is not None:
        groups.append(Field.RESTRICTIONS)
    return groups


def _drifted(recorded: DayState, channel: DayState | None, groups: Collection[Field]) -> bool:
    """Whether the channel changed a day behind roomsync's back, in a group roomsync writes (a
    price the ledger never set is not drift: roomsync did not say it)."""
    if channel is None:
        return True
    for group in groups:
        mine = recorded.value_of(group)
        if group is Field.PRICE and mine is None:
            continue
        if not shows_alike(group, mine, channel.value_of(group)):
            return True
    return False


RECORD_UNCHANGED_EVERY = timedelta(hours=1)
"""An unchanged listing's "last sync" is refreshed at most this often by a poll, a detection or a
push: one write per listing and run would be most of a quiet poll's time on a large property
(each is its own transaction). A full pass, a few a day, records every listing
(``ListingRun.record_every_listing``)."""


def _worth_recording(state: ListingState | None, result: str, now: datetime) -> bool:
    if state is None or state.last_synced_at is None or state.last_sync_result != result:
        return True
    return result != ListingStatus.UNCHANGED.value or now - state.last_synced_at >= RECORD_UNCHANGED_EVERY


def _first_sent(before: DayState | None, after: DayState | None) -> bool:
    """The night's write is its first: the channel was never sent the night, or never a price
    that it now gets (the horizon's new last night: the poll after the date moves writes its
    rooms, the full sync that reads its PMS price first writes the price)."""
    return before is None or (before.price is None and after is not None and after.price is not None)


def _days(first: date, last: date) -> list[date]:
    return [date.fromordinal(n) for n in range(first.toordinal(), last.toordinal() + 1)]
