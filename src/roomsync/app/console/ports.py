"""What the console needs from the replica that serves it, as small protocols it is handed.

The console shows the store and the daemons of its replica, and asks a daemon for a resync or its
dry-run plan. It imports nothing of ``roomsync.app.daemon`` (an import-linter contract says so):
``app/daemon/app.py`` hands it the replica as its :class:`ConsoleDesk`, as the webhook receiver is
handed its guest-check desk (``roomsync.adapters.webhooks.ports``). What both sides read (a
property's status, the refusal of a stopping daemon) is :mod:`roomsync.app.daemon_view`.
"""

from __future__ import annotations

from collections.abc import Collection, Mapping
from datetime import date, datetime
from typing import Protocol

from roomsync.adapters.store import Store
from roomsync.app.daemon_view import PropertyStatus
from roomsync.app.sync.report import SyncReport
from roomsync.core.ports import ListingKey
from roomsync.property_context import PropertyContext


class ServedProperty(Protocol):
    """A property whose daemon runs in this replica."""

    def status(self) -> PropertyStatus:
        """Its status as its daemon knows it (blocking: call it off the event loop)."""
        ...

    def wake_worker(self) -> None:
        """A webhook event of the property was stored (a replay): apply it now."""
        ...

    async def resync(
        self,
        listings: Collection[ListingKey] | None,
        date_from: date | None,
        date_to: date | None,
        *,
        trigger: str,
    ) -> SyncReport:
        """The resync, recorded as started by ``trigger``. Raises
        :class:`~roomsync.app.daemon_view.ShuttingDown` when the daemon is stopping, and
        ``ValueError`` for a listing not mapped or dates outside the horizon."""
        ...

    async def plan_resync(
        self,
        listings: Collection[ListingKey] | None,
        date_from: date | None,
        date_to: date | None,
        *,
        trigger: str,
    ) -> SyncReport:
        """The resync's dry run: its reads are real, nothing is written."""
        ...


class ConsoleDesk(Protocol):
    """The replica, as the console sees it."""

    @property
    def name(self) -> str:
        """The replica's name (a page says which replica does not serve a property)."""
        ...

    @property
    def store(self) -> Store: ...

    @property
    def contexts(self) -> Mapping[str, PropertyContext]:
        """Every property of the deployment, served here or not."""
        ...

    def daemon_of(self, property_id: str) -> ServedProperty | None:
        """The property's daemon when this replica serves it."""
        ...

    def start_failure(self, property_id: str) -> str | None:
        """Why the property could not be started, if it could not."""
        ...

    def property_status(self, property_id: str, now: datetime) -> PropertyStatus:
        """Its daemon's status when it runs here, else the store's (blocking)."""
        ...
