"""The turn message's buttons in Discord (a part of `VortexCog`): Draw and Pass for the player whose
turn it is (the same as `/vortex draw` and `/vortex pass`), and Play a card for any player, which
opens a private select of their hand. A button of a turn that is over is refused."""

from __future__ import annotations

import discord

from bot.games.vortex import rules as engine
from bot.games.vortex import service as vortex
from bot.games.vortex import ui
from bot.games.vortex.service import GameView
from bot.kit.dispatch import actor_of, handles
from bot.kit.errors import UserError
from bot.kit.formatting import mention
from bot.store.db import Database

S = vortex.STATUSES


class VortexTurns:
    db: Database

    # The cog's own commands, which the buttons share:
    async def _draw(self, interaction: discord.Interaction, game: GameView, count: int = 1) -> None: ...

    async def _pass(self, interaction: discord.Interaction, game: GameView) -> None: ...

    @handles(ui.TurnButton)
    async def on_turn(self, interaction: discord.Interaction, *, game: int, turn: int, action: str) -> None:
        shown = await vortex.get_game(self.db, game)
        if shown.status != S.running or shown.state is None or shown.state.turn != turn:
            raise UserError("That turn is over: the newest turn's message has the buttons.")
        active = engine.active_seat(shown.state)
        if action != "play" and (active is None or shown.user_of(active) != interaction.user.id):
            whose = f"{mention(shown.user_of(active))}'s" if active is not None else "not anyone's"
            raise UserError(f"It is {whose} turn: these buttons are theirs. An effect that makes you draw: "
                            "`/vortex draw`.")
        if action == "draw":
            await self._draw(interaction, shown)
        elif action == "pass":
            await self._pass(interaction, shown)
        else:
            await self._offer_hand(interaction, shown)

    async def _offer_hand(self, interaction: discord.Interaction, game: GameView) -> None:
        """Play a card: the player's hand as a private select (a card chosen is played)."""
        if interaction.user.id not in game.player_ids:
            raise UserError("You are not a player in this game.")
        hand = vortex.zone_cards(game, interaction.user.id, engine.HAND)
        view = ui.play_view(game.id, game.player_ids.index(interaction.user.id), hand)
        if view is None:
            raise UserError("Your hand is empty: there is nothing to play.")
        more = f" (the first {ui.PLAY_OPTIONS}; `/vortex play` names any other)" if len(set(hand)) > ui.PLAY_OPTIONS else ""
        await interaction.response.send_message(f"Which card do you play onto the battlefield?{more}", view=view,
                                                ephemeral=True)

    @handles(ui.PlaySelect)
    async def on_play(self, interaction: discord.Interaction, *, game: int, seat: int, card: str) -> None:
        shown = await vortex.get_game(self.db, game)
        if seat >= len(shown.player_ids) or shown.player_ids[seat] != interaction.user.id:
            raise UserError("That hand is not yours.")
        result = await vortex.move(self.db, game, actor_of(interaction), card, engine.HAND, engine.BATTLEFIELD)
        moved = result.first(engine.CardMoved)
        await interaction.response.edit_message(content=f"**{ui.card_text(moved.card)}** is on the battlefield; the "
                                                        "channel is told.", view=None)

