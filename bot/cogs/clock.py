"""/clock: a two-player chess clock in the channel, for any format (FORMATS.md §3 "Chess clock").

`/clock start` posts one message with Pass clock, Pause, Resume and End; only the two players can
press them. The message is edited through the outbox after each action, and the flag fall is a
deadline the sweeper runs on time, also after a restart (`bot.services.clock`).
"""

from __future__ import annotations

import discord
from discord import app_commands
from discord.ext import commands

from bot.cogs._clock_outbox import ClockMessages
from bot.formats import clock as engine
from bot.services import clock as service
from bot.services.errors import UserError
from bot.ui import clock as ui
from bot.ui.confirm import confirm_then_act
from bot.ui.dispatch import actor_of

MODE_CHOICES = [
    app_commands.Choice(name="delay: the first seconds of each move are free (default)", value="delay"),
    app_commands.Choice(name="bronstein: time spent is refunded up to the increment; starts at minutes + increment",
                        value="bronstein"),
]
FIRST_CHOICES = [
    app_commands.Choice(name="me: my clock runs first (default)", value="me"),
    app_commands.Choice(name="opponent: my opponent's clock runs first", value="opponent"),
]


class ClockCog(commands.Cog):
    def __init__(self, bot) -> None:  # bot: MtgBot
        self.bot = bot
        self.messages = ClockMessages(bot)

    @property
    def db(self):
        return self.bot.db

    group = app_commands.Group(name="clock", description="A two-player chess clock in this channel, for any format.")

    @group.command(name="start", description="Start a chess clock between you and your opponent in this channel.")
    @app_commands.describe(
        opponent="The other player on the clock (not a bot, not yourself).",
        minutes="Minutes per player per game (default 10).",
        increment="Seconds: the delay per move, or the Bronstein refund limit (default 3).",
        mode="Delay (default) or Bronstein timing, as in FORMATS.md.",
        first="Whose clock runs first: the player who acts first (default: you).",
    )
    @app_commands.choices(mode=MODE_CHOICES, first=FIRST_CHOICES)
    @app_commands.guild_only()
    async def start(
        self, interaction: discord.Interaction, opponent: discord.User,
        minutes: app_commands.Range[int, 1, engine.MAX_MINUTES] = engine.DEFAULT_MINUTES,
        increment: app_commands.Range[int, 0, engine.MAX_INCREMENT] = engine.DEFAULT_INCREMENT,
        mode: app_commands.Choice[str] | None = None, first: app_commands.Choice[str] | None = None,
    ) -> None:
        if opponent.bot:
            raise UserError("A chess clock is for two players: a bot can't be your opponent.")
        started = await service.start(
            self.db, actor_of(interaction), channel_id=interaction.channel_id, opponent_id=opponent.id,
            minutes=minutes, increment=increment, mode=mode.value if mode else "delay",
            first=1 if first and first.value == "opponent" else 0,
        )
        await interaction.response.send_message(
            f"Chess clock #{started.id} started: {ui.mention(started.players[0])} vs {ui.mention(started.players[1])}. "
            "It is posted in this channel; press **Pass clock** when you have finished acting.",
            ephemeral=True,
        )

    @group.command(name="end", description="End your running or paused clock in this channel (asks first).")
    @app_commands.guild_only()
    async def end(self, interaction: discord.Interaction) -> None:
        found = await service.find_live(
            self.db, guild_id=interaction.guild_id, channel_id=interaction.channel_id, user_id=interaction.user.id
        )
        if found is None:
            raise UserError("You have no running clock in this channel. `/clock start` starts one.")
        await self._end(interaction, found.id, None)

    # --- the clock's buttons ---------------------------------------------------------------------

    async def on_button(self, interaction: discord.Interaction, *, clock: int, action: str) -> None:
        actor = actor_of(interaction)
        message_id = interaction.message.id if interaction.message else None
        if action == "end":
            await self._end(interaction, clock, message_id)
            return
        result = await service.act(self.db, clock, actor, action, message_id=message_id)
        if result.flag_fell:
            await interaction.response.send_message("Too late: the flag had already fallen.", ephemeral=True)
        else:
            await interaction.response.defer()  # the clock message is edited through the outbox

    async def _end(self, interaction: discord.Interaction, clock_id: int, message_id: int | None) -> None:
        """Ask the player first; the end stops both clocks for this game."""
        async def end() -> str:
            result = await service.end(self.db, clock_id, actor_of(interaction), message_id=message_id)
            return "The flag had already fallen." if result.flag_fell else f"Chess clock #{clock_id} ended."

        await confirm_then_act(interaction, f"End chess clock #{clock_id} now? Both clocks stop and the buttons go away.",
                               end, db=self.db)


async def setup(bot) -> None:
    await bot.add_cog(ClockCog(bot))
