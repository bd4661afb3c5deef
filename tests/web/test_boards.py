"""The pages' leaderboards are computed once per change of a server's results: reused while
nothing changed, computed again as soon as a result is added (or after `ttl`), never shared
between servers or periods."""

from __future__ import annotations

from bot.kit import leaderboard
from bot.web.boards import Boards
from tests.common import GUILD, OTHER_GUILD, PLAYERS
from tests.web.helpers import add_results


async def test_boards_are_reused_until_a_result_is_added(db, monkeypatch):
    computed: list[int] = []
    real = leaderboard.totals_by_format

    async def counting(db_, guild_id, period):
        computed.append(guild_id)
        return await real(db_, guild_id, period)

    monkeypatch.setattr(leaderboard, "totals_by_format", counting)
    now = [0.0]
    boards = Boards(db, ttl=60, clock=lambda: now[0])
    everything = leaderboard.ALL_TIME_PERIOD
    await add_results(db, GUILD, "421", 1, "League", PLAYERS[:3])
    first = await boards.boards(GUILD, everything)
    assert [row.user_id for row in first[None]] == PLAYERS[:3]
    assert await boards.board(GUILD, everything, "421") == first["421"]
    assert await boards.board(GUILD, everything, "vortex") == []
    assert computed == [GUILD]  # one computation served all three

    await add_results(db, GUILD, "vortex", 2, "Vortex", PLAYERS[3:5])
    assert [row.user_id for row in await boards.board(GUILD, everything, "vortex")] == PLAYERS[3:5]
    assert computed == [GUILD]  # only the new rows read, added to the kept totals
    assert await boards.boards(GUILD, everything) == leaderboard.boards_of(await real(db, GUILD, everything))

    assert await boards.board(OTHER_GUILD, everything) == []  # another server: its own entry
    season = await leaderboard.start_season(db, GUILD, "Winter")
    assert await boards.board(GUILD, await leaderboard.find_period(db, GUILD)) == []  # another period
    assert computed == [GUILD, OTHER_GUILD, GUILD]

    await boards.boards(GUILD, everything)
    assert len(computed) == 3
    now[0] = 61  # expired: computed again from every row
    await boards.boards(GUILD, everything)
    assert len(computed) == 4
    assert season.id  # (the season only changes which period is current)


async def test_the_cache_is_bounded(db):
    boards = Boards(db, size=2)
    for guild_id in (1, 2, 3):
        await boards.boards(guild_id, leaderboard.ALL_TIME_PERIOD)
    assert list(boards._entries) == [(2, None), (3, None)]
    assert Boards(db, size=0)._entries == {}


async def test_boards_updated_with_new_results_are_those_computed_anew(db):
    """Results added one event at a time (every format, ties, scores, a season's and another server's
    rows in between): the kept boards, updated from the new rows only, equal the boards computed anew."""
    boards = Boards(db)
    everything = leaderboard.ALL_TIME_PERIOD
    season = await leaderboard.start_season(db, GUILD, "Spring")
    periods = [everything, await leaderboard.find_period(db, GUILD)]
    formats = list(leaderboard.FORMATS)
    for event in range(1, 25):
        players = [PLAYERS[(event + k) % len(PLAYERS)] for k in range(2 + event % 4)]
        await add_results(db, GUILD, formats[event % len(formats)], event, f"Event {event}", players,
                          season_id=season.id if event % 3 else None,
                          scores=[float((event * 7 + k) % 11) for k in range(len(players))] if event % 2 else None)
        await add_results(db, OTHER_GUILD, "421", event, "Theirs", [9001, 9002])
        for period in periods:
            assert await boards.boards(GUILD, period) == await leaderboard.boards(db, GUILD, period), (event, period)
    assert 9001 not in {row.user_id for rows in (await boards.boards(GUILD, everything)).values() for row in rows}
