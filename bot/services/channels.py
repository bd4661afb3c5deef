"""The channels a server's bot posts in: its leaderboard channel, and the channels of its tables,
Goldfish events and chess clocks still running (`/config show` checks the bot's permissions there)."""

from __future__ import annotations

from dataclasses import dataclass

from sqlalchemy import select

from bot.services import battler, drafts, four_two_one, tables, turnabout, vortex
from bot.store.db import Database
from bot.store.models import ChessClock, GoldfishEvent, GuildSettings

SPECS: tuple[tables.TableSpec, ...] = (drafts.SPEC, battler.SPEC, turnabout.SPEC, vortex.SPEC, four_two_one.SPEC)
LEADERBOARD = "leaderboard channel"


@dataclass(frozen=True)
class ChannelUse:
    channel_id: int
    uses: tuple[str, ...]  # what posts there: "leaderboard channel", "Vortex #3", …


async def channels_in_use(db: Database, guild_id: int) -> list[ChannelUse]:
    """Every channel of the server the bot posts in, with what posts there (the leaderboard channel
    first, then by channel id)."""
    found: dict[int, list[str]] = {}
    async with db.read() as session:
        leaderboard = (await session.execute(
            select(GuildSettings.leaderboard_channel_id).where(GuildSettings.guild_id == guild_id)
        )).scalar_one_or_none()
        for spec in SPECS:
            model = spec.model
            rows = await session.execute(
                select(model.id, model.channel_id)
                .where(model.guild_id == guild_id, model.status.in_(spec.statuses.active))
                .order_by(model.id)
            )
            for table_id, channel_id in rows:
                found.setdefault(channel_id, []).append(f"{spec.title} #{table_id}")
        events = await session.execute(
            select(GoldfishEvent.channel_id).where(GoldfishEvent.guild_id == guild_id, GoldfishEvent.status == "open")
        )
        for (channel_id,) in events:
            found.setdefault(channel_id, []).append("Goldfish scoring")
        clocks = await session.execute(
            select(ChessClock.channel_id).where(ChessClock.guild_id == guild_id, ChessClock.live == 1)
        )
        for (channel_id,) in clocks:
            found.setdefault(channel_id, []).append("chess clock")
    uses = [ChannelUse(channel_id, tuple(dict.fromkeys(what))) for channel_id, what in sorted(found.items())]
    if leaderboard is not None:
        others = next((u.uses for u in uses if u.channel_id == leaderboard), ())
        uses = [ChannelUse(leaderboard, (LEADERBOARD, *others)), *(u for u in uses if u.channel_id != leaderboard)]
    return uses
