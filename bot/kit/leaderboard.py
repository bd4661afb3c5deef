"""Seasons and the server-wide leaderboard that every format's finished events feed."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from datetime import datetime

from sqlalchemy import case, func, select
from sqlalchemy.exc import IntegrityError
from sqlalchemy.ext.asyncio import AsyncSession

from bot.kit.errors import Conflict, NotFound, UserError
from bot.kit.text import clean_name, escape, name_key
from bot.store.db import Database
from bot.store.models import EventResult, Season
from bot.store.types import utcnow

FORMATS = {"goldfish": "Goldfish Draft", "battler": "Treasure Battler", "turnabout": "Turnabout", "421": "421",
           "vortex": "Vortex Based Magic"}
CURRENT, ALL_TIME = "current", "all"  # the words /leaderboard takes besides a season's name


@dataclass(frozen=True)
class Placement:
    user_id: int
    placement: int
    points: float
    score: float | None = None


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


def placement_points(placement: int, placements: Sequence[int]) -> float:
    """League points for one event, the same for every format: one per player you finished ahead
    of, plus one for playing (8 players: 1st gets 8, last gets 1). `placements` are every player's
    placements in the event: players who share a place finished ahead of none of each other, so two
    sharing 2nd of 4 (1, 2, 2, 4) get 2 each."""
    return float(1 + sum(1 for other in placements if other > placement))


def placed(places: Sequence[tuple[int, int]], scores: Mapping[int, float] | None = None) -> list[Placement]:
    """(user id, placement) pairs as results with their points (and each one's score, if given)."""
    everyone = [place for _, place in places]
    return [
        Placement(user_id, place, placement_points(place, everyone), None if scores is None else scores.get(user_id))
        for user_id, place in places
    ]


def rank_by_score(scores: dict[int, float]) -> list[Placement]:
    """Highest score first; equal scores share a placement (1, 2, 2, 4) and its points."""
    ordered = sorted(scores.items(), key=lambda item: (-item[1], item[0]))
    places: list[tuple[int, int]] = []
    for index, (user_id, score) in enumerate(ordered):
        place = places[-1][1] if index and score == ordered[index - 1][1] else index + 1
        places.append((user_id, place))
    return placed(places, scores)


async def active_season(session: AsyncSession, guild_id: int) -> Season | None:
    query = select(Season).where(Season.guild_id == guild_id, Season.ended_at.is_(None))
    return (await session.execute(query.order_by(Season.started_at.desc()).limit(1))).scalar_one_or_none()


async def record_results(
    session: AsyncSession, *, guild_id: int, format: str, event_id: int, event_name: str, results: list[Placement]
) -> None:
    """Write an event's final results (inside the caller's transaction, so it lands with the close)."""
    season = await active_season(session, guild_id)
    now = utcnow()
    for result in results:
        session.add(
            EventResult(
                guild_id=guild_id,
                format=format,
                event_id=event_id,
                event_name=event_name,
                season_id=season.id if season else None,
                user_id=result.user_id,
                placement=result.placement,
                points=result.points,
                score=result.score,
                finished_at=now,
            )
        )


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


def _totals(*by, guild_id: int, period: Period):
    """Per `by` columns: events, wins, points and best score of the server's results in `period`."""
    query = select(
        *by,
        func.count(EventResult.id),
        func.sum(case((EventResult.placement == 1, 1), else_=0)),
        func.sum(EventResult.points),
        func.max(EventResult.score),
    ).where(EventResult.guild_id == guild_id)
    if period.season_id is not None:
        query = query.where(EventResult.season_id == period.season_id)
    return query


async def board(db: Database, guild_id: int, period: Period, *, format: str | None = None) -> list[BoardRow]:
    """Rows for `period`, ranked by points, then wins, then best score."""
    query = _totals(EventResult.user_id, guild_id=guild_id, period=period)
    if format is not None:
        query = query.where(EventResult.format == format)
    async with db.read() as session:
        rows = (await session.execute(query.group_by(EventResult.user_id))).all()
    return _ranked(rows)


def _ranked(rows) -> list[BoardRow]:
    """(user, events, wins, points, best score) rows, ranked by points, then wins, then best score."""
    ordered = sorted(rows, key=lambda r: (-(r[3] or 0), -(r[2] or 0), -(r[4] or 0), r[0]))
    return [
        BoardRow(rank, user_id, events, wins or 0, float(points or 0), best)
        for rank, (user_id, events, wins, points, best) in enumerate(ordered, start=1)
    ]


async def boards(db: Database, guild_id: int, period: Period) -> dict[str | None, list[BoardRow]]:
    """Every format's board for `period` and (key None) the board of all formats, from one query."""
    return boards_of(await totals_by_format(db, guild_id, period))


async def totals_by_format(db: Database, guild_id: int, period: Period) -> list[tuple]:
    """(format, user, events, wins, points, best score) of every player and format in `period`."""
    query = _totals(EventResult.format, EventResult.user_id, guild_id=guild_id, period=period)
    async with db.read() as session:
        # Grouped in the order of the index of players' results (ix_event_results_players): no sort.
        return [tuple(row) for row in await session.execute(query.group_by(EventResult.user_id, EventResult.format))]


def boards_of(rows) -> dict[str | None, list[BoardRow]]:
    """The boards of `totals_by_format`'s rows: every format's and (key None) all formats'."""
    by_format: dict[str, list[tuple]] = {}
    totals: dict[int, list] = {}
    for fmt, user_id, events, wins, points, best in rows:
        by_format.setdefault(fmt, []).append((user_id, events, wins, points, best))
        total = totals.setdefault(user_id, [user_id, 0, 0, 0.0, None])
        total[1] += events
        total[2] += wins or 0
        total[3] += points or 0
        if best is not None and (total[4] is None or best > total[4]):
            total[4] = best
    return {None: _ranked(totals.values()), **{fmt: _ranked(rows) for fmt, rows in by_format.items()}}


async def standings(
    db: Database, guild_id: int, *, format: str | None = None, season: str = CURRENT
) -> tuple[str, list[BoardRow]]:
    """(title of the period, rows ranked by points then wins). `season`: "current", "all" or a name."""
    period = await find_period(db, guild_id, season)
    return period.title, await board(db, guild_id, period, format=format)
