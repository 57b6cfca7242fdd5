"""The admin console under ``/console`` of ``roomsync serve``: server-rendered pages (Jinja2),
no script, behind a login with the admin token (``session.py``).

Pages: properties overview, a property's listings (pause/resume), a listing's calendar, a night's
history, runs, webhooks (replay), resync with its dry-run plan. Every page reads the store and
the running daemons only, through the desk the console is handed (:mod:`.ports`: the replica); a
resync's plan and the resync itself spend requests (the page says how many). Actions are POSTs
carrying the session's CSRF token.
"""

from __future__ import annotations

import asyncio
import re
import time
from datetime import UTC, date, datetime, timedelta
from pathlib import Path
from typing import Any

from jinja2 import Environment, FileSystemLoader, select_autoescape
from starlette.applications import Starlette
from starlette.requests import Request
from starlette.responses import HTMLResponse, RedirectResponse, Response
from starlette.routing import Route

from roomsync.app.console.pages import (
    calendar_rows,
    card_of,
    gauge_of,
    utc_now,
    webhook_page,
)
from roomsync.app.console.ports import ConsoleDesk, ServedProperty
from roomsync.app.console.session import COOKIE, SESSION_SECONDS, Session, SessionKeys
from roomsync.app.daemon_view import ShuttingDown
from roomsync.app.listing_pause import operator_reason, set_listing_paused
from roomsync.app.night_story import facts_text, night_story, request_text, run_text
from roomsync.app.sync.report import SyncReport
from roomsync.app.webhook_replay import ReplayRefused, replay_dead_letter, replay_event
from roomsync.core.ports import InboxStatus, ListingKey

TEMPLATES = Path(__file__).parent / "templates"
NAME = re.compile(r"^[\w .@-]{1,40}$")
NAME_HELP = "say who you are (letters, digits, . @ - and spaces)"
CSRF_REFUSED = "refused: the form's CSRF token is missing or wrong"


def _when(moment: datetime | None) -> str:
    return moment.astimezone(UTC).strftime("%Y-%m-%d %H:%M") if moment else "-"


def _age(delta: timedelta | None) -> str:
    return "-" if delta is None else _seconds(delta.total_seconds())


def _seconds(seconds: float | None) -> str:
    if seconds is None:
        return "-"
    if seconds < 120:
        return f"{seconds:.0f} s"
    if seconds < 7200:
        return f"{seconds / 60:.0f} min"
    return f"{seconds / 3600:.1f} h"


def _environment() -> Environment:
    env = Environment(loader=FileSystemLoader(TEMPLATES), autoescape=select_autoescape(["html"]))
    env.filters.update(when=_when, age=_age, seconds=_seconds, value=lambda v: "-" if v is None else v)
    env.globals.update(facts_text=facts_text, request_text=request_text, run_text=run_text)
    return env


class Refused(Exception):
    def __init__(self, status: int, message: str) -> None:
        super().__init__(message)
        self.status = status


