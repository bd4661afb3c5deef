"""The 421 cog's pages (`/421 pool`, `/421 decks`, turned with the kit's page buttons): a part of
`FourTwoOneCog`, kept apart so the cog stays short."""

from __future__ import annotations

import discord

from bot.games.four_two_one import service as four_two_one
from bot.games.four_two_one import ui
from bot.games.four_two_one.service import LeagueView
from bot.kit.dispatch import InvalidPayload
from bot.kit.errors import PermissionDenied
from bot.kit.paginate import Page
from bot.store.db import Database


class LeaguePages:
    db: Database

    async def _league_of_page(self, interaction: discord.Interaction, league_id: int) -> LeagueView:
        league = await four_two_one.get_league(self.db, league_id)
        if interaction.guild_id is not None and league.guild_id != interaction.guild_id:
            raise PermissionDenied("That league belongs to another server.")
        return league

    async def pool_page(self, interaction: discord.Interaction, key: str, page: int) -> Page:
        league_id, search = ui.parse_pool_key(key)
        return ui.pool_page(await self._league_of_page(interaction, league_id), page, search)

    async def decks_page(self, interaction: discord.Interaction, key: str, page: int) -> Page:
        if not key.isascii() or not key.isdigit() or len(key) > 19:
            raise InvalidPayload()
        return ui.decks_page(await self._league_of_page(interaction, int(key)), page)
