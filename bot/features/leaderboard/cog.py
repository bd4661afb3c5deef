"""/leaderboard: the server-wide table that every format's finished events feed."""

from __future__ import annotations

import discord
from discord import app_commands
from discord.ext import commands

from bot.features.leaderboard import service as leaderboard
from bot.features.leaderboard.service import BoardRow
from bot.kit.client import KitBot
from bot.kit.dispatch import handles, require_guild
from bot.kit.lookups import POST
from bot.kit.paginate import Page, PageList, send_paginated, slice_page
from bot.kit.text import name_key, plural
from bot.web.buttons import leaderboard_buttons

ROWS_PER_PAGE = 15
ALL_FORMATS = "all"
BOARD_PAGES = PageList("board")  # a leaderboard (declared in `bot.app`'s shared page lists)


def number_text(value: float) -> str:
    return f"{value:g}"


def leaderboard_embed(title: str, rows: list[BoardRow], first_rank: int = 1) -> discord.Embed:
    embed = discord.Embed(title=title, colour=discord.Colour.purple())
    lines = [
        f"**{row.rank}.** <@{row.user_id}> · {number_text(row.points)} {'pt' if row.points == 1 else 'pts'} · {plural(row.events, 'event')} · "
        f"{plural(row.wins, 'win')}"
        + (f" · best {number_text(row.best_score)}" if row.best_score is not None else "")
        for row in rows
    ]
    embed.description = "\n".join(lines) or "No finished events yet."
    return embed


async def season_autocomplete(interaction: discord.Interaction, current: str) -> list[app_commands.Choice[str]]:
    bot: KitBot = interaction.client  # type: ignore[assignment]
    if interaction.guild_id is None:
        return []
    words = [w for w in (leaderboard.CURRENT, leaderboard.ALL_TIME) if name_key(current) in w]
    names = await leaderboard.season_names(bot.db, interaction.guild_id, current, limit=25 - len(words))
    return [app_commands.Choice(name=n[:100], value=n) for n in [*words, *names]]


class Leaderboard(commands.Cog):
    def __init__(self, bot: KitBot) -> None:
        self.bot = bot
        # The formats' choices, from the formats the bot runs (set before the commands are synced).
        self.leaderboard_._params["format"].choices = [
            app_commands.Choice(name=title, value=key) for key, title in bot.leaderboard_titles.items()]

    @handles(BOARD_PAGES)
    async def render(self, interaction: discord.Interaction, key: str, page: int) -> Page:
        """`key` is "<format>:<period key>" (a season id, never its name: names can be too long
        for a custom_id). Buttons posted before were keyed "<format>|<season as typed>"."""
        guild_id = require_guild(interaction)
        if "|" in key:
            fmt, _, season = key.partition("|")
            period = await leaderboard.find_period(self.bot.db, guild_id, season)
        else:
            fmt, _, period_key = key.partition(":")
            period = await leaderboard.period_by_key(self.bot.db, guild_id, period_key)
        rows = await leaderboard.board(self.bot.db, guild_id, period, format=None if fmt == ALL_FORMATS else fmt)
        shown, page, pages = slice_page(rows, page, ROWS_PER_PAGE)
        title = f"Leaderboard · {self.bot.leaderboard_titles.get(fmt, 'all formats')} · {period.title}"
        links = await leaderboard_buttons(self.bot.db, self.bot.settings, guild_id,
                                          format=None if fmt == ALL_FORMATS else fmt,
                                          season=None if period.key == leaderboard.NO_SEASON_PERIOD.key else period.key)
        return Page(leaderboard_embed(title, list(shown)), page, pages, links)

    @app_commands.command(name="leaderboard", description="Show the server's leaderboard (points, wins, events, best score).")
    @app_commands.describe(
        format="One format, or leave empty for all formats.",
        season="current (default: the running season, or all time if none is running), all, or a season's name.",
        post=POST,
    )
    @app_commands.autocomplete(season=season_autocomplete)
    @app_commands.guild_only()
    async def leaderboard_(
        self,
        interaction: discord.Interaction,
        format: app_commands.Choice[str] | None = None,
        season: str = leaderboard.CURRENT,
        post: bool = False,
    ) -> None:
        period = await leaderboard.find_period(self.bot.db, require_guild(interaction), season)
        key = f"{format.value if format else ALL_FORMATS}:{period.key}"
        await send_paginated(interaction, BOARD_PAGES, key, ephemeral=not post)


async def setup(bot: KitBot) -> None:
    await bot.add_cog(Leaderboard(bot))
