"""Seasons and the server-wide leaderboard that every format's finished events feed (through
`bot.kit.event_results`, which writes the results and their totals): the boards, the periods they cover,
the seasons' commands' use cases."""

from __future__ import annotations

from dataclasses import dataclass
from datetime import datetime

from sqlalchemy import func, select
from sqlalchemy.exc import IntegrityError
from sqlalchemy.ext.asyncio import AsyncSession

from bot.kit.errors import Conflict, NotFound, UserError
from bot.kit.event_results import ALL_TIME_TOTALS, active_season
from bot.kit.text import clean_name, escape, name_key
from bot.store.db import Database
from bot.store.models import LeaderboardTotal, Season
from bot.store.types import utcnow

# The totals' table columns (see `bot.kit.event_results`).
_KEPT = LeaderboardTotal.__table__.c
CURRENT, ALL_TIME = "current", "all"  # the words /leaderboard takes besides a season's name


@dataclass(frozen=True)
class BoardRow:
    rank: int
    user_id: int
    events: int
    wins: int
    points: float
    best_score: float | None


@dataclass(frozen=True)
class SeasonView:
    id: int
    name: str
    started_at: datetime
    ended_at: datetime | None


@dataclass(frozen=True)
class Period:
    """What a leaderboard covers: one season, or all time (`season_id` None)."""

    season_id: int | None
    title: str  # "season Winter", "all time", "all time (no season running)"
    key: str  # identifies it without its name (a page button's key): the season id, "all" or "none"


ALL_TIME_PERIOD = Period(None, "all time", ALL_TIME)
# What "current" means while no season runs.
NO_SEASON_PERIOD = Period(None, "all time (no season running)", "none")


async def start_season(db: Database, guild_id: int, name: str) -> SeasonView:
    name = clean_name(name)
    if not 1 <= len(name) <= 100:
        raise UserError("A season name is 1–100 characters.")
    if name_key(name) in (CURRENT, ALL_TIME):
        raise UserError(f"**{escape(name)}** means something else to `/leaderboard`; pick another season name.")
    clash = Conflict(f"There was already a season called **{escape(name)}**.")
    try:
        async with db.write() as session:
            current = await active_season(session, guild_id)
            if current is not None:
                raise Conflict(
                    f"Season **{escape(current.name)}** is still running; end it first with `/config season end`."
                )
            if await _season_by_name(session, guild_id, name) is not None:
                raise clash
            season = Season(guild_id=guild_id, name=name, name_key=name_key(name), started_at=utcnow())
            session.add(season)
            await session.flush()
            return SeasonView(season.id, season.name, season.started_at, None)
    except IntegrityError:
        raise clash from None  # two starts of one name raced; the unique key let one through


async def _season_by_name(session: AsyncSession, guild_id: int, name: str) -> Season | None:
    query = select(Season).where(Season.guild_id == guild_id, Season.name_key == name_key(name))
    return (await session.execute(query)).scalar_one_or_none()


async def end_season(db: Database, guild_id: int) -> SeasonView:
    async with db.write() as session:
        current = await active_season(session, guild_id)
        if current is None:
            raise NotFound("No season is running.")
        current.ended_at = utcnow()
        return SeasonView(current.id, current.name, current.started_at, current.ended_at)


async def season_names(db: Database, guild_id: int, typed: str = "", limit: int = 25) -> list[str]:
    """Season names, newest first, that contain what was typed (compared by name key)."""
    needle = name_key(typed)
    async with db.read() as session:
        rows = await session.execute(
            select(Season.name).where(Season.guild_id == guild_id).order_by(Season.started_at.desc())
        )
        return [name for name in rows.scalars() if needle in name_key(name)][:limit]


async def find_period(db: Database, guild_id: int, season: str = CURRENT) -> Period:
    """What `/leaderboard season:` asked for: "current" (or nothing) is the running season, else
    all time; "all" is all time; anything else is a season's name."""
    key = name_key(season)
    if key == ALL_TIME:
        return ALL_TIME_PERIOD
    async with db.read() as session:
        if key in (CURRENT, ""):
            return await current_period(session, guild_id)
        chosen = await _season_by_name(session, guild_id, season)
    if chosen is None:
        raise NotFound(f"There is no season called **{escape(clean_name(season))}**.")
    return _season_period(chosen)


