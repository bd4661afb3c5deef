"""/help: what the bot runs, how to start each format, how to set a server up; and the greeting a
server gets when the bot joins it.

Every text about a format is in its own declaration (`help=FormatHelp(...)` of the `FORMAT` in
`bot/games/<package>/__init__.py`): the overview's one line, the flow of `/help format:`, its other
commands and its rules page in the repository's `docs/rules/`: linked on the server's web site while
it is on (`/rules/<format>`, `bot.web.rules`), else where `RULES_URL` says that folder is read. Every page fits a phone's screen: at most `PAGE_LIMIT` characters (a test measures
them). `/about` lists the formats from them too.
"""

from __future__ import annotations

import logging

import discord
from discord import app_commands
from discord.ext import commands

import bot.games
from bot.kit import limits
from bot.kit.client import KitBot
from bot.kit.formats import RULES_HOME, FormatHelp
from bot.web import access
from bot.web.rules import PREFIX as RULES_PREFIX
from bot.web.rules import rules_path

log = logging.getLogger(__name__)

COLOUR = discord.Colour.blurple()
PAGE_LIMIT = 1000  # characters of a page (title, text, fields and footer): one phone screen


def entries() -> list[FormatHelp]:
    """Every format's help page, in the formats' order (each format declares its own)."""
    return [fmt.help for fmt in bot.games.formats() if fmt.help is not None]


BY_KEY = {entry.key: entry for entry in entries()}
FORMAT_CHOICES = [app_commands.Choice(name=entry.name, value=entry.key) for entry in entries()]

WHAT_IT_RUNS = (
    "I run casual Magic: The Gathering formats **asynchronously**: drafts picked in DMs, and games "
    "whose hidden cards and scores I keep. Finished events feed `/leaderboard`."
)

# The three setup steps (the real /config options), for /help and the greeting.
SETUP_STEPS = (
    "`/config set organizer_role:@Role`: who may start and run events (members with Manage Server always may).",
    "`/config set leaderboard_channel:#channel`: where final results are posted.",
    "`/config set pictures:on` or `off`: card pictures in pack DMs and pools (on by default).",
)
SETUP_TEXT = "\n".join(f"{number}. {step}" for number, step in enumerate(SETUP_STEPS, start=1))

def _and(names: list[str]) -> str:
    return ", ".join(names[:-1]) + f" and {names[-1]}" if len(names) > 1 else "".join(names)


# The formats named from their declarations (a new format is named without a change here).
GREETING = (
    "Hello! I run casual Magic: The Gathering formats asynchronously in this server: drafts picked in DMs, "
    f"{_and([entry.name for entry in entries() if entry.key != 'draft'])}.\n"
    "**To set me up** (someone with Manage Server):\n"
    f"{SETUP_TEXT}\n"
    "`/config show` checks that I may post where I need to. `/help` shows how to start each format."
)


def format_names() -> str:
    return ", ".join(entry.name for entry in entries())


def rules_link(rules_url: str | None, page: str = RULES_HOME, site: str | None = None) -> str:
    """The full rules (`page`: a format's, or the folder of them): a format's page on the server's web
    site while it is on (`site`: the site's address), else a link where RULES_URL says they are read,
    else their place in the bot's repository, named."""
    name = page.removeprefix(RULES_HOME)
    if site is not None:
        return (f"[{name.removesuffix('.md')} on the web]({site}{rules_path(name.removesuffix('.md'))})" if name
                else f"[every format]({site}{RULES_PREFIX})")
    if rules_url is None:
        return f"`{page}` in the bot's repository"
    return f"[{name or 'every format'}]({rules_url}{name})"


def overview_embed(rules_url: str | None = None, site: str | None = None) -> discord.Embed:
    embed = discord.Embed(title="MTG async formats bot: help", description=WHAT_IT_RUNS, colour=COLOUR)
    embed.add_field(name="Start a format", inline=False,
                    value="\n".join(f"**{entry.name}:** {entry.start.split(': ')[0]}" for entry in entries()))
    embed.add_field(name="Set up (Manage Server)", inline=False,
                    value="`/config set organizer_role` who runs events · `/config set leaderboard_channel` where "
                          "results go · `/config set pictures` · `/config show` checks it all")
    embed.add_field(name="Also", inline=False,
                    value=f"`/help format` a format's steps · full rules: {rules_link(rules_url, site=site)} · "
                          "`/cube list` · `/leaderboard` · `/clock start` · `/about`")
    if site is not None and limits.embed_size(embed) > PAGE_LIMIT:  # an address too long for the page
        return overview_embed(rules_url)
    return embed


def format_embed(entry: FormatHelp, rules_url: str | None = None, site: str | None = None) -> discord.Embed:
    """A format's page; its rules on the server's web `site` while it is on (unless so long an address
    would not fit the page: then as without a site)."""
    embed = discord.Embed(title=f"{entry.name}: help", description=entry.about, colour=COLOUR)
    embed.add_field(name="How it goes", value="\n".join(entry.flow), inline=False)
    embed.add_field(name="Also", value=f"{entry.more}\n**Full rules:** {rules_link(rules_url, entry.rules_page, site)}",
                    inline=False)
    if site is not None and limits.embed_size(embed) > PAGE_LIMIT:
        return format_embed(entry, rules_url)
    return embed


def pages(rules_url: str | None = None, site: str | None = None) -> list[discord.Embed]:
    """Every help page (the overview, then each format's): what a test measures against the limits."""
    return [overview_embed(rules_url, site), *(format_embed(entry, rules_url, site) for entry in entries())]


async def site_of(bot: KitBot, guild_id: int | None) -> str | None:
    """The address of the server's web site while it is on (None in DMs, or with no site)."""
    if guild_id is None or bot.settings.web_base_url is None:
        return None
    site = await access.site_of(bot.db, guild_id)
    return None if site is None else bot.settings.web_base_url


def may_greet(channel: discord.abc.GuildChannel | None, me: discord.Member | None) -> bool:
    """Whether the bot may post its greeting (plain text) in `channel`."""
    if channel is None or me is None:
        return False
    allowed = channel.permissions_for(me)
    return allowed.view_channel and allowed.send_messages


class Help(commands.Cog):
    def __init__(self, bot: KitBot) -> None:
        self.bot = bot

    @app_commands.command(name="help", description="What the bot runs, how to start each format and how to set it up.")
    @app_commands.describe(format="A format: its steps from start to end, and its rules in short.")
    @app_commands.choices(format=FORMAT_CHOICES)
    async def help(self, interaction: discord.Interaction, format: app_commands.Choice[str] | None = None) -> None:
        rules_url, site = self.bot.settings.rules_url, await site_of(self.bot, interaction.guild_id)
        embed = overview_embed(rules_url, site) if format is None else format_embed(BY_KEY[format.value], rules_url, site)
        await interaction.response.send_message(embed=embed, ephemeral=True)

    @commands.Cog.listener()
    async def on_guild_join(self, guild: discord.Guild) -> None:
        """Greet a server the bot was just added to, once, in its system channel if it may post there."""
        channel = guild.system_channel
        if not may_greet(channel, guild.me):
            log.info("Joined server %s; no system channel I may post in, so no greeting", guild.id)
            return
        try:
            await channel.send(GREETING, allowed_mentions=discord.AllowedMentions.none())
        except discord.HTTPException as error:
            log.warning("Joined server %s; the greeting was refused: %s", guild.id, error)


async def setup(bot: KitBot) -> None:
    await bot.add_cog(Help(bot))
