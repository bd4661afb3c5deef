"""The Treasure Battler cog's DMs: one handler per button, menu and form of a setup, draft or
carousel DM (a part of `BattlerCog`, kept apart so the cog stays short). A move is saved by
`battler.private_action` with the move its handler names; a view step only changes what the
message shows (nothing is saved); a click on an out-of-date message gets the current one."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import discord

from bot.games.battler import service as battler
from bot.games.battler import ui
from bot.games.battler.service import StaleMessage
from bot.kit.client import KitBot
from bot.kit.dispatch import InvalidPayload, handles
from bot.kit.errors import chosen
from bot.store.db import Database

S = battler.STATUSES


def _given(arg: int | None) -> int:
    """The position a button carries (a button of these always carries one)."""
    if arg is None:
        raise InvalidPayload()
    return arg


class BattlerDMs:
    bot: KitBot
    db: Database

    # --- moves (saved) ----------------------------------------------------------------------------------

    @handles(ui.BasicsButton)
    async def on_basics(self, interaction: discord.Interaction, *, game: int, seat: int, version: int,
                        arg: int | None) -> None:
        basics = list(chosen(ui.BASIC_COMBOS, arg))
        await self._move(interaction, game, seat, version, battler.choose_basics(basics))

    @handles(ui.RerollButton)
    async def on_reroll(self, interaction: discord.Interaction, *, game: int, seat: int, version: int, **_: Any) -> None:
        await self._move(interaction, game, seat, version, battler.reroll())

    @handles(ui.DoneButton)
    async def on_done(self, interaction: discord.Interaction, *, game: int, seat: int, version: int, **_: Any) -> None:
        await self._move(interaction, game, seat, version, battler.done())

    @handles(ui.TakeButton)
    async def on_take(self, interaction: discord.Interaction, *, game: int, seat: int, version: int,
                      arg: int | None) -> None:
        await self._move(interaction, game, seat, version, battler.take(_given(arg)))

    @handles(ui.PassButton)
    async def on_pass(self, interaction: discord.Interaction, *, game: int, seat: int, version: int, **_: Any) -> None:
        await self._move(interaction, game, seat, version, battler.pass_carousel())

    @handles(ui.TradePackSelect)
    async def on_trade(self, interaction: discord.Interaction, *, game: int, seat: int, version: int,
                       arg: int | None, value: int) -> None:
        await self._move(interaction, game, seat, version, battler.trade(_given(arg), value))

    @handles(ui.BuySelect)
    async def on_buy(self, interaction: discord.Interaction, *, game: int, seat: int, version: int, value: str,
                     **_: Any) -> None:
        await self._move(interaction, game, seat, version, battler.buy(value))

    @handles(ui.GiveSelect)
    async def on_give(self, interaction: discord.Interaction, *, game: int, seat: int, version: int,
                      arg: int | None, value: int) -> None:
        await self._move(interaction, game, seat, version, battler.take(_given(arg), stash_index=value))

    @handles(ui.SHIFT_FORM)
    async def on_shift_form(self, interaction: discord.Interaction, *, game: int, seat: int, version: int,
                            fields: dict[str, str]) -> None:
        basics = ui.parse_basics(fields.get("basics", ""))
        await self._move(interaction, game, seat, version, battler.shift_basics(basics))

    # --- view steps (nothing saved) ---------------------------------------------------------------------

    @handles(ui.ShiftButton)
    async def on_shift(self, interaction: discord.Interaction, *, game: int, seat: int, version: int, **_: Any) -> None:
        if (prompt := await self._prompt(interaction, game, seat, version)) is not None:
            await interaction.response.send_modal(ui.shift_modal(prompt))

    @handles(ui.UntradeButton, ui.BackButton)
    async def on_start_again(self, interaction: discord.Interaction, *, game: int, seat: int, version: int,
                             **_: Any) -> None:
        await self._show(interaction, game, seat, version, lambda prompt: {})

    @handles(ui.SwapButton)
    async def on_swap(self, interaction: discord.Interaction, *, game: int, seat: int, version: int,
                      arg: int | None) -> None:
        def swap(prompt: battler.PrivatePrompt) -> dict:
            _carousel(prompt)
            return {"chosen": _checked(prompt.carousel, arg)}

        await self._show(interaction, game, seat, version, swap)

    @handles(ui.CarouselPageButton)
    async def on_page(self, interaction: discord.Interaction, *, game: int, seat: int, version: int,
                      arg: int | None) -> None:
        def page(prompt: battler.PrivatePrompt) -> dict:
            _carousel(prompt)
            return {"page": _checked(range(ui.carousel_pages(prompt)), arg)}

        await self._show(interaction, game, seat, version, page)

    @handles(ui.ComboSelect)
    async def on_combo(self, interaction: discord.Interaction, *, game: int, seat: int, version: int, value: int,
                       **_: Any) -> None:
        await self._show(interaction, game, seat, version, lambda prompt: {"combo": _checked(ui.BASIC_COMBOS, value)})

    @handles(ui.TradeStashSelect)
    async def on_trade_stash(self, interaction: discord.Interaction, *, game: int, seat: int, version: int,
                             value: int, **_: Any) -> None:
        await self._show(interaction, game, seat, version,
                         lambda prompt: {"stash_index": _checked(prompt.stash, value)})

    # --- shared steps -----------------------------------------------------------------------------------

    async def _prompt(self, interaction: discord.Interaction, game: int, seat: int,
                      version: int) -> battler.PrivatePrompt | None:
        """The DM's prompt if the message is the current one; else the current one is shown (None)."""
        try:
            return await battler.checked_prompt(self.db, game, interaction.user.id, seat, version)
        except StaleMessage as stale:
            await self._stale(interaction, stale)
            return None

    async def _show(self, interaction: discord.Interaction, game: int, seat: int, version: int,
                    step: Callable[[battler.PrivatePrompt], dict]) -> None:
        """The DM shown again with what `step` chose (a pair of basics, a stash card, a carousel card or page)."""
        if (prompt := await self._prompt(interaction, game, seat, version)) is None:
            return
        shown = step(prompt)
        await interaction.response.edit_message(embed=ui.prompt_embed(prompt, **shown),
                                                view=ui.prompt_view(prompt, **shown))

    async def _move(self, interaction: discord.Interaction, game_id: int, seat: int, version: int,
                    move: battler.Move) -> None:
        message = interaction.message
        try:
            result = await battler.private_action(
                self.db, game_id, interaction.user.id, move, seat=seat, version=version,
                channel_id=interaction.channel_id, message_id=message.id if message else None,
            )
        except StaleMessage as stale:
            await self._stale(interaction, stale)
            return
        prompt = result.actor_prompt
        note = ui.action_note(result.events, seat)
        if prompt is not None:
            await interaction.response.edit_message(embed=ui.prompt_embed(prompt, note=note), view=ui.prompt_view(prompt))
            return
        await interaction.response.edit_message(embed=ui.moved_on_embed(result.game, note), view=None)

    async def _stale(self, interaction: discord.Interaction, error: StaleMessage) -> None:
        prompt, message_id = await battler.shown_in(self.db, error.game_id, error.user_id)
        if prompt is None:
            game = await battler.get_game(self.db, error.game_id)
            if game.state and game.status == S.running:
                now = f"the game is now in the {game.state.phase.upper()} phase"
            else:
                now = "the game was cancelled" if game.status == S.cancelled else "the game is over"
            await interaction.response.send_message(f"That message is out of date: {now}.", ephemeral=True)
        elif interaction.message is not None and message_id == interaction.message.id:
            # This very message shows the current state (a double click), or was to and the edit was
            # lost: it is shown again, as it is now.
            await interaction.response.edit_message(embed=ui.prompt_embed(prompt), view=ui.prompt_view(prompt))
        else:
            await interaction.response.send_message(
                "That message is out of date, here is the current one (sent as a new DM).", ephemeral=True
            )
            if (held := await battler.resend(self.db, error.game_id, error.user_id)) is not None:
                await self.bot.outbox.send_batch([held], fresh=True)


def _carousel(prompt: battler.PrivatePrompt) -> None:
    if prompt.kind != "carousel":
        raise InvalidPayload()


def _checked(shown: Any, position: int | None) -> int:
    """`position`, once the state shows it there (a forged one is refused)."""
    chosen(shown, position)
    return position  # type: ignore[return-value]
