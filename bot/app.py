"""The bot process: an AutoShardedBot that loads every cog under bot/cogs."""

from __future__ import annotations

import logging
import math
import pkgutil
import time
import uuid

import discord
from discord import app_commands
from discord.ext import commands

import bot.cogs
from bot import __version__
from bot.services.errors import UserError
from bot.settings import Settings
from bot.store.db import Database
from bot.ui.paginate import PageButton

log = logging.getLogger("bot")

INTENTS = discord.Intents.none()
INTENTS.guilds = True  # guild/channel/role cache for permission checks and channel posts
INTENTS.guild_reactions = True  # reactions on lobby messages
INTENTS.dm_reactions = True  # picks by reaction in DMs


class MtgBot(commands.AutoShardedBot):
    def __init__(self, settings: Settings, db: Database) -> None:
        super().__init__(
            command_prefix=commands.when_mentioned,
            intents=INTENTS,
            shard_ids=settings.parsed_shard_ids,
            shard_count=settings.shard_count,
            help_command=None,
            allowed_mentions=discord.AllowedMentions(everyone=False, roles=False, users=True),
        )
        self.settings = settings
        self.db = db
        self.started_monotonic = time.monotonic()
        self._announced_ready = False
        self.tree.on_error = self.on_app_command_error

    # --- startup -------------------------------------------------------------------------

    async def setup_hook(self) -> None:
        self.add_dynamic_items(PageButton)
        for module in pkgutil.iter_modules(bot.cogs.__path__):
            if not module.name.startswith("_"):
                await self.load_extension(f"{bot.cogs.__name__}.{module.name}")
        if self.owns_shard_zero:
            await self._sync_commands()

    @property
    def owns_shard_zero(self) -> bool:
        """With several processes, shard 0's process syncs the (global) command list and runs the
        background sweeps; it is also the one that receives DMs."""
        shard_ids = self.settings.parsed_shard_ids
        return shard_ids is None or 0 in shard_ids

    async def _sync_commands(self) -> None:
        if self.settings.dev_guild_id:
            guild = discord.Object(id=self.settings.dev_guild_id)
            self.tree.copy_global_to(guild=guild)
            synced = await self.tree.sync(guild=guild)
            log.info("synced %d commands to dev guild %s", len(synced), self.settings.dev_guild_id)
        else:
            synced = await self.tree.sync()
            log.info("synced %d global commands", len(synced))

    def command_count(self) -> int:
        """Every invocable slash command, subcommands included."""
        return sum(1 for c in self.tree.walk_commands() if isinstance(c, app_commands.Command))

    async def on_ready(self) -> None:
        if self._announced_ready:
            return
        self._announced_ready = True
        shard_ids = sorted(self.shards)
        log.info(
            "mtg-async-bot %s ready as %s: database=%s, shards %s of %s, %d commands, %d guilds",
            __version__,
            self.user,
            self.db.backend,
            shard_ids,
            self.shard_count,
            self.command_count(),
            len(self.guilds),
        )

    # --- facts for /about ----------------------------------------------------------------

    @property
    def uptime_seconds(self) -> float:
        return time.monotonic() - self.started_monotonic

    @property
    def latency_ms(self) -> float | None:
        latency = self.latency
        return None if latency is None or math.isnan(latency) or math.isinf(latency) else latency * 1000

    # --- errors --------------------------------------------------------------------------

    async def on_app_command_error(
        self, interaction: discord.Interaction, error: app_commands.AppCommandError
    ) -> None:
        await report_interaction_error(interaction, error)


def user_message_for(error: BaseException) -> str | None:
    """The message to show for a mistake the user made, or None for a bug."""
    if isinstance(error, app_commands.CommandInvokeError | app_commands.TransformerError):
        original = getattr(error, "original", None) or error.__cause__
        if original is not None and original is not error:
            return user_message_for(original)
    if isinstance(error, UserError):
        return str(error)
    if isinstance(error, app_commands.MissingPermissions):
        perms = ", ".join(p.replace("_", " ").replace("guild", "server").title() for p in error.missing_permissions)
        return f"You need the {perms} permission to do that."
    if isinstance(error, app_commands.NoPrivateMessage):
        return "That command only works in a server, not in DMs."
    if isinstance(error, app_commands.CommandOnCooldown):
        return f"Slow down: try again in {error.retry_after:.0f} s."
    if isinstance(error, app_commands.CheckFailure):
        return str(error) or "You can't use that command here."
    if isinstance(error, app_commands.TransformerError):
        return f"{error.value!r} is not a valid value for that option."
    return None


async def report_interaction_error(interaction: discord.Interaction, error: BaseException) -> None:
    """User mistakes get their message; anything else is logged with an id the user can quote."""
    message = user_message_for(error)
    if message is None:
        error_id = uuid.uuid4().hex[:8]
        log.error("unexpected error %s in interaction %s", error_id, interaction.data, exc_info=error)
        message = f"Sorry, something went wrong on our side (error id `{error_id}`). Nothing you did was lost."
    await send_ephemeral(interaction, message)


async def send_ephemeral(interaction: discord.Interaction, message: str) -> None:
    try:
        if interaction.response.is_done():
            await interaction.followup.send(message, ephemeral=True)
        else:
            await interaction.response.send_message(message, ephemeral=True)
    except discord.HTTPException:
        log.warning("could not tell the user about an error", exc_info=True)
