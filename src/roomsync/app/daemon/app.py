"""The one ASGI app ``roomsync serve`` runs on uvicorn.

=====================  ==========================================================================
``/healthz``           alive (200 as long as the process answers)
``/readyz``            ready: database reachable, credentials accepted, budget not spent (else 503)
``/metrics``           Prometheus exposition of the daemon's registry
``/admin/...``         the admin API (only when ``admin_token`` is set)
``/webhooks/{channel}``  the webhook receiver
=====================  ==========================================================================

The app's lifespan starts the daemon's schedule and webhook worker and, on shutdown, stops them
gracefully (:meth:`Daemon.stop`).
"""

from __future__ import annotations

import asyncio
from collections.abc import AsyncIterator
from contextlib import asynccontextmanager
from typing import Any

import sqlalchemy as sa
from prometheus_client import CONTENT_TYPE_LATEST, generate_latest
from starlette.applications import Starlette
from starlette.requests import Request
from starlette.responses import JSONResponse, Response
from starlette.routing import BaseRoute, Mount, Route

from roomsync.app.daemon.admin import create_admin_app
from roomsync.app.daemon.runtime import Daemon


def _database_ok(daemon: Daemon) -> str:
    try:
        with daemon.store.engine.connect() as connection:
            connection.execute(sa.text("SELECT 1"))
    except Exception as error:
        return f"unreachable: {type(error).__name__}"
    return "ok"


def create_daemon_app(daemon: Daemon) -> Starlette:
    async def healthz(request: Request) -> JSONResponse:
        return JSONResponse({"status": "alive", "property": daemon.property_id})

    async def readyz(request: Request) -> JSONResponse:
        checks: dict[str, str] = {"database": await asyncio.to_thread(_database_ok, daemon)}
        failing = daemon.credentials_failing()
        checks["credentials"] = "ok" if failing is None else f"refused ({failing})"
        if checks["database"] == "ok":
            over = await asyncio.to_thread(daemon.over_budget)
            checks["budget"] = "spent until the quota resets" if over else "ok"
        if daemon.stopping:
            checks["daemon"] = "stopping"
        ready = all(value == "ok" for value in checks.values())
        body: dict[str, Any] = {"ready": ready, "checks": checks}
        return JSONResponse(body, status_code=200 if ready else 503)

    async def metrics(request: Request) -> Response:
        await asyncio.to_thread(daemon.refresh_gauges)
        return Response(generate_latest(daemon.metrics.registry), media_type=CONTENT_TYPE_LATEST)

    routes: list[BaseRoute] = [
        Route("/healthz", healthz, methods=["GET"]),
        Route("/readyz", readyz, methods=["GET"]),
        Route("/metrics", metrics, methods=["GET"]),
    ]
    token = daemon.settings.admin_token
    if token is not None and token.get_secret_value():
        routes.append(Mount("/admin", app=create_admin_app(daemon, token.get_secret_value())))
    routes.append(Mount("/", app=daemon.receiver_app))

    @asynccontextmanager
    async def lifespan(app: Starlette) -> AsyncIterator[None]:
        daemon.start()
        try:
            yield
        finally:
            await daemon.stop()

    return Starlette(routes=routes, lifespan=lifespan)
