"""/vortex: Vortex Based Magic — lobby, the opening hands drafted by DM, draws picked one at a time by
DM, passes, mulligans, shoe effects, cards moved between zones and life, public status, private
hand, resending DMs, and the end."""

from __future__ import annotations

import discord
from discord import app_commands

from bot.features.cubes import service as cubes
from bot.features.cubes.ui import cube_autocomplete
from bot.games.vortex import rules as engine
from bot.games.vortex import service as vortex
from bot.games.vortex import ui
from bot.games.vortex.dms_cog import VortexDMs
from bot.games.vortex.service import GameView
from bot.games.vortex.turn_cog import VortexTurns
from bot.kit import lookups, outbox, tables
from bot.kit.autocomplete import choices
from bot.kit.client import KitBot
from bot.kit.confirm import confirm_then_act
from bot.kit.dispatch import actor_of
from bot.kit.errors import UserError
from bot.kit.table_cog import TableCog, add_lobby_commands
from bot.kit.text import name_key, plural
from bot.web.buttons import event_view

S = vortex.STATUSES
SHOE_CHOICES = choices({
    "mill": "mill: the top cards go to your graveyard (public)",
    "look": "look: only you see the top cards (DM); put some at the bottom",
    "reveal": "reveal: everyone sees the top cards (they stay on top)",
    "search": "search: a tutor — you see the shoe by DM, take up to count cards, then it's shuffled",
    "top": "top: put a card from your hand on top of the shoe",
    "bottom": "bottom: put a card from your hand at the bottom of the shoe",
    "shuffle": "shuffle: shuffle the shoe",
})
SEARCH_TO_CHOICES = choices({
    engine.HAND: "your hand (default)",
    engine.BATTLEFIELD: "the battlefield (public)",
    engine.TOP: "the top of the shoe, after the shuffle",
})
ZONE_WORDS = {engine.HAND: "your hand", engine.BATTLEFIELD: "the battlefield", engine.GRAVEYARD: "your graveyard",
              engine.EXILE: "exile"}
ZONE_CHOICES = choices(ZONE_WORDS)
SHOE_DONE = {"mill": "Milled: the cards are in the channel.", "look": "The cards are in your DMs (only you see them).",
             "reveal": "Revealed: the cards are in the channel.", "top": "Put on top of the shoe.",
             "bottom": "Put at the bottom of the shoe.", "shuffle": "Shuffled."}


