"""How the CLI talks to a running daemon (``roomsync status``, ``roomsync resync``).

A daemon is running when ``admin_url`` answers ``/healthz`` or when the lock file of the property
is held (:mod:`.lock`, which also says where the daemon listens). Then work that writes (a resync)
goes through its admin API, never around it: two writers of one listing would race.
"""

from __future__ import annotations

import getpass
from dataclasses import dataclass
from typing import Any
from urllib.parse import quote

import httpx

from roomsync.app.daemon.lock import running_daemon
from roomsync.settings import Settings

PROBE_TIMEOUT = 2.0


class AdminUnavailable(Exception):
    """A daemon runs but its admin API cannot be used; the message says why and what to do."""


@dataclass(frozen=True)
class FoundDaemon:
    url: str | None
    """Where its admin API answers (None: it runs, but where is not known)."""
    pid: int | None = None
    role: str = "serve"


def _alive(url: str) -> bool:
    try:
        return httpx.get(f"{url}/healthz", timeout=PROBE_TIMEOUT).status_code == 200
    except httpx.HTTPError:
        return False


def find_daemon(settings: Settings) -> FoundDaemon | None:
    """The running daemon of ``settings``' property, or None when none runs."""
    if settings.admin_url is not None and _alive(settings.admin_url):
        return FoundDaemon(settings.admin_url)
    local = running_daemon(settings)
    if local is None:
        return None
    if local.admin_url is not None and _alive(local.admin_url):
        return FoundDaemon(local.admin_url, local.pid, local.role)
    return FoundDaemon(None, local.pid, local.role)


def _detail(response: httpx.Response) -> object:
    try:
        return response.json().get("detail")
    except ValueError:
        return None


class AdminClient:
    def __init__(
        self, settings: Settings, daemon: FoundDaemon, property_id: str, *, timeout: float = 600.0
    ) -> None:
        where = f"pid {daemon.pid}" if daemon.pid else "another process"
        if daemon.url is None:
            raise AdminUnavailable(
                f"roomsync {daemon.role} ({where}) is running for this property and does not answer "
                "an admin API; wait for it to finish or stop it"
            )
        if settings.admin_token is None:
            raise AdminUnavailable(
                f"roomsync serve runs for this property at {daemon.url}; set admin_token "
                "(ROOMSYNC_ADMIN_TOKEN) to the daemon's so this command can ask it, or stop the daemon"
            )
        self.url = daemon.url
        self._http = httpx.Client(
            base_url=f"{daemon.url}/admin/properties/{quote(property_id, safe='')}",
            headers={"Authorization": f"Bearer {settings.admin_token.get_secret_value()}"},
            timeout=timeout,
        )

    def __enter__(self) -> AdminClient:
        return self

    def __exit__(self, *exc_info: object) -> None:
        self._http.close()

    def _answer(self, response: httpx.Response) -> Any:
        if response.status_code == 401:
            raise AdminUnavailable(f"the daemon at {self.url} refused the admin_token (401)")
        if response.status_code == 404 and _detail(response) == "Not Found":
            raise AdminUnavailable(f"the daemon at {self.url} has its admin API off (no admin_token set)")
        if response.is_error:
            try:
                detail = response.json().get("detail")
            except ValueError:
                detail = response.text[:200]
            raise AdminUnavailable(f"the daemon at {self.url} answered {response.status_code}: {detail}")
        return response.json()

    def status(self) -> Any:
        return self._answer(self._http.get("/status"))

    def resync(self, listings: list[str], date_from: str | None, date_to: str | None) -> Any:
        # who asks goes into the history of the nights the resync pushes
        try:
            who = f"{getpass.getuser()} (command line)"[:80]
        except (KeyError, OSError):  # a container's user without a name
            who = "the command line"
        body = {"listings": listings, "date_from": date_from, "date_to": date_to, "requested_by": who}
        return self._answer(self._http.post("/resync", json=body))
