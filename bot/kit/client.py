"""The bot as the kit, the formats and the server's commands see it: what a cog, a renderer or
a sweep may use (`db`, `outbox`, `settings`, `pictures`, `scryfall`, the facts /about shows).
`bot.app.KitBot` subclasses it with the startup (loading the cogs, syncing the commands)."""

from __future__ import annotations

import math
import time

import discord
from discord import app_commands
from discord.ext import commands

from bot.cards.scryfall_api import ScryfallClient
from bot.kit import card_data, channels, claims_ui, deadlines, delivery, outbox
from bot.kit.delivery import Outbox
from bot.kit.pictures import Pictures
from bot.settings import Settings
from bot.store.db import Database

INTENTS = discord.Intents.none()
INTENTS.guilds = True  # guild/channel/role cache for permission checks and channel posts
INTENTS.guild_reactions = True  # reactions on lobby messages
INTENTS.dm_reactions = True  # picks by reaction in DMs


class KitBot(commands.AutoShardedBot):
    settings: Settings
    db: Database
    outbox: Outbox
    deadlines: deadlines.Handlers
    scryfall: ScryfallClient
    pictures: Pictures

    def __init__(self, settings: Settings, db: Database) -> None:
        super().__init__(
            command_prefix=commands.when_mentioned,
            intents=INTENTS,
            shard_ids=settings.parsed_shard_ids,
            shard_count=settings.shard_count,
            help_command=None,
            # Nothing user-typed may ever ping anyone: messages that should ping opt in.
            allowed_mentions=discord.AllowedMentions.none(),
            guild_ready_timeout=settings.guild_ready_timeout,
        )
        self.settings = settings
        self.db = db
        # The outbox's renderers and the deadlines' handlers: the kit's own here; `bot.app` adds the
        # features' and the formats' (`use_declared`).
        self.outbox = Outbox(self, delivery.Renderers(delivery.RENDERERS, claims_ui.RENDERERS))
        # The formats whose results go to the leaderboards, key -> title (the bot's formats, set by
        # the app: the leaderboard, a feature below the formats, reads them here).
        self.leaderboard_titles: dict[str, str] = {}
        self.posting = channels.Posting()  # where the bot posts (`/config show`): the app's, from the formats
        db.listen(outbox.TOPIC, self.outbox.on_commit)
        # Scryfall: card data for cubes (completed later by the sweeper when it is down), and images.
        self.scryfall = ScryfallClient(settings.scryfall_base)
        self.deadlines = card_data.handlers(self.scryfall)
        self.pictures = Pictures(self)
        self.started_monotonic = time.monotonic()

    @property
    def owns_shard_zero(self) -> bool:
        """With several processes, shard 0's process syncs the (global) command list and runs the
        background sweeps; it is also the one that receives DMs."""
        shard_ids = self.settings.parsed_shard_ids
        return shard_ids is None or 0 in shard_ids

    async def close(self) -> None:
        await super().close()
        await self.scryfall.close()

    # --- facts for /about ----------------------------------------------------------------

    def command_count(self) -> int:
        """Every invocable slash command, subcommands included."""
        return sum(1 for c in self.tree.walk_commands() if isinstance(c, app_commands.Command))

    @property
    def uptime_seconds(self) -> float:
        return time.monotonic() - self.started_monotonic

    @property
    def latency_ms(self) -> float | None:
        latency = self.latency
        return None if latency is None or math.isnan(latency) or math.isinf(latency) else latency * 1000
