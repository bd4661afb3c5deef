"""A set draft through the real bot and the fake Discord (`/draft start set:`): the set imported from
a loopback fake Scryfall on the spot (its progress shown), 3 players and 5 bots drafting its boosters
to the end across a kill -9 of the bot, and every booster checked against the collation by hand: 1 rare or mythic, 3 uncommons,
10 commons and 1 basic land, no card twice. The players' logs and exports work as for a cube."""

from __future__ import annotations

import json
from collections import Counter

import pytest

from tests.e2e.drivers.common import embed_text
from tests.e2e.drivers.draft import download_log, join_all, stored_picks
from tests.e2e.fake_scryfall import FakeScryfall, FakeSet, serve_fake_scryfall
from tests.e2e.test_draft_bots import draft_on

pytestmark = pytest.mark.e2e

BASICS = ("Plains", "Island", "Swamp", "Mountain", "Forest")


def coloured_set() -> FakeSet:
    """A small set (40 commons, 20 uncommons, 12 rares, 4 mythics, the basics) in five colours, so the
    bots draft on colour as in a real set."""
    made = FakeSet.make("tst", "Test Set", commons=40, uncommons=20, rares=12, mythics=4, basics=BASICS)
    for number, card in enumerate(made.cards):
        if card["name"] not in BASICS:
            card["colors"] = ["WUBRG"[number % 5]]
    return made


def slot_of(name: str) -> str:
    return "basic" if name in BASICS else {"Common": "common", "Uncommon": "uncommon", "Rare": "rare",
                                            "Mythic": "rare"}[name.split()[1]]


@pytest.fixture
async def scryfall() -> FakeScryfall:
    async with serve_fake_scryfall(page_size=30) as fake_scryfall:
        fake_scryfall.sets["tst"] = coloured_set()
        yield fake_scryfall


@pytest.fixture
def bot_env(scryfall: FakeScryfall) -> dict[str, str]:
    return {"SCRYFALL_BASE": scryfall.base}


async def test_three_players_and_five_bots_draft_a_sets_boosters_to_the_end(fake, bot, world, scryfall):
    players = world.players[:3]
    both = await fake.slash(world.admin, "draft start", guild_id=world.guild, channel_id=world.channel,
                            options={"cube": "goldfish", "set": "tst"})
    assert both.ephemeral and "exactly one of `cube`" in both.content
    since = len(fake.rest_log)
    started = await fake.slash(world.admin, "draft start", guild_id=world.guild, channel_id=world.channel,
                               options={"set": "tst", "seats": 8, "bots": 5, "pick_mode": "buttons"})
    await fake.wait_for(lambda: started.message and started.message.get("embeds"), what="the lobby")
    progress = [c.json.get("content") or "" for c in fake.calls("PATCH", since=since) if isinstance(c.json, dict)]
    assert any("Importing `tst` from Scryfall: 30 of 81 cards (page 1)" in text for text in progress), progress
    lobby = started.message
    assert "Draft #" in embed_text(lobby) and "set Test Set (tst)" in embed_text(lobby), embed_text(lobby)
    pod_id = (await stored_picks(bot))["pod"]
    await join_all(fake, lobby, pod_id, players)
    await draft_on(fake, bot, pod_id, players, picks=12)  # a pack and a half round the table, bots included
    before = (await stored_picks(bot, pod_id))["picks"]
    await bot.restart()  # kill -9 in the middle: nothing lost, nothing doubled
    assert (await stored_picks(bot, pod_id))["picks"] == before
    await draft_on(fake, bot, pod_id, players)

    stored = await stored_picks(bot, pod_id)
    assert stored["status"] == "complete" and len(stored["picks"]) == 8 * 2 * 15
    assert stored["picks"][:len(before)] == before
    assert sorted(p["sequence"] for p in stored["picks"]) == list(range(1, 8 * 2 * 15 + 1))  # none twice, none lost
    boosters: dict[int, list[str]] = {}
    for pick in stored["picks"]:
        boosters.setdefault(pick["pack"], []).append(pick["card"])
    assert len(boosters) == 16
    for pack, cards in boosters.items():
        assert len(set(cards)) == len(cards) == 15, f"booster {pack} holds a card twice: {cards}"
        assert Counter(map(slot_of, cards)) == {"rare": 1, "uncommon": 3, "common": 10, "basic": 1}, cards

    name, data = await download_log(fake, world, players[0], "draftmancer")
    log = json.loads(data)  # Draftmancer's log holds the boosters as dealt
    named = [sorted(log["carddata"][card]["name"] for card in pack) for pack in log["boosters"]]
    assert named == [sorted(boosters[pack]) for pack in range(16)]
    exported = await fake.slash(players[1], "draft export", guild_id=world.guild, channel_id=world.channel)
    assert "30 picks from draft" in exported.content

    asked = len(scryfall.requests)  # the set is the server's now: the next set draft asks Scryfall nothing
    again = await fake.slash(world.admin, "draft start", guild_id=world.guild, channel_id=world.channel,
                             options={"set": "TST", "pack_size": 14})
    assert "set Test Set (tst)" in embed_text(again.message) and len(scryfall.requests) == asked
