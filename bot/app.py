"""The bot process: the kit's bot (`bot.kit.client.KitBot`) that loads the kit's, the server's and
every format package's cogs."""

from __future__ import annotations

import logging

import discord
from discord import app_commands

import bot.games
from bot import __version__
from bot.features.clock import rules as clock_rules
from bot.features.clock import service as clock_service
from bot.features.clock import ui as clock_ui
from bot.features.clock.ui import ClockButton
from bot.features.cubes.cog import CUBE_PAGES
from bot.features.leaderboard.cog import BOARD_PAGES
from bot.kit import claims_ui
from bot.kit.client import KitBot
from bot.kit.confirm import PromptButton
from bot.kit.deadlines import Handlers
from bot.kit.delivery import Renderers
from bot.kit.dispatch import (
    Component,
    RoutesUnresolved,
    bind_handlers,
    dispatch_modal,
    refuse_damaged_components,
    unresolved_routes,
)
from bot.kit.formats import (
    connect_hooks,
    deadlines_of,
    event_problems,
    missing_pieces,
    posting_of,
    renderers_of,
)
from bot.kit.paginate import PageButton, PageList
from bot.kit.reporting import report_interaction_error
from bot.server import web as web_cog
from bot.settings import Settings
from bot.store.db import Database

log = logging.getLogger("bot")

# What every server has beside the formats: the kit's cogs and the server's own commands.
# `bot.server.web` also serves the web pages in this process when WEB_PORT is set (started with the
# bot, stopped when it closes).
SHARED_EXTENSIONS = ("bot.kit.sweeper", "bot.features.clock.cog", "bot.server.about", "bot.server.help",
                     "bot.features.config.cog", "bot.features.cubes.cog", "bot.features.leaderboard.cog", "bot.server.web")


# The components of what every server has beside the formats (each format declares its own).
SHARED_COMPONENTS: tuple[type[Component], ...] = (PromptButton, ClockButton, *claims_ui.COMPONENTS)
# Their outbox renderers and deadline handlers (the kit's own are the kit's bot's; each format declares its own).
SHARED_RENDERERS: tuple[Renderers, ...] = (clock_ui.RENDERERS, web_cog.RENDERERS)
SHARED_DEADLINES: tuple[Handlers, ...] = (clock_service.DEADLINES,)
# Their event families, lists shown in pages, and what they post in outside tables (`/config show`).
SHARED_EVENTS: tuple[type, ...] = (clock_rules.Event,)
SHARED_PAGE_LISTS: tuple[PageList, ...] = (CUBE_PAGES, BOARD_PAGES)
SHARED_CHANNELS = (clock_service.clock_channels,)


def extensions() -> list[str]:
    """The modules whose `setup` adds a cog: the shared ones, then every format's cog."""
    return [*SHARED_EXTENSIONS, *dict.fromkeys(fmt.cog for fmt in bot.games.formats())]


def page_lists() -> list[PageList]:
    """Every list the bot shows in pages: the shared ones and every format's."""
    return [*SHARED_PAGE_LISTS, *(pages for fmt in bot.games.formats() for pages in fmt.page_lists)]


def components() -> list[type[Component]]:
    """Every component the bot's messages carry: the shared ones and every format's."""
    return [*SHARED_COMPONENTS, *(c for fmt in bot.games.formats() for c in fmt.components)]


class MtgBot(KitBot):
    """The bot process: the kit's bot, with its startup (the cogs, the commands) and error report."""

    def __init__(self, settings: Settings, db: Database) -> None:
        super().__init__(settings, db)
        self._announced_ready = False
        self.components = components()  # what `refuse_damaged_components` knows as ours
        # One table of renderers and one of deadline handlers, from what is declared (a kind twice: a ValueError).
        formats = bot.games.formats()
        self.outbox.use(renderers_of(formats, self.outbox.renderers, *SHARED_RENDERERS))
        self.deadlines = deadlines_of(formats, self.deadlines, *SHARED_DEADLINES)
        self.leaderboard_titles = bot.games.leaderboard_titles()
        self.posting = posting_of(formats, *SHARED_CHANNELS)
        # Each hook a format declares gets the followers the formats declare (a stray one: refused below).
        self.hook_problems = connect_hooks(formats)
        self.handlers: dict = {}  # component or form -> the bound cog method that answers it (`load_cogs`)
        self.tree.on_error = self.on_app_command_error

    # --- startup -------------------------------------------------------------------------

    async def setup_hook(self) -> None:
        # Runs again when a login is tried again (Discord unreachable at startup): loads things once.
        if not self.extensions:
            await self.load_cogs()
        if self.owns_shard_zero:
            await self._sync_commands()

    async def load_cogs(self) -> None:
        """Load every extension and bind every component and form to the cog method that handles
        it; raises `RoutesUnresolved` (the process exits with status 2, one line a piece) if a
        format declares a component or form no loaded cog handles, an outbox kind without a
        renderer or a deadline kind without a handler, so a missing piece stops the start rather
        than the first click or the first message."""
        for extension in extensions():
            await self.load_extension(extension)
        # The cogs' handlers, and those of command groups added without a cog (/cube's pages).
        answering = [*self.cogs.values(), *self.tree.get_commands()]
        self.handlers = {**bind_handlers(answering), **claims_ui.bind(self.declared_claims(), self.db)}
        problems = unresolved_routes(self.handlers, self.components, self.forms(), [*self.claims(), *page_lists()])
        problems += missing_pieces(bot.games.formats(), self.outbox.renderers, self.deadlines)
        problems += self.hook_problems + event_problems(bot.games.formats(), *SHARED_EVENTS)
        if problems:
            raise RoutesUnresolved(problems)
        # Every component, so the buttons of messages posted before a restart still answer.
        self.add_dynamic_items(PageButton, *self.components)
        self.add_listener(dispatch_modal, "on_interaction")
        self.add_listener(refuse_damaged_components, "on_interaction")

    @staticmethod
    def forms() -> list:
        return [form for fmt in bot.games.formats() for form in fmt.forms]

    @staticmethod
    def declared_claims() -> list:
        return [declared for fmt in bot.games.formats() for declared in fmt.claims]

    @classmethod
    def claims(cls) -> list:
        return claims_ui.targets(cls.declared_claims())

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
