"""Vortex's DM buttons in Discord (a part of `VortexCog`): a pick, the basic lands, a look put back,
a search of the shoe. Each checks the button is the clicking player's own and still current, and
shows the outcome in place of the message clicked (without buttons once the step is done).
"""

from __future__ import annotations

import discord

from bot.games.vortex import rules as engine
from bot.games.vortex import service as vortex
from bot.games.vortex import ui
from bot.kit import outbox
from bot.kit.dispatch import InvalidPayload, handles
from bot.kit.errors import chosen
from bot.store.db import Database


class VortexDMs:
    db: Database

    @handles(ui.PickButton)
    async def on_pick(self, interaction: discord.Interaction, *, game: int, seat: int, offer: int, card: int) -> None:
        result = await vortex.pick(self.db, game, interaction.user.id, seat=seat, offer=offer, index=card,
                                   message_id=interaction.message.id if interaction.message else None)
        note = ui.took_text(result.first(engine.CardDrafted).card, penalty=bool(result.first(engine.EmptyPackPenalty)))
        if result.held is None:
            await interaction.response.edit_message(embed=ui.picked_embed(game, note), view=None)
            return
        upcoming = vortex.PickPrompt.from_payload(result.held.payload)  # the same draw's next pick, in place
        await interaction.response.edit_message(embed=ui.pick_embed(upcoming, note), view=ui.pick_view(upcoming))
        shown = outbox.Outcome(result.held, channel_id=interaction.channel_id, message_id=interaction.message.id)
        await outbox.settle(self.db, [shown])

    @handles(ui.LandButton)
    async def on_land(self, interaction: discord.Interaction, *, game: int, seat: int, chosen: int, action: str) -> None:
        lands = ui.decode_lands(chosen)
        if action == "confirm":
            if len(lands) != engine.OPENING_BASICS:
                raise InvalidPayload()
            await vortex.choose_basics(self.db, game, interaction.user.id, seat=seat, lands=ui.land_names(lands))
            await interaction.response.edit_message(embed=ui.basics_done_embed(game, ui.land_names(lands)), view=None)
            return
        prompt = await vortex.checked_basics(self.db, game, interaction.user.id, seat=seat)
        if action == "clear":
            lands = []
        elif len(lands) < engine.OPENING_BASICS:
            lands.append(ui.LAND_ACTIONS.index(action))
        else:
            raise InvalidPayload()
        await interaction.response.edit_message(embed=ui.basics_embed(prompt, lands), view=ui.basics_view(prompt, lands))

    @handles(ui.SearchSelect)
    async def on_search_select(self, interaction: discord.Interaction, *, game: int, seat: int, search: int, page: int,
                               menu: int, names: list[int]) -> None:
        listed = await self._search_page(game, interaction.user.id, seat, search, page, menu)
        for name in names:  # a menu's values are the names it lists
            chosen(listed, listed.index(name) if name in listed else -1)
        prompt = await vortex.search_choose(self.db, game, interaction.user.id, seat=seat, search=search, names=names)
        await interaction.response.edit_message(embed=ui.search_embed(prompt, page), view=ui.search_view(prompt, page))

    async def _search_page(self, game: int, user_id: int, seat: int, search: int, page: int,
                           menu: int = 0) -> range:
        """A search DM's page (and menu on it) as the search now has them, refused when forged; the
        positions of the names that menu lists."""
        prompt = await vortex.checked_search(self.db, game, user_id, seat=seat, search=search)
        chosen(range(ui.search_pages(prompt)), page)
        return chosen([ui.search_menu_names(prompt, page, m) for m in range(ui.SEARCH_MENUS)], menu)

    @handles(ui.SearchButton)
    async def on_search_button(self, interaction: discord.Interaction, *, game: int, seat: int, search: int, page: int,
                               action: str) -> None:
        await self._search_page(game, interaction.user.id, seat, search, page)
        if action == "take":
            result = await vortex.finish_search(self.db, game, interaction.user.id, seat=seat, search=search,
                                                message_id=interaction.message.id if interaction.message else None)
            found = result.first(engine.CardsFound)
            await interaction.response.edit_message(embed=ui.picked_embed(game, ui.found_text(found.cards, found.to)),
                                                    view=None)
            return
        if action == "clear":
            prompt = await vortex.search_clear(self.db, game, interaction.user.id, seat=seat, search=search)
        else:
            prompt = await vortex.checked_search(self.db, game, interaction.user.id, seat=seat, search=search)
        await interaction.response.edit_message(embed=ui.search_embed(prompt, page), view=ui.search_view(prompt, page))

    @handles(ui.LookButton)
    async def on_look(self, interaction: discord.Interaction, *, game: int, seat: int, look: int, bottom: int,
                      action: str, card: int | None) -> None:
        marked = ui.bits(bottom)
        if action == "done":
            result = await vortex.arrange(self.db, game, interaction.user.id, seat=seat, look=look, bottom=marked,
                                          message_id=interaction.message.id if interaction.message else None)
            done = result.first(engine.TopArranged)
            await interaction.response.edit_message(
                embed=ui.picked_embed(game, f"Put back: {done.on_top} on top, {done.on_bottom} at the bottom."), view=None)
            return
        prompt = await vortex.checked_look(self.db, game, interaction.user.id, seat=seat, look=look)
        for i in (card, *marked):  # positions among the cards looked at
            chosen(prompt.cards, i)
        marked = marked ^ {card}
        await interaction.response.edit_message(embed=ui.look_embed(prompt, marked), view=ui.look_view(prompt, marked))
