"""The control surface, ``/_emulator/...``: JSON, no auth, never counted against the quota.

Tests, the demo and the benchmarks drive the emulator through it: reset and seed a scenario, set
the clock, change the quota and the credentials, inject faults, read the request log, register a
webhook receiver and watch deliveries, act as guests, hosts and the front desk, and read back the
channel calendar and the connected channels' prices. The reference is in docs/emulator.md.
"""

from __future__ import annotations

import asyncio
import json
from collections.abc import Awaitable, Callable
from datetime import date, datetime, timedelta
from decimal import Decimal
from typing import Annotated, Any, TypeVar

from pydantic import BaseModel, ConfigDict, Field, ValidationError
from pydantic.alias_generators import to_camel
from starlette.requests import Request
from starlette.responses import JSONResponse, Response
from starlette.routing import BaseRoute, Route

from roomsync.emulator.channel import actions
from roomsync.emulator.channel.actions import Booking
from roomsync.emulator.errors import ApiError, invalid, not_found
from roomsync.emulator.scenario import SCENARIOS, Sizes, load_scenario
from roomsync.emulator.state import EmulatorState
from roomsync.emulator.webhook_delivery import DeliveryState

ModelT = TypeVar("ModelT", bound=BaseModel)
Endpoint = Callable[[Request], Awaitable[Any]]


class Body(BaseModel):
    """Base of control-surface bodies: camelCase names, unknown names refused."""

    model_config = ConfigDict(alias_generator=to_camel, populate_by_name=True, extra="forbid")


class ResetBody(Body):
    scenario: str | None = None
    seed: int | None = None
    listings: int | None = Field(None, ge=1, le=20000)
    units: int | None = Field(None, ge=1, le=100)
    days: int | None = Field(None, ge=1, le=731)


class ClockBody(Body):
    now: datetime | None = None
    today: date | None = None
    frozen: bool | None = None


class AdvanceBody(Body):
    days: float = 0
    hours: float = 0
    minutes: float = 0
    seconds: float = 0


class QuotaBody(Body):
    daily_quota: int | None = Field(None, gt=0)
    free_licence: bool | None = None
    used_calls: int | None = Field(None, ge=0)


class AuthBody(Body):
    username: str | None = None
    password: str | None = None
    domain: str | None = None
    static_key: str | None = None
    auth_header: str | None = None
    static_key_mode: bool | None = None
    """False switches static-key mode off again (the key is forgotten)."""


class FaultsBody(Body):
    latency_ms: int | None = Field(None, ge=0)
    drop_rate: float | None = Field(None, ge=0, le=1)
    drop_next: int | None = Field(None, ge=0)
    throttle_next: int | None = Field(None, ge=0)
    throttle_retry_after: int | None = Field(None, ge=0)
    slow_rate: float | None = Field(None, ge=0, le=1)
    slow_ms: int | None = Field(None, ge=0)
    error_rate: float | None = Field(None, ge=0, le=1)
    error_next: int | None = Field(None, ge=0)
    error_status: int | None = Field(None, ge=500, le=599)
    error_statuses: list[Annotated[int, Field(ge=500, le=599)]] | None = None
    webhook_delay_ms: int | None = Field(None, ge=0)


class ReceiverBody(Body):
    url: str | None
    secret: str | None = None


class WebhookSettingsBody(Body):
    duplicate: bool | None = None
    reorder: bool | None = None
    retry_scale: float | None = Field(None, ge=0)


class WaitBody(Body):
    state: str = "settled"
    count: int = Field(1, ge=0)
    timeout: float = Field(5.0, gt=0, le=60)


class ChannelSettingsBody(Body):
    manual_review_rate: float | None = Field(None, ge=0, le=1)
    manual_review_next: int | None = Field(None, ge=0)


class ManagerSettingsBody(Body):
    processing_delay_seconds: float | None = Field(None, ge=0, le=3600)
    sane_min: Decimal | None = Field(None, ge=0)
    sane_max: Decimal | None = Field(None, gt=0)


class ManagerWaitBody(Body):
    timeout: float = Field(5.0, gt=0, le=60)


class ConnectedChannelBody(Body):
    failing: bool | None = None
    price_list_id: int | None = None


