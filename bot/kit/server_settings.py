"""Reading a server's settings row: the framework's part of /config (`bot.features.config`), kept
in the kit because every format reads it (its organizer role, its leaderboard channel) in its own
transactions, and the kit's pictures ask it whether to draw; a format must not import a feature for
a framework duty."""

from __future__ import annotations

from sqlalchemy import select
from sqlalchemy.ext.asyncio import AsyncSession

from bot.store.db import Database
from bot.store.models import GuildSettings


async def load_settings_row(session: AsyncSession, guild_id: int) -> GuildSettings | None:
    return await session.get(GuildSettings, guild_id)


async def pictures_enabled(db: Database, guild_id: int | None) -> bool:
    """Whether this server's pack DMs and pools carry pictures (on unless turned off)."""
    if guild_id is None:
        return True
    async with db.read() as session:
        setting = await session.execute(select(GuildSettings.pictures).where(GuildSettings.guild_id == guild_id))
        return setting.scalar_one_or_none() is not False
