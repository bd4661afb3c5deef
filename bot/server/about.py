"""/about: what is running and how it is doing."""

from __future__ import annotations

import discord
from discord import app_commands
from discord.ext import commands

from bot import __version__
from bot.kit.client import KitBot
from bot.kit.formatting import format_duration
from bot.server import help


class About(commands.Cog):
    def __init__(self, bot: KitBot) -> None:
        self.bot = bot

    @app_commands.command(name="about", description="Show the bot's version, uptime, database and latency.")
    async def about(self, interaction: discord.Interaction) -> None:
        latency = self.bot.latency_ms
        embed = discord.Embed(title="MTG async formats bot", colour=discord.Colour.blurple())
        embed.add_field(name="Version", value=__version__)
        embed.add_field(name="Uptime", value=format_duration(self.bot.uptime_seconds))
        embed.add_field(name="Database", value=self.bot.db.backend)
        embed.add_field(name="Latency", value="measuring…" if latency is None else f"{latency:.0f} ms")
        embed.add_field(name="Shards", value=str(self.bot.shard_count or 1))
        embed.add_field(name="Formats", value=help.format_names(), inline=False)
        embed.set_footer(text="/help shows how to start each format and how to set the bot up.")
        await interaction.response.send_message(embed=embed, ephemeral=True)


async def setup(bot: KitBot) -> None:
    await bot.add_cog(About(bot))
