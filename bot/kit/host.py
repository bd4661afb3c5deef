"""The bot as the kit's own parts see it: what the outbox's sending (`bot.kit.delivery`) and the
pack pictures (`bot.kit.pictures`) use of `bot.kit.client.KitBot`, which builds them. Declared
here, below all three, so the client that makes them and the parts that serve it form no circle."""

from __future__ import annotations

from typing import Any, Protocol

import discord

from bot.cards.scryfall_api import ScryfallClient
from bot.settings import Settings
from bot.store.db import Database


class Host(Protocol):
    settings: Settings
    db: Database
    scryfall: ScryfallClient
    outbox: Any  # its `bot.kit.delivery.Outbox`
    pictures: Any  # its `bot.kit.pictures.Pictures`

    def get_partial_messageable(self, id: int, *, guild_id: int | None = None,
                                type: discord.ChannelType | None = None) -> discord.PartialMessageable: ...

    async def create_dm(self, user: discord.abc.Snowflake) -> discord.DMChannel: ...
