"""/about and /config through the real discord.py client and the fake Discord."""

from __future__ import annotations

import pytest

pytestmark = pytest.mark.e2e


async def test_commands_are_synced_with_descriptions(fake, bot):
    commands = {command["name"]: command for command in fake.synced_commands()}
    assert {"about", "config", "draft", "cube"} <= set(commands)

    def walk(options):
        for option in options or []:
            yield option
            yield from walk(option.get("options"))

    for command in commands.values():
        assert command["description"]
        for option in walk(command.get("options")):
            assert option["description"], f"/{command['name']} {option['name']} has no help text"


async def test_about_answers(fake, bot, world):
    result = await fake.slash(world.member, "about", guild_id=world.guild, channel_id=world.channel)
    assert result.ephemeral
    for needle in ("Version", "0.1.0", "Uptime", "Database", "sqlite", "Latency"):
        assert needle in result.content


async def test_about_works_in_dms(fake, bot, world):
    result = await fake.slash(world.member, "about")
    assert "sqlite" in result.content


async def test_config_is_refused_without_manage_server(fake, bot, world):
    result = await fake.slash(
        world.member, "config set", guild_id=world.guild, channel_id=world.channel,
        options={"pick_mode": "buttons"}, enforce_permissions=False,
    )
    assert result.ephemeral
    assert "Manage Server" in result.content
    shown = await fake.slash(world.admin, "config show", guild_id=world.guild, channel_id=world.channel)
    assert "both" in shown.content  # unchanged default


async def test_config_set_show_and_survives_a_restart(fake, bot, world):
    result = await fake.slash(
        world.admin, "config set", guild_id=world.guild, channel_id=world.channel,
        options={
            "organizer_role": world.organizer_role,
            "leaderboard_channel": world.leaderboard_channel,
            "pick_mode": "buttons",
        },
    )
    assert result.ephemeral and "Settings saved" in result.content
    assert str(world.organizer_role) in result.content and str(world.leaderboard_channel) in result.content

    await bot.restart()  # kill -9, then start again on the same database

    shown = await fake.slash(world.admin, "config show", guild_id=world.guild, channel_id=world.channel)
    assert str(world.organizer_role) in shown.content
    assert str(world.leaderboard_channel) in shown.content
    assert "buttons" in shown.content


async def test_config_set_needs_a_setting(fake, bot, world):
    result = await fake.slash(world.admin, "config set", guild_id=world.guild, channel_id=world.channel)
    assert "at least one setting" in result.content


async def test_config_reset_asks_first(fake, bot, world):
    await fake.slash(
        world.admin, "config set", guild_id=world.guild, channel_id=world.channel, options={"pick_mode": "reactions"}
    )
    prompt = await fake.slash(world.admin, "config reset", guild_id=world.guild, channel_id=world.channel)
    assert "Reset" in prompt.content
    cancelled = await fake.click(world.admin, prompt.message, _custom_id(prompt, "Keep them"))
    assert "nothing was changed" in cancelled.content
    assert "reactions" in (await fake.slash(world.admin, "config show", guild_id=world.guild, channel_id=world.channel)).content

    prompt = await fake.slash(world.admin, "config reset", guild_id=world.guild, channel_id=world.channel)
    done = await fake.click(world.admin, prompt.message, _custom_id(prompt, "Reset the settings"))
    assert "Settings reset" in done.content and "both" in done.content


def _custom_id(result, label: str) -> str:
    return next(c["custom_id"] for c in result.components if c.get("label") == label)
