"""Per-guild settings (/config). Reading the row (`load_settings_row`) is the kit's
(`bot.kit.server_settings`): every format reads it."""

from __future__ import annotations

from dataclasses import dataclass

from sqlalchemy import select
from sqlalchemy.ext.asyncio import AsyncSession

from bot.kit.errors import UserError
from bot.kit.server_settings import load_settings_row
from bot.store.db import Database
from bot.store.models import GuildSettings, Season

PICK_MODES = {
    "both": "reactions and buttons on every pack",
    "buttons": "buttons only (fastest)",
    "reactions": "reactions only (/draft pick works too)",
}
DEFAULT_PICK_MODE = "both"


class _Unset:
    pass


UNSET = _Unset()


@dataclass(frozen=True)
class GuildConfig:
    guild_id: int
    organizer_role_id: int | None
    leaderboard_channel_id: int | None
    default_pick_mode: str
    active_season: str | None
    pictures: bool = True  # pack DMs and pools carry a picture of the cards
    web: bool = False  # the server's web pages are on (it has an address: `bot.web.access`)


async def _active_season_name(session: AsyncSession, guild_id: int) -> str | None:
    query = select(Season.name).where(Season.guild_id == guild_id, Season.ended_at.is_(None))
    return (await session.execute(query.order_by(Season.started_at.desc()).limit(1))).scalar_one_or_none()


def _to_config(guild_id: int, row: GuildSettings | None, season: str | None) -> GuildConfig:
    if row is None:
        return GuildConfig(guild_id, None, None, DEFAULT_PICK_MODE, season)
    return GuildConfig(
        guild_id, row.organizer_role_id, row.leaderboard_channel_id, row.default_pick_mode, season, row.pictures,
        row.web_address is not None,
    )


async def get_config(db: Database, guild_id: int) -> GuildConfig:
    async with db.read() as session:
        row = await load_settings_row(session, guild_id)
        return _to_config(guild_id, row, await _active_season_name(session, guild_id))


async def update_config(
    db: Database,
    guild_id: int,
    *,
    organizer_role_id: int | None | _Unset = UNSET,
    leaderboard_channel_id: int | None | _Unset = UNSET,
    default_pick_mode: str | _Unset = UNSET,
    pictures: bool | _Unset = UNSET,
) -> GuildConfig:
    if not isinstance(default_pick_mode, _Unset) and default_pick_mode not in PICK_MODES:
        raise UserError(f"Unknown pick mode {default_pick_mode!r}: choose one of {', '.join(PICK_MODES)}.")
    async with db.write() as session:
        row = await load_settings_row(session, guild_id)
        if row is None:
            row = GuildSettings(guild_id=guild_id, default_pick_mode=DEFAULT_PICK_MODE)
            session.add(row)
        if not isinstance(organizer_role_id, _Unset):
            row.organizer_role_id = organizer_role_id
        if not isinstance(leaderboard_channel_id, _Unset):
            row.leaderboard_channel_id = leaderboard_channel_id
        if not isinstance(default_pick_mode, _Unset):
            row.default_pick_mode = default_pick_mode
        if not isinstance(pictures, _Unset):
            row.pictures = pictures
        await session.flush()
        return _to_config(guild_id, row, await _active_season_name(session, guild_id))


async def reset_config(db: Database, guild_id: int) -> GuildConfig:
    async with db.write() as session:
        row = await load_settings_row(session, guild_id)
        if row is not None:
            await session.delete(row)
    return await get_config(db, guild_id)
