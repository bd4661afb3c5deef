"""The bot process: the kit's bot (`bot.kit.client.KitBot`) that loads the kit's, the server's and
every format package's cogs."""

from __future__ import annotations

import logging

import discord
from discord import app_commands

import bot.games
from bot import __version__
from bot.kit import hooks
from bot.kit.client import KitBot
from bot.kit.dispatch import check_routes, dispatch_modal, refuse_damaged_components, registered_components
from bot.kit.paginate import PageButton
from bot.kit.reporting import report_interaction_error
from bot.settings import Settings
from bot.store.db import Database

log = logging.getLogger("bot")

# What every server has beside the formats: the kit's cogs and the server's own commands.
# `bot.server.web` also serves the web pages in this process when WEB_PORT is set (started with the
# bot, stopped when it closes).
SHARED_EXTENSIONS = ("bot.kit.sweeper", "bot.features.clock.cog", "bot.server.about", "bot.server.help",
                     "bot.features.config.cog", "bot.features.cubes.cog", "bot.features.leaderboard.cog", "bot.server.web")


def extensions() -> list[str]:
    """The modules whose `setup` adds a cog: the shared ones, then every format package's `cog`."""
    return [*SHARED_EXTENSIONS, *(module.__name__ for module in bot.games.modules("cog"))]


class MtgBot(KitBot):
    """The bot process: the kit's bot, with its startup (the cogs, the commands) and error report."""

    def __init__(self, settings: Settings, db: Database) -> None:
        super().__init__(settings, db)
        self._announced_ready = False
        self.tree.on_error = self.on_app_command_error

    # --- startup -------------------------------------------------------------------------

    async def setup_hook(self) -> None:
        # Runs again when a login is tried again (Discord unreachable at startup): loads things once.
        if not self.extensions:
            await self.load_cogs()
        if self.owns_shard_zero:
            await self._sync_commands()

    async def load_cogs(self) -> None:
        """Load every extension and route every component and form to its cog; raises
        `RoutesUnresolved` (the process exits with status 2) if a route names a cog or method that
        is not there, so a renamed handler stops the start rather than the first click."""
        for extension in extensions():
            await self.load_extension(extension)
        check_routes(self)
        if unknown := hooks.check():
            raise RuntimeError(f"Handlers follow hooks no format declares: {', '.join(unknown)}")
        # Every Component the cogs' UI modules defined, so their buttons work after a restart.
        self.add_dynamic_items(PageButton, *registered_components())
        self.add_listener(dispatch_modal, "on_interaction")
        self.add_listener(refuse_damaged_components, "on_interaction")

    async def _sync_commands(self) -> None:
        if self.settings.dev_guild_id:
            guild = discord.Object(id=self.settings.dev_guild_id)
            self.tree.copy_global_to(guild=guild)
            synced = await self.tree.sync(guild=guild)
            log.info("synced %d commands to dev guild %s", len(synced), self.settings.dev_guild_id)
        else:
            synced = await self.tree.sync()
            log.info("synced %d global commands", len(synced))

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

    # --- errors --------------------------------------------------------------------------

    async def on_app_command_error(
        self, interaction: discord.Interaction, error: app_commands.AppCommandError
    ) -> None:
        await report_interaction_error(interaction, error)
