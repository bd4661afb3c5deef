"""A Rotisserie draft through the real bot and the fake Discord: 3 players and a bot drafter, a pick
timer, picks with `/draft take` (its autocomplete offers the cards on offer), a kill -9 in the
middle, and the end. Only the player on turn is pinged; nothing is lost or doubled."""

from __future__ import annotations

import json
import re

import pytest

from bot.games.draft.rotisserie_rules import seat_of_turn
from tests.e2e.drivers.draft import age_waits, download_log, join_all, stored_picks

pytestmark = pytest.mark.e2e

PICKS, OFFER = 4, 24
TURN = re.compile(r"^<@(\d+)>, it is your pick in Rotisserie draft #(\d+): pick (\d+) of (\d+), (\d+) cards on offer")


@pytest.fixture
def bot_env() -> dict[str, str]:
    return {"SWEEP_INTERVAL": "0.2"}


def turn_posts(fake, world) -> list[dict]:
    return [m for m in fake.messages(world.channel) if TURN.match(m.get("content") or "")]


async def next_turn(fake, world, count: int) -> tuple[int, dict]:
    posts = await fake.wait_for(lambda: len(turn_posts(fake, world)) > count and turn_posts(fake, world),
                                what=f"turn post {count + 1}")
    post = posts[count]
    return int(TURN.match(post["content"]).group(1)), post


async def take(fake, world, user: int, typed: str = "") -> str:
    choices = await fake.autocomplete(user, "draft take", focused="card", options={"card": typed},
                                      guild_id=world.guild, channel_id=world.channel)
    assert choices, "the cards on offer are suggested"
    result = await fake.slash(user, "draft take", guild_id=world.guild, channel_id=world.channel,
                              options={"card": choices[0]["value"]})
    assert result.ephemeral and "You took **" in result.content, result.content
    return choices[0]["value"]


async def test_a_rotisserie_of_three_players_and_a_bot_with_a_timer_and_a_kill(fake, bot, world):
    players = world.players[:3]
    result = await fake.slash(world.admin, "draft rotisserie", guild_id=world.guild, channel_id=world.channel,
                              options={"cube": "goldfish", "picks": PICKS, "cards": OFFER, "seats": 4, "bots": 1,
                                       "pick_timer": 1})
    pod_id = int(re.search(r"#(\d+)", result.content).group(1))
    lobby = result.message["embeds"][0]
    assert lobby["title"].startswith(f"Rotisserie draft #{pod_id}") and "4 picks each from 24 cards" in lobby["description"]
    assert "pick in turn with `/draft take`" in lobby["footer"]["text"]
    await join_all(fake, result.message, pod_id, players)  # the fourth seat is the bot's: it begins

    seen, turns, timed_out, killed = set(), 0, False, False
    while (state := await stored_picks(bot, pod_id))["status"] != "complete":
        user, post = await next_turn(fake, world, turns)
        turns += 1
        assert fake.pinged_users(post) == {user}, "only the player on turn is pinged"
        assert "on the web" not in post["content"]  # the server's web pages are off
        others = [p for p in players if p != user]
        refused = await fake.slash(others[0], "draft take", guild_id=world.guild, channel_id=world.channel,
                                   options={"card": "anything"})
        assert refused.ephemeral and "not your turn" in refused.content
        if turns == 1:
            status = await fake.slash(user, "draft status", guild_id=world.guild, channel_id=world.channel)
            assert "on turn" in status.message["embeds"][0]["description"] and "pack" not in status.content
        if not timed_out:  # the first player to be on turn is reminded, then lets the timer pick
            timed_out = True
            await age_waits(bot, pod_id, 31, users=[user])
            await fake.wait_for(lambda u=user: any("it is your turn (`/draft take`" in (m.get("content") or "")
                                                   for m in fake.dms(u)), what="the reminder")
            await age_waits(bot, pod_id, 31, users=[user])
            await fake.wait_for(lambda t=turns: len(turn_posts(fake, world)) > t,
                                what="the timer's pick and the next turn", timeout=15)
            continue
        card = await take(fake, world, user, typed="")
        assert card not in seen
        seen.add(card)
        if not killed and len(state["picks"]) >= 6:
            killed = True
            await bot.restart()  # kill -9 in the middle: nothing lost, nothing doubled

    picks = state["picks"]
    assert len(picks) == 4 * PICKS and [p["sequence"] for p in picks] == list(range(1, 4 * PICKS + 1))
    assert [p["seat"] for p in picks] == [seat_of_turn(t, 4) for t in range(4 * PICKS)]
    assert len({p["card"] for p in picks}) == 4 * PICKS  # every card taken once
    sources = [p["source"] for p in picks]
    assert sources.count("timeout") == 1 and sources.count("command") == len(seen)
    assert {p["source"] for p in picks if p["user_id"] < 0} == {"bot"}
    summary = await fake.wait_for(lambda: [m for m in fake.messages(world.channel)
                                           if "is complete" in (m.get("content") or "")], what="the summary")
    assert "Each player's pool is in their DMs" in summary[0]["content"]
    for player in players:  # every player gets their pool once
        await fake.wait_for(lambda p=player: any("pool" in (m.get("content") or "").lower() or m.get("embeds")
                                                 for m in fake.dms(p)), what=f"pool of {player}")
    # The logs: Draftmancer's (its Rotisserie pick type) and a summary; Magic Online's logs packs.
    name, data = await download_log(fake, world, players[0], "draftmancer")
    log = json.loads(data)
    assert log["type"] == "Rotisserie Draft" and log["boosters"] == []
    assert sum(len(user["picks"]) for user in log["users"].values()) == 4 * PICKS
    name, data = await download_log(fake, world, players[0], "summary")
    assert data.decode().count(": ") >= 4 * PICKS and "Rotisserie draft #" in data.decode()
    assert "no packs for a Magic Online log" in await download_log(fake, world, players[0], "mtgo")
