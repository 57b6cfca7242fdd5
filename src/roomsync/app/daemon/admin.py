"""The admin API under ``/admin`` (FastAPI; OpenAPI at ``/admin/openapi.json``, docs at ``/admin/docs``,
served offline: ``roomsync.app.daemon.api_docs``).

Every endpoint needs ``Authorization: Bearer <admin_token>`` (compared in constant time); a wrong
or missing token is 401. With no ``admin_token`` configured the admin API is not mounted at all:
every ``/admin`` path is 404.

========================================================  ======================================
``GET  /admin/properties``                                the deployment's properties, who owns each
``GET  /admin/properties/{p}/status``                     status of the property and each listing
``GET  /admin/properties/{p}/runs``                       its recent sync runs
``GET  /admin/properties/{p}/budget``                     today's request budget
``POST /admin/properties/{p}/resync``                     resync it, some listings, a date range
``POST /admin/properties/{p}/pause`` / ``resume``         stop / start syncing the property
``POST /admin/properties/{p}/listings/{a}/{l}/pause``     pause a listing (roomsync stops pushing)
``POST /admin/properties/{p}/listings/{a}/{l}/resume``    resume it
``GET  /admin/properties/{p}/webhooks``                   recent webhook events
``GET  /admin/properties/{p}/dead-letters``               deliveries kept for a person to look at
========================================================  ======================================

``GET /admin/properties/{p}/listings/{a}/{l}/nights/{night}`` answers the history of a night
(what ``roomsync history`` prints, as JSON).

A deployment of one property also answers the same paths without ``/properties/{p}`` (``GET
/admin/status``, ``POST /admin/resync``, ...), as before. Work that writes (a resync) runs on the
replica that owns the property; another replica answers 409 naming it.
"""

from __future__ import annotations

import asyncio
import hmac
from datetime import UTC, date, datetime
from typing import Any

from fastapi import Depends, FastAPI, HTTPException, Query
from fastapi.security import HTTPAuthorizationCredentials, HTTPBearer
from pydantic import BaseModel, Field

from roomsync.adapters.client.budget_view import budget_for_today
from roomsync.app.daemon.api_docs import add_offline_docs
from roomsync.app.daemon.replica import Replica
from roomsync.app.daemon.runtime import Daemon
from roomsync.app.daemon_view import PropertyStatus, ShuttingDown
from roomsync.app.listing_pause import operator_reason, set_listing_paused
from roomsync.app.night_story import night_story, story_as_dict
from roomsync.app.sync import SyncReport
from roomsync.core.ports import ListingKey
from roomsync.core.property import PropertyNotFound
from roomsync.property_context import PropertyContext


class ResyncRequest(BaseModel):
    listings: list[str] = Field(
        default_factory=list, description="ACCOUNT/LISTING keys; empty: every mapped listing."
    )
    date_from: date | None = Field(None, description="First date; default today.")
    date_to: date | None = Field(None, description="Last date; default the end of the horizon.")
    requested_by: str | None = Field(
        None, max_length=80, description="Who asks (kept in the history of the nights it pushes)."
    )


class ListingResult(BaseModel):
    listing: str
    status: str
    reason: str | None = None
    operations: int = 0
    drift_days: int = 0


class ResyncResult(BaseModel):
    run_id: int | None
    result: str
    error: str | None = None
    requests: int
    operations: int
    price_elements: int
    listings: list[ListingResult]
    notes: list[str] = Field(default_factory=list)


class PauseRequest(BaseModel):
    reason: str | None = Field(None, max_length=300, description="Why (shown in the status).")


class ListingPause(BaseModel):
    listing: str
    paused: bool
    pause_reason: str | None = None


class PropertySummary(BaseModel):
    property: str
    paused: bool
    paused_reason: str | None = None
    served_here: bool
    """This replica owns and runs it."""
    failed: str | None = None
    """Why this replica could not start it, if it tried."""


class PropertyPause(BaseModel):
    property: str
    paused: bool
    paused_reason: str | None = None


