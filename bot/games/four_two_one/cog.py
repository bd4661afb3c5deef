"""/421: 421 leagues — a shared 4/2/1 pool, public 60-card decks, reports confirmed by the opponent,
the loser's options A–D, sets added as the decks grow, the winner on the leaderboard."""

from __future__ import annotations

from functools import partial

import discord
from discord import app_commands

from bot.features.sets import service as set_lists
from bot.games.four_two_one import rules as engine
from bot.games.four_two_one import service as four_two_one
from bot.games.four_two_one import set_commands, ui
from bot.games.four_two_one.buttons_cog import MatchButtons
from bot.games.four_two_one.pages_cog import LeaguePages
from bot.games.four_two_one.service import LeagueView, league_name
from bot.games.four_two_one.set_commands import SET_PAGES, SetListCommands, add_set_commands
from bot.kit import claims_ui, limits, lookups
from bot.kit.autocomplete import RESULT_CHOICES
from bot.kit.client import KitBot
from bot.kit.confirm import confirm_then_act
from bot.kit.dispatch import actor_of, handles
from bot.kit.errors import UserError
from bot.kit.paginate import PageList
from bot.kit.table_cog import TableCog, add_lobby_commands
from bot.kit.uploads import read_upload
from bot.web.buttons import event_view

S = four_two_one.STATUSES
SHOWN = (S.lobby, S.running, S.finished)  # what pool, decks and status look at
POOL_PAGES, DECK_PAGES = PageList("fourtwoone_pool"), PageList("fourtwoone_decks")
OPTION_CHOICES = [app_commands.Choice(name=text, value=key) for key, text in ui.OPTION_RULES.items()]
MATCH_CHOICES = [app_commands.Choice(name=f"Match {label}", value=label) for label in engine.MATCH_LABELS]
LIST_HELP = "Your 60 cards as a file (`4 Card Name` lines, an Arena export…); leave it out to paste them."


