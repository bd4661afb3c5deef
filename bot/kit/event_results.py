"""Recording an event's results: the framework's part of the leaderboard (`bot.features.leaderboard`).

An event's end writes a row per player (`EventResult`, `record_results`) and, in the same
transaction, adds them to each player's totals for all time and for the running season
(`LeaderboardTotal`): the boards rank those, a row per player and format, however many events the
server has played. Their score sums (`score_total`) are Turnabout's ratings
(`bot.games.turnabout.service.ratings`). It stays in the kit because every format writes its results in
its own closing transaction: a format must not import a feature for a framework duty."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass

from sqlalchemy import case, delete, func, insert, literal, or_, select
from sqlalchemy.dialects.postgresql import insert as postgresql_insert
from sqlalchemy.dialects.sqlite import insert as sqlite_insert
from sqlalchemy.ext.asyncio import AsyncSession

from bot.store.models import EventResult, LeaderboardTotal, Season
from bot.store.types import utcnow

ALL_TIME_TOTALS = 0  # `LeaderboardTotal.period` of all time (seasons' ids start at 1)
_UPSERT_ROWS = 1_000  # totals rows a statement: 8,000 parameters, well within SQLite's limit (32,766)
# The totals' table columns, not the model's attributes: Core statements, whose rows skip the ORM's
# loading (a millisecond of the ~1,500 rows a board reads with 10,000 events).
_KEPT = LeaderboardTotal.__table__.c


@dataclass(frozen=True)
class Placement:
    user_id: int
    placement: int
    points: float
    score: float | None = None


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
    """Write an event's final results, and add them to the leaderboards' totals (inside the caller's
    transaction, so both land with the close)."""
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
    await add_to_totals(session, guild_id=guild_id, format=format, season_id=season.id if season else None,
                        results=results)


async def add_to_totals(
    session: AsyncSession, *, guild_id: int, format: str, season_id: int | None, results: Sequence[Placement]
) -> None:
    """Add one event's results to the server's totals for all time and for its season (if any), in
    the caller's transaction. One statement that inserts a player's row or adds to it: atomic per
    row on PostgreSQL, so bot processes ending events of one server at once lose no update. Its rows
    go in key order, so two such statements lock shared rows in the same order (no deadlock)."""
    sums: dict[int, list] = {}
    for result in results:  # one row per player: a statement may not change a row twice
        total = sums.setdefault(result.user_id, [0, 0, 0.0, None, 0.0])
        total[0] += 1
        total[1] += result.placement == 1
        total[2] += result.points
        if result.score is not None and (total[3] is None or result.score > total[3]):
            total[3] = result.score
        total[4] += result.score or 0.0
    if not sums:
        return
    periods = [ALL_TIME_TOTALS] if season_id is None else [ALL_TIME_TOTALS, season_id]
    rows = [{"guild_id": guild_id, "period": period, "format": format, "user_id": user_id, "events": events,
             "wins": wins, "points": points, "best_score": best, "score_total": scores}
            for period in periods for user_id, (events, wins, points, best, scores) in sorted(sums.items())]
    upsert = postgresql_insert if session.bind.dialect.name == "postgresql" else sqlite_insert
    for start in range(0, len(rows), _UPSERT_ROWS):
        statement = upsert(LeaderboardTotal).values(rows[start:start + _UPSERT_ROWS])
        kept, new = _KEPT, statement.excluded
        await session.execute(statement.on_conflict_do_update(
            index_elements=[kept.guild_id, kept.period, kept.format, kept.user_id],
            set_={"events": kept.events + new.events, "wins": kept.wins + new.wins,
                  "points": kept.points + new.points, "score_total": kept.score_total + new.score_total,
                  # The greater of the two, either of them NULL (no score) or not: GREATEST and
                  # MAX(a, b) treat NULL differently on the two backends.
                  "best_score": case((new.best_score.is_(None), kept.best_score),
                                     (or_(kept.best_score.is_(None), new.best_score > kept.best_score),
                                      new.best_score),
                                     else_=kept.best_score)},
        ))


async def rebuild_totals(session: AsyncSession, guild_id: int) -> None:
    """Compute one server's totals again from its results, in the caller's transaction: for results
    written other than through `record_results` (a benchmark's or a test's rows, in bulk)."""
    await session.execute(delete(LeaderboardTotal).where(LeaderboardTotal.guild_id == guild_id))
    sums = (func.count(EventResult.id), func.sum(case((EventResult.placement == 1, 1), else_=0)),
            func.sum(EventResult.points), func.max(EventResult.score),
            func.coalesce(func.sum(EventResult.score), 0.0))
    every = select(EventResult.guild_id, literal(ALL_TIME_TOTALS), EventResult.format, EventResult.user_id, *sums)
    every = every.where(EventResult.guild_id == guild_id).group_by(EventResult.guild_id, EventResult.format,
                                                                   EventResult.user_id)
    seasons = select(EventResult.guild_id, EventResult.season_id, EventResult.format, EventResult.user_id, *sums)
    seasons = seasons.where(EventResult.guild_id == guild_id, EventResult.season_id.is_not(None))
    seasons = seasons.group_by(EventResult.guild_id, EventResult.season_id, EventResult.format, EventResult.user_id)
    columns = ["guild_id", "period", "format", "user_id", "events", "wins", "points", "best_score", "score_total"]
    await session.execute(insert(LeaderboardTotal).from_select(columns, every.union_all(seasons)))
