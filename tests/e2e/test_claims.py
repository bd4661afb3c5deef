"""Issue 34: one claims flow, end to end, in a group whose organizer plays (Turnabout, 421, Treasure
Battler). The organizer who plays a match is a player there: confirming, deciding or settling it is
refused and changes nothing, and a dispute in it calls the server's organizer role, not them. For
another match, their Confirm is its own action — "Confirm for <player> (absent)", asked first — that
names them in the channel and tells the absent player by DM what was decided and how to dispute it."""

from __future__ import annotations

import pytest

from tests.e2e.drivers.common import eventually
from tests.e2e.drivers.turnabout import TurnaboutDriver

pytestmark = pytest.mark.e2e


async def set_organizer_role(fake, world) -> None:
    done = await fake.slash(world.admin, "config set", guild_id=world.guild, channel_id=world.channel,
                            options={"organizer_role": world.organizer_role})
    assert done.ephemeral and "Organizer" in done.content, done.content


def prompt_button(prompt, label: str) -> str:
    return next(c["custom_id"] for c in prompt.components if c.get("label") == label)


def dm_with(fake, user: int, needle: str):
    return lambda: next((m for m in fake.dms(user) if needle in (m.get("content") or "")), None)


async def test_turnabout_when_the_organizer_plays(fake, bot, world):
    t = TurnaboutDriver(fake, world, bot.database_url)
    try:
        await set_organizer_role(fake, world)
        await t.start(rounds=1)  # by the admin, who plays
        group = [world.admin, *world.players[:3]]
        for i, user in enumerate(group):
            await t.join(user, f"Deck {i}", "dominaria")
        await t.slash(world.admin, "begin")
        await t.slash(world.admin, "pair")
        state = await eventually(lambda: _paired(t), what="round 1 paired")
        users = [p.user_id for p in state.players]
        own = next(m for m in state.matches if world.admin in (users[m.a], users[m.b]))
        other = next(m for m in state.matches if m is not own)
        opponent = users[own.b] if users[own.a] == world.admin else users[own.a]
        c, d = users[other.a], users[other.b]

        # Their own match: Confirm on their own report is refused, and changes nothing.
        report = await t.report(world.admin, "won", 5, 1)
        own_confirm = await t.answer(world.admin, report.message)
        assert own_confirm.ephemeral and "own report" in own_confirm.content, own_confirm.content
        assert (await t.state()).match(own.number).games[0].status == "reported"
        # The opponent disputes: the call goes to the organizer role, not to the organizer who plays.
        await t.answer(opponent, report.message, "dispute")
        call = await t.wait_channel(f"Match {own.number}, game 1 is disputed")
        assert f"<@&{world.organizer_role}>" in call["content"] and f"<@{world.admin}> decides" not in call["content"]
        assert fake.pinged_users(call) == {world.organizer}
        before = (await t.state()).to_dict()
        refused = await t.slash(world.admin, "settle", match=own.number, game=1, winner=world.admin, number=5)
        assert refused.ephemeral and f"You play in match {own.number}" in refused.content, refused.content
        assert (await t.state()).to_dict() == before
        # Another organizer settles it, and the channel names them.
        settled = await t.slash(world.organizer, "settle", match=own.number, game=1, winner=opponent, number=3)
        assert settled.ephemeral and "decided" in settled.content, settled.content
        await t.wait_channel(f"Match {own.number}, game 1 decided by <@{world.organizer}>")

        # Another match: the organizer's Confirm asks first, names the action, and the absent player is told.
        other_report = await t.report(c, "won", 4, 1)
        prompt = await t.answer(world.admin, other_report.message)
        label = f"Confirm for player{world.players.index(d)} (absent)"
        assert prompt.ephemeral and label in [b.get("label") for b in prompt.components], prompt.components
        assert (await t.state()).match(other.number).games[0].status == "reported"  # nothing yet
        pressed = await fake.click(world.admin, prompt.message, prompt_button(prompt, label))
        assert f"confirmed for <@{d}> (absent) by <@{world.admin}>" in pressed.content, pressed.content
        assert (await t.state()).match(other.number).games[0].status == "final"
        shown = await fake.wait_for(lambda: "(absent) by" in (fake.message(other_report.message["id"])["content"])
                                    and fake.message(other_report.message["id"]), what="the report edited")
        assert not shown["components"]
        assert not any("decided by an organizer" in (m.get("content") or "") for m in fake.messages(world.channel))
        dm = await fake.wait_for(dm_with(fake, d, "confirmed it for you"), what="the absent player's DM")
        assert f"<@{world.admin}>" in dm["content"] and f"/turnabout settle match:{other.number} game:1" in dm["content"]
    finally:
        await t.close()


async def _paired(t: TurnaboutDriver):
    state = await t.state()
    return state if state.matches else None
