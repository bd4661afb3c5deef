"""Pages of finished events, kept rendered.

A page of an object that can no longer change (a complete draft, an ended event: its format's
handler says so with `registry.Page(final=True)`, a download with `registry.File(final=True)`) is
built once and served again from memory with its ETag; a page of anything still running is never
kept (it would show what the rules hide a moment later, or stale progress). What else such a page
shows is in its key (`key`):

* the server's id, address and name: the cache is asked only after the address in the URL found its
  server (a rotated or forged address is a 404 before it), and an entry made for one server is never
  found under another's id;
* what the address asks for: the event's kind and id, a file's name, the whole query;
* the server's stamp (`stamp`): its newest player name (names show on every page) and, for a page
  registered with `other_events=True` (Turnabout's: its ratings sum later events too), its newest
  result. Any other finished event's page stays kept while other events end.

An entry also expires after `ttl` seconds (what no stamp sees: a card's picture learned later, a
game's oldest news pruned), and the least recently used go first beyond `size` entries or
`max_bytes` of bodies. Every site process keeps its own; nothing else ever reads it.
"""

from __future__ import annotations

import time
from collections import OrderedDict
from collections.abc import Awaitable, Callable, Hashable
from dataclasses import dataclass
from typing import Any

from aiohttp import hdrs, web
from sqlalchemy import func, select
from sqlalchemy.ext.asyncio import AsyncSession

from bot.store.models import EventResult, PlayerName
from bot.web import registry
from bot.web.access import Site
from bot.web.guard import etag_of

KEPT_HEADERS = (hdrs.CONTENT_DISPOSITION, hdrs.CACHE_CONTROL)


@dataclass(frozen=True)
class Stored:
    body: bytes
    etag: str
    content_type: str
    charset: str | None
    headers: tuple[tuple[str, str], ...]
    at: float

    def response(self) -> web.Response:
        response = web.Response(body=self.body, content_type=self.content_type, charset=self.charset,
                                headers=dict(self.headers))
        response.headers[hdrs.ETAG] = self.etag
        return response


async def stamp(session: AsyncSession, guild_id: int) -> tuple:
    """What changes a finished event's page without changing the event: the server's newest result
    (index `ix_event_results_newest`) and its newest player name, in one statement; then when its
    newest event without results finished (`registry.finished_events`: the lists show those too)."""
    newest_result = select(func.max(EventResult.id)).where(EventResult.guild_id == guild_id).scalar_subquery()
    newest_name = select(func.max(PlayerName.updated_at)).where(PlayerName.guild_id == guild_id).scalar_subquery()
    others = [newest(guild_id) for newest in registry.newest_finished()]
    return tuple((await session.execute(select(newest_result, newest_name, *others))).one())


def key(site: Site, stamped: tuple, *parts: Hashable, query: tuple[tuple[str, str], ...] = ()) -> tuple:
    return (site.guild_id, site.address, site.title, stamped, parts, query)


class PageCache:
    def __init__(self, *, size: int = 512, max_bytes: int = 64 * 2**20, ttl: float = 600.0,
                 clock: Callable[[], float] = time.monotonic) -> None:
        self.size, self.max_bytes, self.ttl, self.clock = size, max_bytes, ttl, clock
        self._entries: OrderedDict[Hashable, Stored] = OrderedDict()
        self._bytes = 0
        self.hits = self.misses = 0

    @property
    def enabled(self) -> bool:
        return self.size > 0

    def __len__(self) -> int:
        return len(self._entries)

    def get(self, key: Hashable) -> web.Response | None:
        """The kept page under `key`, as a new response, or None."""
        found = self._entries.get(key)
        if found is not None and self.clock() - found.at >= self.ttl:
            self._drop(key)
            found = None
        if found is None:
            self.misses += 1
            return None
        self.hits += 1
        self._entries.move_to_end(key)
        return found.response()

    def put(self, key: Hashable, response: web.Response) -> None:
        """Keep a finished object's page (a 200 with its whole body) under `key`."""
        body = response.body
        if not self.enabled or response.status != 200 or not isinstance(body, bytes | bytearray):
            return
        body = bytes(body)
        if len(body) > self.max_bytes:
            return
        etag = etag_of(body)
        response.headers[hdrs.ETAG] = etag  # the same tag as the kept copy's, without hashing it twice
        self._drop(key)
        self._entries[key] = Stored(body, etag, response.content_type, response.charset,
                                    tuple((name, response.headers[name]) for name in KEPT_HEADERS
                                          if name in response.headers), self.clock())
        self._bytes += len(body)
        while len(self._entries) > self.size or self._bytes > self.max_bytes:
            self._drop(next(iter(self._entries)))

    def _drop(self, key: Hashable) -> None:
        gone = self._entries.pop(key, None)
        if gone is not None:
            self._bytes -= len(gone.body)


class Computed:
    """What the server-level pages compute from a server's results (its leaderboards' rows, its lists
    of finished events, the names on them), kept until a result is added or a name changes.

    The key holds the server's id and its `stamp` (read again for every request, so every site
    process keeps its own entries and none is ever stale past the stamp) and what was asked (the
    period, the format, the page, the cursor). What is not in the stamp is never kept here: the
    events in progress, the seasons and the server's title are read for every request. An entry
    also expires after `ttl` seconds (a result whose transaction commits after a later one's: ids
    are handed out before commits); the least recently used go first beyond `size` entries."""

    def __init__(self, *, size: int = 256, ttl: float = 120.0, clock: Callable[[], float] = time.monotonic) -> None:
        self.size, self.ttl, self.clock = size, ttl, clock
        self._entries: OrderedDict[Hashable, tuple[float, Any]] = OrderedDict()
        self.hits = self.misses = 0

    @property
    def enabled(self) -> bool:
        return self.size > 0

    def __len__(self) -> int:
        return len(self._entries)

    async def get(self, key: Hashable, compute: Callable[[], Awaitable[Any]]) -> Any:
        """The value kept under `key`, else what `compute()` returns (then kept)."""
        found = self._entries.get(key)
        if found is not None and self.clock() - found[0] < self.ttl:
            self.hits += 1
            self._entries.move_to_end(key)
            return found[1]
        self.misses += 1
        value = await compute()
        if self.enabled:
            self._entries.pop(key, None)
            self._entries[key] = (self.clock(), value)
            while len(self._entries) > self.size:
                self._entries.popitem(last=False)
        return value
