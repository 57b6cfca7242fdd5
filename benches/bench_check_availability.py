"""Benchmark: CheckAvailability answered by roomsync's receiver, against a bare endpoint.

Run: ``python benches/bench_check_availability.py [--rate 200] [--seconds 30] [--database-url URL]``

Two servers, each uvicorn on loopback in its own process (the load generator is a third, so the
numbers do not share a GIL):

* the bare endpoint: a Starlette app of one POST route answering the constant
  ``{"succeed": true, "failure_code": null}``;
* roomsync: ``create_receiver_app`` on SQLite, signatures required, the demo mapping loaded,
  its PMS reads going to an emulator in the same process, and the inbox worker running alongside
  (it marks each stored check done, as in production). The view is warmed before measuring (one
  PMS read covers every night asked for), so this measures the answer from the view; with the
  default ``availability_view_max_age_seconds`` (60 s) a 30 s run sees no further read.

Each request is a signed CheckAvailability with its own X-Webhook-Id, for one of the room-type
listings, a random start 160-200 days ahead and 1-5 nights. Requests are sent open-loop at
``--rate`` per second (each at its scheduled instant, whatever the previous ones are doing) for
``--seconds``; latency is from the scheduled instant to the full answer, so client lag counts
against the server. The load generator writes HTTP/1.1 by hand over keep-alive connections (a
full client such as httpx costs the machine several times more CPU than the bare server it is
measuring; on two shared cores that would be measured as server latency). Targets: roomsync's
p99 under 50 ms and within 3x of the bare endpoint's p99; the exit status is 1 when one is missed.
"""

from __future__ import annotations

import argparse
import asyncio
import hashlib
import hmac
import json
import multiprocessing
import random
import statistics
import sys
import tempfile
import time
import uuid
from datetime import UTC, date, datetime, timedelta
from pathlib import Path
from typing import Any

import httpx

SECRET = "bench-secret"
PROPERTY = "demo-hotel"
LISTINGS = ("41000003", "41000004")  # room-type listings of room types 1 and 2
TARGET_P99_MS = 50.0
TARGET_RATIO = 3.0
MAPPING: dict[str, Any] = {
    "currency": "EUR",
    "listing": [
        {
            "room_type_id": 1,
            "account_id": "2001",
            "listing_id": "41000003",
            "kind": "room_type",
            "currency": "EUR",
        },
        {
            "room_type_id": 2,
            "account_id": "2002",
            "listing_id": "41000004",
            "kind": "room_type",
            "currency": "EUR",
        },
    ],
}


# --- the servers (each in its own process) -----------------------------------------------------


def _free_port() -> int:
    import socket

    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        port: int = probe.getsockname()[1]
        return port


def serve_bare(port: int) -> None:
    import uvicorn
    from starlette.applications import Starlette
    from starlette.requests import Request
    from starlette.responses import JSONResponse
    from starlette.routing import Route

    async def constant(request: Request) -> JSONResponse:
        await request.body()
        return JSONResponse({"succeed": True, "failure_code": None})

    app = Starlette(routes=[Route("/webhooks/{channel}", constant, methods=["POST"])])
    uvicorn.run(app, host="127.0.0.1", port=port, http="h11", log_level="warning", access_log=False)


def serve_roomsync(port: int, directory: str, database_url: str | None) -> None:
    import contextlib
    from collections.abc import Sequence

    import uvicorn

    from roomsync.adapters.client import ServiceClient
    from roomsync.adapters.store import open_store
    from roomsync.app.webhooks import create_receiver_app, create_worker, service_client_factory
    from roomsync.core.mapping import parse_mapping
    from roomsync.emulator.app import create_app
    from roomsync.emulator.scenario import build_state
    from roomsync.emulator.server import serve_in_thread
    from roomsync.metrics import Metrics
    from roomsync.property_context import PropertyContext
    from roomsync.settings import Settings

    async def no_push(
        property_id: str, room_type_id: int, nights: Sequence[date], *, source_listing_id: str | None = None
    ) -> None:
        return None

    with serve_in_thread(create_app(build_state("demo", 7))) as emulator_url:
        settings = Settings(
            base_url=emulator_url,
            username="demo",
            password="demo",
            domain="demo-hotel",
            property_id=PROPERTY,
            data_dir=Path(directory),
            database_url=database_url or f"sqlite:///{directory}/roomsync.db",
            webhook_secret=SECRET,
            webhook_require_signature=True,
        )
        store = open_store(settings, upgrade=True)
        store.start_background_checkpoints(settings.sqlite_checkpoint_interval_seconds)  # as serve does
        store.mappings.replace_mapping(PROPERTY, parse_mapping(MAPPING))
        metrics = Metrics()

        async def main() -> None:
            context = PropertyContext.of(settings)
            client = ServiceClient(context, budget_store=store.budget, token_store=store.tokens)
            worker = create_worker(context, store, client, no_push, metrics=metrics)
            app = create_receiver_app(
                context,
                store,
                client_factory=service_client_factory(context, store),
                metrics=metrics,
                on_stored=worker.wake,
            )
            server = uvicorn.Server(
                uvicorn.Config(
                    app, host="127.0.0.1", port=port, http="h11", log_level="warning", access_log=False
                )
            )
            working = asyncio.create_task(worker.run())
            try:
                await server.serve()
            finally:
                working.cancel()
                with contextlib.suppress(asyncio.CancelledError):
                    await working
                await client.aclose()

        asyncio.run(main())


