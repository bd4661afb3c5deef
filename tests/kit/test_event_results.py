"""The leaderboards' totals (`leaderboard_totals`) against SQLite and PostgreSQL: after any events
ending, seasons starting and ending in between, they are exactly the sums of the results for all
time and for every season, so the boards read from them are the boards summed from every result;
they are written in the transaction of the results, and bot processes ending events of one server
at once lose nothing."""

from __future__ import annotations

import asyncio
import itertools
import random

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from sqlalchemy import case, func, select

import bot.games
from bot.features.leaderboard import service as leaderboard
from bot.kit import event_results
from bot.store.db import Database
from bot.store.models import EventResult, LeaderboardTotal, Season
from tests.common import GUILD, OTHER_GUILD

USERS = [1001, 1002, 1003, 1004, 1005, 1006]


async def summed_from_results(db: Database, guild_id: int) -> dict[int, list[tuple]]:
    """What the totals must be: {period: sorted (format, user, events, wins, points, best score, scores
    summed)},
    summed from the server's results the way the boards were before there were totals (all time,
    and each season from its own results)."""
    sums = (func.count(EventResult.id), func.sum(case((EventResult.placement == 1, 1), else_=0)),
            func.sum(EventResult.points), func.max(EventResult.score), func.coalesce(func.sum(EventResult.score), 0.0))
    by = (EventResult.format, EventResult.user_id)
    found: dict[int, list[tuple]] = {}
    async with db.read() as session:
        every = await session.execute(select(*by, *sums).where(EventResult.guild_id == guild_id).group_by(*by))
        found[event_results.ALL_TIME_TOTALS] = sorted(tuple(row) for row in every)
        seasons = await session.execute(
            select(EventResult.season_id, *by, *sums)
            .where(EventResult.guild_id == guild_id, EventResult.season_id.is_not(None))
            .group_by(EventResult.season_id, *by))
        for season_id, *row in seasons:
            found.setdefault(season_id, []).append(tuple(row))
    return {period: sorted(rows) for period, rows in found.items() if rows}


async def kept_totals(db: Database, guild_id: int) -> dict[int, list[tuple]]:
    """The totals table's rows of the server, in the same shape."""
    kept = LeaderboardTotal
    found: dict[int, list[tuple]] = {}
    async with db.read() as session:
        rows = await session.execute(
            select(kept.period, kept.format, kept.user_id, kept.events, kept.wins, kept.points, kept.best_score,
                   kept.score_total)
            .where(kept.guild_id == guild_id))
        for period, *row in rows:
            found.setdefault(period, []).append(tuple(row))
    return {period: sorted(rows) for period, rows in found.items()}


async def assert_totals_are_the_results(db: Database, guild_id: int) -> None:
    expected = await summed_from_results(db, guild_id)
    assert await kept_totals(db, guild_id) == expected
    # And so the boards, ranked from the totals, are the boards ranked from every result.
    async with db.read() as session:
        season_ids = (await session.execute(select(Season.id).where(Season.guild_id == guild_id))).scalars().all()
    periods = [leaderboard.ALL_TIME_PERIOD, *(leaderboard.Period(s, "season", str(s)) for s in season_ids)]
    for period in periods:
        rows = expected.get(event_results.ALL_TIME_TOTALS if period.season_id is None else period.season_id, [])
        want = leaderboard.boards_of([row[:6] for row in rows])  # (the board shows no score sum)
        assert await leaderboard.boards(db, guild_id, period) == want
        assert await leaderboard.board(db, guild_id, period) == want[None]
        for fmt in bot.games.leaderboard_titles():
            assert await leaderboard.board(db, guild_id, period, format=fmt) == want.get(fmt, [])


async def end_event(db: Database, guild_id: int, fmt: str, event_id: int, placements: list[tuple[int, int, float | None]]):
    """An event's end as every format writes it: `record_results` in the closing transaction."""
    places = [place for _, place, _ in placements]
    results = [event_results.Placement(user, place, event_results.placement_points(place, places), score)
               for user, place, score in placements]
    async with db.write() as session:
        await event_results.record_results(session, guild_id=guild_id, format=fmt, event_id=event_id,
                                         event_name=f"Event {event_id}", results=results)


async def test_record_results_adds_to_the_totals_in_its_transaction(db):
    await end_event(db, GUILD, "421", 1, [(1001, 1, 30.0), (1002, 2, None), (1003, 2, 12.5)])
    assert await kept_totals(db, GUILD) == {event_results.ALL_TIME_TOTALS: [
        ("421", 1001, 1, 1, 3.0, 30.0, 30.0), ("421", 1002, 1, 0, 1.0, None, 0.0),
        ("421", 1003, 1, 0, 1.0, 12.5, 12.5)]}
    season = await leaderboard.start_season(db, GUILD, "Winter")
    await end_event(db, GUILD, "421", 2, [(1002, 1, 40.0), (1001, 2, 10.0)])
    totals = await kept_totals(db, GUILD)
    assert totals[event_results.ALL_TIME_TOTALS] == [
        ("421", 1001, 2, 1, 4.0, 30.0, 40.0), ("421", 1002, 2, 1, 3.0, 40.0, 40.0),
        ("421", 1003, 1, 0, 1.0, 12.5, 12.5)]
    assert totals[season.id] == [("421", 1001, 1, 0, 1.0, 10.0, 10.0), ("421", 1002, 1, 1, 2.0, 40.0, 40.0)]
    assert [(r.user_id, r.points) for r in await leaderboard.board(db, GUILD, await leaderboard.find_period(db, GUILD))
            ] == [(1002, 2.0), (1001, 1.0)]

    class Abandoned(Exception):
        pass

    with pytest.raises(Abandoned):  # the close fails after the results: neither they nor the totals land
        async with db.write() as session:
            await event_results.record_results(session, guild_id=GUILD, format="421", event_id=3, event_name="x",
                                             results=event_results.placed([(1003, 1), (1001, 2)]))
            raise Abandoned
    assert await kept_totals(db, GUILD) == totals
    await assert_totals_are_the_results(db, GUILD)
    assert await kept_totals(db, OTHER_GUILD) == {}


