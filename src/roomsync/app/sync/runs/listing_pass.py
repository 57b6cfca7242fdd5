"""The listings of a run, brought in step one by one (``channel.sync_listing``) within the run's
concurrency: what every run that writes listings shares (full sync, resync, poll, detection, push).

Before any listing is compared the pass reads the bookings roomsync made itself, the listings'
facts and their recorded digests; a listing whose room type has no room in the PMS any more is
paused first (:func:`pause_for_missing_room_types`). After each listing, a run over the whole
horizon (a full sync, a poll) keeps the digest of a listing it brought in step
(:func:`settle_digest`); a targeted push, over a few nights, leaves that to its caller, which
forgets the digests of what it wrote.
"""

from __future__ import annotations

import asyncio
import logging
from collections.abc import Mapping, Sequence
from dataclasses import replace
from datetime import date

from roomsync.adapters.client import QuotaExhausted
from roomsync.app.sync.channel import ListingRun, sync_listing
from roomsync.app.sync.fingerprint import TypeDigests, listing_digest
from roomsync.app.sync.own_reservations import OwnReserved, fewest, own_reserved_rooms
from roomsync.app.sync.pauses import ROOM_TYPE_GONE, pause_reason, room_type_gone
from roomsync.app.sync.pms import PmsFacts
from roomsync.app.sync.report import ListingOutcome, ListingStatus, SyncReport
from roomsync.app.sync.runs.property_sync import PropertySync
from roomsync.core.catalog.types import Priority
from roomsync.core.mapping import ListingMapping
from roomsync.core.ports import ListingFacts, ListingKey, ListingState, StoredDigest

log = logging.getLogger("roomsync.sync")

Digests = Mapping[ListingKey, StoredDigest]


async def read_listings(
    sync: PropertySync, listings: Sequence[ListingMapping], priority: Priority, report: SyncReport
) -> None:
    """``GET Listings`` (one request): connection state and room count of every mapped listing."""
    try:
        found = {
            ListingKey(sync.property_id, x.account_id, x.listing_id): x
            for x in await sync.client.list_listings(priority=priority)
        }
    except QuotaExhausted:
        report.notes.append("the listings were not read (budget): their connection state is as last known")
        return
    read_at = sync.clock()

    def record() -> None:
        states = sync.store.listing_states
        facts: list[ListingFacts] = []
        for entry in listings:
            key = sync.key(entry)
            listing = found.get(key)
            if listing is None:
                facts.append(ListingFacts(key, True, None, read_at))
                continue
            facts.append(ListingFacts(key, False, listing.total_inventory_count, read_at))
            states.set_sync_category(key, listing.connected.value)
            states.set_approval_status(key, listing.approval_status.status_category.value)
            states.set_has_availability(key, listing.has_availability)
        sync.store.sync_state.save_listing_facts(facts)

    await asyncio.to_thread(record)


