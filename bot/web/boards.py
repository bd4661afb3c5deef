"""Leaderboards for the pages, computed once per change of a server's results.

A leaderboard sums every result of the server (`bot.kit.leaderboard`): with 10,000 finished events
that is tens of thousands of rows for each page. Results are only ever added, so each page asks
the database for the server's newest result id (one index lookup) and reuses the boards it
computed for that id. An entry also expires after `ttl` seconds, which bounds how long a board can
miss an event whose transaction committed after a later one (ids are handed out before commits).
Every site process keeps its own cache; none is ever shared between servers."""

from __future__ import annotations

import time
from collections import OrderedDict
from collections.abc import Awaitable, Callable, Hashable
from typing import Any

from sqlalchemy import func, select

from bot.kit import leaderboard
from bot.kit.leaderboard import BoardRow, Period
from bot.store.db import Database
from bot.store.models import EventResult

ASK = object()  # `newest` not given: read it


class Boards:
    def __init__(self, db: Database, *, size: int = 256, ttl: float = 120.0,
                 clock: Callable[[], float] = time.monotonic) -> None:
        self.db, self.size, self.ttl, self.clock = db, size, ttl, clock
        self._entries: OrderedDict[Hashable, tuple[int | None, float, Any]] = OrderedDict()

    async def _newest(self, guild_id: int) -> int | None:
        async with self.db.read() as session:
            query = select(func.max(EventResult.id)).where(EventResult.guild_id == guild_id)
            return (await session.execute(query)).scalar_one_or_none()

    async def _cached(self, guild_id: int, key: Hashable, compute: Callable[[], Awaitable[Any]],
                      newest: int | None | object = ASK) -> Any:
        if newest is ASK:
            newest = await self._newest(guild_id)
        found = self._entries.get(key)
        if found is not None and found[0] == newest and self.clock() - found[1] < self.ttl:
            self._entries.move_to_end(key)
            return found[2]
        value = await compute()
        if self.size > 0:
            self._entries[key] = (newest, self.clock(), value)
            self._entries.move_to_end(key)
            while len(self._entries) > self.size:
                self._entries.popitem(last=False)
        return value

    async def boards(self, guild_id: int, period: Period, *,
                     newest: int | None | object = ASK) -> dict[str | None, list[BoardRow]]:
        """Every format's board for `period`, and (key None) the board of all formats. `newest`: the
        server's newest result id if the caller has just read it (`bot.web.page_cache.stamp`)."""
        return await self._cached(guild_id, (guild_id, period.season_id),
                                  lambda: leaderboard.boards(self.db, guild_id, period), newest)

    async def board(self, guild_id: int, period: Period, format: str | None = None, *,
                    newest: int | None | object = ASK) -> list[BoardRow]:
        """One format's board (None: all formats), from the same computation as `boards`."""
        return (await self.boards(guild_id, period, newest=newest)).get(format, [])
