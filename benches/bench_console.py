"""Benchmark: server time of the console's pages on a 200-listing property.

Run: ``.venv/bin/python benches/bench_console.py [--listings 200] [--horizon 365] [--rounds 30]``

A generated property (single-unit listings, 365-day horizon) in an emulator process; ``roomsync
serve`` in its own process syncs it once (every listing's calendar written whole, so every night
has history), then each page is fetched ``--rounds`` times over loopback with a logged-in
session (after one warm-up fetch of each). Measured: the server's time for the page (its
``Server-Timing`` header: from the request reaching the console to the rendered page), and the
whole request as the client sees it over loopback. Target: every page's server time under 200 ms
(p95); the exit status is 1 when a page misses it.
"""

from __future__ import annotations

import argparse
import os
import socket
import statistics
import subprocess
import sys
import tempfile
import time
from datetime import UTC, datetime, timedelta
from pathlib import Path

import httpx
from bench_sync import emulator_process, mapping_toml

TOKEN = "bench-admin-token"
TARGET_MS = 200.0


def free_port() -> int:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return int(probe.getsockname()[1])


def wait_for(check: object, timeout: float, what: str) -> None:
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        try:
            if check():  # type: ignore[operator]
                return
        except httpx.HTTPError:
            pass
        time.sleep(0.5)
    raise RuntimeError(f"timed out waiting for {what}")


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--listings", type=int, default=200)
    parser.add_argument("--horizon", type=int, default=365)
    parser.add_argument("--rounds", type=int, default=30)
    args = parser.parse_args()
    with emulator_process("generated", args.listings) as url, tempfile.TemporaryDirectory() as tmp:
        hints = httpx.get(f"{url}/_emulator/scenario", timeout=60).json()["listings"]
        mapping = Path(tmp, "mapping.toml")
        mapping.write_text(mapping_toml(hints, connected=0))
        port = free_port()
        env = {k: v for k, v in os.environ.items() if not k.startswith("ROOMSYNC_")}
        env.update(
            ROOMSYNC_BASE_URL=url,
            ROOMSYNC_USERNAME="demo",
            ROOMSYNC_PASSWORD="demo",
            ROOMSYNC_DOMAIN="demo-hotel",
            ROOMSYNC_DATA_DIR=str(Path(tmp, "data")),
            ROOMSYNC_MAPPING_FILE=str(mapping),
            ROOMSYNC_SERVE_PORT=str(port),
            ROOMSYNC_ADMIN_TOKEN=TOKEN,
            ROOMSYNC_HORIZON_DAYS=str(args.horizon),
            ROOMSYNC_DAILY_QUOTA="1000000",
        )
        log = open(Path(tmp, "serve.log"), "wb")  # noqa: SIM115 (closed with the process)
        serve = subprocess.Popen(
            [sys.executable, "-m", "roomsync.app.cli", "serve", "--migrate"], env=env, stdout=log, stderr=log
        )
        base = f"http://127.0.0.1:{port}"
        admin = {"Authorization": f"Bearer {TOKEN}"}
        try:
            started = time.monotonic()

            def synced() -> bool:
                status = httpx.get(f"{base}/admin/status", headers=admin, timeout=30).json()
                jobs = {job["kind"]: job for job in status["schedule"]["jobs"]}
                return bool(jobs.get("prices", {}).get("last_result") == "ok")

            wait_for(synced, 900, "the first full sync")
            took = time.monotonic() - started
            print(f"{args.listings} listings x {args.horizon} nights synced in {took:.0f} s")
            listing = f"{hints[len(hints) // 2]['accountId']}/{hints[len(hints) // 2]['listingId']}"
            night = (datetime.now(UTC).date() + timedelta(days=30)).isoformat()
            pages = {
                "overview": "/console/",
                "property (listings, runs)": "/console/p/demo-hotel",
                f"calendar ({args.horizon} nights)": f"/console/p/demo-hotel/l/{listing}",
                "night history": f"/console/p/demo-hotel/l/{listing}/n/{night}",
                "runs": "/console/p/demo-hotel/runs",
                "webhooks": "/console/p/demo-hotel/webhooks",
                "resync form": "/console/p/demo-hotel/resync",
            }
            missed = 0
            with httpx.Client(base_url=base, timeout=30) as http:
                logged = http.post("/console/login", data={"token": TOKEN, "who": "bench"})
                assert logged.status_code == 303, logged.text
                print("server time (the page's Server-Timing), and the whole request seen by the client")
                print(f"{'page':28} {'p50 ms':>8} {'p95 ms':>8} {'max ms':>8} {'client p50':>9} {'KB':>6}")
                for name, path in pages.items():
                    http.get(path)  # warm-up: the first rendering compiles the page's templates
                    times, server = [], []
                    size = 0
                    for _ in range(args.rounds):
                        begun = time.perf_counter()
                        answer = http.get(path)
                        times.append((time.perf_counter() - begun) * 1000)
                        assert answer.status_code == 200, (path, answer.status_code)
                        server.append(float(answer.headers["server-timing"].split("dur=")[1]))
                        size = len(answer.content)
                    times.sort()
                    server.sort()
                    p95 = server[min(len(server) - 1, int(0.95 * len(server)))]
                    missed += p95 > TARGET_MS
                    print(
                        f"{name:28} {statistics.median(server):8.1f} {p95:8.1f} {server[-1]:8.1f} "
                        f"{statistics.median(times):9.1f} {size / 1024:6.0f}"
                    )
            return 1 if missed else 0
        finally:
            serve.terminate()
            serve.wait(60)
            log.close()


if __name__ == "__main__":
    sys.exit(main())
