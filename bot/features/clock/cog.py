"""/clock: a two-player chess clock in the channel, for any format (FORMATS.md §3 "Chess clock").

`/clock start` offers a clock to the opponent: one message with Accept, Decline and Withdraw; it
runs only once the opponent accepts it. Then it has Pass clock, Pause, Resume and End; only the two
players can press them. The message is edited through the outbox after each action, and the flag
fall is a deadline the sweeper runs on time, also after a restart (`bot.features.clock.service`).
Running `/clock start` again while the two have a clock here shows that clock again, with the
buttons the player may press (an offer whose message was lost is never stuck).
"""

from __future__ import annotations

import discord
from discord import app_commands
from discord.ext import commands

from bot.features.clock import rules as engine
from bot.features.clock import service, ui
from bot.kit.autocomplete import choices
from bot.kit.client import KitBot
from bot.kit.confirm import confirm_then_act
from bot.kit.dispatch import actor_of, handles
from bot.kit.errors import UserError
from bot.store.db import Database

MODE_CHOICES = choices({
    "delay": "delay: the first seconds of each move are free (default)",
    "bronstein": "bronstein: time spent is refunded up to the increment; starts at minutes + increment",
})
FIRST_CHOICES = choices({
    "me": "me: my clock runs first (default)",
    "opponent": "opponent: my opponent's clock runs first",
})