# One step of a server's life: an event of a format ends with some players (a place and maybe a
# score each), or a season starts, or the running one ends.
_placings = st.lists(st.tuples(st.integers(1, 4), st.one_of(st.none(), st.floats(-5, 40, width=16))),
                     min_size=1, max_size=len(USERS))
_step = st.one_of(
    st.tuples(st.just("event"), st.sampled_from(list(bot.games.leaderboard_titles())), _placings),
    st.just(("start",)),
    st.just(("end",)),
)
_guilds = itertools.count(10_000)  # a server of its own for each example: the database is the test's


@settings(max_examples=20, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture,
                                                                  HealthCheck.too_slow])
@given(steps=st.lists(_step, min_size=1, max_size=10), seed=st.integers(0, 2**16))
async def test_totals_are_the_sums_of_the_results_after_any_events_and_seasons(db, steps, seed):
    guild_id, rng = next(_guilds), random.Random(seed)
    for index, step in enumerate(steps, start=1):
        if step[0] == "event":
            _, fmt, placings = step
            users = rng.sample(USERS, len(placings))
            await end_event(db, guild_id, fmt, index, [(u, place, score) for u, (place, score) in zip(users, placings, strict=True)])
        elif step[0] == "start":
            if await _running(db, guild_id) is None:
                await leaderboard.start_season(db, guild_id, f"Season {index}")
        elif await _running(db, guild_id) is not None:
            await leaderboard.end_season(db, guild_id)
    await assert_totals_are_the_results(db, guild_id)


async def _running(db: Database, guild_id: int):
    async with db.read() as session:
        return await event_results.active_season(session, guild_id)


async def test_processes_ending_events_of_one_server_at_once_lose_nothing(db):
    """Two processes (two engines: on PostgreSQL, two connections in their own transactions at once)
    end events of one format with the same players: each adds to rows the other inserted or changed
    and has not committed yet. Every result is counted once and no statement deadlocks."""
    second = Database(db.url)
    together = asyncio.Barrier(2)  # each round, both processes end an event at the same moment
    try:
        season = await leaderboard.start_season(db, GUILD, "Race")
        rng = random.Random(3)

        async def ends(process: Database, first_id: int) -> None:
            for event_id in range(first_id, first_id + 12):
                players = rng.sample(USERS, rng.randint(2, len(USERS)))
                results = event_results.rank_by_score({u: float(rng.randint(0, 3)) for u in players})
                await asyncio.wait_for(together.wait(), 30)
                async with process.write() as session:  # on PostgreSQL, open beside the other's
                    await event_results.record_results(session, guild_id=GUILD, format="vortex", event_id=event_id,
                                                     event_name="race", results=results)

        await asyncio.gather(ends(db, 1), ends(second, 101))
        await assert_totals_are_the_results(db, GUILD)
        totals = await kept_totals(db, GUILD)
        assert sum(row[2] for row in totals[season.id]) == sum(row[2] for row in totals[0]) > 24
    finally:
        await second.dispose()


async def test_rebuild_gives_a_servers_totals_from_its_results(db):
    """Results written in bulk (a benchmark's) get their totals from `rebuild_totals`; another
    server's are untouched."""
    season = await leaderboard.start_season(db, GUILD, "Spring")
    await end_event(db, OTHER_GUILD, "battler", 1, [(1001, 1, 3.0), (1002, 2, 1.0)])
    theirs = await kept_totals(db, OTHER_GUILD)
    async with db.write() as session:
        for event_id in range(1, 30):
            for place, user in enumerate(random.Random(event_id).sample(USERS, 3), start=1):
                session.add(EventResult(guild_id=GUILD, format=list(bot.games.leaderboard_titles())[event_id % 5],
                                        event_id=event_id, event_name="bulk", user_id=user, placement=place,
                                        season_id=season.id if event_id % 3 else None, points=float(4 - place),
                                        score=None if event_id % 4 else float(event_id)))
    assert await kept_totals(db, GUILD) == {}
    for _ in range(2):  # and again: the same, not doubled
        async with db.write() as session:
            await event_results.rebuild_totals(session, GUILD)
        await assert_totals_are_the_results(db, GUILD)
    assert await kept_totals(db, OTHER_GUILD) == theirs
