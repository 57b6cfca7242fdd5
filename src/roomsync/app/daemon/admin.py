"""The admin API under ``/admin`` (FastAPI; OpenAPI at ``/admin/openapi.json``, docs at ``/admin/docs``).

Every endpoint needs ``Authorization: Bearer <admin_token>`` (compared in constant time); a wrong
or missing token is 401. With no ``admin_token`` configured the admin API is not mounted at all:
every ``/admin`` path is 404.

=============================================  =================================================
``GET  /admin/status``                         status of the property and each listing
``POST /admin/resync``                         resync a property, some listings, a date range
``POST /admin/listings/{account}/{listing}/pause``   pause a listing (roomsync stops pushing)
``POST /admin/listings/{account}/{listing}/resume``  resume it
``GET  /admin/dead-letters``                   deliveries kept for a person to look at
=============================================  =================================================
"""

from __future__ import annotations

import asyncio
import hmac
from datetime import date, datetime

from fastapi import Depends, FastAPI, HTTPException, Query
from fastapi.security import HTTPAuthorizationCredentials, HTTPBearer
from pydantic import BaseModel, Field

from roomsync.app.daemon.runtime import Daemon, ShuttingDown
from roomsync.app.daemon.status import PropertyStatus
from roomsync.app.sync import SyncReport
from roomsync.core.ports import ListingKey

OPERATOR_PAUSE = "paused by an operator"


class ResyncRequest(BaseModel):
    listings: list[str] = Field(
        default_factory=list, description="ACCOUNT/LISTING keys; empty: every mapped listing."
    )
    date_from: date | None = Field(None, description="First date; default today.")
    date_to: date | None = Field(None, description="Last date; default the end of the horizon.")


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


def parse_listing_keys(values: list[str]) -> list[tuple[str, str]]:
    keys = []
    for value in values:
        account, _, listing = value.partition("/")
        if not account or not listing:
            raise HTTPException(400, f"listing {value!r}: write it as ACCOUNT/LISTING, e.g. 2001/41000001")
        keys.append((account, listing))
    return keys


def create_admin_app(daemon: Daemon, token: str) -> FastAPI:
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
        description="Status, resync, pause and dead letters of the property this daemon serves.",
        dependencies=[Depends(authorised)],
    )

    @app.get("/status", response_model=PropertyStatus, summary="Status of the property and its listings")
    async def status() -> PropertyStatus:
        return await asyncio.to_thread(daemon.status)

    @app.post("/resync", response_model=ResyncResult, summary="Resync the property, listings or dates")
    async def resync(request: ResyncRequest) -> ResyncResult:
        keys = parse_listing_keys(request.listings)
        try:
            report = await daemon.resync(keys or None, request.date_from, request.date_to)
        except ShuttingDown as stopping:
            raise HTTPException(503, str(stopping)) from None
        except ValueError as error:  # a listing not mapped, dates outside the horizon
            raise HTTPException(400, str(error)) from None
        return resync_result(report)

    async def mapped(account_id: str, listing_id: str) -> ListingKey:
        mapping = await asyncio.to_thread(daemon.store.mappings.load_mapping, daemon.property_id)
        if mapping is None or (account_id, listing_id) not in {entry.key for entry in mapping.listings}:
            raise HTTPException(404, f"listing {account_id}/{listing_id} is not in the mapping")
        return ListingKey(daemon.property_id, account_id, listing_id)

    @app.post(
        "/listings/{account_id}/{listing_id}/pause", response_model=ListingPause, summary="Pause a listing"
    )
    async def pause(account_id: str, listing_id: str, request: PauseRequest | None = None) -> ListingPause:
        key = await mapped(account_id, listing_id)
        reason = f"{OPERATOR_PAUSE}: {request.reason}" if request and request.reason else OPERATOR_PAUSE
        await asyncio.to_thread(daemon.store.listing_states.set_paused, key, True, reason)
        return ListingPause(listing=f"{account_id}/{listing_id}", paused=True, pause_reason=reason)

    @app.post(
        "/listings/{account_id}/{listing_id}/resume", response_model=ListingPause, summary="Resume a listing"
    )
    async def resume(account_id: str, listing_id: str) -> ListingPause:
        key = await mapped(account_id, listing_id)
        await asyncio.to_thread(daemon.store.listing_states.set_paused, key, False)
        return ListingPause(listing=f"{account_id}/{listing_id}", paused=False)

    @app.get("/dead-letters", response_model=list[DeadLetterView], summary="Deliveries kept for a person")
    async def dead_letters(limit: int = Query(100, ge=1, le=1000)) -> list[DeadLetterView]:
        letters = await asyncio.to_thread(
            daemon.store.dead_letters.list_dead_letters, daemon.property_id, limit
        )
        return [
            DeadLetterView(
                id=d.id, received_at=d.received_at, reason=d.reason, body=d.body, headers=d.headers
            )
            for d in letters
        ]

    return app
