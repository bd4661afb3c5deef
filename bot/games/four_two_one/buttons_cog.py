"""The buttons of a round's post (issue 35 item 9): a player reports their match and the loser
chooses A–D there, the same use cases as `/421 report` and `/421 choose`, so neither has to be
typed. A part of `FourTwoOneCog`, kept apart so the cog stays short."""

from __future__ import annotations

from collections.abc import Awaitable, Callable

import discord

from bot.games.four_two_one import rules as engine
from bot.games.four_two_one import service as four_two_one
from bot.games.four_two_one import ui
from bot.kit.dispatch import actor_of, handles
from bot.kit.errors import UserError
from bot.store.db import Database

NO_CLAIMABLE = ("No set-aside deck can be claimed now (only decks neither of you just used and nobody holds): "
                "choose A, B or D.")


class MatchButtons:
    db: Database
    report_match: Callable[[discord.Interaction, int, str], Awaitable[None]]  # the cog's, as `/421 report`
    _choose: Callable[[discord.Interaction, int, str, int | None], Awaitable[None]]  # the cog's, as `/421 choose`

    @handles(ui.ReportButton)
    async def on_report_button(self, interaction: discord.Interaction, *, league: int, result: str) -> None:
        await self.report_match(interaction, league, result)

    @handles(ui.ChooseButton)
    async def on_choose_button(self, interaction: discord.Interaction, *, league: int) -> None:
        """The loser's menu of options; anyone else is told privately, as `/421 choose` would tell them."""
        shown = await four_two_one.check_step(self.db, league, actor_of(interaction), engine.CHOOSE)
        await interaction.response.send_message("Which option do you choose?", view=ui.option_view(shown.id),
                                                ephemeral=True)

    @handles(ui.OptionSelect)
    async def on_option(self, interaction: discord.Interaction, *, league: int, value: str) -> None:
        if value != "C":
            await self._choose(interaction, league, value, None)
            return
        await interaction.response.edit_message(content="Which set-aside deck do you claim?",
                                                view=await self.claim_deck_view(interaction, league))

    async def claim_deck_view(self, interaction: discord.Interaction, league_id: int) -> discord.ui.View:
        """Option C's menu of the set-aside decks the loser may claim (refused when there is none)."""
        shown = await four_two_one.check_step(self.db, league_id, actor_of(interaction), engine.CHOOSE)
        claimable = [d.id for d in engine.claimable_decks(shown.state)]
        if not claimable:
            raise UserError(NO_CLAIMABLE)
        return ui.claim_deck_view(shown, claimable)
