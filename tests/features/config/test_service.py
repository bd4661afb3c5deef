from __future__ import annotations

import pytest

from bot.features.config import service as guild_config
from bot.kit import server_settings
from bot.kit.errors import UserError


async def test_defaults_for_an_unknown_guild(db):
    config = await guild_config.get_config(db, 42)
    assert config.organizer_role_id is None
    assert config.leaderboard_channel_id is None
    assert config.default_pick_mode == "both"


async def test_update_is_partial_and_persists(db):
    await guild_config.update_config(db, 42, organizer_role_id=7)
    await guild_config.update_config(db, 42, default_pick_mode="buttons")
    config = await guild_config.get_config(db, 42)
    assert (config.organizer_role_id, config.default_pick_mode) == (7, "buttons")


async def test_guilds_are_isolated(db):
    await guild_config.update_config(db, 1, leaderboard_channel_id=99)
    assert (await guild_config.get_config(db, 2)).leaderboard_channel_id is None


async def test_bad_pick_mode_changes_nothing(db):
    await guild_config.update_config(db, 42, default_pick_mode="reactions")
    with pytest.raises(UserError, match="pick mode"):
        await guild_config.update_config(db, 42, default_pick_mode="telepathy", organizer_role_id=5)
    config = await guild_config.get_config(db, 42)
    assert (config.default_pick_mode, config.organizer_role_id) == ("reactions", None)


async def test_unset_and_reset(db):
    await guild_config.update_config(db, 42, organizer_role_id=7, leaderboard_channel_id=8)
    config = await guild_config.update_config(db, 42, organizer_role_id=None)
    assert (config.organizer_role_id, config.leaderboard_channel_id) == (None, 8)
    config = await guild_config.reset_config(db, 42)
    assert config.leaderboard_channel_id is None


async def test_pictures_are_on_unless_turned_off(db):
    assert await server_settings.pictures_enabled(db, 42) and await server_settings.pictures_enabled(db, None)
    config = await guild_config.update_config(db, 42, pictures=False)
    assert config.pictures is False and not await server_settings.pictures_enabled(db, 42)
    assert await server_settings.pictures_enabled(db, 43)  # another server keeps its own
    await guild_config.update_config(db, 42, default_pick_mode="buttons")  # a partial update keeps it off
    assert not (await guild_config.get_config(db, 42)).pictures
    await guild_config.reset_config(db, 42)
    assert (await guild_config.get_config(db, 42)).pictures
