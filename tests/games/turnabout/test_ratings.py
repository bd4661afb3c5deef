"""Turnabout's ratings read from kept totals (`leaderboard_totals.score_total`, added to in each
event's closing transaction), on SQLite and PostgreSQL: after any events of any format ending and
seasons coming and going, they are exactly the ratings summed from every stored result, as they
were computed before they were kept; a real event's end adds its awards at once."""

from __future__ import annotations

import itertools
import random
from types import SimpleNamespace

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from sqlalchemy import func, select

from bot.features.leaderboard import service as leaderboard
from bot.games.turnabout import rules as engine
from bot.games.turnabout import service as turnabout
from bot.games.turnabout import web as turnabout_web
from bot.kit import event_results
from bot.store.db import Database
from bot.store.models import EventResult
from bot.web.registry import PageContext
from tests.common import GUILD, OTHER_GUILD
from tests.games.turnabout.test_service import ORG, play_round, registered

USERS = [1001, 1002, 1003, 1004, 1005, 1006, 1007]


async def ratings_from_results(db: Database, guild_id: int) -> list[turnabout.Rating]:
    """The ratings as they were computed before they were kept: every Turnabout result's award summed."""
    async with db.read() as session:
        rows = (await session.execute(
            select(EventResult.user_id, func.sum(EventResult.score), func.count(EventResult.id))
            .where(EventResult.guild_id == guild_id, EventResult.format == turnabout.KIND)
            .group_by(EventResult.user_id))).all()
    ordered = sorted(rows, key=lambda r: (-(r[1] or 0.0), r[0]))
    return [turnabout.Rating(i, user, float(total or 0.0), count) for i, (user, total, count) in enumerate(ordered, 1)]


async def page_ratings(db: Database, guild_id: int, users: list[int]) -> dict[int, tuple[float, int]]:
    """What the event page shows for `users` (`bot.games.turnabout.web._ratings`)."""
    ctx = PageContext(db=db, site=SimpleNamespace(guild_id=guild_id), links=None, settings=None, query={})
    return await turnabout_web._ratings(ctx, users)


async def assert_kept_ratings_are_the_results(db: Database, guild_id: int, rng: random.Random) -> None:
    expected = await ratings_from_results(db, guild_id)
    assert await turnabout.ratings(db, guild_id) == expected
    some = rng.sample(USERS, rng.randint(1, len(USERS)))
    assert await page_ratings(db, guild_id, some) == {r.user_id: (r.rating, r.events) for r in expected
                                                       if r.user_id in some}


# One step: an event ends (Turnabout with an award each, a multiple of ½ as the rules give; or
# another format with a score or none), or a season starts, or the running one ends.
_awards = st.lists(st.integers(0, 80).map(lambda n: n / 2), min_size=1, max_size=len(USERS))
_step = st.one_of(
    st.tuples(st.just("turnabout"), _awards, st.sampled_from([GUILD, OTHER_GUILD])),
    st.tuples(st.just("other"), st.sampled_from(["421", "battler", "goldfish"]),
              st.lists(st.one_of(st.none(), st.integers(0, 40).map(float)), min_size=1, max_size=4)),
    st.just(("start",)),
    st.just(("end",)),
)
_events = itertools.count(1)


@settings(max_examples=20, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture,
                                                                  HealthCheck.too_slow])
@given(steps=st.lists(_step, min_size=1, max_size=10), seed=st.integers(0, 2**16))
async def test_kept_ratings_are_the_ratings_summed_from_every_result(db, steps, seed):
    rng = random.Random(seed)
    for step in steps:
        if step[0] == "turnabout":
            _, awards, guild_id = step
            users = rng.sample(USERS, len(awards))
            ranked = sorted(zip(users, awards, strict=True), key=lambda pair: -pair[1])
            results = event_results.placed([(user, place) for place, (user, _) in enumerate(ranked, 1)], dict(ranked))
            fmt = turnabout.KIND
        elif step[0] == "other":
            _, fmt, scores = step
            users = rng.sample(USERS, len(scores))
            results = event_results.placed([(user, place) for place, user in enumerate(users, 1)], dict(zip(
                users, scores, strict=True)))
            guild_id = GUILD
        else:
            async with db.read() as session:
                running = await event_results.active_season(session, GUILD)
            if step[0] == "start" and running is None:
                await leaderboard.start_season(db, GUILD, f"Season {next(_events)}")
            elif step[0] == "end" and running is not None:
                await leaderboard.end_season(db, GUILD)
            continue
        async with db.write() as session:  # an event's end, as every format closes one
            await event_results.record_results(session, guild_id=guild_id, format=fmt, event_id=next(_events),
                                             event_name="random", results=results)
    for guild_id in (GUILD, OTHER_GUILD):
        await assert_kept_ratings_are_the_results(db, guild_id, rng)


async def test_an_events_end_adds_its_awards_to_the_ratings_at_once(db):
    """Turnabout's end keeps the ratings in its own transaction: right after it, each player's rating
    is what the event awarded them, and a second event adds to it."""
    assert await turnabout.ratings(db, GUILD) == []
    awarded: dict[int, list[float]] = {}
    for _ in range(2):
        event = await registered(db, 4, rounds=2)
        await turnabout.begin(db, event.id, ORG)
        for _ in range(2):
            event = await play_round(db, (await turnabout.pair(db, event.id, ORG)).event)
        ended = await turnabout.end(db, event.id, ORG)
        [final] = [e for e in ended.events if isinstance(e, engine.EventEnded)]
        for p in final.placings:
            awarded.setdefault(p.user_id, []).append(p.award)
        kept = await turnabout.ratings(db, GUILD)
        assert {r.user_id: (r.rating, r.events) for r in kept} == {
            user: (sum(awards), len(awards)) for user, awards in awarded.items()}
        assert kept == await ratings_from_results(db, GUILD) and any(r.rating > 0 for r in kept)
        assert [r.rank for r in kept] == [1, 2, 3, 4] and kept == sorted(kept, key=lambda r: (-r.rating, r.user_id))
    assert await turnabout.ratings(db, OTHER_GUILD) == []
