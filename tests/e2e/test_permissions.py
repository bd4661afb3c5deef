"""When the bot cannot post, someone is told (issue 23). The fake Discord computes the bot's
permissions from its role and the channels' overwrites, as Discord does, and refuses a post with 403
(50001 Missing Access, 50013 Missing Permissions) where the bot lacks one.

- `/config show` (and `/config set`) lists every channel the bot posts in — the leaderboard channel,
  the channels of running tables — where it lacks a permission, and names it;
- a results post refused for a missing permission is tried once and logged once, and the organizer
  who ended the event is told once: in a follow-up of their reply, or by DM when the refusal comes
  after a restart (their reply is gone with the process).
"""

from __future__ import annotations

import asyncio

import pytest

from tests.e2e.drivers.common import embed_text, eventually
from tests.e2e.drivers.vortex import VortexDriver
from tests.fake_discord import DEFAULT_MEMBER_PERMISSIONS
from tests.fake_discord.constants import EMBED_LINKS, SEND_MESSAGES, VIEW_CHANNEL

pytestmark = pytest.mark.e2e
CUBE_FILE = "\n".join([*(f"Perm Card {i:02d}" for i in range(20)), "6 Island", "6 Forest"]).encode()
NOT_POSTED = "I couldn't post the result of Vortex #"


async def config_show(fake, world) -> str:
    shown = await fake.slash(world.admin, "config show", guild_id=world.guild, channel_id=world.channel)
    assert shown.ephemeral
    return embed_text(shown.message)


async def vortex_game(t: VortexDriver, world) -> int:
    lobby = await t.start(cube="Perms")
    await t.join_all(world.players[:2])
    await t.lobby(lobby, world.admin, "begin")
    return t.game_id


async def test_missing_permissions_are_listed_and_a_refused_results_post_is_told_once(fake, bot, world):
    t = VortexDriver(fake, world, bot.database_url)
    try:
        added = await fake.slash(world.admin, "cube add", guild_id=world.guild, channel_id=world.channel,
                                 options={"name": "Perms"}, attachments={"file": ("perms.txt", CUBE_FILE)})
        assert "32 cards" in added.content, added.content
        saved = await fake.slash(world.admin, "config set", guild_id=world.guild, channel_id=world.channel,
                                 options={"leaderboard_channel": world.leaderboard_channel})
        assert "Missing permissions\nNone: I have what I need in every channel I post in." in embed_text(saved.message)
        game = await vortex_game(t, world)

        # The bot loses Administrator; the leaderboard channel refuses it Send Messages, the game's
        # channel Embed Links, and a third channel (nothing posts there) everything.
        bot_role = fake.bot_role_id(world.guild)
        fake.set_role_permissions(world.guild, bot_role, DEFAULT_MEMBER_PERMISSIONS)
        fake.set_permission_overwrite(world.leaderboard_channel, bot_role, deny=SEND_MESSAGES)
        fake.set_permission_overwrite(world.channel, bot_role, deny=EMBED_LINKS)
        fake.add_channel(world.guild, world.channel + 100, "quiet")
        fake.set_permission_overwrite(world.channel + 100, bot_role, deny=VIEW_CHANNEL)
        await t.check()  # the game goes on in its channel

        async def listed() -> str | None:  # the bot learns of the changes by gateway events
            text = await config_show(fake, world)
            return text if "Embed Links" in text else None

        shown = await eventually(listed, timeout=10, what="/config show to see the new permissions")
        assert (f"<#{world.leaderboard_channel}> (leaderboard channel): I lack the **Send Messages** permission "
                "there.") in shown
        assert f"<#{world.channel}> (Vortex #{game}): I lack the **Embed Links** permission there." in shown
        assert f"<#{world.channel + 100}>" not in shown  # the bot posts nothing there

        # The organizer ends the game with a winner: the results can't be posted, and they hear it
        # under their reply, once.
        winner = world.players[0]
        _prompt, ended = await t.confirmed_command(world.admin, "end", winner=winner)
        assert "has ended" in ended.content
        [notice] = await ended.wait_followup(1)
        assert notice["flags"] & 64  # only they see it
        assert NOT_POSTED + f"{game} in <#{world.leaderboard_channel}>: I lack the **Send Messages**" in notice["content"]
        assert "`/leaderboard`" in notice["content"] and "`/config show`" in notice["content"]
        assert fake.messages(world.leaderboard_channel) == []
        refused = fake.calls("POST", rf"^/channels/{world.leaderboard_channel}/messages$")
        assert [c.status for c in refused] == [403]  # tried once
        assert bot.log_text().count("failed for good: 403") == 1  # logged once
        assert not [m for m in fake.dms(world.admin) if NOT_POSTED in m["content"]]  # not by DM as well
        assert await t.results() == {winner: 1, world.players[1]: 2}  # the results themselves are saved

        # Again, but the bot dies while the post is on its way: the restarted bot's try is refused,
        # and the organizer hears it by DM (their reply is gone with the process).
        game = await vortex_game(t, world)
        held = fake.hold_next("POST", rf"^/channels/{world.leaderboard_channel}/messages$")
        _prompt, ended = await t.confirmed_command(world.admin, "end", winner=winner)
        assert "has ended" in ended.content
        await asyncio.wait_for(held.arrived.wait(), 30)
        await bot.kill()
        held.release()  # Discord never acted on it
        await bot.start()
        dm = await fake.wait_for(lambda: next((m for m in fake.dms(world.admin) if NOT_POSTED in m["content"]), None),
                                 what="the notice by DM")
        assert f"{NOT_POSTED}{game} in <#{world.leaderboard_channel}>" in dm["content"]
        assert ended.followups == [] and fake.messages(world.leaderboard_channel) == []
        assert len([m for m in fake.dms(world.admin) if NOT_POSTED in m["content"]]) == 1
    finally:
        await t.close()
