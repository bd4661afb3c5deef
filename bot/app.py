"""The bot process: an AutoShardedBot that loads every cog under bot/cogs."""

from __future__ import annotations

import logging
import math
import time

import discord
from discord import app_commands
from discord.ext import commands

import bot.games
from bot import __version__
from bot.cards.scryfall_api import ScryfallClient
from bot.kit import card_data, outbox
from bot.kit.delivery import Outbox
from bot.kit.dispatch import dispatch_modal, refuse_damaged_components, registered_components
from bot.kit.paginate import PageButton
from bot.kit.pictures import Pictures
from bot.kit.reporting import report_interaction_error
from bot.settings import Settings
from bot.store.db import Database

log = logging.getLogger("bot")

INTENTS = discord.Intents.none()
INTENTS.guilds = True  # guild/channel/role cache for permission checks and channel posts
INTENTS.guild_reactions = True  # reactions on lobby messages
INTENTS.dm_reactions = True  # picks by reaction in DMs


# What every server has beside the formats: the kit's cogs and the server's own commands.
# `bot.server.web` also serves the web pages in this process when WEB_PORT is set (started with the
# bot, stopped when it closes).
SHARED_EXTENSIONS = ("bot.kit.sweeper", "bot.kit.clock.cog", "bot.server.about", "bot.server.config",
                     "bot.server.cubes", "bot.server.leaderboard", "bot.server.web")


def extensions() -> list[str]:
    """The modules whose `setup` adds a cog: the shared ones, then every format package's `cog`."""
    return [*SHARED_EXTENSIONS, *(module.__name__ for module in bot.games.modules("cog"))]


class MtgBot(commands.AutoShardedBot):
    def __init__(self, settings: Settings, db: Database) -> None:
        super().__init__(
            command_prefix=commands.when_mentioned,
            intents=INTENTS,
            shard_ids=settings.parsed_shard_ids,
            shard_count=settings.shard_count,
            help_command=None,
            # Nothing user-typed may ever ping anyone: messages that should ping opt in.
            allowed_mentions=discord.AllowedMentions.none(),
        )
        self.settings = settings
        self.db = db
        self.outbox = Outbox(self)
        db.listen(outbox.TOPIC, self.outbox.on_commit)
        # Scryfall: card data for cubes (completed later by the sweeper when it is down), and images.
        self.scryfall = ScryfallClient(settings.scryfall_base)
        card_data.register(self.scryfall)
        self.pictures = Pictures(self)
        self.started_monotonic = time.monotonic()
        self._announced_ready = False
        self.tree.on_error = self.on_app_command_error

    # --- startup -------------------------------------------------------------------------

    async def setup_hook(self) -> None:
        # Runs again when a login is tried again (Discord unreachable at startup): loads things once.
        if not self.extensions:
            for extension in extensions():
                await self.load_extension(extension)
            # Every Component the cogs' UI modules defined, so their buttons work after a restart.
            self.add_dynamic_items(PageButton, *registered_components())
            self.add_listener(dispatch_modal, "on_interaction")
            self.add_listener(refuse_damaged_components, "on_interaction")
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

    async def close(self) -> None:
        await super().close()
        await self.scryfall.close()

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