class BookBody(Body):
    listing_id: str
    start_date: date
    nights: int = Field(ge=1, le=365)
    adults: int = Field(2, ge=1)
    children: int = Field(0, ge=0)
    infants: int = Field(0, ge=0)
    first_name: str = "Alex"
    last_name: str = "Guest"
    email: str = ""
    special_offer_id: str | None = None
    force: bool = False
    message: str | None = None

    def booking(self) -> Booking:
        return Booking(
            listing_id=self.listing_id,
            start_date=self.start_date,
            nights=self.nights,
            adults=self.adults,
            children=self.children,
            infants=self.infants,
            first_name=self.first_name,
            last_name=self.last_name,
            email=self.email,
            special_offer_id=self.special_offer_id,
            force=self.force,
        )


class CancelBody(Body):
    confirmation_code: str
    by: str = "guest"


class AlterBody(Body):
    confirmation_code: str
    start_date: date | None = None
    nights: int | None = Field(None, ge=1, le=365)
    number_of_guests: int | None = Field(None, ge=1)


class DecisionBody(Body):
    confirmation_code: str
    accept: bool


class HostListingsBody(Body):
    account_id: str
    listing_ids: list[str]


class AccountBody(Body):
    account_id: str


class SuspendBody(Body):
    kind: str
    """``listing``, ``host`` or ``safety``."""
    listing_id: str | None = None
    account_id: str | None = None
    capabilities: list[str] = Field(default_factory=list)


class ApprovalBody(Body):
    listing_id: str
    status_category: str
    notes: str = ""


class CodeBody(Body):
    confirmation_code: str


class EditListingBody(Body):
    listing_id: str
    name: str | None = None
    permit_or_tax_id: str | None = None
    street: str | None = None
    city: str | None = None
    person_capacity: int | None = None
    requires_manual_review: bool | None = None


class OfferBody(BookBody):
    offer_type: str = "special_offer"
    total_price: int = Field(0, ge=0)


class VoidOfferBody(Body):
    special_offer_id: str


class ReviewBody(Body):
    confirmation_code: str
    stage: str
    reviewer_role: str = "guest"
    rating: int = 5
    text: str = "Lovely stay."


class PmsBookBody(Body):
    date_from: date
    date_to: date
    last_name: str
    first_name: str | None = None
    room_type_id: int | None = None
    room_id: int | None = None
    status: int = 3
    price: Decimal | None = None


class PmsCancelBody(Body):
    reservation_id: int


class PmsPriceBody(Body):
    room_type_id: int
    date_from: date
    date_to: date
    """Last night whose price changes (both ends included)."""
    price: Decimal | None
    price_list_id: int | None = None


class PmsCloseBody(Body):
    date_from: date
    date_to: date
    """Last night to close (both ends included)."""
    room_type_id: int | None = None
    open: bool = False


# --- plumbing ---------------------------------------------------------------------------------


def _error(status: int, code: str, message: str, field: str | None = None) -> JSONResponse:
    return JSONResponse({"error": {"code": code, "message": message, "field": field}}, status_code=status)


async def _read(request: Request, model: type[ModelT]) -> ModelT:
    raw = await request.body()
    try:
        data = json.loads(raw) if raw.strip() else {}
    except ValueError as error:
        raise invalid(None, f"the body is not JSON: {error}", "INVALID_BODY") from None
    try:
        return model.model_validate(data)
    except ValidationError as error:
        first = error.errors(include_url=False)[0]
        field = ".".join(str(p) for p in first["loc"]) or None
        raise invalid(field, f"{field}: {first['msg']}") from None


def _endpoint(handler: Endpoint) -> Callable[[Request], Awaitable[Response]]:
    async def endpoint(request: Request) -> Response:
        try:
            result = await handler(request)
        except ApiError as error:
            return _error(error.status, error.code, error.message, error.field)
        except ValueError as error:
            return _error(400, "INVALID_VALUE", str(error))
        return result if isinstance(result, Response) else JSONResponse(result)

    return endpoint


def _dates(first: date, last: date) -> list[date]:
    if last < first:
        raise invalid("dateTo", f"dateTo {last} is before dateFrom {first}")
    return [first + timedelta(days=i) for i in range((last - first).days + 1)]


