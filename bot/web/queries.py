"""What the server-level pages read: finished events (from the leaderboard's result rows; the seasons
are the leaderboard's, `bot.features.leaderboard.web`). Every query is scoped by the server's guild id."""

from __future__ import annotations

import re
from collections.abc import Awaitable, Callable, Sequence
from dataclasses import dataclass
from datetime import UTC, datetime, timedelta

from sqlalchemy import select, tuple_
from sqlalchemy.ext.asyncio import AsyncSession

from bot.store.models import EventResult

EPOCH, MICROSECOND = datetime(1970, 1, 1, tzinfo=UTC), timedelta(microseconds=1)
CURSOR = re.compile(r"(?P<micros>\d{1,17})\.(?P<format>[a-z0-9_]{1,32})\.(?P<event>\d{1,19})")
Cursor = tuple[datetime, str, int]  # (finished_at, format, event id): where a page of the events list starts


@dataclass(frozen=True)
class FinishedEvent:
    format: str
    event_id: int
    name: str
    finished_at: datetime
    players: int
    winners: tuple[int, ...]
    format_title: str | None = None  # what the lists call its format, when it has no leaderboard

    @property
    def cursor(self) -> str:
        """Where the list of events older than this one starts (`recent_events(before=…)`)."""
        micros = (self.finished_at - EPOCH) // MICROSECOND
        return f"{micros}.{self.format}.{self.event_id}"


@dataclass(frozen=True)
class Result:
    user_id: int
    placement: int
    points: float
    score: float | None


def _parse_cursor(cursor: str) -> Cursor | None:
    match = CURSOR.fullmatch(cursor)
    if match is None or int(match["event"]) >= 2**63:
        return None
    try:
        when = EPOCH + int(match["micros"]) * MICROSECOND
    except OverflowError:
        return None
    return when, match["format"], int(match["event"])


FinishedLister = Callable[[AsyncSession, int, int, Cursor | None], Awaitable[list[FinishedEvent]]]


async def recent_events(session: AsyncSession, guild_id: int, limit: int, before: str | None = None, *,
                        more: Sequence[FinishedLister] = ()) -> list[FinishedEvent]:
    """The server's finished events, newest first (`before`: older than that event's cursor): those
    with results, and those that `more` finds (events that write no results, `registry.finished_events`)."""
    parsed = _parse_cursor(before) if before is not None else None
    if before is not None and parsed is None:
        return []
    found = await _with_results(session, guild_id, limit, parsed)
    for lister in more:
        found.extend(await lister(session, guild_id, limit, parsed))
    found.sort(key=lambda e: (e.finished_at, e.format, e.event_id), reverse=True)
    return found[:limit]


async def _with_results(session: AsyncSession, guild_id: int, limit: int, parsed: Cursor | None) -> list[FinishedEvent]:
    keys = select(EventResult.finished_at, EventResult.format, EventResult.event_id).where(EventResult.guild_id == guild_id)
    if parsed is not None:
        keys = keys.where(tuple_(EventResult.finished_at, EventResult.format, EventResult.event_id) < tuple_(*parsed))
    order = (EventResult.finished_at.desc(), EventResult.format.desc(), EventResult.event_id.desc())
    found = (await session.execute(keys.distinct().order_by(*order).limit(limit))).all()
    if not found:
        return []
    # Their rows, by the time range they span (the index of recent events; a list of (format, id)
    # pairs makes SQLite read the whole server's rows).
    wanted = {(f, e) for _, f, e in found}
    rows = await session.execute(
        select(EventResult.format, EventResult.event_id, EventResult.event_name, EventResult.user_id,
               EventResult.placement)
        .where(EventResult.guild_id == guild_id, EventResult.finished_at.between(found[-1][0], found[0][0]))
    )
    names: dict[tuple[str, int], str] = {}
    players: dict[tuple[str, int], int] = {}
    winners: dict[tuple[str, int], list[int]] = {}
    for fmt, event_id, name, user_id, placement in rows:
        key = (fmt, event_id)
        if key not in wanted:
            continue
        names[key] = name
        players[key] = players.get(key, 0) + 1
        if placement == 1:
            winners.setdefault(key, []).append(user_id)
    return [FinishedEvent(fmt, event_id, names[(fmt, event_id)], finished, players[(fmt, event_id)],
                          tuple(sorted(winners.get((fmt, event_id), ()))))
            for finished, fmt, event_id in found]


async def event_results(session: AsyncSession, guild_id: int, format: str, event_id: int) -> tuple[FinishedEvent, list[Result]] | None:
    """One finished event of the server and its results by placement; None if it has none."""
    if not 0 < event_id < 2**63:
        return None
    rows = (await session.execute(
        select(EventResult).where(EventResult.guild_id == guild_id, EventResult.format == format,
                                  EventResult.event_id == event_id)
        .order_by(EventResult.placement, EventResult.points.desc(), EventResult.user_id)
    )).scalars().all()
    if not rows:
        return None
    event = FinishedEvent(format, event_id, rows[0].event_name, max(r.finished_at for r in rows), len(rows),
                          tuple(r.user_id for r in rows if r.placement == 1))
    return event, [Result(r.user_id, r.placement, r.points, r.score) for r in rows]
