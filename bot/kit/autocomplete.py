"""Autocomplete shared by every format's commands."""

from __future__ import annotations

import discord
from discord import app_commands

from bot.kit import cubes


async def cube_autocomplete(interaction: discord.Interaction, current: str) -> list[app_commands.Choice[str]]:
    """This server's cubes and the shipped ones, for every command that takes a cube."""
    if interaction.guild_id is None:
        return []
    names = await cubes.cube_names(interaction.client.db, interaction.guild_id, current)  # type: ignore[attr-defined]
    return [app_commands.Choice(name=name, value=name) for name in names]
