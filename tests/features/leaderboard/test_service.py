"""Seasons and the leaderboard's periods, against SQLite and PostgreSQL."""

from __future__ import annotations

import pytest

import bot.games
from bot.features.leaderboard import service as leaderboard
from bot.kit import event_results
from bot.kit.errors import Conflict, NotFound, UserError
from tests.common import GUILD


async def test_no_season_ever_started_is_all_time_not_an_error(db):
    period = await leaderboard.find_period(db, GUILD)
    assert (period.season_id, period.title, period.key) == (None, "all time (no season running)", "none")
    assert await leaderboard.standings(db, GUILD) == ("all time (no season running)", [])


async def test_periods_default_to_the_running_season_and_are_keyed_by_id(db):
    started = await leaderboard.start_season(db, GUILD, "  Été   2026 ")
    assert started.name == "Été 2026"
    current = await leaderboard.find_period(db, GUILD, "current")
    assert (current.season_id, current.title, current.key) == (started.id, "season Été 2026", str(started.id))
    assert await leaderboard.find_period(db, GUILD, "") == current
    assert await leaderboard.find_period(db, GUILD, "ÉTÉ 2026") == current
    assert await leaderboard.find_period(db, GUILD, "E\u0301te\u0301 2026") == current
    assert (await leaderboard.find_period(db, GUILD, "ALL")).title == "all time"
    assert await leaderboard.period_by_key(db, GUILD, current.key) == current
    assert (await leaderboard.period_by_key(db, GUILD, "all")).title == "all time"
    assert (await leaderboard.period_by_key(db, GUILD, "none")).title == "all time (no season running)"
    await leaderboard.end_season(db, GUILD)
    assert (await leaderboard.find_period(db, GUILD)).title == "all time (no season running)"
    assert await leaderboard.find_period(db, GUILD, "été 2026") == current  # a past season, by name


async def test_unknown_seasons_and_forged_keys_are_refused(db):
    season = await leaderboard.start_season(db, GUILD, "Winter")
    with pytest.raises(NotFound, match="no season called"):
        await leaderboard.find_period(db, GUILD, "Summer")
    for key in ("abc", "9" * 30, str(season.id + 1), ""):
        with pytest.raises(NotFound, match="no longer here"):
            await leaderboard.period_by_key(db, GUILD, key)
    with pytest.raises(NotFound):
        await leaderboard.period_by_key(db, 2, str(season.id))  # another server's season


async def test_season_names_are_unique_by_key_and_not_the_reserved_words(db):
    await leaderboard.start_season(db, GUILD, "Straße")
    await leaderboard.end_season(db, GUILD)
    with pytest.raises(Conflict, match="already a season"):
        await leaderboard.start_season(db, GUILD, "STRASSE")
    for reserved in ("current", "ALL", " All "):
        with pytest.raises(UserError, match="means something else"):
            await leaderboard.start_season(db, GUILD, reserved)
    for bad in ("", "   ", "x" * 101):
        with pytest.raises(UserError, match="1–100"):
            await leaderboard.start_season(db, GUILD, bad)
    await leaderboard.start_season(db, 2, "Straße")  # another server may use the name
    assert await leaderboard.season_names(db, GUILD, "strasse") == ["Straße"]
    assert await leaderboard.season_names(db, GUILD, "winter") == []


async def test_every_formats_board_at_once_is_each_formats_board(db):
    """`boards` (one query, for the web pages) gives exactly what `board` gives for each format and
    for all formats, in a season and all time."""
    import random

    from bot.store.models import EventResult

    rng = random.Random(5)
    season = await leaderboard.start_season(db, GUILD, "Winter")
    async with db.write() as session:
        for event_id in range(1, 41):
            players = rng.sample(range(100, 130), rng.randint(2, 8))
            fmt = rng.choice(list(bot.games.leaderboard_titles()))
            for place, user_id in enumerate(players, start=1):
                session.add(EventResult(
                    guild_id=GUILD, format=fmt, event_id=event_id, event_name="e", user_id=user_id,
                    season_id=season.id if event_id % 2 else None, placement=place,
                    points=event_results.placement_points(place, range(1, len(players) + 1)),
                    score=rng.choice([None, float(rng.randint(-5, 40))])))
        await event_results.rebuild_totals(session, GUILD)  # written in bulk, not by `record_results`
    for period in (leaderboard.ALL_TIME_PERIOD, await leaderboard.find_period(db, GUILD)):
        boards = await leaderboard.boards(db, GUILD, period)
        assert boards[None] and boards[None] == await leaderboard.board(db, GUILD, period)
        for fmt in bot.games.leaderboard_titles():
            assert boards.get(fmt, []) == await leaderboard.board(db, GUILD, period, format=fmt), fmt
        # Issue 35 item 11: "best" is a format's own score; the board of all formats has none.
        assert all(row.best_score is None for row in boards[None])
        assert any(row.best_score is not None for fmt, rows in boards.items() if fmt is not None for row in rows)
        tops = await leaderboard.boards(db, GUILD, period, limit=3)  # the home page's: each board's first rows
        assert tops == {fmt: rows[:3] for fmt, rows in boards.items()}
    assert await leaderboard.boards(db, GUILD + 1, leaderboard.ALL_TIME_PERIOD) == {None: []}


def test_points_are_one_per_player_finished_ahead_of_plus_one():
    """The rule the README and /help state, with and without shared places."""
    assert [event_results.placement_points(p, range(1, 9)) for p in range(1, 9)] == [8, 7, 6, 5, 4, 3, 2, 1]
    # Two players sharing 2nd of 4 finished ahead of one player (the 4th): 2 points each, not 3.
    assert [event_results.placement_points(p, [1, 2, 2, 4]) for p in (1, 2, 4)] == [4, 2, 1]
    # Everyone tied: nobody finished ahead of anybody.
    assert [event_results.placement_points(1, [1, 1, 1])] == [1]
    # A winner and the others sharing 2nd (a Vortex game): n for the winner, 1 for the others.
    assert [event_results.placement_points(p, [1, 2, 2, 2, 2]) for p in (1, 2)] == [5, 1]


def test_rank_by_score_shares_places_and_their_points():
    ranked = event_results.rank_by_score({10: 30.0, 11: 20.0, 12: 20.0, 13: 5.0, 14: 20.0})
    assert [(p.user_id, p.placement, p.points, p.score) for p in ranked] == [
        (10, 1, 5.0, 30.0), (11, 2, 2.0, 20.0), (12, 2, 2.0, 20.0), (14, 2, 2.0, 20.0), (13, 5, 1.0, 5.0),
    ]
    tied = event_results.rank_by_score({1: 0.0, 2: 0.0})
    assert [(p.placement, p.points) for p in tied] == [(1, 1.0), (1, 1.0)]


def test_placed_gives_points_and_scores_by_placement():
    results = event_results.placed([(7, 1), (8, 3), (9, 3), (6, 2)], {7: 4.0, 8: 1.0, 9: 1.5, 6: 2.0})
    assert [(p.user_id, p.placement, p.points, p.score) for p in results] == [
        (7, 1, 4.0, 4.0), (8, 3, 1.0, 1.0), (9, 3, 1.0, 1.5), (6, 2, 3.0, 2.0),
    ]
    assert [p.score for p in event_results.placed([(1, 1), (2, 2)])] == [None, None]
