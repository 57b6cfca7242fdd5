"""Several properties (domains) behind one emulator address, as the real service serves them.

Each domain is a whole emulator state of its own: its PMS and channel, credentials, daily quota,
request log and webhook deliveries. One base URL serves them all, told apart the way the service
tells them apart:

- ``POST /v1/Token`` by the ``domain`` of the form;
- any other API request by the bearer token (each domain knows the tokens it issued) or, in
  static-key mode, by the key;
- ``/_domains/{domain}/...`` addresses one domain's whole app, its control surface included
  (``/_domains/hotel-03/_emulator/quota``).

A request no domain recognises goes to the first domain, which answers it as the single-domain
emulator would (401 for an unknown token, ``invalid_grant`` for unknown credentials).
"""

from __future__ import annotations

import contextlib
import json
from collections.abc import AsyncIterator
from urllib.parse import parse_qs

from starlette.applications import Starlette
from starlette.types import Message, Receive, Scope, Send

from roomsync.emulator.app import create_app
from roomsync.emulator.clock import EmulatorClock
from roomsync.emulator.quota import Credentials
from roomsync.emulator.scenario import DEFAULT_SEED, build_state
from roomsync.emulator.state import EmulatorState

DOMAINS_PREFIX = "/_domains/"


def domain_name(index: int) -> str:
    return f"hotel-{index:02d}"


def domain_credentials(index: int) -> Credentials:
    """The credentials of the ``index``-th domain (tests and benchmarks give them to roomsync)."""
    return Credentials(
        username=f"user-{index:02d}", password=f"secret-{index:02d}", domain=domain_name(index)
    )


def build_domains(
    count: int, *, seed: int = DEFAULT_SEED, scenario: str = "demo", clock: EmulatorClock | None = None
) -> dict[str, EmulatorState]:
    """``count`` domains ``hotel-01``..., each seeded differently, on one clock."""
    clock = clock or EmulatorClock()
    return {
        domain_name(i): build_state(scenario, seed + i, clock=clock, credentials=domain_credentials(i))
        for i in range(1, count + 1)
    }


class DomainsApp:
    """The ASGI app of several domains; see the module docstring."""

    def __init__(self, states: dict[str, EmulatorState]) -> None:
        if not states:
            raise ValueError("at least one domain")
        self.states = states
        self.apps = {domain: create_app(state) for domain, state in states.items()}
        self._first = next(iter(self.apps.values()))
        self._by_domain = {domain.lower(): app for domain, app in self.apps.items()}

    @contextlib.asynccontextmanager
    async def lifespan(self) -> AsyncIterator[None]:
        """Run every domain's background work (webhook deliveries, the prices queue)."""
        async with contextlib.AsyncExitStack() as stack:
            for app in self.apps.values():
                await stack.enter_async_context(app.router.lifespan_context(app))
            yield

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] == "lifespan":
            await self._lifespan(receive, send)
            return
        if scope["type"] != "http":
            return
        path: str = scope["path"]
        if path.startswith(DOMAINS_PREFIX):
            domain, _, rest = path[len(DOMAINS_PREFIX):].partition("/")
            app = self._by_domain.get(domain.lower())
            if app is None:
                from starlette.responses import JSONResponse

                await JSONResponse({"error": f"no domain {domain!r}"}, status_code=404)(scope, receive, send)
                return
            await app({**scope, "path": "/" + rest, "raw_path": ("/" + rest).encode()}, receive, send)
            return
        if path.rstrip("/").lower().endswith("/v1/token") and scope["method"] == "POST":
            body = await _read_body(receive)
            app = self._by_domain.get(_token_domain(body).lower(), self._first)
            await app(scope, _replay(body), send)
            return
        await self._for_credentials(scope)(scope, receive, send)

    def _for_credentials(self, scope: Scope) -> Starlette:
        headers = {
            name.decode("latin-1").lower(): value.decode("latin-1") for name, value in scope["headers"]
        }
        authorization = headers.get("authorization", "")
        if authorization.lower().startswith("bearer "):
            token = authorization[7:].strip()
            for domain, state in self.states.items():
                if state.tokens.knows(token):
                    return self.apps[domain]
        for domain, state in self.states.items():
            key = state.credentials.static_key
            if key is not None and headers.get(state.credentials.auth_header.lower()) == key:
                return self.apps[domain]
        return self._first

    async def _lifespan(self, receive: Receive, send: Send) -> None:
        message = await receive()
        assert message["type"] == "lifespan.startup"
        async with self.lifespan():
            await send({"type": "lifespan.startup.complete"})
            message = await receive()
        await send({"type": "lifespan.shutdown.complete"})


async def _read_body(receive: Receive) -> bytes:
    chunks: list[bytes] = []
    while True:
        message = await receive()
        if message["type"] != "http.request":
            break
        chunks.append(message.get("body", b""))
        if not message.get("more_body", False):
            break
    return b"".join(chunks)


def _replay(body: bytes) -> Receive:
    sent = False

    async def receive() -> Message:
        nonlocal sent
        if not sent:
            sent = True
            return {"type": "http.request", "body": body, "more_body": False}
        return {"type": "http.disconnect"}

    return receive


def _token_domain(body: bytes) -> str:
    text = body.decode("utf-8", errors="replace")
    try:
        data = json.loads(text)
        if isinstance(data, dict) and isinstance(data.get("domain"), str):
            return data["domain"]
    except ValueError:
        pass
    values = parse_qs(text).get("domain")
    return values[0] if values else ""
