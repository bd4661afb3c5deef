"""Treasure Battler's PLAY-phase reports in Discord (a part of `BattlerCog`).

Each player says their own treasures after the game: the reporter in `/battler report`, the
opponent in the form their Confirm or Dispute button opens (or in their own matching report). An
organizer's Confirm, for an absent opponent, asks nothing: that opponent's treasures stay.

Nothing waits on a message that may be lost: a report whose message never arrived is answered by
the opponent's own report, or reported again; a disputed game's call to the organizer is shown
again, with its buttons, to a player who reports it again.
"""

from __future__ import annotations

import discord

from bot.games.battler import service as battler
from bot.games.battler import ui
from bot.games.battler.service import ActionResult
from bot.kit.dispatch import actor_of
from bot.kit.limits import ping


class BattlerReports:
    db: object

    async def answer_report(self, interaction: discord.Interaction, outcome: ActionResult) -> None:
        """The reply to `/battler report`: the report to confirm, the dispute, or the confirmation."""
        game = outcome.game
        if outcome.report is not None:
            report = outcome.report
            opponent = game.user_of(report.b if report.reporter == report.a else report.a)
            await interaction.response.send_message(ui.report_text(game, report), view=ui.report_view(game.id, report),
                                                    allowed_mentions=ping(opponent))
        elif outcome.waiting is not None:  # shown again, buttons and all; nobody is pinged twice
            await interaction.response.send_message(
                ui.dispute_text(game, outcome.waiting, game.organizer_id), view=ui.report_view(game.id, outcome.waiting),
                allowed_mentions=discord.AllowedMentions.none(),
            )
        elif outcome.dispute is not None:
            await interaction.response.send_message("Your report differs from your opponent's: an organizer decides.")
        else:
            await interaction.response.send_message("Your report matches your opponent's: confirmed.")

    async def on_report_button(self, interaction: discord.Interaction, *, game: int, report: int, action: str) -> None:
        before = await battler.treasures_asked(self.db, game, report, interaction.user.id)
        if before is not None:  # the reporter's opponent: their treasures first
            await interaction.response.send_modal(ui.treasures_modal(game, report, action, before))
            return
        await self._answer(interaction, game, report, action, None)

    async def on_treasures_form(self, interaction: discord.Interaction, *, game: int, report: int, action: str,
                                fields: dict[str, str]) -> None:
        await self._answer(interaction, game, report, action, ui.parse_treasures(fields.get("treasures", "")))

    async def _answer(self, interaction: discord.Interaction, game: int, report: int, action: str,
                      treasures_left: int | None) -> None:
        actor = actor_of(interaction)
        if action == "confirm":
            result = await battler.confirm_report(self.db, game, report, actor, treasures_left=treasures_left)
            applied = result.applied
            detail = f": {ui.claim_text(result.game, applied, applied.claim)}" if applied else ""
            text = f"✅ Report #{report} confirmed by <@{interaction.user.id}>{detail}."
        else:
            await battler.dispute_report(self.db, game, report, actor, treasures_left=treasures_left)
            text = f"⚠️ Report #{report} was disputed: an organizer decides below."
        await interaction.response.edit_message(content=text, view=None)

    async def on_decide_button(self, interaction: discord.Interaction, *, game: int, report: int, decision: str) -> None:
        await battler.decide_report(self.db, game, report, decision, actor_of(interaction))
        what = "voided: the players report again" if decision == "void" else "decided"
        await interaction.response.edit_message(content=f"⚖️ Report #{report} {what} by <@{interaction.user.id}>.", view=None)
