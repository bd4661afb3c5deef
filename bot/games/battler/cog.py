"""/battler: Magic: Treasure Battler — lobby, setup and drafts by DM, reports confirmed in the channel."""

from __future__ import annotations

import logging

import discord
from discord import app_commands

from bot.features.cubes import service as cubes
from bot.features.cubes.ui import cube_autocomplete
from bot.games.battler import messages as _renderers  # noqa: F401  (registers the outbox renderers)
from bot.games.battler import rules as engine
from bot.games.battler import service as battler
from bot.games.battler import ui
from bot.games.battler.reports_cog import BattlerReports
from bot.games.battler.service import GameView, StaleMessage
from bot.kit.autocomplete import choices
from bot.kit.client import KitBot
from bot.kit.confirm import confirm_then_act
from bot.kit.dispatch import InvalidPayload, actor_of, index
from bot.kit.errors import UserError, chosen
from bot.kit.table_cog import TableCog, add_lobby_commands
from bot.web.buttons import event_view

log = logging.getLogger(__name__)

POISON_CHOICES = choices({
    "fibonacci": "fibonacci: 1, 1, 2, 3, 5 per loss by stage (default)",
    "flat2": "flat2: 2 per loss",
})
CAROUSEL_CHOICES = choices({
    "off": "off (default)",
    "round": "round: after every draft, 1 card each",
    "stage": "stage: after a stage's last draft, 3 cards each in snake order",
})
CAROUSEL_FROM_CHOICES = choices({
    "packpile": "packpile: fresh cards, one per pick (default)",
    "packyard": "packyard: the disposed cards",
})
RESULT_CHOICES = [app_commands.Choice(name=text, value=key) for key, text in ui.REPORT_RESULTS.items()]
S = battler.STATUSES
INDEXED_SELECTS = ("combo", "tstash", "tpack", "give")
SELECT_INDEX = index("value", limit=100)  # a position in a list the DM showed (checked against the state)
# DM steps that only change what the message shows (nothing is saved).
VIEW_STEPS = ("shift", "untrade", "swap", "page", "back")


