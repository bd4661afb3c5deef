"""/leaderboard through the fake Discord: no season yet is all time (not an error), and a long,
non-ASCII season name pages with buttons keyed by the season's id."""

from __future__ import annotations

import re

import pytest
from sqlalchemy import select

from bot.kit import event_results
from bot.store.db import Database
from bot.store.models import EventResult, Season

pytestmark = pytest.mark.e2e

ROW = re.compile(r"\*\*(\d+)\.\*\* <@(\d+)>")


async def leaderboard(fake, world, **options):
    return await fake.slash(world.member, "leaderboard", guild_id=world.guild, channel_id=world.channel, options=options)


async def add_results(database_url: str, guild_id: int, season_name: str, players: list[int]) -> None:
    """Finished events of the running season, straight into the database (one winner each)."""
    db = Database(database_url)
    try:
        async with db.write() as session:
            season = (await session.execute(select(Season).where(Season.name == season_name))).scalar_one()
            for index, user in enumerate(players):
                session.add(
                    EventResult(
                        guild_id=guild_id, format="goldfish", event_id=index + 1, event_name=f"Event {index}",
                        season_id=season.id, user_id=user, placement=1, points=float(100 - index), score=1.0,
                    )
                )
            await event_results.rebuild_totals(session, guild_id)  # the leaderboard reads the totals of the results
    finally:
        await db.dispose()


def _button(message: dict, label: str) -> str:
    return next(c["custom_id"] for row in message["components"] for c in row["components"] if label in c["label"])


async def test_no_season_yet_is_all_time_and_long_season_names_page(fake, bot, world):
    empty = await leaderboard(fake, world)
    assert empty.ephemeral and "all time (no season running)" in empty.content, empty.content
    assert "No finished events yet" in empty.content

    name = "Saison d'été " + "é" * 87
    assert len(name) == 100
    started = await fake.slash(
        world.admin, "config season start", guild_id=world.guild, channel_id=world.channel, options={"name": name}
    )
    assert "has started" in started.content, started.content
    await add_results(bot.database_url, world.guild, name, world.players)  # 16 players: two pages of 15

    first = await leaderboard(fake, world)
    assert f"season {name}" in first.content and "Page 1 of 2" in first.content
    assert [int(rank) for rank, _ in ROW.findall(first.content)] == list(range(1, 16))
    next_id = _button(first.message, "Next")
    assert next_id.startswith("pg:board:1:all:") and "é" not in next_id
    second = await fake.click(world.member, first.message, next_id)
    assert "Page 2 of 2" in second.content and f"season {name}" in second.content, second.content
    assert ROW.findall(second.content) == [("16", str(world.players[15]))]

    # The season by name, in another case and Unicode form.
    by_name = await leaderboard(fake, world, season=name.upper())
    assert f"season {name}" in by_name.content and "Page 1 of 2" in by_name.content
    typed = await fake.autocomplete(
        world.member, "leaderboard", focused="season", options={"season": "SAISON D'ÉTÉ"},
        guild_id=world.guild, channel_id=world.channel,
    )
    assert [c["value"] for c in typed] == [name]
    unknown = await leaderboard(fake, world, season="Nope")
    assert unknown.ephemeral and "no season called **Nope**" in unknown.content