class ClockCog(commands.Cog):
    def __init__(self, bot: KitBot) -> None:
        self.bot = bot

    @property
    def db(self) -> Database:
        return self.bot.db

    group = app_commands.Group(name="clock", description="A two-player chess clock in this channel, for any format.")

    @group.command(name="start", description="Offer your opponent a chess clock in this channel; it runs once they accept.")
    @app_commands.describe(
        opponent="The other player on the clock (not a bot, not yourself); they accept it before it runs.",
        minutes="Minutes per player per game (default: your event's clock in a Turnabout match, else 10).",
        increment="Seconds: the delay per move, or the Bronstein refund limit (default: the event's, else 3).",
        mode="Delay (each move's first seconds free) or Bronstein (time spent refunded); default: the event's.",
        first="Whose clock runs first: the player who acts first (default: you).",
        game="Turnabout: which game of your match this clock is for (asked while game 1 has no result).",
    )
    @app_commands.choices(mode=MODE_CHOICES, first=FIRST_CHOICES)
    @app_commands.guild_only()
    async def start(
        self, interaction: discord.Interaction, opponent: discord.User,
        minutes: app_commands.Range[int, 1, engine.MAX_MINUTES] | None = None,
        increment: app_commands.Range[int, 0, engine.MAX_INCREMENT] | None = None,
        mode: app_commands.Choice[str] | None = None, first: app_commands.Choice[str] | None = None,
        game: app_commands.Range[int, 1, 2] | None = None,
    ) -> None:
        if opponent.bot:
            raise UserError("A chess clock is for two players: a bot can't be your opponent.")
        started = await service.start(
            self.db, actor_of(interaction), channel_id=interaction.channel_id, opponent_id=opponent.id,
            minutes=minutes, increment=increment, mode=mode.value if mode else None,
            first=1 if first and first.value == "opponent" else 0, game=game,
        )
        clock = started.clock
        if started.new:
            game = f" for {ui.game_name(clock.game)}" if clock.game is not None and clock.game.decides else ""
            await interaction.response.send_message(
                f"Chess clock #{clock.id} offered to {ui.mention(opponent.id)}{game}: it is posted in this channel and "
                "starts when they press **Accept** (you can **Withdraw** it until then).", ephemeral=True,
            )
            return
        # The two already have a clock here: show it again, with the buttons this player may press.
        if clock.offered:
            text = (f"You two already have chess clock #{clock.id} in this channel, waiting to be accepted; "
                    "here it is again.")
        else:
            text = f"You two already have chess clock #{clock.id} in this channel; here it is. End it before starting another."
        await interaction.response.send_message(
            text, embed=ui.clock_embed(clock), view=ui.clock_view(clock, for_user=interaction.user.id), ephemeral=True,
        )

    @group.command(name="end", description="End your clock in this channel (asks first), or withdraw or decline an offer.")
    @app_commands.guild_only()
    async def end(self, interaction: discord.Interaction) -> None:
        found = await service.find_live(
            self.db, guild_id=interaction.guild_id, channel_id=interaction.channel_id, user_id=interaction.user.id
        )
        if found is None:
            raise UserError("You have no running clock in this channel. `/clock start` starts one.")
        if found.offered:  # nothing runs yet: take the offer back, or decline it
            action = "withdraw" if found.state.offered_by == found.players.index(interaction.user.id) else "decline"
            await self._answer_offer(interaction, found.id, action, None)
            return
        await self._end(interaction, found.id, None)

    # --- the clock's buttons ---------------------------------------------------------------------

    @handles(ui.ClockButton)
    async def on_button(self, interaction: discord.Interaction, *, clock: int, action: str) -> None:
        actor = actor_of(interaction)
        message = interaction.message
        ephemeral = message is not None and message.flags.ephemeral  # a copy shown to one player
        message_id = message.id if message is not None and not ephemeral else None
        if action == "end":
            await self._end(interaction, clock, message_id)
            return
        if action in service.OFFER_ACTIONS:
            await self._answer_offer(interaction, clock, action, message_id, copy=ephemeral)
            return
        result = await service.act(self.db, clock, actor, action, message_id=message_id)
        if result.flag_fell:
            await interaction.response.send_message("Too late: the flag had already fallen.", ephemeral=True)
        elif (asked := ui.asked_text(result)) is not None:  # the running player only asks; the opponent agrees
            await interaction.response.send_message(asked, ephemeral=True)
        elif ephemeral:  # the copy shows the clock as it is now; the channel message is edited through the outbox
            await interaction.response.edit_message(embed=ui.clock_embed(result.clock),
                                                    view=ui.clock_view(result.clock, for_user=interaction.user.id))
        else:
            await interaction.response.defer()  # the clock message is edited through the outbox

    async def _answer_offer(self, interaction: discord.Interaction, clock_id: int, action: str,
                            message_id: int | None, *, copy: bool = False) -> None:
        """Accept, decline or withdraw an offered clock (nothing runs yet, so nothing to confirm)."""
        try:
            result = await service.act(self.db, clock_id, actor_of(interaction), action, message_id=message_id)
        except UserError:
            if not copy or not await self._show_answered_copy(interaction, clock_id):
                raise
            return
        said = {"accept": f"Chess clock #{clock_id} accepted: it is running.",
                "decline": f"Chess clock #{clock_id} declined: it will not run.",
                "withdraw": f"Chess clock #{clock_id} withdrawn: it will not run."}[action]
        if copy:
            await interaction.response.edit_message(
                content=said, embed=ui.clock_embed(result.clock),
                view=ui.clock_view(result.clock, for_user=interaction.user.id))
        elif message_id is not None:
            await interaction.response.defer()  # the clock message is edited through the outbox
        else:
            await interaction.response.send_message(said, ephemeral=True)

    async def _show_answered_copy(self, interaction: discord.Interaction, clock_id: int) -> bool:
        """A copy of an offer (shown to one player) pressed after the offer was answered on the
        channel message: the copy shows the clock as it stands, without the offer's buttons."""
        clock = await service.get(self.db, clock_id)
        if clock.offered or clock.guild_id != interaction.guild_id or interaction.user.id not in clock.players:
            return False  # still an offer (the refusal stands), or not this player's clock
        how = {engine.WITHDRAWN: "withdrawn", engine.DECLINED: "declined"}.get(clock.state.status, "accepted")
        await interaction.response.edit_message(
            content=f"Chess clock #{clock_id} was already {how}: here it is as it stands.",
            embed=ui.clock_embed(clock), view=ui.clock_view(clock, for_user=interaction.user.id))
        return True

    async def _end(self, interaction: discord.Interaction, clock_id: int, message_id: int | None) -> None:
        """Ask the player first; the end stops both clocks for this game."""
        async def end() -> str:
            result = await service.end(self.db, clock_id, actor_of(interaction), message_id=message_id)
            if result.flag_fell:
                return "The flag had already fallen."
            return ui.asked_text(result) or f"Chess clock #{clock_id} ended."

        clock = await service.get(self.db, clock_id)
        await confirm_then_act(interaction, ui.end_question(clock, interaction.user.id), end, db=self.db,
                               label=ui.end_label(clock, interaction.user.id), keep="Keep it running")


async def setup(bot: KitBot) -> None:
    await bot.add_cog(ClockCog(bot))
