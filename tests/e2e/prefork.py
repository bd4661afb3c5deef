"""Bot processes forked from one that has already imported the bot.

A start of `python -m bot` costs about a second of CPU, nearly all of it importing discord.py,
SQLAlchemy and the bot's modules, and the e2e tests start a bot some 150 times: a third of the
suite's CPU. So each test worker runs one server (`python -m tests.e2e.prefork SOCKET`) that
imports what `python -m bot` imports, then forks a bot for every start asked on its Unix socket.
The child takes the start's environment, working directory and log, and runs `bot.__main__.main()`:
what `python -m bot` runs once its imports are done, reading its settings from that environment.
It is a process of its own: the tests kill it with SIGKILL or SIGTERM and learn its exit status,
which the server sends back on the start's connection when it reaps it (`PreforkedBot`).

Nothing runs in the server before a fork but imports: no event loop, no thread, no logging set up,
no database opened (it checks that it has one thread before each fork). Each child seeds `random`
afresh. `tests/e2e/test_startup.py` starts `python -m bot` itself, so the real entry point stays
tested. The server ends when the test process does (its stdin closes, or the kernel kills it), and
the kernel kills its children with it.
"""

from __future__ import annotations

import asyncio
import atexit
import contextlib
import ctypes
import importlib
import json
import os
import selectors
import signal
import socket
import subprocess
import sys
import tempfile
import threading
from pathlib import Path
from typing import ClassVar

REPO_ROOT = Path(__file__).resolve().parents[2]
_PR_SET_PDEATHSIG = 1


def die_with_parent() -> None:
    """Linux: SIGKILL this process when the one that started it dies."""
    ctypes.CDLL(None, use_errno=True).prctl(_PR_SET_PDEATHSIG, signal.SIGKILL)


# --- the server (its own process) --------------------------------------------------------------


def _preload() -> None:
    """Import what `python -m bot` imports before it connects: its entry point, the bot, the
    database layer and every extension (the cogs' modules are executed again by `load_extension`,
    as in any start, but what they import is then already loaded)."""
    import bot.__main__  # noqa: F401
    import bot.app
    import bot.store.db  # noqa: F401
    import bot.store.migrate  # noqa: F401
    import bot.store.outage  # noqa: F401

    for name in bot.app.extensions():
        importlib.import_module(name)


def _read_request(conn: socket.socket) -> dict:
    data = b""
    while not data.endswith(b"\n"):
        chunk = conn.recv(65536)
        if not chunk:
            raise ConnectionError("the start's request was cut short")
        data += chunk
    return json.loads(data)


def _run_bot(request: dict, server: int, inherited: list[int]) -> None:
    """In the child: become the bot the request describes; never returns."""
    code = 1
    try:
        die_with_parent()
        if os.getppid() != server:  # the server died before the line above: no signal will come
            os._exit(code)
        for fd in inherited:
            with contextlib.suppress(OSError):
                os.close(fd)
        log = os.open(request["log"], os.O_WRONLY | os.O_APPEND | os.O_CREAT, 0o644)
        os.dup2(log, 1)
        os.dup2(log, 2)
        os.close(log)
        nothing = os.open(os.devnull, os.O_RDONLY)
        os.dup2(nothing, 0)
        os.close(nothing)
        os.chdir(request["cwd"])
        os.environ.clear()
        os.environ.update(request["env"])
        sys.argv = [str(REPO_ROOT / "bot" / "__main__.py")]
        import random

        random.seed()  # not the server's sequence, shared by every child
        import logging

        from bot.__main__ import main

        try:
            code = main()
        except SystemExit as exit_:
            code = exit_.code if isinstance(exit_.code, int) else (0 if exit_.code is None else 1)
        finally:
            logging.shutdown()
    except BaseException:
        import traceback

        traceback.print_exc()
    finally:
        for stream in (sys.stdout, sys.stderr):
            with contextlib.suppress(Exception):
                stream.flush()
        os._exit(code)