# --- the load ----------------------------------------------------------------------------------


def signed(body: bytes) -> dict[str, str]:
    stamp = int(time.time())
    digest = hmac.new(SECRET.encode(), f"{stamp}.".encode() + body, hashlib.sha256).hexdigest()
    return {
        "Content-Type": "application/json",
        "X-Webhook-Signature": f"t={stamp},v1={digest}",
        "X-Webhook-Id": str(uuid.uuid4()),
    }


def check_body(rng: random.Random, today: date) -> bytes:
    start = today + timedelta(days=rng.randrange(160, 201))
    payload = {
        "action": "CheckAvailability",
        "startDate": start.isoformat(),
        "nights": str(rng.randrange(1, 6)),
        "listingId": rng.choice(LISTINGS),
    }
    return json.dumps(payload).encode()


def wait_until_up(url: str, timeout: float = 60.0) -> None:
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        try:
            httpx.get(url, timeout=1.0)  # 405: the server is listening
            return
        except httpx.TransportError:
            time.sleep(0.1)
    raise RuntimeError(f"{url} did not come up")


class Connection:
    """One keep-alive HTTP/1.1 connection: the load generator writes requests by hand so that it
    costs the machine far less than a full client would (the servers get the CPU)."""

    def __init__(self, reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
        self.reader = reader
        self.writer = writer

    @classmethod
    async def open(cls, host: str, port: int) -> Connection:
        reader, writer = await asyncio.open_connection(host, port)
        return cls(reader, writer)

    async def post(self, host: str, path: str, body: bytes, headers: dict[str, str]) -> tuple[int, bytes]:
        lines = [f"POST {path} HTTP/1.1", f"Host: {host}", f"Content-Length: {len(body)}"]
        lines += [f"{name}: {value}" for name, value in headers.items()]
        self.writer.write(("\r\n".join(lines) + "\r\n\r\n").encode() + body)
        head = await self.reader.readuntil(b"\r\n\r\n")
        status = int(head.split(b" ", 2)[1])
        length = 0
        for line in head.split(b"\r\n")[1:]:
            name, _, value = line.partition(b":")
            if name.strip().lower() == b"content-length":
                length = int(value)
        return status, await self.reader.readexactly(length)

    def close(self) -> None:
        self.writer.close()


async def load(
    url: str, rate: float, seconds: float, seed: int, slow_ms: float | None = None
) -> tuple[list[float], int, int]:
    """Open-loop load; returns latencies (ms) of the answered requests, refusals and errors.

    With ``slow_ms``, each answer slower than that is printed with its instant (seconds into the
    run), to see whether slow answers come in a rhythm (a timer, a checkpoint) or at random.

    Each request is sent at its scheduled instant on an idle keep-alive connection, or on a new
    one when all are busy (as a client under load would), and timed from that instant.
    """
    parsed = httpx.URL(url)
    host, port, path = parsed.host, parsed.port or 80, parsed.raw_path.decode()
    rng = random.Random(seed)
    today = datetime.now(UTC).date()
    count = int(rate * seconds)
    bodies = [check_body(rng, today) for _ in range(count)]
    latencies: list[float] = []
    declined = errors = 0
    idle: list[Connection] = []
    opened: list[Connection] = []
    started = time.perf_counter() + 0.2

    async def one(index: int) -> None:
        nonlocal declined, errors
        scheduled = started + index / rate
        await asyncio.sleep(max(0.0, scheduled - time.perf_counter()))
        connection = idle.pop() if idle else None
        try:
            if connection is not None:
                try:
                    status, answer = await connection.post(host, path, bodies[index], signed(bodies[index]))
                except (ConnectionError, asyncio.IncompleteReadError):
                    # the server closed this idle keep-alive connection as the request left (uvicorn
                    # drops those idle 5 s); a client sends it again on a new one
                    connection.close()
                    connection = None
            if connection is None:
                connection = await Connection.open(host, port)
                opened.append(connection)
                status, answer = await connection.post(host, path, bodies[index], signed(bodies[index]))
        except (OSError, asyncio.IncompleteReadError, ValueError) as error:
            errors += 1
            print(f"request {index} failed: {type(error).__name__}: {error}", file=sys.stderr)
            return
        latency = (time.perf_counter() - scheduled) * 1000
        latencies.append(latency)
        if slow_ms is not None and latency > slow_ms:
            print(f"  slow: {scheduled - started:7.3f} s  {latency:6.1f} ms", file=sys.stderr)
        idle.append(connection)
        if status != 200:
            errors += 1
            print(f"request {index} answered {status}: {answer[:300]!r}", file=sys.stderr)
        elif json.loads(answer)["succeed"] is not True:
            declined += 1

    try:
        await asyncio.gather(*(one(i) for i in range(count)))
    finally:
        for connection in opened:
            connection.close()
    return latencies, declined, errors


def warm_view(url: str) -> None:
    first = datetime.now(UTC).date() + timedelta(days=160)
    for listing in LISTINGS:
        body = json.dumps(
            {
                "action": "CheckAvailability",
                "startDate": first.isoformat(),
                "nights": "46",
                "listingId": listing,
            }
        ).encode()
        answer = httpx.post(url, content=body, headers=signed(body), timeout=10.0)
        assert answer.json()["succeed"] is True, answer.text


def percentile(values: list[float], share: float) -> float:
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, int(share * len(ordered)))]


