"""Answers that lead somewhere (issue 35, items 6, 7 and 8), through the real client and the fake Discord:
a command typed in the wrong channel names where the table is, and one after it was cancelled or ended
says so; look-ups answer privately unless asked to post; an ask-first prompt names its buttons by what
they do."""

from __future__ import annotations

import pytest

from tests.e2e.drivers.turnabout import TurnaboutDriver

pytestmark = pytest.mark.e2e


async def in_channel(fake, world, user: int, command: str, channel: int, **options):
    return await fake.slash(user, command, guild_id=world.guild, channel_id=channel, options=options or None)


async def test_a_command_elsewhere_names_the_events_channel_and_a_cancelled_one_says_so(fake, bot, world):
    t = TurnaboutDriver(fake, world, bot.database_url)
    try:
        await t.start()
        elsewhere = world.leaderboard_channel
        begun = await in_channel(fake, world, world.admin, "turnabout begin", elsewhere)
        assert begun.ephemeral and begun.content == (
            f"Turnabout #{t.event_id} is open in <#{world.channel}>: use the command there."), begun.content

        # Ask-first buttons say what they do: never [Confirm] [Cancel] on a question about cancelling.
        prompt = await t.slash(world.admin, "cancel")
        assert prompt.ephemeral and [c.get("label") for c in prompt.components] == ["Cancel the event", "Keep it"]
        kept = await fake.click(world.admin, prompt.message, prompt.components[1]["custom_id"])
        assert kept.content == "Kept as it was: nothing was changed."
        prompt = await t.slash(world.admin, "cancel")
        done = await fake.click(world.admin, prompt.message, prompt.components[0]["custom_id"])
        assert f"#{t.event_id} was cancelled" in done.content, done.content

        late = await t.slash(world.member, "report", result="won", number=3)
        assert late.ephemeral and late.content == f"Turnabout #{t.event_id} was cancelled: nothing was recorded."
        nothing = await in_channel(fake, world, world.member, "vortex status", elsewhere)
        assert nothing.ephemeral and "There is no Vortex game here" in nothing.content, nothing.content
    finally:
        await t.close()


async def test_look_ups_answer_privately_unless_asked_to_post(fake, bot, world):
    t = TurnaboutDriver(fake, world, bot.database_url)
    try:
        await t.start()
        posts = len(fake.messages(world.channel))
        for command in ("turnabout status", "turnabout rating", "leaderboard"):
            quiet = await in_channel(fake, world, world.member, command, world.channel)
            assert quiet.ephemeral and quiet.message is not None, (command, quiet.content)
        assert len(fake.messages(world.channel)) == posts  # nothing was posted for everyone
        for command in ("turnabout status", "turnabout rating", "leaderboard"):
            posted = await in_channel(fake, world, world.member, command, world.channel, post=True)
            assert not posted.ephemeral and posted.message is not None, (command, posted.content)
        assert len(fake.messages(world.channel)) == posts + 3
    finally:
        await t.close()
