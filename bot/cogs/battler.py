"""/battler: Magic: Treasure Battler — lobby, setup and drafts by DM, reports confirmed in the channel."""

from __future__ import annotations

import logging

import discord
from discord import app_commands
from discord.ext import commands, tasks

from bot.app import MtgBot, report_interaction_error
from bot.cogs._battler_delivery import USERS, BattlerMessenger
from bot.cogs._checks import interaction_is_organizer, require_guild
from bot.cogs._sweep import ResendCutoff, edit_channel_message
from bot.cogs.cube import cube_autocomplete
from bot.services import battler, cubes
from bot.services.battler import GameView, StaleMessage
from bot.services.errors import UserError
from bot.ui import battler as ui
from bot.ui.confirm import ask_confirmation

log = logging.getLogger(__name__)

POISON_CHOICES = [
    app_commands.Choice(name="fibonacci: 1, 1, 2, 3, 5 per loss by stage (default)", value="fibonacci"),
    app_commands.Choice(name="flat2: 2 per loss", value="flat2"),
]
RESULT_CHOICES = [app_commands.Choice(name=text, value=key) for key, text in ui.REPORT_RESULTS.items()]
ALL_STATUSES = ("lobby", "running", "over", "cancelled")


class BattlerCog(commands.Cog):
    def __init__(self, bot: MtgBot) -> None:
        self.bot = bot
        self.messenger = BattlerMessenger(bot)
        ui.LobbyButton.handler = self.handle_lobby
        ui.ActionButton.handler = self.handle_action
        ui.ActionSelect.handler = self.handle_select
        ui.ReportButton.handler = self.handle_report_button
        ui.DecideButton.handler = self.handle_decide
        self.resend_cutoff = ResendCutoff()

    async def cog_load(self) -> None:
        self.sweep.change_interval(seconds=self.bot.settings.sweep_interval)
        self.sweep.start()

    async def cog_unload(self) -> None:
        self.sweep.cancel()

    @property
    def db(self):
        return self.bot.db

    async def _organizer(self, interaction: discord.Interaction) -> bool:
        return await interaction_is_organizer(self.db, interaction)

    async def _game(self, interaction: discord.Interaction, statuses=battler.ACTIVE) -> GameView:
        game = await battler.find_game(
            self.db, guild_id=interaction.guild_id, channel_id=interaction.channel_id, user_id=interaction.user.id,
            statuses=statuses,
        )
        if game is None:
            raise UserError("There is no Treasure Battler game here for you. `/battler start` opens one.")
        return game

    async def _edit_lobby(self, game: GameView, note: str | None = None) -> None:
        await edit_channel_message(
            self.bot, game.channel_id, game.guild_id, game.lobby_message_id,
            embed=ui.lobby_embed(game, note), view=ui.lobby_view(game),
        )

    # --- commands --------------------------------------------------------------------------

    group = app_commands.Group(name="battler", description="Magic: Treasure Battler: draft, play mini-games, survive poison.")

    @group.command(name="start", description="Open a Treasure Battler lobby in this channel (organizers).")
    @app_commands.describe(
        cube="The card pool (the shipped 'battler' cube is made for it).",
        poison="Poison per loss by stage (default fibonacci: 1, 1, 2, 3, 5).",
        seats="Most players, an even number (default 8).",
        interest="Optional rule: a player with at least this many treasures after a mini-game gets 1 more.",
        streak="Optional rule: 3 or more wins in a row earn 1 more treasure.",
        carousel="Optional rule: carousel drafting (stored; the engine does not run it yet).",
        seed="Optional: a number that fixes every shuffle and die roll, to replay a game exactly.",
    )
    @app_commands.autocomplete(cube=cube_autocomplete)
    @app_commands.choices(poison=POISON_CHOICES)
    @app_commands.guild_only()
    async def start(
        self, interaction: discord.Interaction, cube: str, poison: app_commands.Choice[str] | None = None,
        seats: app_commands.Range[int, 2, 16] = 8, interest: app_commands.Range[int, 1, 5] | None = None,
        streak: bool = False, carousel: bool = False, seed: app_commands.Range[int, 0, 2**53] | None = None,
    ) -> None:
        guild_id = require_guild(interaction)
        if not await self._organizer(interaction):
            raise UserError("Only organizers can start a Treasure Battler game (Manage Server or the organizer role).")
        game = await battler.create_game(
            self.db, guild_id=guild_id, channel_id=interaction.channel_id, organizer_id=interaction.user.id,
            cube=await cubes.get_cube(self.db, guild_id, cube), progression=poison.value if poison else "fibonacci",
            max_seats=seats, interest=interest, streak=streak, carousel=carousel, seed=seed,
        )
        await interaction.response.send_message(
            f"Treasure Battler #{game.id} is open: join below.", embed=ui.lobby_embed(game), view=ui.lobby_view(game)
        )
        message = await interaction.original_response()
        await battler.set_lobby_message(self.db, game.id, message.id)

    @group.command(name="report", description="Report your mini-game; your opponent confirms it.")
    @app_commands.describe(
        result="How your game ended, from your side.",
        treasures_left="Treasures you have left after the game (default: unchanged).",
    )
    @app_commands.choices(result=RESULT_CHOICES)
    async def report(
        self, interaction: discord.Interaction, result: app_commands.Choice[str],
        treasures_left: app_commands.Range[int, 0, 99] | None = None,
    ) -> None:
        game = await self._game(interaction, ("running",))
        outcome = await battler.report(self.db, game.id, interaction.user.id, result.value, treasures_left=treasures_left)
        if outcome.report is not None:
            await interaction.response.send_message(
                ui.report_text(outcome.game, outcome.report), view=ui.report_view(outcome.game, outcome.report),
                allowed_mentions=USERS,
            )
        elif outcome.dispute is not None:
            await interaction.response.send_message("Your report differs from your opponent's: an organizer decides.")
            await self.messenger.ask_organizer(outcome.game, outcome.dispute)
        else:
            await interaction.response.send_message("Your report matches your opponent's: confirmed.")
            await self.messenger.after(outcome)

    @group.command(name="status", description="Show the game: stage, round, phase, poison, treasures, basics, packyard.")
    async def status(self, interaction: discord.Interaction) -> None:
        game = await self._game(interaction, ALL_STATUSES)
        await interaction.response.send_message(embed=ui.status_embed(game), allowed_mentions=discord.AllowedMentions.none())

    @group.command(name="stash", description="Show your stash, pack, basics and treasures (only you see it).")
    @app_commands.describe(resend="Also DM me my current setup/draft message again.")
    async def stash(self, interaction: discord.Interaction, resend: bool = False) -> None:
        game = await self._game(interaction, ("running", "over"))
        assert game.state is not None
        seat = next((p.seat for p in game.state.players if p.user_id == interaction.user.id), None)
        if seat is None:
            raise UserError("You are not playing in this game.")
        await interaction.response.send_message(embed=ui.stash_embed(game, seat), ephemeral=True)
        if resend and (prompt := await battler.current_prompt(self.db, game.id, interaction.user.id)) is not None:
            sent = await self.messenger.deliver(prompt)
            await interaction.followup.send("Sent: check your DMs." if sent else "I still can't DM you.", ephemeral=True)

    @group.command(name="rules", description="The rules in short, the resource table and this game's poison per loss.")
    @app_commands.describe(poison="Show this poison progression instead of the game's.")
    @app_commands.choices(poison=POISON_CHOICES)
    async def rules(self, interaction: discord.Interaction, poison: app_commands.Choice[str] | None = None) -> None:
        game = await battler.find_game(
            self.db, guild_id=interaction.guild_id, channel_id=interaction.channel_id, user_id=interaction.user.id
        )
        settings = game.settings if game is not None else None
        progression = poison.value if poison else (settings.progression if settings else "fibonacci")
        await interaction.response.send_message(ui.rules_text(progression, settings if not poison else None), ephemeral=True)

    @group.command(name="force", description="End the current DRAFT phase for everyone now (organizer).")
    @app_commands.guild_only()
    async def force(self, interaction: discord.Interaction) -> None:
        game = await self._game(interaction, ("running",))
        result = await battler.force_end_draft(
            self.db, game.id, user_id=interaction.user.id, is_organizer=await self._organizer(interaction)
        )
        await interaction.response.send_message("The draft phase was ended by an organizer.")
        await self.messenger.after(result)

    @group.command(name="end", description="End the game now without a winner; nothing goes to the leaderboard (organizer).")
    @app_commands.guild_only()
    async def end(self, interaction: discord.Interaction) -> None:
        game = await self._game(interaction)
        await self._cancel(interaction, game)

    # --- lobby -----------------------------------------------------------------------------

    async def handle_lobby(self, interaction: discord.Interaction, game_id: int, action: str) -> None:
        try:
            if action == "join":
                game = await battler.join(self.db, game_id, interaction.user.id)
                await interaction.response.edit_message(embed=ui.lobby_embed(game), view=ui.lobby_view(game))
            elif action == "leave":
                game = await battler.leave(self.db, game_id, interaction.user.id)
                await interaction.response.edit_message(embed=ui.lobby_embed(game), view=ui.lobby_view(game))
            elif action == "begin":
                result = await battler.begin(
                    self.db, game_id, user_id=interaction.user.id, is_organizer=await self._organizer(interaction)
                )
                await interaction.response.edit_message(
                    content=f"Treasure Battler #{game_id} has begun: choose your basic lands in your DMs!",
                    embed=ui.lobby_embed(result.game), view=None,
                )
                await self.messenger.deliver_all(result.prompts)
            elif action == "cancel":
                await self._cancel(interaction, await battler.get_game(self.db, game_id))
        except Exception as error:  # noqa: BLE001 - every error gets a proper answer
            await report_interaction_error(interaction, error)

    async def _cancel(self, interaction: discord.Interaction, game: GameView) -> None:
        is_org = await self._organizer(interaction)
        if game.organizer_id != interaction.user.id and not is_org:
            raise UserError("Only the game's organizer (or a server organizer) can end it.")
        running = game.status == "running"
        question = (
            f"End Treasure Battler #{game.id} now? There will be no winner and nothing goes to the leaderboard."
            if running else f"Cancel the Treasure Battler #{game.id} lobby?"
        )
        confirmed = await ask_confirmation(interaction, question)
        if confirmed is None:
            return
        ended = await battler.cancel(self.db, game.id, user_id=interaction.user.id, is_organizer=is_org)
        await confirmed.response.edit_message(content=f"Treasure Battler #{game.id} was ended.", view=None)
        await self._edit_lobby(ended, note="❌ Ended by an organizer.")
        if running:
            await self.messenger.post(
                ended.channel_id, ended.guild_id,
                [f"❌ Treasure Battler #{game.id} was ended by an organizer without a winner (not recorded)."],
            )

    # --- private DMs -----------------------------------------------------------------------

    async def handle_action(self, interaction, game_id: int, seat: int, version: int, action: str, arg: int | None) -> None:
        user_id = interaction.user.id
        try:
            if action in ("shift", "untrade"):
                prompt = await battler.checked_prompt(self.db, game_id, user_id, seat, version)
                if action == "shift":
                    await interaction.response.send_modal(ui.ShiftModal(prompt, self._shift_submitted))
                else:
                    await interaction.response.edit_message(embed=ui.prompt_embed(prompt), view=ui.prompt_view(prompt))
                return
            kwargs: dict = {}
            if action == "basics":
                if arg is None or not 0 <= arg < len(ui.BASIC_COMBOS):
                    raise UserError("Choose your two basic lands first.")
                kwargs["basics"] = list(ui.BASIC_COMBOS[arg])
            await self._private(interaction, game_id, seat, version, action, **kwargs)
        except Exception as error:  # noqa: BLE001
            await self._private_error(interaction, error)

    async def handle_select(self, interaction, game_id, seat, version, what, arg, value: str) -> None:
        try:
            if what in ("combo", "tstash"):
                prompt = await battler.checked_prompt(self.db, game_id, interaction.user.id, seat, version)
                key = "combo" if what == "combo" else "stash_index"
                options = {key: int(value)}
                await interaction.response.edit_message(
                    embed=ui.prompt_embed(prompt, **options), view=ui.prompt_view(prompt, **options)
                )
            elif what == "tpack":
                await self._private(interaction, game_id, seat, version, "trade", stash_index=arg, pack_index=int(value))
            elif what == "buy":
                await self._private(interaction, game_id, seat, version, "buy", basic_type=value)
            else:
                raise UserError("Unknown choice.")
        except Exception as error:  # noqa: BLE001
            await self._private_error(interaction, error)

    async def _shift_submitted(self, interaction: discord.Interaction, prompt, text: str) -> None:
        try:
            await self._private(
                interaction, prompt.game_id, prompt.seat, prompt.version, "shift", basics=ui.parse_basics(text)
            )
        except Exception as error:  # noqa: BLE001
            await self._private_error(interaction, error)

    async def _private(self, interaction, game_id: int, seat: int, version: int, action: str, **kwargs) -> None:
        message = interaction.message
        result = await battler.private_action(
            self.db, game_id, interaction.user.id, action, seat=seat, version=version,
            channel_id=interaction.channel_id, message_id=message.id if message else None, **kwargs,
        )
        prompt = result.actor_prompt
        if prompt is not None:
            note = ui.action_note(result.events)
            await interaction.response.edit_message(embed=ui.prompt_embed(prompt, note=note), view=ui.prompt_view(prompt))
        else:
            state = result.game.state
            phase = ui.PHASE_NAMES.get(state.phase, state.phase) if state else "?"
            embed = discord.Embed(
                title=f"Treasure Battler #{game_id}",
                description=f"✅ Done. The game moved on to the **{phase}** phase: see <#{result.game.channel_id}>.",
                colour=discord.Colour.green(),
            )
            await interaction.response.edit_message(embed=embed, view=None)
        await self.messenger.after(result)

    async def _private_error(self, interaction: discord.Interaction, error: Exception) -> None:
        if not isinstance(error, StaleMessage):
            await report_interaction_error(interaction, error)
            return
        prompt, message_id = await battler.shown_in(self.db, error.game_id, error.user_id)
        if prompt is None:
            game = await battler.get_game(self.db, error.game_id)
            phase = game.state.phase.upper() if game.state and game.status == "running" else game.status
            await interaction.response.send_message(
                f"That message is out of date: the game is now in the {phase} phase.", ephemeral=True
            )
        elif interaction.message is not None and message_id == interaction.message.id:
            # A double click: the first click already updated this very message.
            await interaction.response.send_message("Already done: this message shows your current state.", ephemeral=True)
        else:
            await interaction.response.send_message(
                "That message is out of date, here is the current one (sent as a new DM).", ephemeral=True
            )
            await self.messenger.deliver(prompt)

    # --- reports ---------------------------------------------------------------------------

    async def handle_report_button(self, interaction, game_id: int, report_id: int, action: str) -> None:
        try:
            if action == "confirm":
                result = await battler.confirm_report(
                    self.db, game_id, report_id, user_id=interaction.user.id,
                    is_organizer=await self._organizer(interaction),
                )
                applied = result.applied
                detail = f": {ui.claim_text(result.game, applied, applied.claim)}" if applied else ""
                await interaction.response.edit_message(
                    content=f"✅ Report #{report_id} confirmed by <@{interaction.user.id}>{detail}.", view=None,
                    allowed_mentions=discord.AllowedMentions.none(),
                )
                await self.messenger.after(result)
            elif action == "dispute":
                result = await battler.dispute_report(self.db, game_id, report_id, user_id=interaction.user.id)
                await interaction.response.edit_message(
                    content=f"⚠️ Report #{report_id} was disputed: an organizer decides below.", view=None,
                    allowed_mentions=discord.AllowedMentions.none(),
                )
                assert result.dispute is not None
                await self.messenger.ask_organizer(result.game, result.dispute)
        except Exception as error:  # noqa: BLE001
            await report_interaction_error(interaction, error)

    async def handle_decide(self, interaction, game_id: int, report_id: int, decision: str) -> None:
        try:
            result = await battler.decide_report(
                self.db, game_id, report_id, decision, user_id=interaction.user.id,
                is_organizer=await self._organizer(interaction),
            )
            what = "voided: the players report again" if decision == "void" else "decided"
            await interaction.response.edit_message(
                content=f"⚖️ Report #{report_id} {what} by <@{interaction.user.id}>.", view=None,
                allowed_mentions=discord.AllowedMentions.none(),
            )
            await self.messenger.after(result)
        except Exception as error:  # noqa: BLE001
            await report_interaction_error(interaction, error)

    # --- background ------------------------------------------------------------------------

    @tasks.loop(seconds=30)
    async def sweep(self) -> None:
        try:
            if not self.bot.owns_shard_zero:
                return  # one process sweeps (the one that gets the DMs), so nothing is sent twice
            sent = await self.messenger.resend_undelivered(self.resend_cutoff.next())
            if sent:
                log.info("re-sent %d undelivered battler DMs", sent)
            await self.messenger.finish_unannounced()
        except Exception:
            log.exception("battler sweep failed; it will run again")

    @sweep.before_loop
    async def _wait_until_ready(self) -> None:
        await self.bot.wait_until_ready()


async def setup(bot: MtgBot) -> None:
    bot.add_dynamic_items(ui.LobbyButton, ui.ActionButton, ui.ActionSelect, ui.ReportButton, ui.DecideButton)
    await bot.add_cog(BattlerCog(bot))