class VortexCog(VortexDMs, VortexTurns, TableCog):
    spec = vortex.SPEC
    lobby_button = ui.LobbyButton
    ended_posts = "its result is posted"

    def lobby_embed(self, table: GameView, note: str | None = None) -> discord.Embed:
        return ui.lobby_embed(table, note)

    def begun_text(self, table: GameView) -> str:
        return f"Vortex #{table.id} has begun: the opening hands are drafted in DMs, one pick per turn."

    def cancel_question(self, table: GameView) -> str:
        if table.status == S.running:
            return f"Cancel Vortex #{table.id} now? Nothing goes to the leaderboard (`/vortex end` can name a winner)."
        return f"Cancel the Vortex #{table.id} lobby?"

    def nothing_here_text(self) -> str:
        return "There is no Vortex game here for you. `/vortex start` opens one."

    async def _running(self, interaction: discord.Interaction) -> GameView:
        return await self.table_here(interaction, (S.running,))

    # --- commands --------------------------------------------------------------------------

    group = app_commands.Group(name="vortex", description="Vortex Based Magic: every draw is a pick from a pack refilled from a shared shoe.")
    add_lobby_commands(group, "game", cancel_description="Cancel the game in this channel; nothing is recorded (organizer; asks first).")

    @group.command(name="start", description="Open a Vortex lobby in this channel for 2–5 players (organizers).")
    @app_commands.describe(cube="The card pool; the shoe adds one of each basic land per player.",
                           seed="Optional: a number that fixes every shuffle, to replay a game exactly.")
    @app_commands.autocomplete(cube=cube_autocomplete)
    @app_commands.guild_only()
    async def start(self, interaction: discord.Interaction, cube: str,
                    seed: app_commands.Range[int, 0, 2**53] | None = None) -> None:
        actor = actor_of(interaction)
        game = await vortex.create_game(self.db, actor, channel_id=interaction.channel_id,
                                        cube=await cubes.get_cube(self.db, actor.guild_id, cube), seed=seed)
        await self.post_lobby(interaction, game, f"Vortex #{game.id} is open: join below.")

    @group.command(name="draw", description="Draw: each card is a refill of your pack to 7, then a pick by DM.")
    @app_commands.describe(count="How many cards to draw (default 1); you pick them one at a time.")
    async def draw(self, interaction: discord.Interaction, count: app_commands.Range[int, 1, engine.MAX_COUNT] = 1) -> None:
        await self._draw(interaction, await self._running(interaction), count)

    async def _draw(self, interaction: discord.Interaction, game: GameView, count: int = 1) -> None:
        result = await vortex.draw(self.db, game.id, actor_of(interaction), count)
        if result.resent:  # a pick of theirs was pending: nothing drawn, its DM again
            prompt = vortex.PickPrompt.from_payload(result.resent[0].payload)
            await self._send_again(interaction, result.resent, f"Make your pending pick first (pick "
                                   f"{prompt.pick_number} of {prompt.picks_total}): nothing else was drawn. It is "
                                   "on its way to your DMs again.")
            return
        if result.first(engine.EmptyPackPenalty):
            text = "Your pack was empty: everything on the stack is countered, the turn ended and you lost 1 life."
        else:
            text = f"Drawing {count}: your pick is in your DMs (pick 1 of {count})."
        await interaction.response.send_message(text, ephemeral=True)

    @group.command(name="pass", description="End your turn: swap your pack with the passed pack.")
    async def pass_(self, interaction: discord.Interaction) -> None:
        await self._pass(interaction, await self._running(interaction))

    async def _pass(self, interaction: discord.Interaction, game: GameView) -> None:
        result = await vortex.pass_turn(self.db, game.id, actor_of(interaction))
        passed = result.first(engine.PackPassed)
        await interaction.response.send_message(
            f"You passed: you left {passed.passed} cards as the passed pack and took {passed.received}.", ephemeral=True)

    @group.command(name="mulligan", description="In your upkeep, with 5+ basic lands in your pack: exile it (asks first).")
    async def mulligan(self, interaction: discord.Interaction) -> None:
        game = await self._running(interaction)
        seat = next((p.seat for p in game.state.players if p.user_id == interaction.user.id), None)
        if seat is None:
            raise UserError("You are not a player in this game.")
        if (problem := vortex.mulligan_problem(game.state, seat)) is not None:
            raise UserError(problem)

        async def mulligan() -> str:
            await vortex.mulligan(self.db, game.id, actor_of(interaction))
            return "You mulliganed: your next draw refills an empty pack to 5."

        await confirm_then_act(
            interaction, "Mulligan? Your pack is revealed to everyone and exiled; until the end of the turn you "
                         f"replenish to {engine.MULLIGAN_PACK_SIZE} cards instead of 7.", mulligan, db=self.db,
            label="Mulligan", keep="Keep my pack")

    @group.command(name="shoe", description="A library effect, which affects the shoe: mill, look, reveal, search, "
                                            "top, bottom, shuffle.")
    @app_commands.describe(action="What happens to the shoe.",
                           count="How many cards (mill, look, reveal; search: the most the effect lets you take). "
                                 "Default 1.",
                           card="A card from your hand (top and bottom).",
                           to="Search: where the cards you find go (default: your hand).",
                           reveal="Search: the effect reveals the cards you find (the channel sees them).")
    @app_commands.choices(action=SHOE_CHOICES, to=SEARCH_TO_CHOICES)
    async def shoe(self, interaction: discord.Interaction, action: app_commands.Choice[str],
                   count: app_commands.Range[int, 1, engine.MAX_COUNT] | None = None,
                   card: app_commands.Range[str, 1, 200] | None = None,
                   to: app_commands.Choice[str] | None = None, reveal: bool | None = None) -> None:
        game = await self._running(interaction)
        result = await vortex.shoe(self.db, game.id, actor_of(interaction), action.value, count=count, card=card,
                                   to=to.value if to else None, reveal=reveal)
        if result.resent:  # their search was already open: nothing new, its DM again
            await self._send_again(interaction, result.resent, "Your search of the shoe is still open (finish it "
                                   "first): it is on its way to your DMs again.")
            return
        milled, began = result.first(engine.Milled), result.first(engine.SearchBegan)
        if began:
            text = (f"The shoe is in your DMs: take up to {plural(began.count, 'card')} there "
                    "(only you see it). Nothing else happens until you finish.")
        else:
            text = "The shoe is empty: nothing was milled." if milled and not milled.cards else SHOE_DONE[action.value]
        await interaction.response.send_message(text, ephemeral=True)

    async def _send_again(self, interaction: discord.Interaction, held: list[outbox.Queued], text: str) -> None:
        """Answer, then send a pending step's DM again (`held`), and say so if it still can't be sent."""
        await interaction.response.send_message(text, ephemeral=True)
        outcomes = await self.bot.outbox.send_batch(held, fresh=True)
        if not all(o.message_id for o in outcomes):
            await interaction.followup.send("I still can't DM you: check your privacy settings (Direct Messages from "
                                            "server members), then `/vortex resend`.", ephemeral=True)

    async def _zone_choices(self, interaction: discord.Interaction, zone: str | None,
                            current: str) -> list[app_commands.Choice[str]]:
        """The cards of the player's `zone` whose names contain what they typed (nothing in a zone
        the command cannot take a card from)."""
        game = await vortex.find_game(self.db, guild_id=interaction.guild_id, channel_id=interaction.channel_id,
                                      user_id=interaction.user.id, statuses=(S.running,))
        if game is None or zone is None:
            return []
        typed = name_key(current or "")
        names = dict.fromkeys(card for card in vortex.zone_cards(game, interaction.user.id, zone)
                              if typed in name_key(card))
        # Choice values hold 100 characters: a longer name is matched by its start (see vortex.shoe).
        return [app_commands.Choice(name=card[:100], value=card[:100]) for card in list(names)[:25]]

    @shoe.autocomplete("card")
    async def shoe_card_autocomplete(self, interaction: discord.Interaction,
                                     current: str) -> list[app_commands.Choice[str]]:
        return await self._zone_choices(interaction, engine.HAND, current)  # top and bottom take a card of the hand

    @group.command(name="play", description="Play or cast a card from your hand: it goes onto the battlefield "
                                            "(public).")
    @app_commands.describe(card="A card from your hand.")
    async def play(self, interaction: discord.Interaction, card: app_commands.Range[str, 1, 200]) -> None:
        game = await self._running(interaction)
        result = await vortex.move(self.db, game.id, actor_of(interaction), card, engine.HAND, engine.BATTLEFIELD)
        moved = result.first(engine.CardMoved)
        await interaction.response.send_message(f"**{ui.card_text(moved.card)}** is on the battlefield; the channel "
                                                "is told.", ephemeral=True)

    @play.autocomplete("card")
    async def play_card_autocomplete(self, interaction: discord.Interaction,
                                     current: str) -> list[app_commands.Choice[str]]:
        return await self._zone_choices(interaction, engine.HAND, current)

    @group.command(name="move", description="Move a card of yours between your hand, the battlefield, your "
                                            "graveyard and exile (public).")
    @app_commands.describe(card="The card (offered from the zone in `from`).", from_="Where the card is now.",
                           to="Where it goes.")
    @app_commands.rename(from_="from")
    @app_commands.choices(from_=ZONE_CHOICES, to=ZONE_CHOICES)
    async def move(self, interaction: discord.Interaction, from_: app_commands.Choice[str],
                   to: app_commands.Choice[str], card: app_commands.Range[str, 1, 200]) -> None:
        game = await self._running(interaction)
        result = await vortex.move(self.db, game.id, actor_of(interaction), card, from_.value, to.value)
        moved = result.first(engine.CardMoved)
        await interaction.response.send_message(
            f"Moved **{ui.card_text(moved.card)}** from {ZONE_WORDS[moved.source]} to {ZONE_WORDS[moved.destination]}; "
            "the channel is told.", ephemeral=True)

    @move.autocomplete("card")
    async def move_card_autocomplete(self, interaction: discord.Interaction,
                                     current: str) -> list[app_commands.Choice[str]]:
        return await self._zone_choices(interaction, getattr(interaction.namespace, "from", None), current)

    @group.command(name="life", description="Change your life total: negative for damage or life lost, positive "
                                            "for life gained (public).")
    @app_commands.describe(amount="How much: e.g. -3 for 3 damage, 2 for 2 life gained.")
    async def life(self, interaction: discord.Interaction,
                   amount: app_commands.Range[int, -engine.MAX_LIFE_CHANGE, engine.MAX_LIFE_CHANGE]) -> None:
        game = await self._running(interaction)
        result = await vortex.life(self.db, game.id, actor_of(interaction), amount)
        changed = result.first(engine.LifeChanged)
        await interaction.response.send_message(f"Your life is now {ui.number_text(changed.life)}; the channel is "
                                                "told.", ephemeral=True)

    @group.command(name="status", description="The game in public: turn, who acts, every zone's size, life, penalties.")
    @app_commands.describe(post=lookups.POST)
    async def status(self, interaction: discord.Interaction, post: bool = False) -> None:
        game = await self.table_here(interaction, S.all)
        view = await event_view(self.bot, game.guild_id, vortex.KIND, game.id) or discord.utils.MISSING
        await lookups.answer(interaction, post=post, embed=ui.status_embed(game), view=view)

    @group.command(name="hand", description="Your hand (what you drafted) and your pack; only you see it.")
    async def hand(self, interaction: discord.Interaction) -> None:
        game = await self.table_here(interaction, (S.running, S.finished))
        shown = await vortex.hand(self.db, game.id, interaction.user.id)
        await interaction.response.send_message(embed=ui.hand_embed(shown), ephemeral=True)

    @group.command(name="resend", description="DM me again what waits for my answer (a pick, my basic lands, a look, "
                                              "a search).")
    async def resend(self, interaction: discord.Interaction) -> None:
        game = await self._running(interaction)
        held = await vortex.resend(self.db, game.id, interaction.user.id)
        if not held:
            await interaction.response.send_message("Nothing waits for your answer.", ephemeral=True)
            return
        await interaction.response.send_message("Sending it to your DMs again.", ephemeral=True)
        outcomes = await self.bot.outbox.send_batch(held, fresh=True)
        text = ("Sent: check your DMs." if all(o.message_id for o in outcomes) else
                "I still can't DM you: check your privacy settings (Direct Messages from server members), then "
                "`/vortex resend`.")
        await interaction.followup.send(text, ephemeral=True)

    @group.command(name="end", description="End the game, naming the winner or not (organizer; asks first).")
    @app_commands.describe(winner="Who won: recorded on the leaderboard. Leave empty to end without a result.")
    @app_commands.guild_only()
    async def end(self, interaction: discord.Interaction, winner: discord.User | None = None) -> None:
        game = await self._running(interaction)
        async with self.db.read() as session:
            await tables.require_manager(session, vortex.NOUN, game, actor_of(interaction))
        if winner is not None and winner.id not in game.player_ids:
            raise UserError(f"{winner.mention} is not playing in this game.")
        result = "the result goes to the leaderboard" if winner else "nothing goes to the leaderboard"

        async def end() -> str:
            await vortex.end(self.db, game.id, actor_of(interaction), winner_id=winner.id if winner else None)
            return f"Vortex #{game.id} has ended: {result}."

        await confirm_then_act(interaction, f"End Vortex #{game.id} now? {result.capitalize()}.", end, db=self.db,
                               around=self.bot.outbox.replies.answering, label="End the game", keep="Keep playing")


async def setup(bot: KitBot) -> None:
    await bot.add_cog(VortexCog(bot))
