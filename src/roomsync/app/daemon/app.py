"""The one ASGI app ``roomsync serve`` runs on uvicorn.

=====================  ==========================================================================
``/healthz``           alive (200 as long as the process answers)
``/readyz``            ready: database reachable, credentials accepted, budget not spent (else 503)
``/metrics``           Prometheus exposition of the daemon's registry
``/admin/...``         the admin API (only when ``admin_token`` is set)
``/console/``          the console (only when ``admin_token`` is set; ``/console`` redirects to it)
``/webhooks/{channel}/{property}``  the webhook receiver of a property (any replica receives)
``/webhooks/{channel}``  the same, in a deployment of one property (the URL of before)
=====================  ==========================================================================

The app's lifespan starts the replica (its properties' schedules and webhook workers) and, on
shutdown, stops them gracefully (:meth:`Replica.stop`).
"""

from __future__ import annotations

import asyncio
from collections.abc import AsyncIterator
from contextlib import asynccontextmanager
from typing import Any

from prometheus_client import CONTENT_TYPE_LATEST, generate_latest
from starlette.applications import Starlette
from starlette.requests import Request
from starlette.responses import JSONResponse, RedirectResponse, Response
from starlette.routing import BaseRoute, Mount, Route
from starlette.types import Receive, Scope, Send

from roomsync.app.console.app import create_console_app
from roomsync.app.daemon.admin import create_admin_app
from roomsync.app.daemon.replica import Replica


def _database_ok(replica: Replica) -> str:
    try:
        replica.store.ping()
    except Exception as error:
        return f"unreachable: {type(error).__name__}"
    return "ok"


class WebhookDispatch:
    """Hands ``/webhooks/{channel}/{property}`` to that property's receiver, and
    ``/webhooks/{channel}`` to the only property's (a deployment of one property)."""

    def __init__(self, replica: Replica) -> None:
        self.replica = replica

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] != "http":
            return
        parts = scope["path"].strip("/").split("/")
        property_id: str | None = None
        if len(parts) == 3 and parts[0] == "webhooks":
            property_id = parts[2]
        elif len(parts) == 2 and parts[0] == "webhooks":
            property_id = self.replica.only_property()
            if property_id is None:
                await _refuse(scope, receive, send, 404, "this deployment serves several properties: "
                              "deliver to /webhooks/{channel}/{property}")
                return
        receiver = self.replica.receivers.get(property_id) if property_id else None
        if receiver is None:
            await _refuse(scope, receive, send, 404, "not found" if property_id is None
                          else f"unknown property {property_id!r}")
            return
        await receiver(scope, receive, send)


async def _to_the_console(request: Request) -> RedirectResponse:
    """``/console`` to ``/console/`` (the query kept), as Starlette redirects a missing slash."""
    return RedirectResponse(request.url.replace(path=request.url.path + "/"), status_code=307)


async def _refuse(scope: Scope, receive: Receive, send: Send, status: int, reason: str) -> None:
    await JSONResponse({"succeed": False, "error": reason}, status_code=status)(scope, receive, send)


def create_daemon_app(replica: Replica) -> Starlette:
    async def healthz(request: Request) -> JSONResponse:
        return JSONResponse(
            {"status": "alive", "replica": replica.name, "properties": sorted(replica.daemons)}
        )

    async def readyz(request: Request) -> JSONResponse:
        checks: dict[str, str] = {"database": await asyncio.to_thread(_database_ok, replica)}
        failing = replica.credentials_failing()
        checks["credentials"] = "ok" if failing is None else f"refused ({failing})"
        if checks["database"] == "ok" and replica.single:
            over = await asyncio.to_thread(replica.over_budget)
            checks["budget"] = "spent until the quota resets" if over else "ok"
        if replica.stopping:
            checks["daemon"] = "stopping"
        ready = all(value == "ok" for value in checks.values())
        body: dict[str, Any] = {"ready": ready, "checks": checks}
        return JSONResponse(body, status_code=200 if ready else 503)

    async def metrics(request: Request) -> Response:
        await asyncio.to_thread(replica.refresh_gauges)
        return Response(generate_latest(replica.metrics.registry), media_type=CONTENT_TYPE_LATEST)

    routes: list[BaseRoute] = [
        Route("/healthz", healthz, methods=["GET"]),
        Route("/readyz", readyz, methods=["GET"]),
        Route("/metrics", metrics, methods=["GET"]),
    ]
    token = replica.settings.admin_token
    if token is not None and token.get_secret_value():
        routes.append(Mount("/admin", app=create_admin_app(replica, token.get_secret_value())))
        # "/console" as an admin types it: the mount below answers only under "/console/", and
        # the webhook dispatcher would answer 404 JSON to it
        routes.append(Route("/console", _to_the_console, methods=["GET", "HEAD"]))
        routes.append(Mount("/console", app=create_console_app(replica, token.get_secret_value())))
    routes.append(Mount("/", app=WebhookDispatch(replica)))

    @asynccontextmanager
    async def lifespan(app: Starlette) -> AsyncIterator[None]:
        replica.start()
        try:
            yield
        finally:
            await replica.stop()

    return Starlette(routes=routes, lifespan=lifespan)