class FourTwoOneCog(MatchButtons, LeaguePages, SetListCommands, TableCog):
    spec = four_two_one.SPEC
    join_hint = "join with the button or `/421 join`"
    lobby_button = ui.LobbyButton
    ended_posts = "its final standings are posted"

    def extra_handlers(self) -> dict:
        """Its lists' pages, beside the lobby button (bound when the bot starts)."""
        return {**super().extra_handlers(), POOL_PAGES: self.pool_page, DECK_PAGES: self.decks_page,
                SET_PAGES: self.sets_page}

    def lobby_embed(self, table: LeagueView, note: str | None = None) -> discord.Embed:
        return ui.lobby_embed(table, note)

    def begun_text(self, table: LeagueView) -> str:
        return f"{league_name(table.id)} has begun: everyone builds a deck before round 1, in seat order."

    def cancel_question(self, table: LeagueView) -> str:
        return f"Cancel {league_name(table.id)}? Nothing goes to the leaderboard."

    def nothing_here_text(self) -> str:
        return "There is no 421 league here for you. `/421 start` opens one."

    async def after_join(self, interaction: discord.Interaction, table: LeagueView, *, by_button: bool) -> bool:
        await four_two_one.remember_name(self.db, table.id, interaction.user.id, interaction.user.display_name)
        return False

    async def league_here(self, interaction: discord.Interaction, statuses: tuple[str, ...] = S.active) -> LeagueView:
        return await self.table_here(interaction, statuses)

    # --- commands --------------------------------------------------------------------------------

    group = app_commands.Group(name="421", description="421: build decks from a shared 4/2/1 pool; the loser chooses A–D.")
    add_lobby_commands(group, "league", cancel_description="Cancel the league in this channel; nothing is recorded "
                                                           "(organizer; asks first).")
    add_set_commands(group)

    @group.command(name="start", description="Open a 421 league in this channel with its sets (organizers).")
    @app_commands.describe(sets="This server's set names or Scryfall codes, large set first: e.g. ala, con, arb.",
                           target="The score that wins the league (default 21).",
                           new_sets="When the later sets join the pool (default: standard, by deck count).",
                           block_points="Weatherlight saga: the points that open each new block (default 10: at 10, "
                                        "20, 30…).")
    @app_commands.choices(new_sets=ui.SCHEDULE_CHOICES)
    @app_commands.autocomplete(sets=set_commands.sets_autocomplete)
    @app_commands.guild_only()
    async def start(self, interaction: discord.Interaction, sets: app_commands.Range[str, 1, 300],
                    target: app_commands.Range[int, 1, four_two_one.MAX_TARGET] = four_two_one.DEFAULT_TARGET,
                    new_sets: app_commands.Choice[str] | None = None,
                    block_points: app_commands.Range[int, 1, four_two_one.MAX_TARGET] | None = None) -> None:
        actor, keys = actor_of(interaction), set_lists.split_keys(sets)
        await four_two_one.check_can_start(self.db, actor, channel_id=interaction.channel_id)
        schedule = four_two_one.check_schedule(len(keys), target, new_sets.value if new_sets else None, block_points).kind
        missing = await set_lists.missing_keys(self.db, interaction.guild_id, keys)
        set_lists.require_importable(missing)
        if missing:  # Scryfall codes this server has no list for yet: import them, showing progress
            await interaction.response.defer(thinking=True)
        try:
            for code in missing:
                await self.import_set(interaction, code, code)
            card_sets = await set_lists.get_sets(self.db, interaction.guild_id, keys)
            league = await four_two_one.create_league(self.db, actor, channel_id=interaction.channel_id,
                                                      sets=card_sets, target_score=target, schedule=schedule,
                                                      saga_points=block_points)
        except UserError:
            if missing:  # the public progress message goes; the error is shown to the organizer alone
                await interaction.delete_original_response()
            raise
        await self.post_lobby(interaction, league)

    @group.command(name="pool", description="Every card of the league with its copies left (search, or all as files).")
    @app_commands.describe(search="Only cards whose name contains this.", file=ui.POOL_FILE_HELP, post=lookups.POST)
    async def pool(self, interaction: discord.Interaction, search: app_commands.Range[str, 1, ui.MAX_SEARCH] | None = None,
                   file: bool = False, post: bool = False) -> None:
        league = await self.league_here(interaction, SHOWN)
        if file:
            await lookups.answer(interaction, post=post, **ui.pool_file_message(league))
            return
        await lookups.answer_pages(interaction, POOL_PAGES, ui.pool_key(league.id, search), post=post)

    @group.command(name="decks", description="Every deck of the league, its public list and who uses it.")
    @app_commands.describe(file="Every deck's list in one text file.", post=lookups.POST)
    async def decks(self, interaction: discord.Interaction, file: bool = False, post: bool = False) -> None:
        league = await self.league_here(interaction, SHOWN)
        if file:
            await lookups.answer(interaction, post=post, **ui.decks_file_message(league))
            return
        await lookups.answer_pages(interaction, DECK_PAGES, str(league.id), post=post)

    @group.command(name="status", description="The league now: scores, decks, the round and who must act next.")
    @app_commands.describe(post=lookups.POST)
    async def status(self, interaction: discord.Interaction, post: bool = False) -> None:
        league = await self.league_here(interaction, SHOWN)
        view = await event_view(self.bot, league.guild_id, four_two_one.KIND, league.id) or discord.utils.MISSING
        await lookups.answer(interaction, post=post, embed=ui.status_embed(league), view=view)

    @group.command(name="build", description="Build the deck you are due to build: 60 cards from the pool.")
    @app_commands.describe(decklist=LIST_HELP)
    @app_commands.guild_only()
    async def build(self, interaction: discord.Interaction, decklist: discord.Attachment | None = None) -> None:
        await self._deck_command(interaction, engine.BUILD, decklist)

    @group.command(name="alter", description="Option A: your deck's full new list (removed cards return to the pool).")
    @app_commands.describe(decklist=LIST_HELP)
    @app_commands.guild_only()
    async def alter(self, interaction: discord.Interaction, decklist: discord.Attachment | None = None) -> None:
        await self._deck_command(interaction, engine.ALTER, decklist)

    async def _deck_command(self, interaction: discord.Interaction, kind: str, file: discord.Attachment | None) -> None:
        league = await self.league_here(interaction)
        if file is not None:
            await self._apply_deck(interaction, league.id, kind, await read_upload(file, "decklist"))
            return
        shown = await four_two_one.check_step(self.db, league.id, actor_of(interaction), kind)
        await interaction.response.send_modal(ui.deck_modal(shown, kind, interaction.user.id))

    @handles(ui.DECK_FORM)
    async def on_deck_form(self, interaction: discord.Interaction, *, league: int, kind: str,
                           fields: dict[str, str]) -> None:
        await self._apply_deck(interaction, league, kind, fields.get("list", ""))

    async def _apply_deck(self, interaction: discord.Interaction, league_id: int, kind: str, data: str | bytes) -> None:
        action = four_two_one.build if kind == engine.BUILD else four_two_one.alter
        try:
            outcome = await action(self.db, league_id, actor_of(interaction), data)
        except four_two_one.DeckProblems as problems:
            if not isinstance(data, str):
                raise
            # Typed in the form, which Discord cannot reopen with the text: hand the list back.
            await interaction.response.send_message(**ui.handed_back(str(problems), kind, data), ephemeral=True)
            return
        await interaction.response.send_message(ui.deck_done_text(outcome.league, outcome.events, outcome.ignored),
                                                ephemeral=True)

    @group.command(name="takeapart", description="Before building over the deck limit: take apart two unused decks.")
    @app_commands.guild_only()
    async def takeapart(self, interaction: discord.Interaction) -> None:
        league = await self.league_here(interaction)
        shown = await four_two_one.check_step(self.db, league.id, actor_of(interaction), engine.TAKE_APART)
        unused = [d.id for d in engine.unused_decks(shown.state)]
        await interaction.response.send_message("Which two decks nobody is using go back to the pool?", ephemeral=True,
                                                view=ui.take_apart_view(shown.id, unused, shown.state))

    @handles(ui.TakeApartSelect)
    async def on_take_apart(self, interaction: discord.Interaction, *, league: int, decks: list[int]) -> None:
        outcome = await four_two_one.take_apart(self.db, league, actor_of(interaction), decks)
        await interaction.response.edit_message(view=None)
        await interaction.followup.send(ui.taken_apart_text(decks, outcome.league), ephemeral=True)

    @group.command(name="report", description="Report your match: your opponent confirms it.")
    @app_commands.describe(result="How the match ended, from your side.")
    @app_commands.choices(result=RESULT_CHOICES)
    @app_commands.guild_only()
    async def report(self, interaction: discord.Interaction, result: app_commands.Choice[str]) -> None:
        league = await self.league_here(interaction)
        await self.report_match(interaction, league.id, result.value)

    async def report_match(self, interaction: discord.Interaction, league_id: int, result: str) -> None:
        """`/421 report`'s answer, and the round post's report buttons'."""
        outcome = await four_two_one.report(self.db, league_id, actor_of(interaction), result=result)
        claim = outcome.claim
        if claim is None:
            await interaction.response.send_message("✅ You both reported the same result: it counts.", ephemeral=True)
            return
        if outcome.again and interaction.user.id == claim.opponent:
            # Their own answer waits on a report of the other player's: shown to them, with its buttons.
            await interaction.response.send_message(ui.waiting_for_you_text(claim), view=ui.claim_view(claim),
                                                    ephemeral=True)
            return
        await interaction.response.send_message(ui.claim_text(claim, again=outcome.again), view=ui.claim_view(claim),
                                                allowed_mentions=limits.ping(claim.opponent))
        await claims_ui.record_answer(interaction, partial(four_two_one.claim_shown, self.db, claim))

    @group.command(name="settle", description="Decide a disputed match of this round: its report was disputed "
                                              "(organizers who do not play in it).")
    @app_commands.describe(match="The disputed match.", winner="Who won the match (leave empty with draw:True).",
                           draw="The match was a draw.")
    @app_commands.choices(match=MATCH_CHOICES)
    @app_commands.guild_only()
    async def settle(self, interaction: discord.Interaction, match: app_commands.Choice[str],
                     winner: discord.User | None = None, draw: bool = False) -> None:
        claims_ui.check_winner_or_draw(winner, draw)
        league = await self.league_here(interaction)
        await four_two_one.settle(self.db, league.id, actor_of(interaction), match=match.value,
                                  winner_id=winner.id if winner else None)
        await interaction.response.send_message(f"Match {match.value} is settled: see the channel.", ephemeral=True)

    @group.command(name="choose", description="You lost: choose option A, B, C or D (C asks which set-aside deck).")
    @app_commands.describe(option="What you do after losing.", deck="Option C: the set-aside deck to claim (#).")
    @app_commands.choices(option=OPTION_CHOICES)
    @app_commands.guild_only()
    async def choose(self, interaction: discord.Interaction, option: app_commands.Choice[str],
                     deck: app_commands.Range[int, 1, ui.MAX_DECK_ID] | None = None) -> None:
        league = await self.league_here(interaction)
        if option.value == "C" and deck is None:
            await interaction.response.send_message("Which set-aside deck do you claim?", ephemeral=True,
                                                    view=await self.claim_deck_view(interaction, league.id))
            return
        await self._choose(interaction, league.id, option.value, deck)

    @choose.autocomplete("deck")
    async def deck_autocomplete(self, interaction: discord.Interaction, current: str) -> list[app_commands.Choice[int]]:
        league = await four_two_one.find_league(self.db, guild_id=interaction.guild_id, channel_id=interaction.channel_id,
                                                user_id=interaction.user.id, statuses=(S.running,))
        return ui.claimable_choices(league.state if league else None, interaction.user.id, current)

    @handles(ui.ClaimDeckSelect)
    async def on_claim_deck(self, interaction: discord.Interaction, *, league: int, value: int) -> None:
        await self._choose(interaction, league, "C", value)

    async def _choose(self, interaction: discord.Interaction, league_id: int, option: str, deck: int | None) -> None:
        outcome = await four_two_one.choose(self.db, league_id, actor_of(interaction), option, deck)
        text = ui.chosen_text(outcome.league, option, interaction.user.id)
        if interaction.message is not None and interaction.message.flags.ephemeral:
            await interaction.response.edit_message(content=text, view=None)
        else:
            await interaction.response.send_message(text, ephemeral=True)

    @group.command(name="end", description="End the league now: standings to the leaderboard (organizer; asks first).")
    @app_commands.guild_only()
    async def end(self, interaction: discord.Interaction) -> None:
        league = await self.league_here(interaction)  # not a manager: refused by the rehearsal, before asking

        async def end() -> str:
            await four_two_one.end(self.db, league.id, actor_of(interaction))
            return f"{league_name(league.id)} has ended."

        await confirm_then_act(interaction, f"End {league_name(league.id)} now? The standings go to the leaderboard as "
                                            "they are; no more matches are played.", end, db=self.db,
                               around=self.bot.outbox.replies.answering, label="End the league", keep="Keep playing")


async def setup(bot: KitBot) -> None:
    await bot.add_cog(FourTwoOneCog(bot))