class BattlerCog(BattlerReports, TableCog):
    spec = battler.SPEC
    lobby_button = ui.LobbyButton

    def lobby_embed(self, table: GameView, note: str | None = None) -> discord.Embed:
        return ui.lobby_embed(table, note)

    def begun_text(self, table: GameView) -> str:
        return f"Treasure Battler #{table.id} has begun: choose your basic lands in your DMs!"

    def cancel_question(self, table: GameView) -> str:
        if table.status == S.running:
            return (f"Cancel Treasure Battler #{table.id} now? There will be no winner and nothing goes to the "
                    "leaderboard.")
        return f"Cancel the Treasure Battler #{table.id} lobby?"

    def nothing_here_text(self) -> str:
        return "There is no Treasure Battler game here for you. `/battler start` opens one."

    # --- commands --------------------------------------------------------------------------

    group = app_commands.Group(name="battler", description="Magic: Treasure Battler: draft, play mini-games, survive poison.")
    add_lobby_commands(group, "game",
                       cancel_description="Cancel the game: no winner, nothing goes to the leaderboard (organizer; asks "
                                          "first).")

    @group.command(name="start", description="Open a Treasure Battler lobby in this channel (organizers).")
    @app_commands.describe(
        cube="The card pool (the shipped 'battler' cube is made for it).",
        poison="Poison per loss by stage (default fibonacci: 1, 1, 2, 3, 5).",
        seats="Most players, an even number (default 8).",
        interest="Optional rule: a player with at least this many treasures after a mini-game gets 1 more.",
        streak="Optional rule: 3 or more wins in a row earn 1 more treasure.",
        carousel="Optional rule: a carousel of face-up cards, fewest poison picks first (replaces the random card).",
        carousel_from="Where the carousel's cards come from (default: fresh from the packpile).",
        seed="Optional: a number that fixes every shuffle and die roll, to replay a game exactly.",
    )
    @app_commands.autocomplete(cube=cube_autocomplete)
    @app_commands.choices(poison=POISON_CHOICES, carousel=CAROUSEL_CHOICES, carousel_from=CAROUSEL_FROM_CHOICES)
    @app_commands.guild_only()
    async def start(
        self, interaction: discord.Interaction, cube: str, poison: app_commands.Choice[str] | None = None,
        seats: app_commands.Range[int, 2, 16] = 8, interest: app_commands.Range[int, 1, 5] | None = None,
        streak: bool = False, carousel: app_commands.Choice[str] | None = None,
        carousel_from: app_commands.Choice[str] | None = None, seed: app_commands.Range[int, 0, 2**53] | None = None,
    ) -> None:
        actor = actor_of(interaction)
        game = await battler.create_game(
            self.db, actor, channel_id=interaction.channel_id, cube=await cubes.get_cube(self.db, actor.guild_id, cube),
            progression=poison.value if poison else "fibonacci", max_seats=seats, interest=interest, streak=streak,
            carousel=carousel.value if carousel else "off", carousel_from=carousel_from.value if carousel_from else "packpile",
            seed=seed,
        )
        await self.post_lobby(interaction, game, f"Treasure Battler #{game.id} is open: join below.")

    @group.command(name="report", description="Report your mini-game and your treasures left; your opponent confirms it.")
    @app_commands.describe(
        result="How your game ended, from your side.",
        treasures_left="Your treasures left after the game, tokens made in it included; you keep at most 5.",
    )
    @app_commands.choices(result=RESULT_CHOICES)
    async def report(self, interaction: discord.Interaction, result: app_commands.Choice[str],
                     treasures_left: app_commands.Range[int, 0, ui.MAX_TREASURES_LEFT]) -> None:
        game = await self.table_here(interaction, (S.running,))
        outcome = await battler.report(self.db, game.id, actor_of(interaction), result.value, treasures_left=treasures_left)
        await self.answer_report(interaction, outcome)

    @group.command(name="status", description="Show the game: stage, round, phase, poison, treasures, basics, packyard.")
    async def status(self, interaction: discord.Interaction) -> None:
        game = await self.table_here(interaction, S.all)
        view = await event_view(self.bot, game.guild_id, battler.SPEC.kind, game.id) or discord.utils.MISSING
        await interaction.response.send_message(embed=ui.status_embed(game), view=view)

    @group.command(name="stash", description="Show your stash, pack, basics and treasures (only you see it).")
    async def stash(self, interaction: discord.Interaction) -> None:
        game = await self.table_here(interaction, (S.running, S.finished))
        seat = next((p.seat for p in game.state.players if p.user_id == interaction.user.id), None) if game.state else None
        if seat is None:
            raise UserError("You are not playing in this game.")
        await interaction.response.send_message(embed=ui.stash_embed(game, seat), ephemeral=True)

    @group.command(name="resend", description="DM me again my current setup, draft or carousel message.")
    async def resend(self, interaction: discord.Interaction) -> None:
        game = await self.table_here(interaction, (S.running,))
        if game.state is None or interaction.user.id not in game.player_ids:
            raise UserError("You are not playing in this game.")
        held = await battler.resend(self.db, game.id, interaction.user.id)
        if held is None:
            await interaction.response.send_message("Nothing waits for your answer.", ephemeral=True)
            return
        await interaction.response.send_message("Sending your current message to your DMs again.", ephemeral=True)
        [sent] = await self.bot.outbox.send_batch([held], fresh=True)
        await interaction.followup.send("Sent: check your DMs." if sent.message_id else
                                        "I still can't DM you: check your privacy settings (Direct Messages from "
                                        "server members), then `/battler resend`.", ephemeral=True)

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

    @group.command(name="force", description="End the DRAFT phase (or the carousel: picks left made at random) now "
                                             "(organizer; asks first).")
    @app_commands.guild_only()
    async def force(self, interaction: discord.Interaction) -> None:
        game = await self.table_here(interaction, (S.running,))
        carousel = game.state is not None and game.state.phase == engine.CAROUSEL

        async def force() -> str:
            await battler.force_end_draft(self.db, game.id, actor_of(interaction))
            return ui.FORCED[carousel]

        await confirm_then_act(interaction, ui.force_question(game.id, carousel), force, db=self.db,
                               label="End the carousel" if carousel else "End the draft")

    # --- private DMs -----------------------------------------------------------------------

    async def on_action(self, interaction: discord.Interaction, *, game: int, seat: int, version: int, action: str,
                        arg: int | None) -> None:
        try:
            if action in VIEW_STEPS:
                prompt = await battler.checked_prompt(self.db, game, interaction.user.id, seat, version)
                if action == "shift":
                    await interaction.response.send_modal(ui.shift_modal(prompt))
                    return
                step = _view_step(prompt, action, arg)
                await interaction.response.edit_message(embed=ui.prompt_embed(prompt, **step),
                                                        view=ui.prompt_view(prompt, **step))
                return
            kwargs: dict = {}
            if action == "basics":
                kwargs["basics"] = list(chosen(ui.BASIC_COMBOS, arg))
            if action == "take":
                kwargs["carousel_index"] = arg
            await self._private(interaction, game, seat, version, action, **kwargs)
        except StaleMessage as stale:
            await self._stale(interaction, stale)

    async def on_select(self, interaction: discord.Interaction, *, game: int, seat: int, version: int, what: str,
                        arg: int | None, value: str) -> None:
        try:
            if what in INDEXED_SELECTS:
                picked = SELECT_INDEX.read(value)
                if what == "tpack":
                    await self._private(interaction, game, seat, version, "trade", stash_index=arg, pack_index=picked)
                    return
                if what == "give":
                    await self._private(interaction, game, seat, version, "take", carousel_index=arg, stash_index=picked)
                    return
                prompt = await battler.checked_prompt(self.db, game, interaction.user.id, seat, version)
                chosen(ui.BASIC_COMBOS if what == "combo" else prompt.stash, picked)  # shown only if the state has it
                options = {"combo": picked} if what == "combo" else {"stash_index": picked}
                await interaction.response.edit_message(
                    embed=ui.prompt_embed(prompt, **options), view=ui.prompt_view(prompt, **options)
                )
            else:
                if value not in engine.BASIC_TYPES:
                    raise InvalidPayload()
                await self._private(interaction, game, seat, version, "buy", basic_type=value)
        except StaleMessage as stale:
            await self._stale(interaction, stale)

    async def on_shift_form(self, interaction: discord.Interaction, *, game: int, seat: int, version: int,
                            fields: dict[str, str]) -> None:
        try:
            basics = ui.parse_basics(fields.get("basics", ""))
            await self._private(interaction, game, seat, version, "shift", basics=basics)
        except StaleMessage as stale:
            await self._stale(interaction, stale)

    async def _private(self, interaction: discord.Interaction, game_id: int, seat: int, version: int, action: str,
                       **kwargs) -> None:
        message = interaction.message
        result = await battler.private_action(
            self.db, game_id, interaction.user.id, action, seat=seat, version=version,
            channel_id=interaction.channel_id, message_id=message.id if message else None, **kwargs,
        )
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


def _view_step(prompt: battler.PrivatePrompt, action: str, arg: int | None) -> dict:
    """What a view-only DM step shows: a carousel card chosen (full pool), a page, or the start again."""
    if action in ("swap", "page"):
        if prompt.kind != "carousel":
            raise InvalidPayload()
        chosen(prompt.carousel if action == "swap" else range(ui.carousel_pages(prompt)), arg)
        return {"chosen": arg} if action == "swap" else {"page": arg}
    return {}


async def setup(bot: KitBot) -> None:
    await bot.add_cog(BattlerCog(bot))
