"""A Winston draft through the real bot and the fake Discord: two players, a pick timer, the piles
looked at by DM ([Take pile] [Pass], the DM edited in place from pile to pile), a kill -9 in the
middle, and the end. A pile's cards are shown to the player who looks at it alone: never in the
channel nor in the other player's DMs (unless they saw them themselves); nothing lost or doubled."""

from __future__ import annotations

import json
import re

import pytest

from bot.games.draft.kinds_cog import ChoiceButton
from tests.e2e.drivers.common import components, parts_of
from tests.e2e.drivers.draft import age_waits, download_log, join_all, stored_picks

pytestmark = pytest.mark.e2e

CARDS = 24
LOOK = re.compile(r"^\*\*Winston draft #(\d+)\*\* · your turn · pile (\d) of 3")


@pytest.fixture
def bot_env() -> dict[str, str]:
    return {"SWEEP_INTERVAL": "0.2"}


def live_looks(fake, user: int, pod_id: int, actions: int) -> list[dict]:
    """The user's DMs that show a pile to act on now (their buttons stamped with the action count)."""
    return [m for m in fake.dms(user) if LOOK.match(m.get("content") or "")
            and components(m, ChoiceButton, pod=pod_id, pick=actions)]


def pile_of(look: dict) -> list[str]:
    return [line[2:] for line in look["content"].splitlines() if line.startswith("• ")]


def dm_text(fake, user: int) -> str:
    return "\n".join(m.get("content") or "" for m in fake.dms(user))


async def test_a_winston_draft_with_a_timer_and_a_kill(fake, bot, world):
    players = world.players[:2]
    result = await fake.slash(world.admin, "draft winston", guild_id=world.guild, channel_id=world.channel,
                              options={"cube": "goldfish", "cards": CARDS, "pick_timer": 1})
    pod_id = int(re.search(r"#(\d+)", result.content).group(1))
    lobby = result.message["embeds"][0]
    assert lobby["title"].startswith(f"Winston draft #{pod_id}") and "24 cards dealt face down" in lobby["description"]
    await join_all(fake, result.message, pod_id, players)  # both seats taken: it begins

    seen = {player: set() for player in players}  # the cards each player was shown
    actions, timed_out, killed, looks_by_edit = 0, False, False, 0
    while (state := await stored_picks(bot, pod_id))["status"] != "complete":
        found = await fake.wait_for(lambda a=actions: [(p, m) for p in players for m in live_looks(fake, p, pod_id, a)],
                                    what=f"the look of action {actions + 1}", timeout=15)
        user, look = found[-1]
        assert len({p for p, _ in found}) == 1, "one player is on turn"
        other = next(p for p in players if p != user)
        cards = pile_of(look)
        assert cards and len(cards) == int(re.search(r"\((\d+) cards?\):", look["content"]).group(1))
        seen[user].update(cards)
        channel = "\n".join(m.get("content") or "" for m in fake.messages(world.channel))
        hidden = [card for card in cards if card not in seen[other]]
        assert not any(card in channel for card in cards), "no card of a pile in the channel"
        assert not any(card in dm_text(fake, other) for card in hidden), "nor in the other player's DMs"
        if not timed_out and actions >= 2:  # the timer takes the pile for a player who lets it run out
            timed_out = True
            await age_waits(bot, pod_id, 61, users=[user])
            note = await fake.wait_for(lambda u=user: [m["content"] for m in fake.dms(u)
                                                       if "Time ran out" in (m.get("content") or "")],
                                       what="the time-out", timeout=15)
            # The whole pile, said as such: "I took the pile for you: **A**, **B**."
            assert f"Winston draft #{pod_id}: I took the pile for you: " in note[0], note[0]
            assert all(f"**{card}**" in note[0] for card in cards) and "I picked" not in note[0]
            actions += 1
            continue
        buttons = {int(parts_of(ChoiceButton, b["custom_id"])["index"]): b for b in components(look, ChoiceButton)}
        choice = 1 if 1 in buttons and actions % 3 != 0 else 0  # pass most piles, so the DM is edited in place
        await fake.click(user, look, buttons[choice]["custom_id"])
        actions += 1
        if choice == 1 and "drew" not in (fake.message(look["id"]).get("content") or ""):  # on to the next pile
            await fake.wait_for(lambda a=actions, u=user: live_looks(fake, u, pod_id, a), what="the next pile", timeout=15)
            assert [m["id"] for m in live_looks(fake, user, pod_id, actions)] == [look["id"]], "the same DM, edited"
            looks_by_edit += 1
        if not killed and len(state["picks"]) >= CARDS // 3:
            killed = True
            await bot.restart()  # kill -9 in the middle: nothing lost, nothing doubled

    picks = state["picks"]
    assert [p["sequence"] for p in picks] == list(range(1, CARDS + 1))
    assert len({p["card"] for p in picks}) == CARDS  # every card dealt taken once
    assert {p["source"] for p in picks} == {"button", "timeout"} and killed and looks_by_edit
    summary = await fake.wait_for(lambda: [m for m in fake.messages(world.channel)
                                           if "is complete" in (m.get("content") or "")], what="the summary")
    assert "Each player's pool is in their DMs" in summary[0]["content"]
    posts = [m for m in fake.messages(world.channel) if (m.get("content") or "").startswith(f"Winston draft #{pod_id}:")]
    assert posts and all(not fake.pinged_users(post) for post in posts), "the turn posts ping nobody"
    name, data = await download_log(fake, world, players[0], "draftmancer")
    log = json.loads(data)
    assert log["type"] == "Winston Draft" and sum(len(user["cards"]) for user in log["users"].values()) == CARDS
    name, data = await download_log(fake, world, players[1], "summary")
    assert f"Winston draft #{pod_id}" in data.decode()


async def test_resend_gives_the_player_on_turn_the_pile_they_look_at_again(fake, bot, world):
    players = world.players[:2]
    result = await fake.slash(world.admin, "draft winston", guild_id=world.guild, channel_id=world.channel,
                              options={"cube": "goldfish", "cards": CARDS})
    pod_id = int(re.search(r"#(\d+)", result.content).group(1))
    await join_all(fake, result.message, pod_id, players)
    found = await fake.wait_for(lambda: [(p, m) for p in players for m in live_looks(fake, p, pod_id, 0)],
                                what="the first look")
    user, look = found[-1]
    other = next(p for p in players if p != user)
    sent = await fake.slash(user, "draft resend", guild_id=world.guild, channel_id=world.channel)
    assert sent.ephemeral and "Sent: check your DMs" in sent.content, sent.content
    again = await fake.wait_for(lambda: len(live_looks(fake, user, pod_id, 0)) == 2 and live_looks(fake, user, pod_id, 0),
                                what="the look again")
    assert again[-1]["id"] != look["id"] and pile_of(again[-1]) == pile_of(look)  # the same pile, a new DM
    refused = await fake.slash(other, "draft resend", guild_id=world.guild, channel_id=world.channel)
    assert refused.ephemeral and "not your turn" in refused.content and not live_looks(fake, other, pod_id, 0)
    # The resent DM's buttons act as the first one's: the pile is taken once.
    await fake.click(user, again[-1], components(again[-1], ChoiceButton)[0]["custom_id"])
    assert len((await stored_picks(bot, pod_id))["picks"]) == len(pile_of(look))
