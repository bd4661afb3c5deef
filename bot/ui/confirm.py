"""A Confirm / Cancel prompt for destructive actions."""

from __future__ import annotations

import discord


class ConfirmView(discord.ui.View):
    """Ephemeral two-button prompt; only the user who asked can answer it."""

    def __init__(self, user_id: int, *, timeout: float = 120) -> None:
        super().__init__(timeout=timeout)
        self.user_id = user_id
        self.confirmed: bool | None = None
        self.interaction: discord.Interaction | None = None

    async def interaction_check(self, interaction: discord.Interaction) -> bool:
        if interaction.user.id != self.user_id:
            await interaction.response.send_message("This prompt is not yours.", ephemeral=True)
            return False
        return True

    async def _finish(self, interaction: discord.Interaction, confirmed: bool) -> None:
        self.confirmed = confirmed
        self.interaction = interaction
        self.stop()

    @discord.ui.button(label="Confirm", style=discord.ButtonStyle.danger)
    async def confirm(self, interaction: discord.Interaction, _button: discord.ui.Button) -> None:
        await self._finish(interaction, True)

    @discord.ui.button(label="Cancel", style=discord.ButtonStyle.secondary)
    async def cancel(self, interaction: discord.Interaction, _button: discord.ui.Button) -> None:
        await self._finish(interaction, False)


async def ask_confirmation(interaction: discord.Interaction, question: str) -> discord.Interaction | None:
    """Ask `question`; return the confirming button interaction (to answer on), or None.

    On Cancel or timeout the prompt is edited to say nothing happened.
    """
    view = ConfirmView(interaction.user.id)
    await interaction.response.send_message(question, view=view, ephemeral=True)
    timed_out = await view.wait()
    if timed_out or not view.confirmed or view.interaction is None:
        if view.interaction is not None:
            await view.interaction.response.edit_message(content="Cancelled: nothing was changed.", view=None)
        else:
            await interaction.edit_original_response(content="No answer: nothing was changed.", view=None)
        return None
    return view.interaction
