"""/battler: Magic: Treasure Battler — lobby, setup and drafts by DM, reports confirmed in the channel."""

from __future__ import annotations

import logging

import discord
from discord import app_commands

from bot.features.cubes import service as cubes
from bot.features.cubes.ui import cube_autocomplete
from bot.games.battler import rules as engine
from bot.games.battler import service as battler
from bot.games.battler import ui
from bot.games.battler.dms_cog import BattlerDMs
from bot.games.battler.reports_cog import BattlerReports
from bot.games.battler.service import GameView
from bot.kit.autocomplete import choices
from bot.kit.client import KitBot
from bot.kit.confirm import confirm_then_act
from bot.kit.dispatch import actor_of
from bot.kit.errors import UserError
from bot.kit.lookups import POST
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


class BattlerCog(BattlerDMs, BattlerReports, TableCog):
    spec = battler.SPEC
    lobby_button = ui.LobbyButton
    ended_posts = "its result is posted"
    older_lobby_buttons = (ui.LegacyLobbyButton,)

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
        await self.post_lobby(interaction, game)

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

    @group.command(name="status", description="Show the game: stage, round, phase, poison, treasures, basics, the used packs.")
    @app_commands.describe(post=POST)
    async def status(self, interaction: discord.Interaction, post: bool = False) -> None:
        game = await self.table_here(interaction, S.all)
        view = await event_view(self.bot, game.guild_id, battler.SPEC.kind, game.id) or discord.utils.MISSING
        await interaction.response.send_message(embed=ui.status_embed(game), view=view, ephemeral=not post)

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
                               label="End the carousel" if carousel else "End the draft", keep="Keep waiting")


async def setup(bot: KitBot) -> None:
    await bot.add_cog(BattlerCog(bot))
