"""Treasure Battler's PLAY-phase reports in Discord (a part of `BattlerCog`), on the kit's claims flow
(`bot.kit.claims_ui`: the same [Confirm] [Dispute], the question before confirming for an absent
player, the late click).

Each player says their own treasures after the game: the reporter in `/battler report`, the
opponent in the form their Confirm or Dispute button opens (or in their own matching report). An
organizer who does not play in the game confirms for an absent opponent (asked first) without a
count: that opponent is told by DM, and may still say their treasures until the PLAY phase ends.

Nothing waits on a message that may be lost: a report whose message never arrived is answered by
the opponent's own report, or reported again; a disputed game's call to the organizers is shown
again, with its buttons, to a player who reports it again.
"""

from __future__ import annotations

from functools import partial

import discord

from bot.games.battler import service as battler
from bot.games.battler import ui
from bot.games.battler.service import ActionResult
from bot.kit import claims_ui
from bot.kit.dispatch import actor_of, handles
from bot.kit.limits import ping


class BattlerReports:
    db: object

    @handles(ui.PlayReportButton)
    async def on_play_report(self, interaction: discord.Interaction, *, game: int, result: str) -> None:
        """A report button of the PLAY post: the form that asks the player's treasures left."""
        await interaction.response.send_modal(ui.play_report_modal(game, result))

    @handles(ui.PLAY_REPORT_FORM)
    async def on_play_report_form(self, interaction: discord.Interaction, *, game: int, result: str,
                                  fields: dict[str, str]) -> None:
        """The same report as `/battler report`, from the PLAY post's button."""
        treasures = ui.parse_treasures(fields.get("treasures", ""))
        outcome = await battler.report(self.db, game, actor_of(interaction), result, treasures_left=treasures)
        await self.answer_report(interaction, outcome)

    async def answer_report(self, interaction: discord.Interaction, outcome: ActionResult) -> None:
        """The reply to `/battler report`: the report to confirm, the dispute, or the confirmation."""
        game = outcome.game
        if outcome.report is not None:
            report = outcome.report
            opponent = game.user_of(report.b if report.reporter == report.a else report.a)
            await interaction.response.send_message(ui.report_text(game, report), view=ui.report_view(game.id, report),
                                                    allowed_mentions=ping(opponent))
            await claims_ui.record_answer(interaction, partial(battler.report_shown, self.db, game.id, report))
        elif outcome.waiting is not None:  # shown again, buttons and all; nobody is pinged twice
            call = outcome.call.text() if outcome.call is not None else f"<@{game.organizer_id}>"
            await interaction.response.send_message(
                ui.dispute_text(game, outcome.waiting, call), view=ui.report_view(game.id, outcome.waiting),
                allowed_mentions=discord.AllowedMentions.none(),
            )
            await claims_ui.record_answer(interaction, partial(battler.report_shown, self.db, game.id, outcome.waiting))
        elif outcome.treasures_after is not None:
            await interaction.response.send_message(
                f"Your treasures left after the game are now {outcome.treasures_after}; its result stands.",
                ephemeral=True)
        elif outcome.dispute is not None:  # the channel's call to the organizers says it: one post per news
            await interaction.response.send_message("Your report differs from your opponent's: an organizer who does "
                                                    "not play in it decides (they have been called).", ephemeral=True)
        else:  # the channel's announcement of the result says it
            await interaction.response.send_message("Your report matches your opponent's: it counts.", ephemeral=True)

    @handles(ui.TREASURES_FORM)
    async def on_treasures_form(self, interaction: discord.Interaction, *, game: int, report: int, action: str,
                                fields: dict[str, str]) -> None:
        treasures = ui.parse_treasures(fields.get("treasures", ""))
        press = claims_ui.press_of(interaction, self.db, table=game, claim=report, action=action,
                                   treasures_left=treasures)
        await claims_ui.answer_press(interaction, ui.ANSWERING, press)
