"""Listing and host events: what roomsync may still push to, recorded in ``listing_state``.

Pausing (roomsync stops pushing to the listing and answers guest checks "no"), reason kept as
``<code>: <detail>``:

* ``unlinked``: ``ListingsUnlinked``, the host manages the listing on the channel directly;
* ``authorization_revoked``: ``AuthorizationRevoked`` (an empty list means every listing of the
  host roomsync knows);
* ``listing_suspended``: ``ListingSuspension``;
* ``host_suspended``: ``HostSuspension``, every listing of the host;
* ``safety_commitment``: ``SafetyCommitmentSuspension``, every listing of the host.

Resuming: ``SafetyCommitmentReactivation`` resumes what ``safety_commitment`` paused; a re-link,
``ListingSynchronizationSettingsUpdated`` naming the listing with a category other than
``Disconnected``, resumes what ``unlinked`` paused. The other pauses have no event that lifts
them (document 01 has none); ``roomsync webhooks resume LISTING`` does.
``ListingApprovalStatusChanged`` and ``ListingSynchronizationSettingsUpdated`` record the approval
status and the synchronization category.
"""

from __future__ import annotations

from collections import Counter

from roomsync.adapters.store.db_calls import DbCalls
from roomsync.app.listing_pause import listing_states_changed
from roomsync.app.webhooks.mapping_index import CachedMapping, MappingIndex
from roomsync.core.api import webhooks as events
from roomsync.core.ports import ListingKey, ListingStateStore
from roomsync.metrics import Metrics

PAUSE_REASONS = (
    "unlinked",
    "authorization_revoked",
    "listing_suspended",
    "host_suspended",
    "safety_commitment",
)
"""Codes of the pause reasons: the ``reason`` label of the paused-listings gauge."""

ListingEvent = (
    events.ListingsUnlinked
    | events.AuthorizationRevoked
    | events.ListingSuspension
    | events.HostSuspension
    | events.SafetyCommitmentSuspension
    | events.SafetyCommitmentReactivation
    | events.ListingApprovalStatusChanged
    | events.ListingSynchronizationSettingsUpdated
)


def reason_code(reason: str | None) -> str:
    code = (reason or "").split(":", 1)[0]
    return code if code in PAUSE_REASONS else "other"


class ListingEvents:
    def __init__(
        self,
        property_id: str,
        mapping: CachedMapping,
        states: ListingStateStore,
        metrics: Metrics,
        db: DbCalls,
    ) -> None:
        self._db = db
        self._property_id = property_id
        self._mapping = mapping
        self._states = states
        self._metrics = metrics

    async def apply(self, event: ListingEvent) -> str:
        index = await self._db(self._mapping.current)
        summary = await self._db(self._apply, event, index)
        listing_states_changed(self._property_id)
        await self._db(self.update_gauge)
        return summary

    def _apply(self, event: ListingEvent, index: MappingIndex) -> str:
        match event:
            case events.ListingsUnlinked():
                keys = [ListingKey(self._property_id, event.host_id, x) for x in event.listing_ids]
                return self._pause(keys, "unlinked: the host manages the listing on the channel directly")
            case events.AuthorizationRevoked():
                keys = [
                    ListingKey(self._property_id, event.host_id, x) for x in event.listing_ids
                ] or self._host_listings(index, event.host_id)
                return self._pause(
                    keys, f"authorization_revoked: host {event.host_id} revoked the permission"
                )
            case events.ListingSuspension():
                listing = index.listing(event.listing_id)
                if listing is None:
                    return f"listing {event.listing_id} is not in the mapping; its suspension changes nothing"
                capabilities = ", ".join(c.value for c in event.restricted_capability_types) or "none named"
                return self._pause([index.key(listing)], f"listing_suspended: restricted {capabilities}")
            case events.HostSuspension():
                capabilities = ", ".join(c.value for c in event.capability_types) or "none named"
                return self._pause(
                    self._host_listings(index, event.host_id),
                    f"host_suspended: host {event.host_id} restricted {capabilities}",
                )
            case events.SafetyCommitmentSuspension():
                return self._pause(
                    self._host_listings(index, event.host_id), f"safety_commitment: {event.message}"
                )
            case events.SafetyCommitmentReactivation():
                return self._resume(self._host_listings(index, event.host_id), "safety_commitment")
            case events.ListingApprovalStatusChanged():
                key = ListingKey(self._property_id, event.host_id, event.listing_id)
                self._states.set_approval_status(key, event.status_category.value)
                return f"listing {event.listing_id} approval status {event.status_category.value}"
            case events.ListingSynchronizationSettingsUpdated():
                done = []
                for update in event.updates:
                    key = ListingKey(self._property_id, event.host_id, update.listing_id)
                    self._states.set_sync_category(key, update.sync_category.value)
                    done.append(f"{update.listing_id}={update.sync_category.value}")
                    if update.sync_category.value != "Disconnected":
                        self._resume([key], "unlinked")
                return f"synchronization category {', '.join(done) or 'of no listing'}"
        raise TypeError(f"not a listing event: {type(event).__name__}")  # pragma: no cover

    def _host_listings(self, index: MappingIndex, host_id: str) -> list[ListingKey]:
        """Every listing of the host roomsync knows: mapped, or with a recorded state."""
        keys = {index.key(x) for x in index.listings_of_host(host_id)}
        keys.update(
            s.listing
            for s in self._states.list_listing_states(self._property_id)
            if s.listing.account_id == host_id
        )
        return sorted(keys, key=lambda k: k.listing_id)

    def _pause(self, keys: list[ListingKey], reason: str) -> str:
        for key in keys:
            self._states.set_paused(key, True, reason)
        names = ", ".join(k.listing_id for k in keys) or "no listing"
        return f"paused {names} ({reason})"

    def _resume(self, keys: list[ListingKey], code: str) -> str:
        resumed = []
        for key in keys:
            state = self._states.get_listing_state(key)
            if state.paused and reason_code(state.pause_reason) == code:
                self._states.set_paused(key, False)
                resumed.append(key.listing_id)
        return f"resumed {', '.join(resumed) or 'no listing'} (paused for {code})"

    def resume(self, key: ListingKey) -> bool:
        """Resume a listing whatever paused it (the operator's ``roomsync webhooks resume``)."""
        state = self._states.get_listing_state(key)
        if not state.paused:
            return False
        self._states.set_paused(key, False)
        listing_states_changed(self._property_id)
        self.update_gauge()
        return True

    def update_gauge(self) -> None:
        counts = Counter(
            reason_code(s.pause_reason)
            for s in self._states.list_listing_states(self._property_id)
            if s.paused
        )
        for code in (*PAUSE_REASONS, "other"):
            self._metrics.paused_listings.labels(self._property_id, code).set(counts.get(code, 0))
