"""Leaderboards for the pages, computed once per change of a server's results.

A leaderboard sums every result of the server (`bot.kit.leaderboard`): with 10,000 finished events
that is tens of thousands of rows for each page. Results are only ever added, so each page asks
the database for the server's newest result id (one index lookup) and reuses the boards it
computed for that id; when a result was added since, only the rows after the id it last saw are
read (index `ix_event_results_newest`) and added to its totals. An entry is computed again from
every row after `ttl` seconds, which bounds how long a board can miss an event whose transaction
committed after a later one (ids are handed out before commits). Every site process keeps its own
cache; none is ever shared between servers."""

from __future__ import annotations

import time
from collections import OrderedDict
from collections.abc import Callable, Hashable
from dataclasses import dataclass

from sqlalchemy import func, select

from bot.kit import leaderboard
from bot.kit.leaderboard import BoardRow, Period
from bot.store.db import Database
from bot.store.models import EventResult

ASK = object()  # `newest` not given: read it


@dataclass
class _Entry:
    newest: int | None
    at: float  # when computed from every row
    totals: dict[tuple[str, int], list]  # (format, user) -> [format, user, events, wins, points, best]
    boards: dict[str | None, list[BoardRow]]


class Boards:
    def __init__(self, db: Database, *, size: int = 256, ttl: float = 120.0,
                 clock: Callable[[], float] = time.monotonic) -> None:
        self.db, self.size, self.ttl, self.clock = db, size, ttl, clock
        self._entries: OrderedDict[Hashable, _Entry] = OrderedDict()

    async def _newest(self, guild_id: int) -> int | None:
        async with self.db.read() as session:
            query = select(func.max(EventResult.id)).where(EventResult.guild_id == guild_id)
            return (await session.execute(query)).scalar_one_or_none()

    async def _added(self, guild_id: int, period: Period, after: int, upto: int) -> list[tuple]:
        """The server's results in `period` with ids in (after, upto]: (format, user, placement, points, score)."""
        query = select(EventResult.format, EventResult.user_id, EventResult.placement, EventResult.points,
                       EventResult.score).where(EventResult.guild_id == guild_id, EventResult.id > after,
                                                EventResult.id <= upto)
        if period.season_id is not None:
            query = query.where(EventResult.season_id == period.season_id)
        async with self.db.read() as session:
            return [tuple(row) for row in await session.execute(query)]

    async def boards(self, guild_id: int, period: Period, *,
                     newest: int | None | object = ASK) -> dict[str | None, list[BoardRow]]:
        """Every format's board for `period`, and (key None) the board of all formats. `newest`: the
        server's newest result id if the caller has just read it (`bot.web.page_cache.stamp`)."""
        if newest is ASK:
            newest = await self._newest(guild_id)
        key = (guild_id, period.season_id)
        found = self._entries.get(key)
        if found is not None and self.clock() - found.at < self.ttl:
            if found.newest == newest:
                self._entries.move_to_end(key)
                return found.boards
            if found.newest is not None and newest is not None and newest > found.newest:
                totals = {k: list(v) for k, v in found.totals.items()}
                for fmt, user_id, placement, points, score in await self._added(guild_id, period, found.newest,
                                                                                newest):
                    total = totals.setdefault((fmt, user_id), [fmt, user_id, 0, 0, 0.0, None])
                    total[2] += 1
                    total[3] += placement == 1
                    total[4] += points or 0
                    if score is not None and (total[5] is None or score > total[5]):
                        total[5] = score
                return self._keep(key, _Entry(newest, found.at, totals, leaderboard.boards_of(totals.values())))
        rows = await leaderboard.totals_by_format(self.db, guild_id, period)
        totals = {(row[0], row[1]): list(row) for row in rows}
        return self._keep(key, _Entry(newest, self.clock(), totals, leaderboard.boards_of(rows)))

    def _keep(self, key: Hashable, entry: _Entry) -> dict[str | None, list[BoardRow]]:
        if self.size > 0:
            self._entries.pop(key, None)
            self._entries[key] = entry
            while len(self._entries) > self.size:
                self._entries.popitem(last=False)
        return entry.boards

    async def board(self, guild_id: int, period: Period, format: str | None = None, *,
                    newest: int | None | object = ASK) -> list[BoardRow]:
        """One format's board (None: all formats), from the same computation as `boards`."""
        return (await self.boards(guild_id, period, newest=newest)).get(format, [])
