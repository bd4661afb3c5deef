"""The one background sweeper: outbox rows and deadlines that are due, for every format.

It runs in the process that owns shard 0 (the one that receives DMs), so nothing is swept twice.
Each pass asks the database only for work that is due (indexed queries), so a pass with nothing to
do costs the same with ten or ten thousand running games. Between passes it sleeps until the next
due time, at most `SWEEP_INTERVAL`, and wakes early when this process arms an earlier deadline.
A pass that fails (the database is down) is tried again after `RETRY_AFTER_FAILURE`, or as soon
as the database is back (`OutageWatch.on_back`), so the sweeper catches up at once after an outage
and never stops; the outage is logged once, by the watch.
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
from datetime import datetime, timedelta

from discord.ext import commands

from bot.kit import deadlines, outbox
from bot.kit.client import KitBot
from bot.store.outage import log_failure
from bot.store.types import utcnow

log = logging.getLogger(__name__)
PRUNE_EVERY = timedelta(hours=1)
MIN_SLEEP = 0.02  # seconds
RETRY_AFTER_FAILURE = 1.0  # seconds after a failed pass (at most SWEEP_INTERVAL)


class SweeperCog(commands.Cog):
    def __init__(self, bot: KitBot) -> None:
        self.bot = bot
        self.started_at = utcnow()
        self._wake = asyncio.Event()
        self._task: asyncio.Task | None = None
        self._sleeping_until: datetime | None = None
        self._pruned_at = self.started_at
        # Set once the startup pass has sent what earlier processes left queued (others may wait on it).
        self.startup_swept = asyncio.Event()
        bot.db.listen(deadlines.TOPIC, self._deadline_armed)
        bot.db.outage.on_back(self._wake.set)

    async def cog_load(self) -> None:
        if self.bot.owns_shard_zero:
            self._task = asyncio.get_running_loop().create_task(self._run(), name="sweeper")

    async def cog_unload(self) -> None:
        if self._task is not None:
            self._task.cancel()
            with contextlib.suppress(asyncio.CancelledError):
                await self._task

    def _deadline_armed(self, due_times: list[datetime]) -> None:
        if self._sleeping_until is None or min(due_times) < self._sleeping_until:
            self._wake.set()

    async def _run(self) -> None:
        # No wait for the gateway's READY: sending needs only REST (logged in before cogs load),
        # and READY comes seconds after connecting (discord.py waits for the guilds to stream
        # in). Meanwhile DM reactions already arrive and must be judged against the messages a
        # dead process left half-sent, which this first pass sends and records.
        startup = True
        while True:
            failed = False
            try:
                await self.sweep_once(startup=startup)
                if startup:
                    self.startup_swept.set()
                startup = False
            except Exception as error:
                _log_failure("sweep failed; it runs again shortly", error)
                failed = True
            await self._sleep(failed)

    async def wait_startup_swept(self, timeout: float) -> None:
        """Wait (at most `timeout` seconds) until the startup pass is done; returns at once in a
        process that runs no sweeper (not shard 0)."""
        if self._task is None:
            return
        with contextlib.suppress(TimeoutError):
            await asyncio.wait_for(self.startup_swept.wait(), timeout)

    async def sweep_once(self, *, startup: bool = False) -> tuple[int, int]:
        """One pass; returns (outbox rows sent, deadlines run). At startup every row queued before
        this process began is sent at once (none of them can be in flight here)."""
        sent = await self.bot.outbox.sweep(created_before=self.started_at if startup else None)
        if startup:  # what a dead process recorded as shown in an interaction response it may never have made
            shown = await outbox.shown_in_place(self.bot.db, since=self.started_at - outbox.SHOW_AGAIN_WITHIN,
                                                before=self.started_at)
            sent += await self.bot.outbox.show_again(shown)
        ran = len(await deadlines.run_due(self.bot.db, self.bot.deadlines))
        if sent or ran:
            log.info("sweep: %d queued messages sent, %d deadlines run", sent, ran)
        now = utcnow()
        if now - self._pruned_at > PRUNE_EVERY:
            self._pruned_at = now
            await outbox.prune(self.bot.db, now=now)
        return sent, ran

    async def _sleep(self, failed: bool = False) -> None:
        interval = self.bot.settings.sweep_interval
        try:
            candidates = [t for t in (await deadlines.next_due_at(self.bot.db), await outbox.next_due_at(self.bot.db)) if t]
        except Exception as error:
            _log_failure("could not read when work is due next; sweeping again shortly", error)
            candidates, failed = [], True
        if failed:
            interval = min(interval, RETRY_AFTER_FAILURE)
        now = utcnow()
        seconds = interval if not candidates else (min(candidates) - now).total_seconds()
        seconds = min(max(seconds, MIN_SLEEP), interval)
        self._sleeping_until = now + timedelta(seconds=seconds)
        self._wake.clear()
        try:
            await asyncio.wait_for(self._wake.wait(), timeout=seconds)
        except TimeoutError:
            pass
        finally:
            self._sleeping_until = None


def _log_failure(what: str, error: Exception) -> None:
    """An outage is logged by the database's watch, once (it may last a while); anything else is a
    bug, with its traceback."""
    log_failure(log, logging.ERROR, error, what)


async def setup(bot: KitBot) -> None:
    await bot.add_cog(SweeperCog(bot))
