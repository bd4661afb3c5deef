"""/config: per-server settings (Manage Server only)."""

from __future__ import annotations

from dataclasses import replace

import discord
from discord import app_commands

from bot.features.config import service as guild_config
from bot.features.config.service import PICK_MODES, GuildConfig
from bot.features.leaderboard import service as leaderboard
from bot.kit import channels, limits
from bot.kit.client import KitBot
from bot.kit.confirm import Done, confirm_then_act
from bot.kit.dispatch import require_guild
from bot.kit.errors import UserError
from bot.kit.formatting import channel_mention, role_mention
from bot.kit.permissions import channel_problem
from bot.kit.text import escape
from bot.web import access

PICK_MODE_CHOICES = [app_commands.Choice(name=f"{key}: {text}", value=key) for key, text in PICK_MODES.items()]
ON_OFF = [app_commands.Choice(name="on", value="on"), app_commands.Choice(name="off", value="off")]
UNSETTABLE = [
    app_commands.Choice(name="organizer role", value="organizer_role"),
    app_commands.Choice(name="leaderboard channel", value="leaderboard_channel"),
]


ALL_GOOD = "None: I have what I need in every channel I post in."
WEB_UNSERVED = ("The web pages are on, but this bot's host has not set up its web site yet: their link can't be "
                "opened until then.")


def config_embed(config: GuildConfig, title: str = "Server settings", problems: list[str] | None = None) -> discord.Embed:
    """The settings, and (`problems`) the channels the bot posts in where it lacks a permission."""
    embed = discord.Embed(title=title, colour=discord.Colour.blurple())
    embed.add_field(name="Organizer role", value=role_mention(config.organizer_role_id), inline=False)
    embed.add_field(name="Leaderboard channel", value=channel_mention(config.leaderboard_channel_id), inline=False)
    embed.add_field(name="Default pick mode", value=config.default_pick_mode, inline=False)
    embed.add_field(name="Card pictures", value="on" if config.pictures else "off", inline=False)
    embed.add_field(name="Web pages", value="on: `/web link` gives the link" if config.web else "off", inline=False)
    embed.add_field(name="Season", value=escape(config.active_season) if config.active_season else "none running", inline=False)
    if problems is not None:
        embed.add_field(name="Missing permissions", value=limits.fit_lines(problems, limits.FIELD_VALUE) or ALL_GOOD,
                        inline=False)
    return embed


