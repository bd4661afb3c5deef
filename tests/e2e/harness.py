"""Runs the real bot (`python -m bot`, a separate process) against the fake Discord.

The bot process can be killed with SIGKILL and started again on the same database, exactly as a
crash and a restart would happen in production. No bot outlives its test: every process started
is listed (`BotProcess.left_running`, checked after each e2e test), and on Linux the kernel kills
it if the test process itself dies.
"""

from __future__ import annotations

import asyncio
import os
import signal
import sys
from pathlib import Path
from typing import ClassVar

from tests.e2e import prefork
from tests.fake_discord import FakeDiscord

# Well-formed (three base64url parts) but fake: the fake Discord accepts any token.
TEST_TOKEN = "MTAxMDEwMTAxMDEwMTAxMDEw.GaBcDe.abcdefghijklmnopqrstuvwxyz012345"
REPO_ROOT = Path(__file__).resolve().parents[2]
# `python -m bot` for every start instead of a fork of a bot that has imported everything
# (`tests.e2e.prefork`): slower, for checking that the two behave alike.
COLD_STARTS = os.environ.get("E2E_COLD_STARTS") == "1" or not prefork.supported()


class BotProcess:
    _started: ClassVar[set[BotProcess]] = set()

    def __init__(
        self,
        fake: FakeDiscord,
        database_url: str,
        workdir: Path,
        env: dict[str, str] | None = None,
        *,
        shard: int | None = None,
        cold: bool = False,
    ):
        """`shard`: run only that shard of the fake's `shard_count` (one process per shard).
        `cold`: start `python -m bot` itself (else a fork of the worker's prefork server)."""
        self.fake = fake
        self.cold = cold or COLD_STARTS
        self.shard = shard
        self.database_url = database_url
        self.workdir = workdir
        self.extra_env = env or {}
        self.process: asyncio.subprocess.Process | prefork.PreforkedBot | None = None
        self.log_path = workdir / ("bot.log" if shard is None else f"bot-shard{shard}.log")
        self.starts = 0
        self.shared = False  # a module's shared process (tests/e2e/conftest.py): stopped with the module
        self._log_offset = 0  # where the current start's lines begin in the log file

    def _env(self) -> dict[str, str]:
        env = {key: value for key, value in os.environ.items() if not key.startswith(("DISCORD_", "DATABASE_"))}
        # Let the bot keep its compiled bytecode (in the gitignored __pycache__ folders, as Python
        # does by default): otherwise every start compiles all of bot/ again, ~0.3 s of CPU.
        env.pop("PYTHONDONTWRITEBYTECODE", None)
        env.update(
            DISCORD_TOKEN=TEST_TOKEN,
            DATABASE_URL=self.database_url,
            DISCORD_API_BASE=self.fake.api_base,
            # Where a session that must IDENTIFY again reconnects (discord.py's default gateway).
            DISCORD_GATEWAY_URL=self.fake.gateway_url,
            LOG_LEVEL="DEBUG",
            PYTHONPATH=str(REPO_ROOT),
            PYTHONUNBUFFERED="1",
            # Tests never reach the internet: unless a test serves the fake Scryfall, nothing answers
            # here (port 9, discard), which the bot treats as Scryfall being down.
            SCRYFALL_BASE="http://127.0.0.1:9",
            # Tests drive one pick at a time and wait for its confirmation, so holding it back for a
            # pack that can't come only slows them; tests of the grace itself set it.
            PICK_CONFIRM_GRACE="0",
            # The fake announces every server right after READY, so discord.py's 2 s wait for more
            # (before it counts the bot ready, which some tests wait for) is only a pause here.
            GUILD_READY_TIMEOUT="0.1",
        )
        if self.shard is not None:
            # With a fixed shard count discord.py skips GET /gateway/bot and dials DISCORD_GATEWAY_URL.
            env.update(SHARD_COUNT=str(self.fake.shard_count), SHARD_IDS=str(self.shard))
        env.update(self.extra_env)
        return env

    async def start(self, timeout: float = 60, *, until_ready: bool = True) -> None:
        """Start the bot and wait until it is READY (`until_ready=False`: only until it runs)."""
        generation = self.fake.generation
        identifies = self.fake.shard_identifies[self.shard] if self.shard is not None else 0
        self.starts += 1
        log = open(self.log_path, "ab")  # noqa: ASYNC230 - a local file, opened once per bot start
        self._log_offset = log.tell()
        log.write(f"\n===== start #{self.starts} =====\n".encode())
        log.flush()
        if self.cold:
            self.process = await asyncio.create_subprocess_exec(
                sys.executable, "-m", "bot", cwd=self.workdir, env=self._env(), stdout=log, stderr=log,
                preexec_fn=prefork.die_with_parent if sys.platform == "linux" else None,
            )
        else:
            self.process = prefork.PreforkServer.get().start(self._env(), self.workdir, self.log_path)
        log.close()
        BotProcess._started.add(self)
        if not until_ready:
            return
        if self.shard is None:
            waiting = self.fake.wait_for_ready(generation=generation + 1, timeout=timeout)
        else:
            waiting = self.fake.wait_for_shard(self.shard, identifies=identifies + 1, timeout=timeout)
        ready = asyncio.ensure_future(waiting)
        exited = asyncio.ensure_future(self.process.wait())
        done, _ = await asyncio.wait({ready, exited}, return_when=asyncio.FIRST_COMPLETED)
        if exited in done:
            ready.cancel()
            raise AssertionError(f"the bot exited with {self.process.returncode} before it was ready:\n{self.log_tail()}")
        exited.cancel()
        ready.result()

    async def kill(self) -> None:
        """SIGKILL: no cleanup, no goodbye — a crash."""
        if self.process is not None and self.process.returncode is None:
            self.process.send_signal(signal.SIGKILL)
            await self.process.wait()

    async def restart(self) -> None:
        await self.kill()
        await self.start()

    async def stop(self) -> None:
        if self.process is None or self.process.returncode is not None:
            return
        self.process.terminate()
        try:
            await asyncio.wait_for(self.process.wait(), timeout=10)
        except TimeoutError:
            await self.kill()

    @property
    def running(self) -> bool:
        return self.process is not None and self.process.returncode is None

    @classmethod
    async def left_running(cls) -> list[BotProcess]:
        """Kill every bot process started since the last call that still runs (a module's shared
        process aside), and name them."""
        left = [process for process in cls._started if process.running and not process.shared]
        cls._started.clear()
        for process in left:
            await process.kill()
        return left

    def log_tail(self, lines: int = 80) -> str:
        if not self.log_path.exists():
            return "(no log)"
        return "\n".join(self.log_path.read_text(errors="replace").splitlines()[-lines:])

    def log_since_start(self) -> str:
        """What the bot has logged since it was last started."""
        if not self.log_path.exists():
            return ""
        with open(self.log_path, "rb") as log:
            log.seek(self._log_offset)
            return log.read().decode(errors="replace")

    def log_text(self) -> str:
        return self.log_path.read_text(errors="replace") if self.log_path.exists() else ""
