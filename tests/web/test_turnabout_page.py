"""Turnabout's event page (bot/games/turnabout/web.py) on SQLite and PostgreSQL, from an event driven
through the real service: registrations, rounds with each match's MP and VP, standings with their
tiebreakers, the final ranking with the rating awards; decklists only once the event has ended; only
the server's own events."""

from __future__ import annotations

import pytest

from bot.games.turnabout import service as turnabout
from bot.web import access, names
from bot.web.links import SiteLinks
from tests.common import CHANNEL, GUILD, ORG, OTHER_GUILD, organizer, player
from tests.web.helpers import NOT_FOUND, page, site_client, visible

pytestmark = pytest.mark.filterwarnings("ignore::DeprecationWarning")
USERS = [1001, 1002, 1003, 1004, 1005]
LISTS = {1001: "60 Lightning Bolt\n", 1002: "40 Counterspell\n20 Island\n"}


async def registered(db, guild_org=ORG, users=USERS) -> turnabout.EventView:
    event = await turnabout.create_event(db, guild_org, channel_id=CHANNEL, rounds=2, seed=3)
    for i, user in enumerate(users):
        await turnabout.join(db, event.id, player(user, guild_org.guild_id), deck=f"Deck <{i}>",
                             scoring=("dominaria", "tolaria", "phyrexia")[i % 3], decklist=LISTS.get(user))
    return await turnabout.get_event(db, event.id)


async def play_round(db, event_id: int, guild: int = GUILD) -> turnabout.EventView:
    """Every open match: seat a wins game 1 (life 5), b wins game 2 (value 3), confirmed."""
    event = await turnabout.get_event(db, event_id)
    for m in event.state.round_matches():
        if m.finished:
            continue
        a, b = event.user_of(m.a), event.user_of(m.b)
        await turnabout.report(db, event_id, player(a, guild), result="won", value=5, game=1)
        await turnabout.confirm(db, event_id, m.number, 1, player(b, guild))
        await turnabout.report(db, event_id, player(a, guild), result="lost", value=3, game=2)
        await turnabout.confirm(db, event_id, m.number, 2, player(b, guild))
    return await turnabout.get_event(db, event_id)


async def test_registration_then_rounds_then_the_final_ranking(db):
    site, _ = await access.turn_on(db, GUILD, "MTG Club")
    links = SiteLinks(site.address)
    await names.remember(db, GUILD, 1001, "Alice")
    event = await registered(db)
    path = links.event("turnabout", event.id)
    async with site_client(db) as client:
        lobby = await page(client, path)
        text = visible(lobby)
        assert f"Turnabout #{event.id}" in text and "registration open · 5 players · 2 rounds" in text
        assert "Alice Deck <0> Dominaria" in text and "Deck &lt;0&gt;" in lobby and "<0>" not in lobby
        assert "Lightning Bolt" not in lobby and "Counterspell" not in lobby  # the lists are the opponents' only

        await turnabout.begin(db, event.id, ORG)
        await turnabout.pair(db, event.id, ORG)
        running = await play_round(db, event.id)
        await turnabout.pair(db, event.id, ORG)
        html = await page(client, path)
        text = visible(html)
        assert "running · 5 players · 2 rounds (2 paired)" in text
        assert "Round 2" in text and "Round 1" in text and text.index("Round 2") < text.index("Round 1")
        [bye] = [m for m in running.state.round_matches(1) if m.b is None]
        assert "has a bye: 30 VP" in text
        finished = [m for m in running.state.round_matches(1) if m.b is not None]
        for m in finished:
            result = turnabout.engine.match_result(running.state, m)
            assert (f"MP {result.match_points[0]}–{result.match_points[1]}, "
                    f"VP {result.victory_points[0]}–{result.victory_points[1]}") in text
        assert "Game 1 (each plays the opponent's deck): won by" in text
        assert "not reported yet" in text  # round 2 waits
        assert "Standings # Player Deck VP Opp. avg VP W–L–D Byes" in text
        assert "Lightning Bolt" not in html and "Counterspell" not in html and "Decklists show here once" in text
        assert "Final ranking" not in text

        await play_round(db, event.id)
        await turnabout.end(db, event.id, ORG)
        ended = visible(await page(client, path))
        assert "ended" in ended and "Final ranking and ratings" in ended
        ranking = turnabout.engine.final_ranking((await turnabout.get_event(db, event.id)).state)
        first = ranking[0]
        assert "1st" in ended and f"×{first.multiplier} {first.award:g} {first.award:g} (1 event)" in ended
        assert "Lightning Bolt" in ended and "40 Counterspell" in ended and "20 Island" in ended


async def test_another_servers_event_shows_nothing(db):
    mine, _ = await access.turn_on(db, GUILD, "Mine")
    theirs = await registered(db, organizer(guild=OTHER_GUILD), users=[7001, 7002, 7003, 7004])
    await turnabout.begin(db, theirs.id, organizer(guild=OTHER_GUILD))
    links = SiteLinks(mine.address)
    async with site_client(db) as client:
        not_found = await page(client, NOT_FOUND, status=404)
        assert await page(client, links.event("turnabout", theirs.id), status=404) == not_found
        assert await page(client, links.event("turnabout", theirs.id + 100), status=404) == not_found