async def sync_listings(
    sync: PropertySync,
    run: ListingRun,
    listings: Sequence[ListingMapping],
    facts: PmsFacts,
    states: dict[ListingKey, ListingState],
    *,
    own_before: OwnReserved,
) -> list[ListingOutcome]:
    """Bring ``listings`` in step with ``facts``, at most ``options.concurrency`` at once;
    ``own_before`` is :func:`read_own_reserved` as it was before the run read the free rooms
    (a reservation counts only when read on both sides: :mod:`..own_reservations`)."""
    store, pid = sync.store, sync.property_id

    def read_inputs() -> tuple[OwnReserved, Mapping[ListingKey, ListingFacts], Digests]:
        # one trip to a worker thread for the three (each trip costs about 0.2 ms of CPU, issue 26);
        # the digests are read before any listing is compared: a digest may be kept only if its row
        # is unchanged since (a targeted push or poll in any process moves the version on)
        own_after = read_own_reserved(sync, run.nights[0])
        return own_after, store.sync_state.listing_facts(pid), store.sync_state.digests(pid)

    own_after, listing_facts, digests = await asyncio.to_thread(read_inputs)
    own = fewest(own_before, own_after)
    types = TypeDigests(
        run.nights,
        facts.free_rooms,
        facts.closures.room_types,
        facts.closures.property_closed,
        facts.prices.prices,
        close_unpriced=run.close_unpriced,
    )
    gate = asyncio.Semaphore(max(1, sync.options.concurrency))
    done = 0
    total = len(listings)
    sync.progress("listings", 0, total)

    await pause_for_missing_room_types(sync, listings, facts, states, dry_run=run.dry_run)

    async def one(entry: ListingMapping) -> ListingOutcome:
        nonlocal done
        key = sync.key(entry)
        known = listing_facts.get(key)
        stored = digests.get(key)
        reason = pause_reason(states[key], known)
        count_cap = known.total_inventory_count if known is not None else None
        own_nights = own.get(entry.listing_id, {})
        digest = listing_digest(types, entry, own_nights, count_cap)
        if reason is not None:
            outcome = ListingOutcome(
                entry.account_id,
                entry.listing_id,
                entry.room_type_id,
                entry.kind.value,
                ListingStatus.PAUSED,
                reason,
            )
        else:
            async with gate:
                outcome = await sync_listing(
                    run,
                    entry,
                    facts,
                    own_reserved=own_nights,
                    count_cap=count_cap,
                    state=states[key],
                    digest=digest,
                    last_digest=stored.digest if stored is not None else None,
                )
        if not run.require_ledger or run.trust_digests:  # a push's caller forgets what it wrote
            await settle_digest(sync, run, entry, outcome, digest, stored)
        done += 1
        sync.progress("listings", done, total)
        return outcome

    try:
        async with asyncio.TaskGroup() as group:
            tasks = [group.create_task(one(entry)) for entry in listings]
    except BaseExceptionGroup as failed:  # a crash of one listing stops the run; report it as is
        raise failed.exceptions[0] from None
    return [task.result() for task in tasks]


def read_own_reserved(sync: PropertySync, first_night: date) -> dict[str, dict[date, int]]:
    """The rooms this channel's own reservations occupy, per listing and night from
    ``first_night`` (a store read: call it in a worker thread, before reading the free rooms)."""
    return own_reserved_rooms(
        sync.store.webhook_records.list_bookings(sync.property_id, leaving_after=first_night)
    )


async def settle_digest(
    sync: PropertySync,
    run: ListingRun,
    entry: ListingMapping,
    outcome: ListingOutcome,
    digest: str,
    stored: StoredDigest | None,
) -> None:
    """Keep the digest of a listing a run brought in step, unless its row changed since
    this run read it (compare-and-set); forget it when the ledger is short of a full sync."""
    in_step = outcome.status in (ListingStatus.WRITTEN, ListingStatus.UNCHANGED)
    key = sync.key(entry)
    sync_state = sync.store.sync_state
    if in_step and not run.dry_run:
        if stored is not None and stored.digest == digest:
            return
        version = stored.version if stored is not None else 0
        now = await asyncio.to_thread(sync_state.keep_digest, key, digest, version)
        if now.version != version + 1:
            log.info("%s: digest not kept, its ledger changed during the run", outcome.key)
    elif (not in_step or outcome.read_channel) and stored is not None and stored.digest is not None:
        # not in step, or a plan's read left the ledger short of a full sync
        await asyncio.to_thread(sync_state.forget_digests, [key])


async def pause_for_missing_room_types(
    sync: PropertySync,
    listings: Sequence[ListingMapping],
    facts: PmsFacts,
    states: dict[ListingKey, ListingState],
    *,
    dry_run: bool,
) -> None:
    """A listing whose room type has no room in the PMS any more is paused with the reason,
    never written (its rooms would read as "none free": a whole horizon closed by a typo or a
    renovation); the pause lifts itself when the room type is back."""
    present = set(facts.free_rooms)
    for entry in listings:
        key = sync.key(entry)
        state = states[key]
        missing = entry.room_type_id not in present
        if missing and not state.paused:
            reason = ROOM_TYPE_GONE.format(id=entry.room_type_id)
            log.warning("listing %s paused: %s", key.text, reason)
            state = replace(state, paused=True, pause_reason=reason)
        elif not missing and state.paused and room_type_gone(state.pause_reason):
            log.info("listing %s resumed: room type %d is back", key.text, entry.room_type_id)
            state = replace(state, paused=False, pause_reason=None)
        else:
            continue
        states[key] = state
        if not dry_run:
            await asyncio.to_thread(
                sync.store.listing_states.set_paused, state.listing, state.paused, state.pause_reason
            )
