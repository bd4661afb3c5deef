"""A Grid draft through the real bot and the fake Discord: two players and a bot drafter, a pick
timer, each turn's grid posted in the channel with a button per row and column still holding a card,
pinging the player on turn alone (the turn before's post goes), a kill -9 in the middle, and the end.
Nothing lost or doubled."""

from __future__ import annotations

import json
import re

import pytest

from bot.games.draft.kinds_cog import ChoiceButton
from tests.e2e.drivers.common import components
from tests.e2e.drivers.draft import age_waits, download_log, join_all, stored_picks

pytestmark = pytest.mark.e2e

GRIDS = 4


@pytest.fixture
def bot_env() -> dict[str, str]:
    return {"SWEEP_INTERVAL": "0.2"}


def live_posts(fake, world, pod_id: int) -> list[dict]:
    return [m for m in fake.messages(world.channel) if not fake.is_deleted(m["id"])
            and components(m, ChoiceButton, pod=pod_id)]


def grid_cards(post: dict) -> list[str]:
    rows = re.findall(r"\*\*Row \d:\*\* (.+)", post["embeds"][0]["description"])
    return [card for row in rows for card in row.split(" · ") if card != "—"]


async def test_a_grid_draft_of_two_players_and_a_bot_with_a_timer_and_a_kill(fake, bot, world):
    players = world.players[:2]
    result = await fake.slash(world.admin, "draft grid", guild_id=world.guild, channel_id=world.channel,
                              options={"cube": "goldfish", "grids": GRIDS, "seats": 3, "bots": 1, "pick_timer": 1})
    pod_id = int(re.search(r"#(\d+)", result.content).group(1))
    assert "4 grids of 3×3 cards face up" in result.message["embeds"][0]["description"]
    await join_all(fake, result.message, pod_id, players)  # the third seat is the bot's: it begins

    last, timed_out, killed, turns = -1, False, False, 0
    while (state := await stored_picks(bot, pod_id))["status"] != "complete":
        posts = await fake.wait_for(
            lambda after=last: [m for m in live_posts(fake, world, pod_id)
                                if int(components(m, ChoiceButton)[0]["custom_id"].split(":")[2]) > after],
            what=f"the grid post after pick {last}", timeout=15)
        post = posts[-1]
        assert len(live_posts(fake, world, pod_id)) == 1, "one live grid in the channel"
        user = int(re.match(r"<@(\d+)>", post["content"]).group(1))
        assert fake.pinged_users(post) == {user}, "only the player on turn is pinged"
        buttons = components(post, ChoiceButton)
        assert 1 <= len(buttons) <= 6 and len(grid_cards(post)) >= 1
        last = int(buttons[0]["custom_id"].split(":")[2])
        other = next(p for p in players if p != user)
        refused = await fake.click(other, post, buttons[0]["custom_id"])
        assert refused.ephemeral and "not your turn" in refused.content.lower()
        turns += 1
        if not timed_out:  # the first player on turn lets the timer take a line for them
            timed_out = True
            await age_waits(bot, pod_id, 61, users=[user])
            note = await fake.wait_for(lambda u=user: [m["content"] for m in fake.dms(u)
                                                       if "Time ran out" in (m.get("content") or "")],
                                       what="the time-out", timeout=15)
            # The line said as such, with its cards: "I took row 2 for you: **A**, **B**, **C**."
            assert re.search(rf"Grid draft #{pod_id}: I took (row|column) [123] for you: \*\*", note[0]), note[0]
            assert "I picked" not in note[0]
            continue
        taken = await fake.click(user, post, buttons[-1]["custom_id"])
        assert taken.ephemeral and "You took **" in taken.content, taken.content
        if not killed and turns >= 3:
            killed = True
            await bot.restart()  # kill -9 in the middle: nothing lost, nothing doubled

    picks = state["picks"]
    assert [p["sequence"] for p in picks] == list(range(1, len(picks) + 1)) and len({p["card"] for p in picks}) == len(picks)
    assert {p["source"] for p in picks} == {"button", "timeout", "bot"} and killed
    assert GRIDS * 3 <= len(picks) <= GRIDS * 12  # a line of 1 to 3 cards a player a grid, of the 12 it deals
    summary = await fake.wait_for(lambda: [m for m in fake.messages(world.channel)
                                           if "is complete" in (m.get("content") or "")], what="the summary")
    assert "Each player's pool is in their DMs" in summary[0]["content"]
    await fake.wait_for(lambda: not live_posts(fake, world, pod_id), what="the last grid without its buttons")
    name, data = await download_log(fake, world, players[0], "draftmancer")
    log = json.loads(data)
    assert log["type"] == "Grid Draft" and sum(len(u["cards"]) for u in log["users"].values()) == len(picks)
    assert len(log["boosters"]) == GRIDS
