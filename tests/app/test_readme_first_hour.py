"""The README's "Run it on your property" steps, followed word for word (issue 23, item 5).

The section's ``sh`` block is read out of README.md and run line by line as a newcomer would type
it, against a real ``roomsync emulator`` process: ``export`` lines set the environment, every other
line is a real ``roomsync`` process (the console script of this environment, found on PATH). What
the test adds, and only that: the emulator's port (a free one instead of the README's 8765, in the
one address that names it), ``serve_port`` (a free port instead of 8080), and a HOME and working
directory of its own. ``roomsync serve`` is started, watched until it is ready and has recorded a
first sync, and stopped with SIGTERM. A line of another kind fails the test, so the README cannot
grow a step that is not followed here.
"""

from __future__ import annotations

import inspect
import os
import re
import shlex
import signal
import socket
import subprocess
import sys
import time
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import TypeVar

import httpx
import pytest

from roomsync.app.commands.emulator import emulator as emulator_command
from roomsync.emulator.quota import Credentials

README = Path(__file__).resolve().parents[2] / "README.md"
SECTION = "## Run it on your property"
README_EMULATOR = "127.0.0.1:8765"
"""The address the README's block is written for: ``roomsync emulator`` with its default port."""
BIN = Path(sys.executable).parent
"""This environment's scripts: ``roomsync`` is run from here, as the README's commands say."""

T = TypeVar("T")


def readme_block() -> tuple[str, list[str]]:
    """The section's text and the lines of its one ``sh`` block."""
    text = README.read_text()
    assert text.count(SECTION) == 1, f"README.md has no single {SECTION!r} section"
    section = text.split(SECTION, 1)[1].split("\n## ", 1)[0]
    blocks = re.findall(r"^```sh\n(.*?)^```$", section, flags=re.MULTILINE | re.DOTALL)
    assert len(blocks) == 1, f"the section has {len(blocks)} sh blocks, the test follows exactly one"
    return section, blocks[0].splitlines()


def free_port() -> int:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        port: int = probe.getsockname()[1]
        return port


def wait_until(check: Callable[[], T | None], timeout: float, what: str) -> T:
    deadline = time.monotonic() + timeout
    while True:
        value = check()
        if value:
            return value
        if time.monotonic() > deadline:
            raise AssertionError(f"timed out after {timeout:g} s waiting for {what}")
        time.sleep(0.1)


def answers(url: str) -> httpx.Response | None:
    try:
        return httpx.get(url, timeout=5)
    except httpx.HTTPError:
        return None


@contextmanager
def running(args: list[str], env: dict[str, str], cwd: Path, log: Path) -> Iterator[subprocess.Popen[bytes]]:
    """A background process, killed at the end if it is still running."""
    with open(log, "wb") as output:
        process = subprocess.Popen(args, env=env, cwd=cwd, stdout=output, stderr=subprocess.STDOUT)
    try:
        yield process
    finally:
        if process.poll() is None:
            process.kill()
            process.wait(10)


def first_syncs(metrics: str) -> float:
    """Full syncs the daemon recorded as ok (``roomsync_sync_runs_total{kind="sync",result="ok"}``)."""
    total = 0.0
    for line in metrics.splitlines():
        if line.startswith("roomsync_sync_runs_total{") and 'kind="sync"' in line and 'result="ok"' in line:
            total += float(line.rsplit(" ", 1)[1])
    return total


def serve_until_synced(args: list[str], env: dict[str, str], cwd: Path, log: Path) -> None:
    """``roomsync serve`` as typed: ready, a first sync recorded, then SIGTERM and exit 0."""
    url = f"http://127.0.0.1:{env['ROOMSYNC_SERVE_PORT']}"
    with running(args, env, cwd, log) as serve:

        def alive() -> bool:
            assert serve.poll() is None, f"roomsync serve exited with {serve.returncode}:\n{log.read_text()}"
            answer = answers(f"{url}/readyz")
            return answer is not None and answer.status_code == 200

        wait_until(alive, 90, "roomsync serve to answer /readyz with 200")
        wait_until(lambda: first_syncs(httpx.get(f"{url}/metrics").text) >= 1, 120, "a first sync")
        serve.send_signal(signal.SIGTERM)
        assert serve.wait(60) == 0, log.read_text()[-4000:]


@pytest.mark.slow
def test_the_readme_steps_to_a_real_property_work_word_for_word(tmp_path: Path) -> None:
    section, lines = readme_block()
    # the credentials the README gives for trying it by hand are the emulator's
    demo = Credentials()
    said = f"user `{demo.username}`, password `{demo.password}`, domain `{demo.domain}`"
    assert said in " ".join(section.split()), f"the README does not give the emulator's {said}"
    port_option = inspect.signature(emulator_command).parameters["port"].default
    assert f"127.0.0.1:{port_option.default}" == README_EMULATOR  # `roomsync emulator`'s own default

    home, work = tmp_path / "home", tmp_path / "work"
    home.mkdir()
    work.mkdir()
    env = {k: v for k, v in os.environ.items() if not k.startswith("ROOMSYNC_")}
    env.pop("XDG_DATA_HOME", None)  # where the data lives is the README's claim to check
    env.update(HOME=str(home), PATH=f"{BIN}{os.pathsep}{env.get('PATH', '')}", COLUMNS="200")
    env["ROOMSYNC_SERVE_PORT"] = str(free_port())
    emulator_port = free_port()

    followed: list[str] = []
    with running(
        ["roomsync", "emulator", "--port", str(emulator_port)], env, work, tmp_path / "emulator.log"
    ) as emulator:
        wait_until(
            lambda: emulator.poll() is None and answers(f"http://127.0.0.1:{emulator_port}/_emulator/requests"),
            60,
            "roomsync emulator to answer",
        )
        for line in lines:
            words = shlex.split(line, comments=True)
            if not words:
                continue
            if words[0] == "export":
                for assignment in words[1:]:
                    name, value = assignment.split("=", 1)
                    env[name] = value.replace(README_EMULATOR, f"127.0.0.1:{emulator_port}")
            elif words[:2] == ["roomsync", "serve"]:
                serve_until_synced(words, env, work, tmp_path / "serve.log")
            elif words[0] == "roomsync":
                done = subprocess.run(words, env=env, cwd=work, capture_output=True, text=True, timeout=120)
                assert done.returncode == 0, f"{line}\n{done.stdout}\n{done.stderr}"
            else:
                pytest.fail(f"the README's step {line!r} is neither an export nor a roomsync command")
            followed.append(" ".join(word for word in words[:3] if not word.startswith("-")))
        assert env["ROOMSYNC_BASE_URL"] == f"http://127.0.0.1:{emulator_port}"

        # where the README says the data lives, and what `roomsync status` then shows
        assert "`~/.local/share/roomsync/roomsync.db`" in section
        assert (home / ".local" / "share" / "roomsync" / "roomsync.db").is_file()
        status = subprocess.run(["roomsync", "status"], env=env, cwd=work, capture_output=True, text=True)
        assert status.returncode == 0, status.stderr
        assert "2001/41000003" in status.stdout and "recent runs" in status.stdout

    # the steps issue 23 asks the section for are all there, in this order, the daemon last
    steps = ["roomsync db upgrade", "roomsync mappings suggest", "roomsync mappings load", "roomsync serve"]
    assert [step for step in followed if step in steps] == steps, followed
    assert followed[-1] == "roomsync serve", followed
