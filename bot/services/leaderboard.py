"""Seasons and the server-wide leaderboard that every format's finished events feed."""

from __future__ import annotations

from dataclasses import dataclass
from datetime import datetime

from sqlalchemy import case, func, select
from sqlalchemy.ext.asyncio import AsyncSession

from bot.services.errors import Conflict, NotFound, UserError
from bot.store.db import Database
from bot.store.models import EventResult, Season
from bot.store.types import utcnow

FORMATS = {"goldfish": "Goldfish Draft", "battler": "Treasure Battler"}


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


def placement_points(placement: int, players: int) -> float:
    """League points for one event, the same for every format: one per player you finished ahead
    of, plus one for playing (8 players: 1st gets 8, last gets 1)."""
    return float(players - placement + 1)


def rank_by_score(scores: dict[int, float]) -> list[Placement]:
    """Highest score first; equal scores share a placement (1, 2, 2, 4) and its points."""
    ordered = sorted(scores.items(), key=lambda item: (-item[1], item[0]))
    placements: list[Placement] = []
    for index, (user_id, score) in enumerate(ordered):
        place = placements[-1].placement if index and score == ordered[index - 1][1] else index + 1
        placements.append(Placement(user_id, place, placement_points(place, len(ordered)), score))
    return placements


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
    name = " ".join(name.split())
    if not 1 <= len(name) <= 100:
        raise UserError("A season name is 1–100 characters.")
    async with db.write() as session:
        current = await active_season(session, guild_id)
        if current is not None:
            raise Conflict(f"Season **{current.name}** is still running; end it first with `/config season end`.")
        clash = await session.execute(select(Season.id).where(Season.guild_id == guild_id, Season.name == name))
        if clash.first() is not None:
            raise Conflict(f"There was already a season called **{name}**.")
        season = Season(guild_id=guild_id, name=name, started_at=utcnow())
        session.add(season)
        await session.flush()
        return SeasonView(season.id, season.name, season.started_at, None)


async def end_season(db: Database, guild_id: int) -> SeasonView:
    async with db.write() as session:
        current = await active_season(session, guild_id)
        if current is None:
            raise NotFound("No season is running.")
        current.ended_at = utcnow()
        return SeasonView(current.id, current.name, current.started_at, current.ended_at)


async def season_names(db: Database, guild_id: int) -> list[str]:
    async with db.read() as session:
        rows = await session.execute(
            select(Season.name).where(Season.guild_id == guild_id).order_by(Season.started_at.desc())
        )
        return list(rows.scalars())


async def standings(
    db: Database, guild_id: int, *, format: str | None = None, season: str = "current"
) -> tuple[str, list[BoardRow]]:
    """(title of the period, rows ranked by points then wins). `season`: "current", "all" or a name."""
    async with db.read() as session:
        query = select(
            EventResult.user_id,
            func.count(EventResult.id),
            func.sum(case((EventResult.placement == 1, 1), else_=0)),
            func.sum(EventResult.points),
            func.max(EventResult.score),
        ).where(EventResult.guild_id == guild_id)
        if format is not None:
            query = query.where(EventResult.format == format)
        if season == "all":
            period = "all time"
        else:
            if season == "current":
                chosen = await active_season(session, guild_id)
                if chosen is None:
                    raise NotFound("No season is running: ask for `season: all`, or start one with `/config season start`.")
            else:
                chosen = (
                    await session.execute(select(Season).where(Season.guild_id == guild_id, Season.name == season))
                ).scalar_one_or_none()
                if chosen is None:
                    raise NotFound(f"There is no season called **{season}**.")
            query = query.where(EventResult.season_id == chosen.id)
            period = f"season {chosen.name}"
        rows = (await session.execute(query.group_by(EventResult.user_id))).all()
    ordered = sorted(rows, key=lambda r: (-(r[3] or 0), -(r[2] or 0), -(r[4] or 0), r[0]))
    return period, [
        BoardRow(rank, user_id, events, wins or 0, float(points or 0), best)
        for rank, (user_id, events, wins, points, best) in enumerate(ordered, start=1)
    ]