def _query_date(request: Request, name: str, default: date) -> date:
    value = request.query_params.get(name)
    if value is None:
        return default
    try:
        return date.fromisoformat(value)
    except ValueError:
        raise invalid(name, f"{name} must be YYYY-MM-DD, got {value!r}") from None


def _query_int(request: Request, name: str) -> int | None:
    value = request.query_params.get(name)
    if value is None:
        return None
    try:
        return int(value)
    except ValueError:
        raise invalid(name, f"{name} must be an integer, got {value!r}") from None


def control_routes(state: EmulatorState) -> list[BaseRoute]:
    """The routes of ``/_emulator``; each handler closes over ``state``."""
    routes: list[BaseRoute] = []

    def route(path: str, methods: list[str]) -> Callable[[Endpoint], Endpoint]:
        def register(handler: Endpoint) -> Endpoint:
            routes.append(Route(path, _endpoint(handler), methods=methods))
            return handler

        return register

    # --- overview, reset, scenario ------------------------------------------------------------
    @route("/", ["GET"])
    async def overview(request: Request) -> dict[str, Any]:
        return {
            "scenario": {
                "name": state.scenario.name,
                "seed": state.scenario.seed,
                "sizes": state.scenario.sizes,
            },
            "channelName": state.channel_name,
            "clock": state.clock.describe(),
            "quota": state.quota.describe(),
            "auth": state.credentials.describe(),
            "faults": state.faults.describe(),
            "webhooks": state.webhooks.describe(),
            "requests": state.log.total,
        }

    @route("/reset", ["POST"])
    async def reset(request: Request) -> dict[str, Any]:
        body = await _read(request, ResetBody)
        name = body.scenario or state.scenario.name
        if name not in SCENARIOS:
            raise invalid("scenario", f"unknown scenario {name!r}; known: {', '.join(SCENARIOS)}")
        seed = body.seed if body.seed is not None else state.scenario.seed
        # A generated property keeps its sizes unless the body changes them.
        current = state.scenario.sizes if state.scenario.name == "generated" else {}
        defaults = Sizes()
        sizes = Sizes(
            listings=body.listings or current.get("listings", defaults.listings),
            units=body.units or current.get("units", defaults.units),
            days=body.days or current.get("days", defaults.days),
        )
        load_scenario(state, name, seed, sizes)
        return {"scenario": name, "seed": seed, "sizes": state.scenario.sizes}

    @route("/scenario", ["GET"])
    async def scenario(request: Request) -> dict[str, Any]:
        return {
            "name": state.scenario.name,
            "seed": state.scenario.seed,
            "sizes": state.scenario.sizes,
            **state.scenario.hints,
        }

    # --- clock ------------------------------------------------------------------------------------
    @route("/clock", ["GET", "POST"])
    async def clock(request: Request) -> dict[str, Any]:
        if request.method == "POST":
            body = await _read(request, ClockBody)
            if body.now is not None:
                state.clock.set(body.now)
            elif body.today is not None:
                state.clock.set_today(body.today)
            if body.frozen is True:
                state.clock.freeze()
            elif body.frozen is False:
                state.clock.unfreeze()
        return state.clock.describe()

    @route("/clock/advance", ["POST"])
    async def advance(request: Request) -> dict[str, Any]:
        body = await _read(request, AdvanceBody)
        state.clock.advance(
            timedelta(days=body.days, hours=body.hours, minutes=body.minutes, seconds=body.seconds)
        )
        return state.clock.describe()

    # --- quota and auth ---------------------------------------------------------------------------
    @route("/quota", ["GET", "POST"])
    async def quota(request: Request) -> dict[str, Any]:
        if request.method == "POST":
            body = await _read(request, QuotaBody)
            if body.daily_quota is not None:
                state.quota.paid_quota = body.daily_quota
            if body.free_licence is not None:
                state.quota.free_licence = body.free_licence
            if body.used_calls is not None:
                state.quota.set_used(body.used_calls)
        return state.quota.describe()

    @route("/auth", ["GET", "POST"])
    async def auth(request: Request) -> dict[str, Any]:
        if request.method == "POST":
            body = await _read(request, AuthBody)
            credentials = state.credentials
            for name in ("username", "password", "domain", "auth_header"):
                value = getattr(body, name)
                if value is not None:
                    if not value:
                        raise invalid(to_camel(name), f"{to_camel(name)} may not be empty")
                    setattr(credentials, name, value)
            if body.static_key is not None:
                credentials.static_key = body.static_key
            if body.static_key_mode is False:
                credentials.static_key = None
        return state.credentials.describe()

    @route("/auth/expire-tokens", ["POST"])
    async def expire_tokens(request: Request) -> dict[str, Any]:
        return {"expired": state.tokens.expire_all()}

    # --- faults -------------------------------------------------------------------------------------
    @route("/faults", ["GET", "POST", "DELETE"])
    async def faults(request: Request) -> dict[str, Any]:
        if request.method == "DELETE":
            state.faults.clear()
            state.webhooks.delay_seconds = 0
        elif request.method == "POST":
            body = await _read(request, FaultsBody)
            changes = body.model_dump(exclude_none=True)
            state.faults.configure(**changes)
            state.webhooks.delay_seconds = state.faults.settings.webhook_delay_ms / 1000
        return state.faults.describe()

    # --- request log ------------------------------------------------------------------------------
    @route("/requests", ["GET", "DELETE"])
    async def requests(request: Request) -> dict[str, Any]:
        if request.method == "DELETE":
            state.log.clear()
        limit = _query_int(request, "limit") or 200
        return state.log.describe(limit)

    # --- webhooks ---------------------------------------------------------------------------------
    @route("/webhooks", ["GET"])
    async def webhooks(request: Request) -> dict[str, Any]:
        action = request.query_params.get("action")
        deliveries = [d for d in state.webhooks.deliveries if action is None or d.action == action]
        return {**state.webhooks.describe(), "deliveries": [d.describe() for d in deliveries]}

    @route("/webhooks/receiver", ["POST"])
    async def receiver(request: Request) -> dict[str, Any]:
        body = await _read(request, ReceiverBody)
        if body.url is not None and not body.url.startswith(("http://", "https://")):
            raise invalid("url", f"url must start with http:// or https://, got {body.url!r}")
        state.webhooks.register(body.url, body.secret)
        return state.webhooks.describe()

    @route("/webhooks/settings", ["POST"])
    async def webhook_settings(request: Request) -> dict[str, Any]:
        body = await _read(request, WebhookSettingsBody)
        if body.duplicate is not None:
            state.webhooks.duplicate = body.duplicate
        if body.reorder is not None:
            state.webhooks.reorder = body.reorder
        if body.retry_scale is not None:
            state.webhooks.retry_scale = body.retry_scale
        return state.webhooks.describe()

    @route("/webhooks/release", ["POST"])
    async def release(request: Request) -> dict[str, Any]:
        return {"released": state.webhooks.release()}

    @route("/webhooks/flush", ["POST"])
    async def flush(request: Request) -> dict[str, Any]:
        return {"due": state.webhooks.flush()}

    @route("/webhooks/wait", ["POST"])
    async def wait(request: Request) -> dict[str, Any]:
        body = await _read(request, WaitBody)
        if body.state == "settled":
            done = await state.webhooks.settle(body.timeout)
        elif body.state == "attempted":
            done = await state.webhooks.wait_attempts(body.count, body.timeout)
        else:
            try:
                wanted = DeliveryState(body.state)
            except ValueError:
                allowed = ["settled", "attempted", *(s.value for s in DeliveryState)]
                raise invalid("state", f"state must be one of {allowed}") from None
            done = await state.webhooks.wait_for(body.count, wanted, body.timeout)
        return {"done": done, **state.webhooks.describe()}

    # --- channel read-back and settings -----------------------------------------------------------
    @route("/channel/listings", ["GET"])
    async def listings(request: Request) -> list[dict[str, Any]]:
        return [
            {
                "listingId": x.listing_id,
                "accountId": x.account_id,
                "connected": x.connected,
                "statusCategory": x.status_category,
                "notes": x.status_notes,
                "hasAvailability": x.has_availability,
                "inventory": "room-type" if x.room_type_inventory else "single-unit",
                "totalInventoryCount": x.total_inventory_count,
                "restrictedCapabilities": x.restricted_capabilities,
                "pmsRoomTypeId": x.pms_room_type_id,
                "pmsRoomId": x.pms_room_id,
            }
            for x in state.channel.listings.values()
        ]

    @route("/channel/calendar/{listing_id}", ["GET"])
    async def calendar(request: Request) -> dict[str, Any]:
        listing = state.channel.listings.get(request.path_params["listing_id"])
        if listing is None:
            raise not_found("listing", request.path_params["listing_id"])
        today = state.clock.today()
        first = _query_date(request, "from", today)
        last = _query_date(request, "to", first + timedelta(days=30))
        _dates(first, last)
        start, end = listing.calendar.covers(first, last)
        days = []
        for offset in range(start, end + 1):
            view = listing.calendar.view(
                offset,
                room_type=listing.room_type_inventory,
                total_inventory=listing.total_inventory_count,
                default_price_cents=listing.default_price_cents,
                default_min_nights=listing.rules.default_min_nights,
                default_max_nights=listing.rules.default_max_nights,
            )
            days.append(
                {
                    "date": view.day.isoformat(),
                    "availability": view.availability,
                    "availabilityType": view.availability_type,
                    "dailyPrice": view.price_cents / 100,
                    "availableCount": view.available_count,
                    "reserved": listing.calendar.reserved[offset],
                    "minNights": view.min_nights,
                    "maxNights": view.max_nights,
                    "closedToArrival": view.closed_to_arrival,
                    "closedToDeparture": view.closed_to_departure,
                }
            )
        return {"listingId": listing.listing_id, "days": days}

    @route("/channel/reservations", ["GET"])
    async def channel_reservations(request: Request) -> list[dict[str, Any]]:
        return [
            {
                "confirmationCode": r.confirmation_code,
                "accountId": r.account_id,
                "listingId": r.listing_id,
                "startDate": r.start_date.isoformat(),
                "nights": r.nights,
                "statusType": r.status_type,
                "guest": f"{r.guest_first_name} {r.guest_last_name}",
            }
            for r in state.channel.reservations.values()
        ]

    @route("/channel/settings", ["GET", "POST"])
    async def channel_settings(request: Request) -> dict[str, Any]:
        settings = state.channel.settings
        if request.method == "POST":
            body = await _read(request, ChannelSettingsBody)
            if body.manual_review_rate is not None:
                settings.manual_review_rate = body.manual_review_rate
            if body.manual_review_next is not None:
                settings.manual_review_next = body.manual_review_next
        return {
            "manualReviewRate": settings.manual_review_rate,
            "manualReviewNext": settings.manual_review_next,
        }

    # --- channel manager read-back ----------------------------------------------------------------
    @route("/channel-manager/prices", ["GET"])
    async def channel_prices(request: Request) -> dict[str, Any]:
        today = state.clock.today()
        first = _query_date(request, "from", today)
        last = _query_date(request, "to", first + timedelta(days=30))
        _dates(first, last)
        rows = state.manager.price_table(
            first, last, _query_int(request, "channelId"), _query_int(request, "roomTypeId")
        )
        return {"pending": state.manager.pending(), "channels": rows}

    @route("/channel-manager/jobs", ["GET"])
    async def jobs(request: Request) -> list[dict[str, object]]:
        return [job.describe() for job in state.manager.jobs]

    @route("/channel-manager/process", ["POST"])
    async def process(request: Request) -> dict[str, Any]:
        return {"processed": state.manager.process()}

    @route("/channel-manager/settings", ["GET", "POST"])
    async def manager_settings(request: Request) -> dict[str, Any]:
        manager = state.manager
        if request.method == "POST":
            body = await _read(request, ManagerSettingsBody)
            if body.processing_delay_seconds is not None:
                state.prices_delay_seconds = body.processing_delay_seconds
            if body.sane_min is not None:
                manager.sane_min = body.sane_min
            if body.sane_max is not None:
                manager.sane_max = body.sane_max
        return {
            "processingDelaySeconds": state.prices_delay_seconds,
            "saneMin": float(manager.sane_min),
            "saneMax": float(manager.sane_max),
            "pending": manager.pending(),
        }

    @route("/channel-manager/wait", ["POST"])
    async def manager_wait(request: Request) -> dict[str, Any]:
        """Wait until the queued Prices batches are applied (the worker's delay runs its course)."""
        body = await _read(request, ManagerWaitBody)
        loop = asyncio.get_running_loop()
        deadline = loop.time() + body.timeout
        while state.manager.pending() and loop.time() < deadline:
            await asyncio.sleep(0.01)
        return {"done": state.manager.pending() == 0, "pending": state.manager.pending()}

    @route("/channel-manager/channels/{channel_id}", ["POST"])
    async def connected_channel(request: Request) -> dict[str, Any]:
        body = await _read(request, ConnectedChannelBody)
        wanted = request.path_params["channel_id"]
        found = [c for c in state.manager.channels if str(c.id) == wanted]
        if not found:
            raise not_found("connected channel", wanted)
        channel = found[0]
        if body.failing is not None:
            channel.failing = body.failing
        if body.price_list_id is not None:
            channel.price_list_id = body.price_list_id
        return {"id": channel.id, "failing": channel.failing, "priceListId": channel.price_list_id}

    # --- guests -------------------------------------------------------------------------------------
    @route("/guest/book", ["POST"])
    async def book(request: Request) -> Response:
        body = await _read(request, BookBody)
        result = await actions.guest_books(state, body.booking())
        return JSONResponse(result, status_code=200 if result["booked"] else 409)

    @route("/guest/cancel", ["POST"])
    async def cancel(request: Request) -> dict[str, Any]:
        body = await _read(request, CancelBody)
        return actions.cancel(state, body.confirmation_code, body.by)

    @route("/guest/alter", ["POST"])
    async def alter(request: Request) -> Response:
        body = await _read(request, AlterBody)
        result = await actions.alter(
            state, body.confirmation_code, body.start_date, body.nights, body.number_of_guests
        )
        return JSONResponse(result, status_code=200 if result["altered"] else 409)

    @route("/guest/request", ["POST"])
    async def request_booking(request: Request) -> dict[str, Any]:
        body = await _read(request, BookBody)
        return actions.request_booking(state, body.booking(), body.message)

    @route("/guest/request-decision", ["POST"])
    async def request_decision(request: Request) -> dict[str, Any]:
        body = await _read(request, DecisionBody)
        return actions.decide_request(state, body.confirmation_code, body.accept)

    # --- hosts --------------------------------------------------------------------------------------
    @route("/host/unlink", ["POST"])
    async def unlink(request: Request) -> dict[str, Any]:
        body = await _read(request, HostListingsBody)
        return actions.unlink(state, body.account_id, body.listing_ids)

    @route("/host/revoke", ["POST"])
    async def revoke(request: Request) -> dict[str, Any]:
        body = await _read(request, AccountBody)
        return actions.revoke(state, body.account_id)

    @route("/host/suspend", ["POST"])
    async def suspend(request: Request) -> dict[str, Any]:
        body = await _read(request, SuspendBody)
        if body.kind == "listing":
            if body.listing_id is None:
                raise invalid("listingId", "a listing suspension needs listingId")
            return actions.suspend_listing(state, body.listing_id, body.capabilities)
        if body.account_id is None:
            raise invalid("accountId", f"a {body.kind} suspension needs accountId")
        if body.kind == "host":
            return actions.suspend_host(state, body.account_id, body.capabilities)
        if body.kind == "safety":
            return actions.safety_suspension(state, body.account_id)
        raise invalid("kind", f"kind must be listing, host or safety, got {body.kind!r}")

    @route("/host/reactivate", ["POST"])
    async def reactivate(request: Request) -> dict[str, Any]:
        body = await _read(request, AccountBody)
        return actions.reactivate(state, body.account_id)

    @route("/host/approval", ["POST"])
    async def approval(request: Request) -> dict[str, Any]:
        body = await _read(request, ApprovalBody)
        return actions.change_approval(state, body.listing_id, body.status_category, body.notes)

    @route("/host/sync-settings", ["POST"])
    async def sync_settings(request: Request) -> dict[str, Any]:
        body = await _read(request, HostListingsBody)
        return actions.sync_settings(state, body.account_id, body.listing_ids)

    @route("/host/payout", ["POST"])
    async def payout(request: Request) -> dict[str, Any]:
        body = await _read(request, CodeBody)
        return actions.payout(state, body.confirmation_code)

    @route("/host/edit-listing", ["POST"])
    async def edit_listing(request: Request) -> dict[str, Any]:
        body = await _read(request, EditListingBody)
        changes = body.model_dump(exclude_none=True, exclude={"listing_id"})
        return actions.edit_listing(state, body.listing_id, changes)

    @route("/host/special-offer", ["POST"])
    async def special_offer(request: Request) -> dict[str, Any]:
        body = await _read(request, OfferBody)
        return actions.special_offer(state, body.booking(), body.offer_type, body.total_price)

    @route("/host/void-offer", ["POST"])
    async def void_offer(request: Request) -> dict[str, Any]:
        body = await _read(request, VoidOfferBody)
        return actions.void_offer(state, body.special_offer_id)

    @route("/host/review", ["POST"])
    async def review(request: Request) -> dict[str, Any]:
        body = await _read(request, ReviewBody)
        return actions.review(
            state, body.confirmation_code, body.stage, body.reviewer_role, body.rating, body.text
        )

    # --- the front desk (PMS) -------------------------------------------------------------------
    def today_now() -> tuple[date, datetime]:
        return state.clock.today(), state.clock.now()

    @route("/pms/book", ["POST"])
    async def pms_book(request: Request) -> dict[str, Any]:
        body = await _read(request, PmsBookBody)
        today, now = today_now()
        reservation_id = state.pms.book(
            date_from=body.date_from,
            date_to=body.date_to,
            last_name=body.last_name,
            first_name=body.first_name,
            room_type_id=body.room_type_id,
            room_id=body.room_id,
            status=body.status,
            price=body.price,
            today=today,
            now=now,
        )
        reservation = state.pms.reservation(reservation_id)
        return {
            "reservationId": reservation_id,
            "roomId": reservation.room_id,
            "roomTypeId": reservation.room_type_id,
        }

    @route("/pms/cancel", ["POST"])
    async def pms_cancel(request: Request) -> dict[str, Any]:
        body = await _read(request, PmsCancelBody)
        today, now = today_now()
        state.pms.cancel(body.reservation_id, today=today, now=now)
        return {
            "reservationId": body.reservation_id,
            "status": state.pms.reservation(body.reservation_id).reservation_status_id,
        }

    @route("/pms/price", ["POST"])
    async def pms_price(request: Request) -> dict[str, Any]:
        body = await _read(request, PmsPriceBody)
        nights = _dates(body.date_from, body.date_to)
        state.pms.change_price(body.room_type_id, nights, body.price, body.price_list_id)
        return {"roomTypeId": body.room_type_id, "nights": len(nights)}

    @route("/pms/close", ["POST"])
    async def pms_close(request: Request) -> dict[str, Any]:
        body = await _read(request, PmsCloseBody)
        nights = _dates(body.date_from, body.date_to)
        if body.open:
            state.pms.open(nights, body.room_type_id)
        else:
            state.pms.close(nights, body.room_type_id)
        return {"roomTypeId": body.room_type_id, "nights": len(nights), "open": body.open}

    @route("/pms/availability", ["GET"])
    async def pms_availability(request: Request) -> dict[str, Any]:
        today = state.clock.today()
        first = _query_date(request, "from", today)
        last = _query_date(request, "to", first + timedelta(days=13))
        nights = _dates(first, last)
        free: dict[str, dict[str, int]] = {}
        for calendar in state.pms.room_calendars(first, last, True):
            per_type = free.setdefault(str(calendar.room_type_id), {n.isoformat(): 0 for n in nights})
            for run in calendar.runs:
                if run.is_available:
                    day = run.first
                    while day <= run.last:
                        per_type[day.isoformat()] += 1
                        day += timedelta(days=1)
        return {"freeRooms": free}

    return routes
