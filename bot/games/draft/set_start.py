"""`/draft start`'s lobby: of a cube, or of a set's boosters, the set imported from Scryfall first when
the server has none of that name (the progress shown in the command's answer, as `/421 start` does)."""

from __future__ import annotations

import discord

from bot.features.cubes import service as cubes
from bot.features.sets import service as set_lists
from bot.features.sets.ui import import_set
from bot.games.draft import service as drafts
from bot.kit.client import KitBot
from bot.kit.dispatch import actor_of
from bot.kit.errors import UserError

CUBE_OR_SET = ("Give exactly one of `cube` (a cube of this server) or `set` (a set's boosters: one of this "
               "server's sets, or a Scryfall set code).")


async def open_lobby(bot: KitBot, interaction: discord.Interaction, *, cube: str | None, set_key: str | None,
                     options: dict) -> drafts.PodView:
    """A new lobby for `/draft start`: of a cube, or of a set's boosters (`options` as
    `drafts.create_pod` takes them)."""
    if (cube is None) == (set_key is None):
        raise UserError(CUBE_OR_SET)
    if cube is not None:
        actor = actor_of(interaction)
        return await drafts.create_pod(bot.db, actor, cube=await cubes.get_cube(bot.db, actor.guild_id, cube), **options)
    return await _set_lobby(bot, interaction, set_key, options)


async def _set_lobby(bot: KitBot, interaction: discord.Interaction, key: str, options: dict) -> drafts.PodView:
    key = set_lists.validate_key(key)
    missing = await set_lists.missing_keys(bot.db, interaction.guild_id, [key])
    set_lists.require_importable(missing)
    if missing:
        await interaction.response.defer(thinking=True)
    try:
        if missing:
            await import_set(bot, interaction, key, key)
        [card_set] = await set_lists.get_sets(bot.db, interaction.guild_id, [key])
        return await drafts.create_set_pod(bot.db, actor_of(interaction), card_set=card_set, **options)
    except UserError:
        if missing:  # the public progress message goes; the error is shown to the organizer alone
            await interaction.delete_original_response()
        raise
