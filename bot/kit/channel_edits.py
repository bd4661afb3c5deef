"""Editing a message the bot posted earlier (lobbies), best effort."""

from __future__ import annotations

import logging

import discord

log = logging.getLogger(__name__)


async def edit_channel_message(bot, channel_id: int, guild_id: int | None, message_id: int | None, **changes) -> None:
    """Edit a message the bot posted earlier (a lobby), by id; a failure is logged, not raised:
    the database already holds the truth and the next edit shows it."""
    if message_id is None:
        return
    message = bot.get_partial_messageable(channel_id, guild_id=guild_id).get_partial_message(message_id)
    try:
        await message.edit(**changes)
    except discord.HTTPException:
        log.warning("could not edit message %s in channel %s", message_id, channel_id, exc_info=True)
