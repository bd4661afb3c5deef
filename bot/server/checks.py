"""Permission checks shared by the cogs (who is an organizer, who manages the server)."""

from __future__ import annotations

import discord

from bot.kit import guild_config
from bot.kit.errors import PermissionDenied, UserError
from bot.kit.guild_config import GuildConfig
from bot.store.db import Database


def require_guild(interaction: discord.Interaction) -> int:
    if interaction.guild_id is None:
        raise UserError("That command only works in a server, not in DMs.")
    return interaction.guild_id


def is_organizer(interaction: discord.Interaction, config: GuildConfig) -> bool:
    """Organizers: members with Manage Server, or with the configured organizer role."""
    if interaction.permissions.manage_guild:
        return True
    user = interaction.user
    role_ids = {role.id for role in getattr(user, "roles", [])} or set(getattr(user, "_roles", []))
    return config.organizer_role_id is not None and config.organizer_role_id in role_ids


def require_organizer(interaction: discord.Interaction, config: GuildConfig) -> None:
    if not is_organizer(interaction, config):
        role = f"the <@&{config.organizer_role_id}> role or " if config.organizer_role_id else ""
        raise PermissionDenied(f"Only organizers can do that: you need {role}the Manage Server permission.")


async def interaction_is_organizer(db: Database, interaction: discord.Interaction) -> bool:
    """`is_organizer` with this server's settings; False in DMs."""
    if interaction.guild_id is None:
        return False
    return is_organizer(interaction, await guild_config.get_config(db, interaction.guild_id))
