"""Autocomplete shared by every format's commands."""

from __future__ import annotations

from collections.abc import Mapping

import discord
from discord import app_commands

from bot.kit import cubes


async def cube_autocomplete(interaction: discord.Interaction, current: str) -> list[app_commands.Choice[str]]:
    """This server's cubes and the shipped ones, for every command that takes a cube."""
    if interaction.guild_id is None:
        return []
    names = await cubes.cube_names(interaction.client.db, interaction.guild_id, current)  # type: ignore[attr-defined]
    return [app_commands.Choice(name=name, value=name) for name in names]


def choices(options: Mapping[str, str]) -> list[app_commands.Choice[str]]:
    """A command option's fixed choices from {value: what the user reads}, in that order."""
    return [app_commands.Choice(name=text[:100], value=value) for value, text in options.items()]


# How a player reports a match or game, from their side (Turnabout, 421; Treasure Battler adds its own).
MATCH_RESULTS = {"won": "I won", "lost": "I lost", "draw": "draw"}
RESULT_CHOICES = choices(MATCH_RESULTS)
