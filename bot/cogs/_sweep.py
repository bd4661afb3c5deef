"""What the background sweeps of the draft and battler cogs share."""

from __future__ import annotations

import logging
from datetime import datetime, timedelta

import discord

from bot.store.types import utcnow

log = logging.getLogger(__name__)

UNDELIVERED_GRACE_SECONDS = 60


class ResendCutoff:
    """Which undelivered DMs a sweep may re-send.

    At startup: everything that was waiting before this process started (nothing of it can be in
    flight here). Later: only what has waited longer than the grace, so a DM that a handler is
    sending right now is not sent twice.
    """

    def __init__(self, grace_seconds: float = UNDELIVERED_GRACE_SECONDS) -> None:
        self.started_at = utcnow()
        self.grace = timedelta(seconds=grace_seconds)
        self._first = True

    def next(self) -> datetime:
        if self._first:
            self._first = False
            return self.started_at
        return utcnow() - self.grace


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
