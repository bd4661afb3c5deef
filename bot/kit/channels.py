"""The channels a server's bot posts in: its leaderboard channel, and the channels of its tables,
Goldfish events and chess clocks still running (`/config show` checks the bot's permissions there).
Tables are known by their specs; what else posts in a channel declares a query (`UsesQuery`: a
format's `Format.channels`, a feature's beside it). The bot builds one `Posting` of them all when it
starts (nothing registers itself at import)."""

from __future__ import annotations

from collections.abc import Awaitable, Callable, Iterable
from dataclasses import dataclass, field

from sqlalchemy import select
from sqlalchemy.ext.asyncio import AsyncSession

from bot.kit import tables
from bot.store.db import Database
from bot.store.models import GuildSettings

LEADERBOARD = "leaderboard channel"
# What else posts in a server's channels besides tables: (session, guild id) -> (channel id, what posts).
UsesQuery = Callable[[AsyncSession, int], Awaitable[Iterable[tuple[int, str]]]]


@dataclass(frozen=True)
class Posting:
    """What posts in a server's channels: every format's table spec, and the queries of what posts
    outside tables (built by the bot from the formats' and features' declarations)."""

    specs: tuple[tables.TableSpec, ...] = ()
    queries: tuple[UsesQuery, ...] = field(default=())


@dataclass(frozen=True)
class ChannelUse:
    channel_id: int
    uses: tuple[str, ...]  # what posts there: "leaderboard channel", "Vortex #3", …


async def channels_in_use(db: Database, guild_id: int, posting: Posting) -> list[ChannelUse]:
    """Every channel of the server the bot posts in, with what posts there (the leaderboard channel
    first, then by channel id): the tables of `posting.specs` and what its queries find."""
    found: dict[int, list[str]] = {}
    async with db.read() as session:
        leaderboard = (await session.execute(
            select(GuildSettings.leaderboard_channel_id).where(GuildSettings.guild_id == guild_id)
        )).scalar_one_or_none()
        for spec in posting.specs:
            model = spec.model
            rows = await session.execute(
                select(model.id, model.channel_id)
                .where(model.guild_id == guild_id, model.status.in_(spec.statuses.active))
                .order_by(model.id)
            )
            for table_id, channel_id in rows:
                found.setdefault(channel_id, []).append(f"{spec.title} #{table_id}")
        for query in posting.queries:
            for channel_id, what in await query(session, guild_id):
                found.setdefault(channel_id, []).append(what)
    uses = [ChannelUse(channel_id, tuple(dict.fromkeys(what))) for channel_id, what in sorted(found.items())]
    if leaderboard is not None:
        others = next((u.uses for u in uses if u.channel_id == leaderboard), ())
        uses = [ChannelUse(leaderboard, (LEADERBOARD, *others)), *(u for u in uses if u.channel_id != leaderboard)]
    return uses
