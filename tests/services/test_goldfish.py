"""Goldfish events, submissions and the leaderboard, against SQLite and PostgreSQL."""

from __future__ import annotations

import random

import pytest

from bot.services import drafts, goldfish, guild_config, leaderboard
from bot.services.errors import Conflict, NotFound, PermissionDenied, UserError
from tests.services.test_drafts import ADMIN, ORGANIZER, new_pod, play_out

GUILD = 1


async def paper_event(db, name="Friday paper draft", turns=7):
    return await goldfish.create_event(db, guild_id=GUILD, channel_id=10, name=name, turns=turns, organizer_id=ORGANIZER)


async def submit(db, event, user, writeup="T1 bolt, T2 bolt", **counts):
    values = {"life_lost": 0, "cards_milled": 0, "poison": 0, "game_wins": 0} | counts
    return await goldfish.submit(db, GUILD, event.id, user, writeup=writeup, **values)


async def test_submission_scores_with_the_default_table(db):
    event = await paper_event(db)
    result = await submit(db, event, 5, life_lost=23, cards_milled=3, poison=2)
    assert result.score == 23 + 1.5 + 4
    assert result.breakdown == {"life": 23.0, "mill": 1.5, "poison": 4.0, "win": 0.0, "total": 28.5}


async def test_resubmission_keeps_history_and_counts_the_newest(db):
    event = await paper_event(db)
    await submit(db, event, 5, life_lost=10)
    await submit(db, event, 5, life_lost=30, writeup="better line")
    _, standings = await goldfish.scores(db, GUILD, event.id)
    assert [(s.submission.user_id, s.submission.score) for s in standings] == [(5, 30.0)]
    assert await goldfish.history_count(db, event.id, 5) == 2
    assert (await goldfish.writeup(db, GUILD, event.id, 5)).writeup == "better line"


async def test_losing_or_a_prevented_win_scores_zero(db):
    event = await paper_event(db)
    assert (await goldfish.submit(db, GUILD, event.id, 5, life_lost=40, cards_milled=0, poison=0, game_wins=0,
                                  writeup="lost", lost_or_drew=True)).score == 0
    assert (await goldfish.submit(db, GUILD, event.id, 6, life_lost=40, cards_milled=0, poison=0, game_wins=1,
                                  writeup="platinum angel", prevented=True)).score == 0


@pytest.mark.parametrize(
    ("counts", "message"),
    [
        ({"life_lost": -1}, "negative"),
        ({"cards_milled": 2.5}, "whole"),
        ({"poison": 10**9}, "believable"),
    ],
)
async def test_bad_numbers_are_refused_and_change_nothing(db, counts, message):
    event = await paper_event(db)
    with pytest.raises(UserError, match=message):
        await submit(db, event, 5, **counts)
    with pytest.raises(UserError, match="empty"):
        await submit(db, event, 5, writeup="   ")
    assert (await goldfish.scores(db, GUILD, event.id))[1] == []


async def test_only_pod_players_submit_to_a_draft_event(db):
    pod = await new_pod(db, players=2, turns=7)
    begun = await drafts.begin(db, pod.id, ADMIN)
    await play_out(db, pod.id, begun.prompts, random.Random(1))
    event = await goldfish.default_event(db, GUILD, 10)
    assert event.pod_id == pod.id and event.turns == 7
    with pytest.raises(PermissionDenied, match="did not play"):
        await goldfish.check_can_submit(db, GUILD, event.id, 999)
    with pytest.raises(PermissionDenied, match="did not play"):
        await submit(db, event, 999, life_lost=5)
    assert (await goldfish.check_can_submit(db, GUILD, event.id, 1001)).id == event.id
    await submit(db, event, 1001, life_lost=5)


async def test_reject_close_and_leaderboard(db):
    await guild_config.update_config(db, GUILD, leaderboard_channel_id=77)
    await leaderboard.start_season(db, GUILD, "Autumn")
    event = await paper_event(db)
    await submit(db, event, 1, life_lost=20)
    await submit(db, event, 2, life_lost=35)
    await submit(db, event, 3, life_lost=20)
    with pytest.raises(PermissionDenied):
        await goldfish.reject(db, GUILD, event.id, 2, reason="no", user_id=3, is_organizer=False)
    rejected = await goldfish.reject(db, GUILD, event.id, 2, reason="loop done twice", user_id=ORGANIZER, is_organizer=False)
    assert rejected.status == "rejected"
    await submit(db, event, 2, life_lost=25)
    with pytest.raises(PermissionDenied):
        await goldfish.close(db, GUILD, event.id, user_id=1, is_organizer=False)
    closed = await goldfish.close(db, GUILD, event.id, user_id=ORGANIZER, is_organizer=False)
    assert closed.post_channel_id == 77
    assert [(s.placement, s.submission.user_id) for s in closed.standings] == [(1, 2), (2, 1), (2, 3)]
    with pytest.raises(Conflict, match="closed"):
        await goldfish.check_can_submit(db, GUILD, event.id, 1)
    with pytest.raises(Conflict, match="closed"):
        await submit(db, event, 1, life_lost=50)
    with pytest.raises(Conflict):
        await goldfish.close(db, GUILD, event.id, user_id=ORGANIZER, is_organizer=True)

    period, rows = await leaderboard.standings(db, GUILD, format="goldfish")
    assert period == "season Autumn"
    assert [(r.rank, r.user_id, r.wins, r.points, r.best_score) for r in rows] == [
        (1, 2, 1, 3.0, 25.0), (2, 1, 0, 2.0, 20.0), (3, 3, 0, 2.0, 20.0)
    ]
    await leaderboard.end_season(db, GUILD)
    with pytest.raises(NotFound):
        await leaderboard.standings(db, GUILD, season="current")
    assert len((await leaderboard.standings(db, GUILD, season="all"))[1]) == 3
    assert len((await leaderboard.standings(db, GUILD, season="Autumn"))[1]) == 3
    assert (await leaderboard.standings(db, 2, season="all"))[1] == []  # other guilds see nothing


async def test_seasons_do_not_overlap(db):
    await leaderboard.start_season(db, GUILD, "One")
    with pytest.raises(Conflict, match="still running"):
        await leaderboard.start_season(db, GUILD, "Two")
    await leaderboard.end_season(db, GUILD)
    with pytest.raises(Conflict, match="already a season"):
        await leaderboard.start_season(db, GUILD, "One")
    with pytest.raises(NotFound):
        await leaderboard.end_season(db, GUILD)


async def test_events_are_guild_scoped(db):
    event = await paper_event(db)
    with pytest.raises(NotFound):
        await goldfish.check_can_submit(db, 2, event.id, 5)
    with pytest.raises(NotFound):
        await goldfish.submit(db, 2, event.id, 5, life_lost=1, cards_milled=0, poison=0, game_wins=0, writeup="x")
