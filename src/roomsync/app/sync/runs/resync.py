"""The resync: the ledger set aside, the channel of some listings (all when none is named) re-read
over some dates and the whole difference pushed; with every listing, every connected-channel
price is pushed again too. The admin API, the console and ``roomsync resync`` ask for it.
"""

from __future__ import annotations

from collections.abc import Collection
from dataclasses import dataclass
from datetime import date

from roomsync.app.sync.report import COMMAND_LINE, SyncReport
from roomsync.app.sync.runs.full_sync import FullScope, full_pass
from roomsync.app.sync.runs.property_sync import PropertySync, check_request
from roomsync.core.ports import ListingKey

RESYNC = "resync"


@dataclass(frozen=True)
class ResyncRequest:
    """``listings`` (all when None or empty) over their nights ``date_from..date_to`` (the
    horizon's own where None)."""

    listings: Collection[ListingKey] | None = None
    date_from: date | None = None
    date_to: date | None = None

    def scope(self, *, dry_run: bool) -> FullScope:
        return FullScope(
            dry_run=dry_run,
            only=frozenset(self.listings) if self.listings else None,
            window=(self.date_from, self.date_to),
            read_channel=True,
            relocate_closures=True,
            ignore_price_ledger=not dry_run and not self.listings,
        )


async def resync(
    sync: PropertySync,
    listings: Collection[ListingKey] | None = None,
    date_from: date | None = None,
    date_to: date | None = None,
    *,
    trigger: str = COMMAND_LINE,
) -> SyncReport:
    """Re-read the channel of ``listings`` (all when None) over ``date_from..date_to``.

    Raises :class:`RequestRefused` for a listing not in the mapping or dates outside the
    horizon, before any run is recorded (an operator's mistake is not a failed sync)."""
    request = ResyncRequest(listings, date_from, date_to)
    await check_request(sync, listings, (date_from, date_to))
    scope = request.scope(dry_run=False)
    return await sync.recorder.run(
        RESYNC, False, lambda report: full_pass(sync, report, scope), trigger=trigger
    )
