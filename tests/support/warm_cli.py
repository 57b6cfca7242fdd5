"""``roomsync`` command-line processes forked from one that has imported roomsync already.

A ``python -m roomsync.app.cli`` process spends about a second of CPU starting and importing
before its command runs (1.2 to 1.3 CPU s for ``roomsync status`` on a database that is not one;
forked from a warm process the same command takes about 0.1 s). A test that runs many commands
which end at once pays that second each time: tests/app/test_unreadable_files.py ran 72 of
them, four at a time, 44 to 62 s of both cores a case in CI, beside the timed daemon tests.

:class:`WarmCli` starts one Python process that imports the CLI and every command module once;
each command is then a child forked from it that becomes ``python -m roomsync.app.cli ARGS``
from there on (``runpy``, as ``-m`` does): a process of its own, with the environment, working
directory, empty stdin, stdout and stderr it is given, and the exit status the interpreter
gives it (an uncaught exception prints its traceback and exits 1, ``SystemExit`` as usual, atexit
handlers run). What it skips is the interpreter's start and the imports: the tests that use it
also run a command the ordinary way and compare, and every other CLI test pays the full start.
"""

from __future__ import annotations

import contextlib
import json
import locale
import os
import select
import signal
import subprocess
import sys
import tempfile
import threading
import time
from pathlib import Path
from types import TracebackType

ROOMSYNC = [sys.executable, "-m", "roomsync.app.cli"]

_SERVER = r"""
import gc, importlib, json, os, runpy, sys, threading
import roomsync.app.cli
for _target in roomsync.app.cli.COMMANDS.values():
    importlib.import_module(_target.split(":")[0])
assert threading.active_count() == 1, "a thread started at import: forking would lose it"
# `python -m` runs the module as __main__ in a process that has not imported it
del sys.modules["roomsync.app.cli"], sys.modules["roomsync.app"].cli
# what the imports made is never collected: a child's exit need not walk it (copying every page
# it touches, 0.4 s of the child's 0.5 s)
gc.freeze()


def _serve():
    for line in sys.stdin:
        request = json.loads(line)
        sys.stdout.flush()
        sys.stderr.flush()
        pid = os.fork()
        if pid == 0:
            return request
        print(json.dumps({"pid": pid}), flush=True)
        _, status = os.waitpid(pid, 0)
        print(json.dumps({"returncode": os.waitstatus_to_exitcode(status)}), flush=True)
    raise SystemExit(0)


_request = _serve()
# the child: from here on it is `python -m roomsync.app.cli ARGS`
os.setpgrp()
for _fd, _path, _flags in (
    (0, os.devnull, os.O_RDONLY),
    (1, _request["stdout"], os.O_WRONLY | os.O_TRUNC),
    (2, _request["stderr"], os.O_WRONLY | os.O_TRUNC),
):
    _opened = os.open(_path, _flags)
    os.dup2(_opened, _fd)
    os.close(_opened)
os.chdir(_request["cwd"])
os.environ.clear()
os.environ.update(_request["env"])
sys.path[0] = os.getcwd()
sys.argv = ["-m", *_request["args"]]
del _serve, _request, _fd, _path, _flags, _opened
runpy.run_module("roomsync.app.cli", run_name="__main__", alter_sys=True)
"""


class WarmCli:
    """One warm ``roomsync`` process to fork commands from; :meth:`run` is ``subprocess.run``
    of ``python -m roomsync.app.cli ARGS`` with ``capture_output=True, text=True``. One command
    at a time (a lock); close it (or use it as a context manager) when done."""

    def __init__(self) -> None:
        env = {k: v for k, v in os.environ.items() if not k.startswith("ROOMSYNC_")}
        self._scratch = tempfile.TemporaryDirectory(prefix="warm-cli-")
        self._imports_said = Path(self._scratch.name) / "imports-stderr"
        with open(self._imports_said, "wb") as said:
            self._server = subprocess.Popen(
                [sys.executable, "-c", _SERVER],
                stdin=subprocess.PIPE,
                stdout=subprocess.PIPE,
                stderr=said,
                env=env,
                bufsize=0,
            )
        self._lock = threading.Lock()
        self._read = b""

    def __enter__(self) -> WarmCli:
        return self

    def __exit__(
        self, kind: type[BaseException] | None, error: BaseException | None, trace: TracebackType | None
    ) -> None:
        self.close()

    def close(self) -> None:
        if self._server.stdin is not None:
            self._server.stdin.close()
        try:
            self._server.wait(10)
        except subprocess.TimeoutExpired:
            self._server.kill()
            self._server.wait(10)
        if self._server.stdout is not None:
            self._server.stdout.close()
        self._scratch.cleanup()

    def _answer(self, deadline: float | None) -> dict[str, int]:
        """The server's next line (``TimeoutError`` past ``deadline``)."""
        stdout = self._server.stdout
        assert stdout is not None
        while b"\n" not in self._read:
            if deadline is not None:
                ready, _, _ = select.select([stdout], [], [], max(0.0, deadline - time.monotonic()))
                if not ready:
                    raise TimeoutError
            chunk = os.read(stdout.fileno(), 4096)
            if not chunk:
                raise RuntimeError(f"the warm roomsync process ended (exit {self._server.poll()})")
            self._read += chunk
        line, _, self._read = self._read.partition(b"\n")
        answer: dict[str, int] = json.loads(line)
        return answer

    def run(
        self, args: list[str], env: dict[str, str], timeout: float = 120, cwd: Path | None = None
    ) -> subprocess.CompletedProcess[str]:
        with self._lock:
            stdout = Path(self._scratch.name) / "stdout"
            stderr = Path(self._scratch.name) / "stderr"
            stdout.write_bytes(b"")
            stderr.write_bytes(b"")
            request = {
                "args": args,
                "env": env,
                "cwd": str(cwd or Path.cwd()),
                "stdout": str(stdout),
                "stderr": str(stderr),
            }
            assert self._server.stdin is not None
            self._server.stdin.write(json.dumps(request).encode() + b"\n")
            self._server.stdin.flush()
            pid = self._answer(None)["pid"]
            try:
                returncode = self._answer(time.monotonic() + timeout)["returncode"]
            except TimeoutError:
                with contextlib.suppress(ProcessLookupError):
                    os.killpg(pid, signal.SIGKILL)
                self._answer(None)  # the server reaps it and says so
                raise subprocess.TimeoutExpired([*ROOMSYNC, *args], timeout) from None
            # what the imports print (a warning, a log line) a fresh process would print before
            # every command: the forked ones would not show it, so it fails here
            said = self._imports_said.read_text(errors="replace")
            assert not said, f"importing roomsync printed on stderr:\n{said}"
            encoding = locale.getpreferredencoding(False)
            return subprocess.CompletedProcess(
                [*ROOMSYNC, *args],
                returncode,
                stdout.read_text(encoding=encoding),
                stderr.read_text(encoding=encoding),
            )