def report(name: str, latencies: list[float], declined: int, errors: int) -> dict[str, float]:
    figures = {
        "p50": statistics.median(latencies),
        "p99": percentile(latencies, 0.99),
        "max": max(latencies),
    }
    print(
        f"{name:>9}: {len(latencies)} answered, {declined} declined, {errors} errors; "
        f"p50 {figures['p50']:.1f} ms, p99 {figures['p99']:.1f} ms, max {figures['max']:.1f} ms"
    )
    return figures


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--rate", type=float, default=200.0, help="requests per second")
    parser.add_argument("--seconds", type=float, default=30.0, help="length of each measured run")
    parser.add_argument("--warmup", type=float, default=3.0, help="seconds of unmeasured load first")
    parser.add_argument(
        "--database-url",
        default=None,
        help="roomsync's database (default: SQLite under --data-dir); a postgresql+psycopg:// URL "
        "to a scratch database measures the setup replicas share",
    )
    parser.add_argument(
        "--data-dir",
        default=None,
        help="where roomsync's SQLite file goes (default: a temporary directory on the usual disk; "
        "/dev/shm shows what the disk's fsyncs cost)",
    )
    parser.add_argument(
        "--show-slow",
        type=float,
        default=None,
        metavar="MS",
        help="print the instant of every measured answer slower than MS milliseconds",
    )
    args = parser.parse_args()

    spawn = multiprocessing.get_context("spawn")
    results: dict[str, dict[str, float]] = {}
    with tempfile.TemporaryDirectory(dir=args.data_dir) as directory:
        for name in ("bare", "roomsync"):
            port = _free_port()
            target = serve_bare if name == "bare" else serve_roomsync
            process = spawn.Process(
                target=target,
                args=(port,) if name == "bare" else (port, directory, args.database_url),
                daemon=True,
            )
            process.start()
            try:
                url = f"http://127.0.0.1:{port}/webhooks/RentalChannel"
                wait_until_up(url)
                if name == "roomsync":  # one check over every night asked for: the view is read once
                    warm_view(url)
                asyncio.run(load(url, args.rate, args.warmup, seed=1))
                measured = load(url, args.rate, args.seconds, seed=2, slow_ms=args.show_slow)
                latencies, declined, errors = asyncio.run(measured)
                results[name] = report(name, latencies, declined, errors)
            finally:
                process.terminate()
                process.join(10)

    ratio = results["roomsync"]["p99"] / results["bare"]["p99"]
    print(
        f"roomsync p99 / bare p99 = {ratio:.2f} (target <= {TARGET_RATIO:g}); "
        f"roomsync p99 {results['roomsync']['p99']:.1f} ms (target < {TARGET_P99_MS:g} ms)"
    )
    met = results["roomsync"]["p99"] < TARGET_P99_MS and ratio <= TARGET_RATIO
    print("targets met" if met else "TARGETS MISSED")
    return 0 if met else 1


if __name__ == "__main__":
    sys.exit(main())