@app_commands.guild_only()
@app_commands.default_permissions(manage_guild=True)
class ConfigGroup(app_commands.Group, name="config", description="Server settings for the bot (Manage Server)."):
    def __init__(self, bot: KitBot) -> None:
        super().__init__()
        self.bot = bot

    async def interaction_check(self, interaction: discord.Interaction) -> bool:
        # default_permissions only hides the command; this is what actually enforces it.
        if not interaction.permissions.manage_guild:
            raise app_commands.MissingPermissions(["manage_guild"])
        return True

    async def posting_problems(self, guild_id: int) -> list[str]:
        """Each channel the bot posts in (the leaderboard channel, running tables' channels) where it
        lacks a permission it needs, naming the one to grant."""
        problems = []
        for use in await channels.channels_in_use(self.bot.db, guild_id, self.bot.posting):
            problem = channel_problem(self.bot, guild_id, use.channel_id)
            if problem is not None:
                problems.append(f"<#{use.channel_id}> ({', '.join(use.uses)}): {problem}.")
        return problems

    @app_commands.command(name="show", description="Show this server's bot settings, and channels where I lack a permission.")
    async def show(self, interaction: discord.Interaction) -> None:
        guild_id = require_guild(interaction)
        config = await guild_config.get_config(self.bot.db, guild_id)
        problems = await self.posting_problems(guild_id)
        await interaction.response.send_message(embed=config_embed(config, problems=problems), ephemeral=True)

    @app_commands.command(name="set", description="Change one or more server settings.")
    @app_commands.describe(
        organizer_role="Members with this role can run events (besides Manage Server).",
        leaderboard_channel="Where final standings are posted when an event ends.",
        pick_mode="How players pick in DM drafts by default.",
        pictures="Show pack DMs and draft pools as a picture of the cards (on by default).",
        web="Read-only web pages of this server's events and leaderboards, at a secret address (off by default).",
    )
    @app_commands.choices(pick_mode=PICK_MODE_CHOICES, pictures=ON_OFF, web=ON_OFF)
    async def set_(
        self,
        interaction: discord.Interaction,
        organizer_role: discord.Role | None = None,
        leaderboard_channel: discord.TextChannel | None = None,
        pick_mode: app_commands.Choice[str] | None = None,
        pictures: app_commands.Choice[str] | None = None,
        web: app_commands.Choice[str] | None = None,
    ) -> None:
        if organizer_role is None and leaderboard_channel is None and pick_mode is None and pictures is None \
                and web is None:
            raise UserError(
                "Give at least one setting to change (organizer_role, leaderboard_channel, pick_mode, pictures, web)."
            )
        changes: dict = {}
        if organizer_role is not None:
            if organizer_role.is_default():
                raise UserError("@everyone can't be the organizer role: pick a role that not everybody has.")
            changes["organizer_role_id"] = organizer_role.id
        if leaderboard_channel is not None:
            changes["leaderboard_channel_id"] = leaderboard_channel.id
        if pick_mode is not None:
            changes["default_pick_mode"] = pick_mode.value
        if pictures is not None:
            changes["pictures"] = pictures.value == "on"
        guild_id = require_guild(interaction)

        async def save() -> Done:
            config = await guild_config.update_config(self.bot.db, guild_id, **changes)
            if web is not None and web.value == "on":
                await access.turn_on(self.bot.db, guild_id, interaction.guild.name if interaction.guild else "")
                config = replace(config, web=True)
            elif web is not None:
                await access.turn_off(self.bot.db, guild_id)
                config = replace(config, web=False)
            return Done(embed=config_embed(config, "Settings saved", await self.posting_problems(guild_id)),
                        content=WEB_UNSERVED if config.web and self.bot.settings.web_base_url is None else None)

        if web is not None and web.value == "off" and (await guild_config.get_config(self.bot.db, guild_id)).web:
            await confirm_then_act(interaction, "Turn the web pages off? Every link to them stops working, and "
                                   "turning them on again gives them a new address.", save, db=self.bot.db,
                                   label="Turn them off", keep="Keep them on")
            return
        done = await save()
        await interaction.response.send_message(content=done.content, embed=done.embed, ephemeral=True)

    @app_commands.command(name="unset", description="Clear a server setting.")
    @app_commands.describe(setting="The setting to clear.")
    @app_commands.choices(setting=UNSETTABLE)
    async def unset(self, interaction: discord.Interaction, setting: app_commands.Choice[str]) -> None:
        config = await guild_config.update_config(
            self.bot.db, require_guild(interaction), **{f"{setting.value}_id": None}
        )
        await interaction.response.send_message(embed=config_embed(config, "Settings saved"), ephemeral=True)

    season = app_commands.Group(name="season", description="Seasons: leaderboards can be cut by season.")

    @season.command(name="start", description="Start a named season; finished events count towards it.")
    @app_commands.describe(name="The season's name, e.g. 'Winter 2026' (up to 100 characters; any case or script).")
    async def season_start(self, interaction: discord.Interaction, name: str) -> None:
        started = await leaderboard.start_season(self.bot.db, require_guild(interaction), name)
        await interaction.response.send_message(f"Season **{escape(started.name)}** has started.", ephemeral=True)

    @season.command(name="end", description="End the running season (asks first).")
    async def season_end(self, interaction: discord.Interaction) -> None:
        guild_id = require_guild(interaction)

        async def end() -> str:
            ended = await leaderboard.end_season(self.bot.db, guild_id)
            return f"Season **{escape(ended.name)}** has ended."

        await confirm_then_act(interaction, "End the running season? Its leaderboard stays readable.", end, db=self.bot.db,
                               label="End the season", keep="Keep it running")

    @app_commands.command(name="reset", description="Reset every server setting to its default (asks first).")
    async def reset(self, interaction: discord.Interaction) -> None:
        guild_id = require_guild(interaction)

        async def reset() -> Done:
            return Done(embed=config_embed(await guild_config.reset_config(self.bot.db, guild_id), "Settings reset"))

        web = " The web pages go off, and their links stop working." if (
            await guild_config.get_config(self.bot.db, guild_id)).web else ""
        await confirm_then_act(
            interaction, "Reset the organizer role, leaderboard channel, pick mode, card pictures and web pages to "
            f"their defaults?{web}", reset, db=self.bot.db, label="Reset the settings", keep="Keep them",
        )


async def setup(bot: KitBot) -> None:
    bot.tree.add_command(ConfigGroup(bot))
