"""A PostgreSQL server of the test's own, to stop hard and start again (never the shared one).

`initdb` in a temporary folder and `pg_ctl start` on a free loopback port; `crash()` is
`pg_ctl stop -m immediate` (the server dies as on a power cut: open connections drop at once, new
ones are refused), `start()` brings it back on the same port and data. initdb and postgres refuse to
run as root, so as root they run as the `postgres` OS user; a machine that can't (not root, no
`postgres` user, no server binaries) skips the test with the reason, except in CI (`CI=true`), where
it fails: the outage tests must run there.
"""

from __future__ import annotations

import asyncio
import os
import pwd
import shutil
import socket
import tempfile
from pathlib import Path

import pytest

BINARIES = Path(os.environ.get("PG_BINARIES", "/usr/lib/postgresql/15/bin"))
OS_USER = "postgres"
START_WAIT = 30  # seconds pg_ctl waits for the server to accept connections


def unavailable_reason() -> str | None:
    """Why a private server can't run here, or None."""
    if not (BINARIES / "initdb").exists() or not (BINARIES / "pg_ctl").exists():
        return f"no PostgreSQL server binaries in {BINARIES} (set PG_BINARIES)"
    if shutil.which("runuser") is None:
        return "no runuser (util-linux) to run a private PostgreSQL server as the postgres OS user"
    if os.geteuid() != 0:
        return "a private PostgreSQL server is started as the postgres OS user, which needs root"
    try:
        pwd.getpwnam(OS_USER)
    except KeyError:
        return f"no {OS_USER!r} OS user to run a private PostgreSQL server as"
    return None


def require_private_postgres() -> None:
    reason = unavailable_reason()
    if reason is None:
        return
    if os.environ.get("CI", "").lower() == "true":
        pytest.fail(f"CI must run the database outage tests: {reason}")
    pytest.skip(f"private PostgreSQL server: {reason}")


def _free_port() -> int:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return probe.getsockname()[1]


class PrivatePostgres:
    def __init__(self) -> None:
        self.folder = Path(tempfile.mkdtemp(prefix="bot-private-pg-"))
        self.data = self.folder / "data"
        self.port = _free_port()
        self.running = False

    def url(self, database: str = "postgres") -> str:
        return f"postgresql+asyncpg://{OS_USER}@127.0.0.1:{self.port}/{database}"

    async def _run(self, *command: str) -> None:
        process = await asyncio.create_subprocess_exec(
            "runuser", "-u", OS_USER, "--", *command, stdout=asyncio.subprocess.PIPE, stderr=asyncio.subprocess.STDOUT)
        output, _ = await process.communicate()
        if process.returncode != 0:
            raise RuntimeError(f"{' '.join(command)} failed ({process.returncode}): {output.decode(errors='replace')}")

    async def create(self) -> None:
        user = pwd.getpwnam(OS_USER)
        os.chown(self.folder, user.pw_uid, user.pw_gid)
        await self._run(str(BINARIES / "initdb"), "-D", str(self.data), "-A", "trust", "-U", OS_USER, "--no-sync",
                        "-E", "UTF8", "--locale", "C")
        await self.start()

    async def start(self) -> None:
        # fsync off: a server stopped hard still has every commit in the OS's cache (only a power
        # cut loses it); commits stay synchronous, so a commit the bot was told of survives the stop.
        options = f"-p {self.port} -k {self.folder} -c listen_addresses=127.0.0.1 -c fsync=off"
        await self._run(str(BINARIES / "pg_ctl"), "-D", str(self.data), "-l", str(self.folder / "server.log"),
                        "-o", options, "-w", "-t", str(START_WAIT), "start")
        self.running = True

    async def crash(self) -> None:
        """Stop hard: no checkpoint, connections dropped (the next start recovers from the WAL)."""
        await self._run(str(BINARIES / "pg_ctl"), "-D", str(self.data), "-m", "immediate", "-w", "stop")
        self.running = False

    async def remove(self) -> None:
        if self.running:
            await self._run(str(BINARIES / "pg_ctl"), "-D", str(self.data), "-m", "immediate", "-w", "stop")
            self.running = False
        shutil.rmtree(self.folder, ignore_errors=True)

    async def create_database(self, name: str) -> str:
        import asyncpg

        connection = await asyncpg.connect(host="127.0.0.1", port=self.port, user=OS_USER, database="postgres")
        try:
            await connection.execute(f'CREATE DATABASE "{name}"')
        finally:
            await connection.close()
        return self.url(name)
