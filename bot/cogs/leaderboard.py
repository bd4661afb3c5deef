"""/leaderboard: the server-wide table that every format's finished events feed."""

from __future__ import annotations

import discord
from discord import app_commands
from discord.ext import commands

from bot.app import MtgBot
from bot.cogs._checks import require_guild
from bot.services import leaderboard
from bot.ui.goldfish import leaderboard_embed
from bot.ui.paginate import Page, register_renderer, send_paginated, slice_page

ROWS_PER_PAGE = 15
FORMAT_CHOICES = [app_commands.Choice(name=title, value=key) for key, title in leaderboard.FORMATS.items()]


async def season_autocomplete(interaction: discord.Interaction, current: str) -> list[app_commands.Choice[str]]:
    bot: MtgBot = interaction.client  # type: ignore[assignment]
    if interaction.guild_id is None:
        return []
    names = ["current", "all", *await leaderboard.season_names(bot.db, interaction.guild_id)]
    return [app_commands.Choice(name=n, value=n) for n in names if current.lower() in n.lower()][:25]


class Leaderboard(commands.Cog):
    def __init__(self, bot: MtgBot) -> None:
        self.bot = bot
        register_renderer("board", self.render)

    async def render(self, interaction: discord.Interaction, key: str, page: int) -> Page:
        fmt, _, season = key.partition("|")
        period, rows = await leaderboard.standings(
            self.bot.db, require_guild(interaction), format=None if fmt == "all" else fmt, season=season
        )
        shown, page, pages = slice_page(rows, page, ROWS_PER_PAGE)
        title = f"Leaderboard · {leaderboard.FORMATS.get(fmt, 'all formats')} · {period}"
        return Page(leaderboard_embed(title, list(shown)), page, pages)

    @app_commands.command(name="leaderboard", description="Show the server's leaderboard (points, wins, events, best score).")
    @app_commands.describe(
        format="One format, or leave empty for all formats.",
        season="current (default), all (all time), or a past season's name.",
    )
    @app_commands.choices(format=FORMAT_CHOICES)
    @app_commands.autocomplete(season=season_autocomplete)
    @app_commands.guild_only()
    async def leaderboard_(
        self, interaction: discord.Interaction, format: app_commands.Choice[str] | None = None, season: str = "current"
    ) -> None:
        key = f"{format.value if format else 'all'}|{season.strip() or 'current'}"
        await send_paginated(interaction, "board", key, ephemeral=False)


async def setup(bot: MtgBot) -> None:
    await bot.add_cog(Leaderboard(bot))