def serve(path: str) -> None:
    _preload()
    listener = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
    listener.bind(path)
    listener.listen(16)
    selector = selectors.DefaultSelector()
    selector.register(listener, selectors.EVENT_READ, "start")
    selector.register(sys.stdin.fileno(), selectors.EVENT_READ, "stdin")
    children: dict[int, tuple[int, socket.socket]] = {}  # pidfd -> (pid, the start's connection)
    os.write(sys.stdout.fileno(), b"ready\n")
    while True:
        for key, _ in selector.select():
            if key.data == "stdin":
                if not os.read(key.fd, 4096):
                    return  # the tests are gone: so are the children (their parent-death signal)
            elif key.data == "start":
                conn, _ = listener.accept()
                request = _read_request(conn)
                assert threading.active_count() == 1, "the prefork server must not run threads"
                # (stdin and stdout: replaced in the child)
                inherited = [listener.fileno(), selector.fileno(), conn.fileno(), *children,
                             *(c.fileno() for _, c in children.values())]
                server = os.getpid()
                pid = os.fork()
                if pid == 0:
                    _run_bot(request, server, inherited)
                pidfd = os.pidfd_open(pid)
                children[pidfd] = (pid, conn)
                selector.register(pidfd, selectors.EVENT_READ, "child")
                conn.sendall(f"{pid}\n".encode())
            else:
                pid, conn = children.pop(key.fd)
                selector.unregister(key.fd)
                os.close(key.fd)
                _, status = os.waitpid(pid, 0)
                with contextlib.suppress(OSError):
                    conn.sendall(f"{os.waitstatus_to_exitcode(status)}\n".encode())
                conn.close()


# --- the tests' side ---------------------------------------------------------------------------


class PreforkedBot:
    """A forked bot, as much of `asyncio.subprocess.Process` as the harness uses."""

    def __init__(self, pid: int, conn: socket.socket, rest: bytes) -> None:
        self.pid, self._conn, self._received = pid, conn, rest
        self._returncode: int | None = None
        conn.setblocking(False)
        self._parse()

    def _take(self, data: bytes) -> None:
        """Add what the server sent; no data is the end of the connection: the server died, and
        with it the bot (its parent-death signal)."""
        self._received += data if data else b"%d\n" % -signal.SIGKILL
        self._parse()

    def _parse(self) -> None:
        if b"\n" in self._received:
            self._returncode = int(self._received.split(b"\n", 1)[0])
            self._conn.close()

    @property
    def returncode(self) -> int | None:
        """The exit status once the server has reaped the bot (-N: killed by signal N), else None."""
        if self._returncode is None:
            try:
                data = self._conn.recv(64)
            except BlockingIOError:
                return None
            self._take(data)
        return self._returncode

    async def wait(self) -> int:
        while self.returncode is None:
            self._take(await asyncio.get_running_loop().sock_recv(self._conn, 64))
        return self._returncode

    def send_signal(self, number: int) -> None:
        if self.returncode is None:
            with contextlib.suppress(ProcessLookupError):
                os.kill(self.pid, number)

    def terminate(self) -> None:
        self.send_signal(signal.SIGTERM)

    def kill(self) -> None:
        self.send_signal(signal.SIGKILL)


class PreforkServer:
    """This test process's server, started at its first bot start (about a second, once)."""

    _current: ClassVar[PreforkServer | None] = None

    def __init__(self) -> None:
        self.path = str(Path(tempfile.mkdtemp(prefix="prefork-")) / "socket")
        env = {**os.environ, "PYTHONPATH": str(REPO_ROOT), "PYTHONUNBUFFERED": "1"}
        env.pop("PYTHONDONTWRITEBYTECODE", None)
        self.process = subprocess.Popen(
            [sys.executable, "-m", "tests.e2e.prefork", self.path], cwd=REPO_ROOT, env=env,
            stdin=subprocess.PIPE, stdout=subprocess.PIPE,
            preexec_fn=die_with_parent if sys.platform == "linux" else None,
        )
        if self.process.stdout.readline() != b"ready\n":
            raise RuntimeError(f"the prefork server did not start (exit status {self.process.wait()})")
        atexit.register(self.close)

    def close(self) -> None:
        """End the server (its stdin closes) and reap it, so that its CPU time, and that of every bot
        it forked and reaped, is counted as this process's (`time`, `getrusage`): an unreaped server
        takes all of it away with it."""
        if self.process.poll() is None:
            self.process.stdin.close()
            try:
                self.process.wait(timeout=10)
            except subprocess.TimeoutExpired:
                self.process.kill()
                self.process.wait()
        self.process.stdout.close()
        atexit.unregister(self.close)

    @classmethod
    def get(cls) -> PreforkServer:
        if cls._current is None or cls._current.process.poll() is not None:
            cls._current = PreforkServer()
        return cls._current

    def start(self, env: dict[str, str], cwd: Path, log: Path) -> PreforkedBot:
        conn = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
        conn.connect(self.path)
        conn.sendall(json.dumps({"env": env, "cwd": str(cwd), "log": str(log)}).encode() + b"\n")
        received = b""
        while b"\n" not in received:
            chunk = conn.recv(64)
            if not chunk:
                raise RuntimeError("the prefork server closed the start without a process")
            received += chunk
        pid, rest = received.split(b"\n", 1)
        return PreforkedBot(int(pid), conn, rest)


def supported() -> bool:
    return sys.platform == "linux" and hasattr(os, "pidfd_open") and hasattr(os, "fork")


if __name__ == "__main__":
    serve(sys.argv[1])