async def current_period(session: AsyncSession, guild_id: int) -> Period:
    """The running season's period, else all time (no season running)."""
    running = await active_season(session, guild_id)
    return NO_SEASON_PERIOD if running is None else _season_period(running)


async def period_by_key(db: Database, guild_id: int, key: str) -> Period:
    """The period a :attr:`Period.key` names (a page button's key)."""
    for fixed in (ALL_TIME_PERIOD, NO_SEASON_PERIOD):
        if key == fixed.key:
            return fixed
    season = None
    if key.isdigit() and int(key) < 2**63:
        async with db.read() as session:
            season = await session.get(Season, int(key))
    if season is None or season.guild_id != guild_id:
        raise NotFound("That season is no longer here. `/leaderboard` shows the current one.")
    return _season_period(season)


def _season_period(season: Season) -> Period:
    return Period(season.id, f"season {season.name}", str(season.id))


def _period_key(period: Period) -> int:
    return ALL_TIME_TOTALS if period.season_id is None else period.season_id


def _totals(*by, guild_id: int, period: Period):
    """Per `by` columns: events, wins, points and best score of the server's players in `period`
    (summed over formats unless `by` has the format)."""
    return select(
        *by, func.sum(_KEPT.events), func.sum(_KEPT.wins), func.sum(_KEPT.points), func.max(_KEPT.best_score)
    ).where(_KEPT.guild_id == guild_id, _KEPT.period == _period_key(period))


async def board(db: Database, guild_id: int, period: Period, *, format: str | None = None) -> list[BoardRow]:
    """Rows for `period`, ranked by points, then wins, then best score (a format's board only: the
    board of all formats has no best score, since one format's score means nothing beside another's)."""
    query = _totals(_KEPT.user_id, guild_id=guild_id, period=period)
    if format is not None:
        query = query.where(_KEPT.format == format)
    async with db.read() as session:
        rows = (await session.execute(query.group_by(_KEPT.user_id))).all()
    return _ranked(rows if format is not None else [(*row[:4], None) for row in rows])


def _ranked(rows, limit: int | None = None) -> list[BoardRow]:
    """(user, events, wins, points, best score) rows, ranked by points, then wins, then best score
    (the first `limit` of them)."""
    ordered = sorted(rows, key=lambda r: (-(r[3] or 0), -(r[2] or 0), -(r[4] or 0), r[0]))
    return [
        BoardRow(rank, user_id, events, wins or 0, float(points or 0), best)
        for rank, (user_id, events, wins, points, best) in enumerate(ordered[:limit], start=1)
    ]


async def boards(db: Database, guild_id: int, period: Period, *,
                 limit: int | None = None) -> dict[str | None, list[BoardRow]]:
    """Every format's board for `period` and (key None) the board of all formats, from one query;
    `limit`: only each board's first rows."""
    return boards_of(await totals_by_format(db, guild_id, period), limit)


async def totals_by_format(db: Database, guild_id: int, period: Period) -> list[tuple]:
    """(format, user, events, wins, points, best score) of every player and format in `period`."""
    query = select(_KEPT.format, _KEPT.user_id, _KEPT.events, _KEPT.wins, _KEPT.points, _KEPT.best_score)
    async with db.read() as session:
        return [tuple(row) for row in await session.execute(
            query.where(_KEPT.guild_id == guild_id, _KEPT.period == _period_key(period)))]


def boards_of(rows, limit: int | None = None) -> dict[str | None, list[BoardRow]]:
    """The boards of `totals_by_format`'s rows: every format's and (key None) all formats' (each one's
    first `limit` rows)."""
    by_format: dict[str, list[tuple]] = {}
    totals: dict[int, list] = {}
    for fmt, user_id, events, wins, points, best in rows:
        by_format.setdefault(fmt, []).append((user_id, events, wins, points, best))
        total = totals.setdefault(user_id, [user_id, 0, 0, 0.0, None])
        total[1] += events
        total[2] += wins or 0
        total[3] += points or 0  # no best score: a Goldfish score is no Turnabout rating
    return {None: _ranked(totals.values(), limit), **{fmt: _ranked(rows, limit) for fmt, rows in by_format.items()}}


async def standings(
    db: Database, guild_id: int, *, format: str | None = None, season: str = CURRENT
) -> tuple[str, list[BoardRow]]:
    """(title of the period, rows ranked by points then wins). `season`: "current", "all" or a name."""
    period = await find_period(db, guild_id, season)
    return period.title, await board(db, guild_id, period, format=format)