class RunView(BaseModel):
    id: int
    kind: str
    started_at: datetime
    finished_at: datetime | None = None
    result: str | None = None
    requests: int | None = None
    error: str | None = None


class BudgetLine(BaseModel):
    priority: str
    used: int
    refused: int
    reserved_for_higher: int
    still_allowed: int


class BudgetAnswer(BaseModel):
    property: str
    day: date
    quota: int
    used: int
    remaining: int
    resets_at: datetime | None = None
    lines: list[BudgetLine]


class WebhookEventView(BaseModel):
    id: int
    action: str
    status: str
    received_at: datetime
    attempts: int
    last_error: str | None = None


class DeadLetterView(BaseModel):
    id: int
    received_at: datetime
    reason: str
    body: str
    headers: dict[str, str]


def resync_result(report: SyncReport) -> ResyncResult:
    return ResyncResult(
        run_id=report.run_id,
        result=report.result,
        error=report.error,
        requests=report.requests,
        operations=report.operations,
        price_elements=report.price_elements_sent,
        listings=[
            ListingResult(
                listing=o.key,
                status=o.status.value,
                reason=o.reason,
                operations=o.operations,
                drift_days=o.drift_days,
            )
            for o in report.listings
        ],
        notes=report.notes,
    )


def parse_listing_keys(property_id: str, values: list[str]) -> list[ListingKey]:
    try:
        return [ListingKey.parse(property_id, value) for value in values]
    except ValueError as error:
        raise HTTPException(400, str(error)) from None