def create_console_app(desk: ConsoleDesk, admin_token: str) -> Starlette:
    keys = SessionKeys(admin_token)
    env = _environment()

    def page(request: Request, template: str, code: int = 200, **values: Any) -> HTMLResponse:
        session: Session | None = request.scope.get("console_session")
        root = request.scope.get("root_path", "").rstrip("/")
        html = env.get_template(template).render(
            root=root,
            session=session,
            csrf=keys.csrf_token(session) if session else "",
            flash=request.query_params.get("flash"),
            **values,
        )
        return HTMLResponse(html, status_code=code)

    def root_of(request: Request) -> str:
        return str(request.scope.get("root_path", "")).rstrip("/")

    def session_of(request: Request) -> Session | None:
        session = keys.session_of(request.cookies.get(COOKIE))
        request.scope["console_session"] = session
        return session

    def login_redirect(request: Request) -> RedirectResponse:
        return RedirectResponse(f"{root_of(request)}/login", status_code=303)

    def context_of(property_id: str) -> None:
        if property_id not in desk.contexts:
            raise Refused(404, f"no property {property_id} in this deployment")

    def mapped(property_id: str, account_id: str, listing_id: str) -> tuple[ListingKey, Any]:
        context_of(property_id)
        mapping = desk.store.mappings.load_mapping(property_id)
        key = ListingKey(property_id, account_id, listing_id)
        entry = next(
            (e for e in (mapping.listings if mapping else ()) if e.listing_key(property_id) == key), None
        )
        if entry is None:
            raise Refused(404, f"listing {key} is not in the mapping of {property_id}")
        return key, entry

    def guarded(handler: Any, *, action: bool = False) -> Any:
        async def endpoint(request: Request) -> Response:
            begun = time.perf_counter()
            response = await checked(request)
            # the server's own time for the page, for benches/bench_console.py and browsers' tools
            response.headers["Server-Timing"] = f"app;dur={(time.perf_counter() - begun) * 1000:.1f}"
            return response

        async def checked(request: Request) -> Response:
            session = session_of(request)
            if session is None:
                if action:
                    return page(request, "login.html", 401, error="log in first")
                return login_redirect(request)
            if action:
                form = await request.form()
                given = form.get("csrf")
                if not keys.csrf_ok(session, given if isinstance(given, str) else None):
                    return page(request, "message.html", 403, error=CSRF_REFUSED)
                request.scope["console_form"] = form
            try:
                response: Response = await handler(request, session)
                return response
            except Refused as refused:
                return page(request, "message.html", refused.status, error=str(refused))

        return endpoint

    # --- login ------------------------------------------------------------------------------------

    async def login_form(request: Request) -> Response:
        session_of(request)
        return page(request, "login.html")

    async def login(request: Request) -> Response:
        form = await request.form()
        token, who = str(form.get("token") or ""), str(form.get("who") or "").strip()
        request.scope["console_session"] = None
        if not keys.token_matches(token):
            return page(request, "login.html", 401, error="wrong admin token", who=who)
        if not NAME.match(who):
            return page(request, "login.html", 400, error=NAME_HELP)
        response = RedirectResponse(f"{root_of(request)}/", status_code=303)
        response.set_cookie(
            COOKIE,
            keys.new_cookie(who),
            max_age=SESSION_SECONDS,
            path=root_of(request) or "/",
            httponly=True,
            samesite="strict",
            secure=request.url.scheme == "https",
        )
        return response

    async def logout(request: Request, session: Session) -> Response:
        response = RedirectResponse(f"{root_of(request)}/login?flash=logged+out", status_code=303)
        response.delete_cookie(COOKIE, path=root_of(request) or "/")
        return response

    # --- pages ------------------------------------------------------------------------------------

    async def overview(request: Request, session: Session) -> Response:
        now = utc_now()
        pids = sorted(desk.contexts)
        cards = await asyncio.to_thread(lambda: [card_of(desk, pid, now) for pid in pids])
        return page(request, "overview.html", cards=cards)

    async def property_page(request: Request, session: Session) -> Response:
        pid = request.path_params["pid"]
        context_of(pid)
        status = await asyncio.to_thread(desk.property_status, pid, utc_now())
        return page(
            request, "property.html", pid=pid, status=status, gauge=gauge_of(status), runs=status.recent_runs
        )

    async def runs_page(request: Request, session: Session) -> Response:
        pid = request.path_params["pid"]
        context_of(pid)
        runs = await asyncio.to_thread(desk.store.sync_runs.recent_runs, pid, 100)
        return page(request, "runs.html", pid=pid, runs=runs)

    async def calendar_page(request: Request, session: Session) -> Response:
        pid, account, listing = (request.path_params[n] for n in ("pid", "account", "listing"))
        key, entry = await asyncio.to_thread(mapped, pid, account, listing)
        settings = desk.contexts[pid].settings
        first = utc_now().date()
        last = first + timedelta(days=settings.horizon_days - 1)
        rows = await asyncio.to_thread(calendar_rows, desk.store, key, entry.room_type_id, first, last)
        return page(
            request,
            "calendar.html",
            pid=pid,
            listing=key.text,
            room_type_id=entry.room_type_id,
            kind=entry.kind.value,
            first=first,
            last=last,
            rows=rows,
        )

    async def night_page(request: Request, session: Session) -> Response:
        pid, account, listing = (request.path_params[n] for n in ("pid", "account", "listing"))
        try:
            night = date.fromisoformat(request.path_params["night"])
        except ValueError:
            raise Refused(400, "a night is written YYYY-MM-DD") from None
        await asyncio.to_thread(mapped, pid, account, listing)
        story = await asyncio.to_thread(night_story, desk.store, pid, account, listing, night)
        return page(request, "night.html", pid=pid, story=story)

    async def webhooks_page(request: Request, session: Session) -> Response:
        pid = request.path_params["pid"]
        context_of(pid)
        data: dict[str, Any] = await asyncio.to_thread(webhook_page, desk.store, pid)
        counts = data.pop("counts")
        shown = [(status.value, counts.get(status, 0)) for status in InboxStatus]
        return page(request, "webhooks.html", pid=pid, counts=shown, **data)

    # --- actions ----------------------------------------------------------------------------------

    def form_of(request: Request) -> Any:
        return request.scope["console_form"]

    async def pause(request: Request, session: Session) -> Response:
        pid, account, listing = (request.path_params[n] for n in ("pid", "account", "listing"))
        key, _ = await asyncio.to_thread(mapped, pid, account, listing)
        reason = str(form_of(request).get("reason") or "").strip()
        if not reason:
            raise Refused(400, "say why the listing is paused")
        stored = operator_reason(f"{reason} ({session.who})")
        await asyncio.to_thread(set_listing_paused, desk.store, key, True, stored)
        return RedirectResponse(f"{root_of(request)}/p/{pid}?flash=listing+{key.text}+paused", 303)

    async def resume(request: Request, session: Session) -> Response:
        pid, account, listing = (request.path_params[n] for n in ("pid", "account", "listing"))
        key, _ = await asyncio.to_thread(mapped, pid, account, listing)
        await asyncio.to_thread(set_listing_paused, desk.store, key, False)
        return RedirectResponse(f"{root_of(request)}/p/{pid}?flash=listing+{key.text}+resumed", 303)

    async def replay(request: Request, session: Session) -> Response:
        pid = request.path_params["pid"]
        context_of(pid)
        form = form_of(request)
        now = datetime.now(UTC)
        try:
            if form.get("dead_letter"):
                said = await asyncio.to_thread(
                    replay_dead_letter, desk.store, pid, int(form["dead_letter"]), now
                )
            else:
                event_id = int(form.get("event") or 0)
                said = await asyncio.to_thread(replay_event, desk.store, pid, event_id, now)
        except (ReplayRefused, ValueError) as refused:
            raise Refused(409, str(refused)) from None
        daemon = desk.daemon_of(pid)
        if daemon is not None:
            daemon.wake_worker()
        return RedirectResponse(f"{root_of(request)}/p/{pid}/webhooks?flash={said}", 303)

    def resync_args(pid: str, values: Any) -> tuple[list[ListingKey], date | None, date | None]:
        chosen = str(values.get("listing") or "")
        listings: list[ListingKey] = []
        if chosen:
            try:
                listings.append(ListingKey.parse(pid, chosen))
            except ValueError as error:
                raise Refused(400, str(error)) from None
        try:
            first = date.fromisoformat(values["from"]) if values.get("from") else None
            last = date.fromisoformat(values["to"]) if values.get("to") else None
        except ValueError:
            raise Refused(400, "dates are written YYYY-MM-DD") from None
        return listings, first, last

    def running(pid: str) -> ServedProperty:
        context_of(pid)
        daemon = desk.daemon_of(pid)
        if daemon is None:
            raise Refused(409, f"property {pid} is not served by this replica ({desk.name})")
        return daemon

    async def listing_keys(pid: str) -> list[str]:
        mapping = await asyncio.to_thread(desk.store.mappings.load_mapping, pid)
        return [e.listing_key(pid).text for e in (mapping.listings if mapping else ())]

    async def resync_page(request: Request, session: Session) -> Response:
        pid = request.path_params["pid"]
        context_of(pid)
        keys_ = await listing_keys(pid)
        values = request.query_params
        listings, first, last = resync_args(pid, values)
        plan: SyncReport | None = None
        extra: dict[str, Any] = {}
        if values.get("plan"):
            daemon = running(pid)
            try:
                # drift the plan's channel read finds goes into the history of the nights
                who = f"admin resync plan by {session.who} (console)"
                plan = await daemon.plan_resync(listings or None, first, last, trigger=who)
            except ValueError as error:
                raise Refused(400, str(error)) from None
            writes = sum(row.write_requests for row in plan.listings)
            reads = plan.requests
            extra = {
                "planned_writes": writes,
                "planned_operations": sum(row.operations for row in plan.listings),
                "planned_cost": reads + writes,
            }
        return page(
            request,
            "resync.html",
            pid=pid,
            listings=keys_,
            chosen=values.get("listing"),
            date_from=values.get("from"),
            date_to=values.get("to"),
            plan=plan,
            **extra,
        )

    async def resync(request: Request, session: Session) -> Response:
        pid = request.path_params["pid"]
        daemon = running(pid)
        form = form_of(request)
        listings, first, last = resync_args(pid, form)
        try:
            who = f"admin resync by {session.who} (console)"
            result = await daemon.resync(listings or None, first, last, trigger=who)
        except ShuttingDown as stopping:
            raise Refused(503, str(stopping)) from None
        except ValueError as error:
            raise Refused(400, str(error)) from None
        return page(
            request,
            "resync.html",
            pid=pid,
            listings=await listing_keys(pid),  # the form shows what was resynced
            chosen=form.get("listing"),
            date_from=form.get("from"),
            date_to=form.get("to"),
            result=result,
            plan=None,
        )

    per = "/p/{pid}"
    listing = per + "/l/{account}/{listing}"
    routes = [
        Route("/login", login_form, methods=["GET"]),
        Route("/login", login, methods=["POST"]),
        Route("/logout", guarded(logout, action=True), methods=["POST"]),
        Route("/", guarded(overview), methods=["GET"]),
        Route(per, guarded(property_page), methods=["GET"]),
        Route(per + "/runs", guarded(runs_page), methods=["GET"]),
        Route(per + "/webhooks", guarded(webhooks_page), methods=["GET"]),
        Route(per + "/webhooks/replay", guarded(replay, action=True), methods=["POST"]),
        Route(per + "/resync", guarded(resync_page), methods=["GET"]),
        Route(per + "/resync", guarded(resync, action=True), methods=["POST"]),
        Route(listing, guarded(calendar_page), methods=["GET"]),
        Route(listing + "/n/{night}", guarded(night_page), methods=["GET"]),
        Route(listing + "/pause", guarded(pause, action=True), methods=["POST"]),
        Route(listing + "/resume", guarded(resume, action=True), methods=["POST"]),
    ]
    return Starlette(routes=routes)