def create_admin_app(replica: Replica, token: str) -> FastAPI:
    bearer = HTTPBearer(auto_error=False)
    expected = token.encode()

    def authorised(credentials: HTTPAuthorizationCredentials | None = Depends(bearer)) -> None:
        given = credentials.credentials.encode() if credentials is not None else b""
        # compare_digest in any case, so a missing token takes as long as a wrong one
        if not hmac.compare_digest(given, expected) or credentials is None:
            raise HTTPException(
                401,
                "a valid admin token is needed (Authorization: Bearer ...)",
                headers={"WWW-Authenticate": "Bearer"},
            )

    app = FastAPI(
        title="roomsync admin API",
        description="Properties, status, runs, budget, resync, pause and webhooks of this deployment.",
        dependencies=[Depends(authorised)],
        docs_url=None,  # the default page loads Swagger UI from a CDN: an offline page instead
        redoc_url=None,
    )
    add_offline_docs(app)
    store = replica.store

    def context_of(property_id: str) -> PropertyContext:
        context = replica.contexts.get(property_id)
        if context is None:
            raise HTTPException(404, f"no property {property_id} in this deployment")
        return context

    def only() -> str:
        single = replica.only_property()
        if single is None:
            raise HTTPException(
                400,
                f"this deployment has {len(replica.contexts)} properties: "
                "use /admin/properties/{property}/...",
            )
        return single

    def running(property_id: str) -> Daemon:
        context_of(property_id)
        daemon = replica.daemon_of(property_id)
        if daemon is None:
            raise HTTPException(
                409,
                f"property {property_id} is not served by this replica ({replica.name}); "
                "ask the replica that owns it",
            )
        return daemon

    @app.get("/properties", response_model=list[PropertySummary], summary="The deployment's properties")
    async def properties() -> list[PropertySummary]:
        return [
            PropertySummary(
                property=pid,
                paused=context.paused,
                paused_reason=context.paused_reason,
                served_here=pid in replica.daemons,
                failed=replica.start_failure(pid),
            )
            for pid, context in sorted(replica.contexts.items())
        ]

    async def status_of(property_id: str) -> PropertyStatus:
        if replica.daemon_of(property_id) is None:
            context_of(property_id)  # 404 for a property the deployment does not have
        return await asyncio.to_thread(replica.property_status, property_id, datetime.now(UTC))

    async def resync_of(property_id: str, request: ResyncRequest) -> ResyncResult:
        daemon = running(property_id)
        keys = parse_listing_keys(property_id, request.listings)
        try:
            who = f"admin resync by {request.requested_by or 'the admin API'}"
            report = await daemon.resync(keys or None, request.date_from, request.date_to, trigger=who)
        except ShuttingDown as stopping:
            raise HTTPException(503, str(stopping)) from None
        except ValueError as error:  # a listing not mapped, dates outside the horizon
            raise HTTPException(400, str(error)) from None
        return resync_result(report)

    async def mapped(property_id: str, account_id: str, listing_id: str) -> ListingKey:
        context_of(property_id)
        mapping = await asyncio.to_thread(store.mappings.load_mapping, property_id)
        key = ListingKey(property_id, account_id, listing_id)
        if mapping is None or key not in {entry.listing_key(property_id) for entry in mapping.listings}:
            raise HTTPException(404, f"listing {key} is not in the mapping")
        return key

    async def pause_listing(
        property_id: str, account_id: str, listing_id: str, request: PauseRequest | None
    ) -> ListingPause:
        key = await mapped(property_id, account_id, listing_id)
        reason = operator_reason(request.reason if request else None)
        await asyncio.to_thread(set_listing_paused, store, key, True, reason)
        return ListingPause(listing=key.text, paused=True, pause_reason=reason)

    async def resume_listing(property_id: str, account_id: str, listing_id: str) -> ListingPause:
        key = await mapped(property_id, account_id, listing_id)
        await asyncio.to_thread(set_listing_paused, store, key, False)
        return ListingPause(listing=key.text, paused=False)

    async def dead_letters_of(property_id: str, limit: int) -> list[DeadLetterView]:
        context_of(property_id)
        letters = await asyncio.to_thread(store.dead_letters.list_dead_letters, property_id, limit)
        return [
            DeadLetterView(
                id=d.id, received_at=d.received_at, reason=d.reason, body=d.body, headers=d.headers
            )
            for d in letters
        ]

    # --- per property ---------------------------------------------------------------------------

    per = "/properties/{property_id}"

    @app.get(f"{per}/status", response_model=PropertyStatus, summary="Status of a property and its listings")
    async def property_status(property_id: str) -> PropertyStatus:
        return await status_of(property_id)

    @app.get(f"{per}/runs", response_model=list[RunView], summary="Recent sync runs of a property")
    async def property_runs(property_id: str, limit: int = Query(20, ge=1, le=500)) -> list[RunView]:
        context_of(property_id)
        runs = await asyncio.to_thread(store.sync_runs.recent_runs, property_id, limit)
        return [
            RunView(
                id=r.id,
                kind=r.kind,
                started_at=r.started_at,
                finished_at=r.finished_at,
                result=r.result,
                requests=r.requests_spent,
                error=r.error,
            )
            for r in runs
        ]

    @app.get(f"{per}/budget", response_model=BudgetAnswer, summary="Today's request budget of a property")
    async def property_budget(property_id: str) -> BudgetAnswer:
        context = context_of(property_id)
        view = await asyncio.to_thread(budget_for_today, store.budget, context)
        return BudgetAnswer(
            property=property_id,
            day=view.day,
            quota=view.quota,
            used=view.used,
            remaining=view.remaining,
            resets_at=view.resets_at,
            lines=[
                BudgetLine(
                    priority=line.priority.name.lower(),
                    used=line.used,
                    refused=line.refused,
                    reserved_for_higher=line.reserved,
                    still_allowed=line.available,
                )
                for line in view.lines
            ],
        )

    @app.post(f"{per}/resync", response_model=ResyncResult, summary="Resync a property, listings or dates")
    async def property_resync(property_id: str, request: ResyncRequest) -> ResyncResult:
        return await resync_of(property_id, request)

    async def set_property_paused(property_id: str, paused: bool, reason: str | None) -> PropertyPause:
        context = context_of(property_id)
        if context.from_settings:
            raise HTTPException(
                400,
                "this property comes from the settings; add it with `roomsync properties add` to pause it",
            )
        try:
            await asyncio.to_thread(store.properties.set_paused, property_id, paused, reason)
        except PropertyNotFound as error:
            raise HTTPException(404, str(error)) from None
        await replica.check_ownership()  # stop (or start) it now rather than at the next check
        return PropertyPause(property=property_id, paused=paused, paused_reason=reason if paused else None)

    @app.post(f"{per}/pause", response_model=PropertyPause, summary="Stop syncing a property")
    async def property_pause(property_id: str, request: PauseRequest | None = None) -> PropertyPause:
        reason = operator_reason(request.reason if request else None)
        return await set_property_paused(property_id, True, reason)

    @app.post(f"{per}/resume", response_model=PropertyPause, summary="Sync a paused property again")
    async def property_resume(property_id: str) -> PropertyPause:
        return await set_property_paused(property_id, False, None)

    @app.post(f"{per}/listings/{{account_id}}/{{listing_id}}/pause", response_model=ListingPause)
    async def property_listing_pause(
        property_id: str, account_id: str, listing_id: str, request: PauseRequest | None = None
    ) -> ListingPause:
        return await pause_listing(property_id, account_id, listing_id, request)

    @app.post(f"{per}/listings/{{account_id}}/{{listing_id}}/resume", response_model=ListingPause)
    async def property_listing_resume(property_id: str, account_id: str, listing_id: str) -> ListingPause:
        return await resume_listing(property_id, account_id, listing_id)

    @app.get(
        f"{per}/listings/{{account_id}}/{{listing_id}}/nights/{{night}}",
        summary="The history of a night: why it is what it is",
    )
    async def property_night(property_id: str, account_id: str, listing_id: str, night: date) -> Any:
        await mapped(property_id, account_id, listing_id)
        story = await asyncio.to_thread(night_story, store, property_id, account_id, listing_id, night)
        return story_as_dict(story)

    @app.get(f"{per}/webhooks", response_model=list[WebhookEventView], summary="Recent webhook events")
    async def property_webhooks(
        property_id: str, limit: int = Query(50, ge=1, le=1000), status: str | None = None
    ) -> list[WebhookEventView]:
        context_of(property_id)
        records = store.webhook_records
        rows = await asyncio.to_thread(records.recent_inbox, property_id, limit, status)
        return [
            WebhookEventView(
                id=r.id,
                action=r.action,
                status=r.status,
                received_at=r.received_at,
                attempts=r.attempts,
                last_error=r.last_error,
            )
            for r in rows
        ]

    @app.get(f"{per}/dead-letters", response_model=list[DeadLetterView], summary="Kept for a person")
    async def property_dead_letters(
        property_id: str, limit: int = Query(100, ge=1, le=1000)
    ) -> list[DeadLetterView]:
        return await dead_letters_of(property_id, limit)

    # --- the one-property paths of before -------------------------------------------------------

    @app.get("/status", response_model=PropertyStatus, summary="Status (a deployment of one property)")
    async def status() -> PropertyStatus:
        return await status_of(only())

    @app.post("/resync", response_model=ResyncResult, summary="Resync (a deployment of one property)")
    async def resync(request: ResyncRequest) -> ResyncResult:
        return await resync_of(only(), request)

    @app.post("/listings/{account_id}/{listing_id}/pause", response_model=ListingPause)
    async def pause(account_id: str, listing_id: str, request: PauseRequest | None = None) -> ListingPause:
        return await pause_listing(only(), account_id, listing_id, request)

    @app.post("/listings/{account_id}/{listing_id}/resume", response_model=ListingPause)
    async def resume(account_id: str, listing_id: str) -> ListingPause:
        return await resume_listing(only(), account_id, listing_id)

    @app.get("/dead-letters", response_model=list[DeadLetterView])
    async def dead_letters(limit: int = Query(100, ge=1, le=1000)) -> list[DeadLetterView]:
        return await dead_letters_of(only(), limit)

    return app
