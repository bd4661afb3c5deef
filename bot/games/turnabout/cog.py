"""/turnabout: Turnabout events — joining with a deck (the lobby), Swiss rounds, game reports confirmed
in the channel, the status (standings), leaving (a drop once the event began), the end with rating
awards, and the server's accumulated ratings."""

from __future__ import annotations

from functools import partial

import discord
from discord import app_commands
from discord.app_commands import Range

from bot.features.clock import rules as chess_clock
from bot.games.turnabout import rules as engine
from bot.games.turnabout import service as turnabout
from bot.games.turnabout import ui
from bot.games.turnabout.service import EventView
from bot.kit import claims_ui, lookups, tables
from bot.kit.autocomplete import RESULT_CHOICES, choices
from bot.kit.client import KitBot
from bot.kit.confirm import confirm_then_act
from bot.kit.dispatch import InvalidPayload, actor_of, handles
from bot.kit.errors import PermissionDenied, UserError
from bot.kit.limits import ping
from bot.kit.paginate import Page, send_paginated
from bot.kit.table_cog import TableCog, add_lobby_commands
from bot.kit.text import escape, plural
from bot.kit.uploads import read_upload
from bot.web.buttons import event_links

S = turnabout.STATUSES
SCORING_CHOICES = [app_commands.Choice(name=text, value=key) for key, text in ui.OPTION_RULES.items()]
CLOCK_CHOICES = choices(ui.CLOCK_MODES)
NUMBER_HELP = "The winner's number for the losing deck's option: life, cards in library or poison counters."


class TurnaboutCog(TableCog):
    spec = turnabout.SPEC
    join_hint = "join with `/turnabout join`"
    lobby_button = ui.LobbyButton
    ended_posts = "its final standings are posted"
    lobby_actions = ("leave", "begin", "cancel")  # joining needs a deck name: /turnabout join, not a Join button

    def lobby_embed(self, table: EventView, note: str | None = None) -> discord.Embed:
        return ui.lobby_embed(table, note)

    def begun_text(self, table: EventView) -> None:  # its announcement says registration is closed
        return None

    def cancel_question(self, table: EventView) -> str:
        if table.status == S.running:
            return f"Cancel {turnabout.event_name(table.id)} now? Nothing goes to the leaderboard."
        return f"Cancel the registration for {turnabout.event_name(table.id)}?"

    def nothing_here_text(self) -> str:
        return "There is no Turnabout event here for you. `/turnabout start` opens one."

    async def on_lobby_button(self, interaction: discord.Interaction, *, table: int, action: str) -> None:
        if action == "join":  # from an old message: joining needs a deck
            raise UserError("Join with `/turnabout join deck:<name> scoring:<option>` (a decklist is optional).")
        await super().on_lobby_button(interaction, table=table, action=action)

    # --- commands --------------------------------------------------------------------------

    group = app_commands.Group(name="turnabout", description="Turnabout: play your opponent's deck, then your own; Swiss on Victory Points.")
    add_lobby_commands(group, "event", cancel_description="Cancel the event in this channel; nothing is recorded (organizer; asks first).")
    for name in ("join", "leave", "begin"):  # Turnabout's own, below: join takes a deck, leave drops a player
        group.remove_command(name)  # from a running event, begin may change the rounds

    @group.command(name="begin", description="Close registration so rounds can be paired (organizer; at least 4 players).")
    @app_commands.describe(rounds="Change the number of rounds as registration closes: at most N − 1 for N players, N if N is odd.")
    @app_commands.guild_only()
    async def begin(self, interaction: discord.Interaction,
                    rounds: app_commands.Range[int, 1, engine.MAX_ROUNDS] | None = None) -> None:
        await self.begin_with(interaction, rounds=rounds)

    async def begin_table(self, table_id: int, actor: tables.Actor, **options) -> turnabout.Outcome:
        return await turnabout.begin(self.db, table_id, actor, **options)

    @group.command(name="start", description="Open registration for a Turnabout event in this channel (organizers).")
    @app_commands.describe(
        rounds="Swiss rounds to play (default 3; no elimination finals).",
        clock="The chess clock of each game: /clock defaults to it, its flag fall loses the game (default off).",
        clock_minutes="With a clock: minutes per player per game (default 10).",
        clock_increment="With a clock: seconds of delay per move, or the Bronstein refund limit (default 3).",
        bye_vp="Victory Points a bye scores (default 30, a 30–0 win).",
    )
    @app_commands.choices(clock=CLOCK_CHOICES)
    @app_commands.guild_only()
    async def start(self, interaction: discord.Interaction, rounds: Range[int, 1, engine.MAX_ROUNDS] = 3,
                    clock: app_commands.Choice[str] | None = None,
                    clock_minutes: Range[int, 1, chess_clock.MAX_MINUTES] | None = None,
                    clock_increment: Range[int, 0, chess_clock.MAX_INCREMENT] | None = None,
                    bye_vp: Range[int, 0, engine.VP_PER_MATCH] = engine.VP_PER_MATCH) -> None:
        event = await turnabout.create_event(self.db, actor_of(interaction), channel_id=interaction.channel_id,
                                             rounds=rounds, clock=clock.value if clock else "off", bye_vp=bye_vp,
                                             clock_minutes=clock_minutes, clock_increment=clock_increment)
        await self.post_lobby(interaction, event)

    @group.command(name="join", description="Join the event with your deck and its scoring option (again to change them).")
    @app_commands.describe(
        deck="Your deck's name (unique in the event).",
        scoring="How your deck scores when it loses a game (default Dominaria).",
        decklist="Optional `4 Card Name` lines: 60-250 cards, no ante, nothing from outside the game; opponents see it",
    )
    @app_commands.choices(scoring=SCORING_CHOICES)
    @app_commands.guild_only()
    async def join(self, interaction: discord.Interaction, deck: app_commands.Range[str, 1, engine.MAX_DECK_NAME],
                       scoring: app_commands.Choice[str] | None = None, decklist: discord.Attachment | None = None) -> None:
        event = await self.table_here(interaction, (S.lobby,))
        data = await read_upload(decklist, "decklist file") if decklist is not None else None
        if data is not None:  # the cards' Oracle text may have to be asked of Scryfall first
            await interaction.response.defer(ephemeral=True, thinking=True)
        updated, reg, again = await turnabout.join(self.db, event.id, actor_of(interaction), deck=deck,
                                                   scoring=scoring.value if scoring else engine.DEFAULT_OPTION,
                                                   decklist=data, scryfall=self.bot.scryfall)
        cards = f" with a legal list of {plural(reg.cards, 'card')}" if reg.cards else ""
        verb = "You changed your entry in" if again else "You joined"
        text = f"{verb} {turnabout.event_name(event.id)}: **{escape(reg.deck)}** ({ui.option_name(reg.scoring)}){cards}."
        if interaction.response.is_done():
            await interaction.followup.send(text, ephemeral=True)
        else:
            await interaction.response.send_message(text, ephemeral=True)
        await self.edit_lobby(updated)

    @group.command(name="pair", description="Pair the next round and post the pairings (organizer).")
    @app_commands.guild_only()
    async def pair(self, interaction: discord.Interaction) -> None:
        event = await self.table_here(interaction, S.active)
        result = await turnabout.pair(self.db, event.id, actor_of(interaction))
        await interaction.response.send_message(f"Round {result.event.state.round} of {turnabout.event_name(event.id)} "
                                                "is paired: the pairings follow.", ephemeral=True)

    @group.command(name="report", description="Report one game of your match; your opponent confirms it (or reports it too).")
    @app_commands.describe(result="How the game ended, from your side.", number=NUMBER_HELP,
                           game="Which game (default: the first one without a result).")
    @app_commands.choices(result=RESULT_CHOICES)
    @app_commands.guild_only()
    async def report(self, interaction: discord.Interaction, result: app_commands.Choice[str],
                     number: int | None = None, game: app_commands.Range[int, 1, 2] | None = None) -> None:
        event = await self.table_here(interaction, S.active)
        outcome = await turnabout.report(self.db, event.id, actor_of(interaction), result=result.value, value=number,
                                         game=game)
        pending = outcome.pending
        if outcome.repeated:  # their own report still waits: shown again, with its buttons, to the opponent
            assert pending is not None
            await self._post_report(interaction, pending, again=True)
            note = ui.repeated_note(pending, differs=outcome.differs, game_given=game is not None)
            if note:
                await interaction.followup.send(note, ephemeral=True)
        elif pending is not None:
            await self._post_report(interaction, pending)
        elif outcome.disputed:
            await interaction.response.send_message(
                f"Your report of game {outcome.game} differs from your opponent's, so the game is disputed: an "
                "organizer decides it (they have been called).", ephemeral=True)
        else:  # confirmed: shown by the report's message, else (lost, or the opponent has dropped) posted here
            await interaction.response.send_message(**ui.matched_reply(outcome.game, outcome.words))

    @report.autocomplete("number")
    async def number_autocomplete(self, interaction: discord.Interaction, current: str | int) -> list[app_commands.Choice[int]]:
        event = await turnabout.find_event(self.db, guild_id=interaction.guild_id, channel_id=interaction.channel_id,
                                           user_id=interaction.user.id, statuses=(S.running,))
        if event is None or event.state is None:
            return []
        typed = interaction.namespace
        return ui.number_choices(event.state, interaction.user.id, typed.result, typed.game, current)

    async def _post_report(self, interaction: discord.Interaction, pending: turnabout.PendingGame, *,
                           again: bool = False) -> None:
        """Post a report with Confirm / Dispute (pinging the opponent, who answers it), recorded by the kit,
        so it loses its buttons once the report is answered in any way."""
        await interaction.response.send_message(ui.report_text(pending, again=again), view=ui.report_view(pending),
                                                allowed_mentions=ping(pending.opponent))
        await claims_ui.record_answer(interaction, partial(turnabout.report_shown, self.db, pending))

    @group.command(name="settle", description="Decide or override a game: a dispute, a flag fall, a no-show (organizers "
                                              "who do not play in it).")
    @app_commands.describe(match="The match number (from the pairings).", game="Game 1 or 2.",
                           winner="Who won the game (leave empty with draw:True).", draw="The game was a draw.",
                           number=NUMBER_HELP, note="Optional reason, shown with the decision.")
    @app_commands.guild_only()
    async def settle(self, interaction: discord.Interaction, match: app_commands.Range[int, 1, 100_000],
                     game: app_commands.Range[int, 1, 2], winner: discord.User | None = None, draw: bool = False,
                     number: int | None = None, note: app_commands.Range[str, 0, 300] | None = None) -> None:
        claims_ui.check_winner_or_draw(winner, draw)
        event = await self.table_here(interaction, S.active)
        await turnabout.settle(self.db, event.id, actor_of(interaction), match=match, game=game,
                               winner_id=winner.id if winner else None, value=number, note=note or "")
        await interaction.response.send_message(f"Match {match}, game {game} decided.", ephemeral=True)

    @settle.autocomplete("match")
    async def match_autocomplete(self, interaction: discord.Interaction, current: str | int) -> list[app_commands.Choice[int]]:
        event = await turnabout.find_event(self.db, guild_id=interaction.guild_id, channel_id=interaction.channel_id,
                                           user_id=interaction.user.id, statuses=(S.running,))
        if event is None or event.state is None:
            return []
        typed = str(current or "").strip()
        choices = []
        for m in reversed(event.state.matches):
            if m.b is None or not str(m.number).startswith(typed):
                continue
            a, b = (event.state.players[s].deck for s in (m.a, m.b))
            label = f"Match {m.number} (round {m.round}): {a} vs {b}" + ("" if m.finished else " · open")
            choices.append(app_commands.Choice(name=label[:100], value=m.number))
            if len(choices) == 25:
                break
        return choices

    @group.command(name="status", description="The event's standings: VP, record and tiebreakers; the round in play.")
    @app_commands.describe(post=lookups.POST)
    async def status(self, interaction: discord.Interaction, post: bool = False) -> None:
        await send_paginated(interaction, ui.STANDINGS_PAGES, str((await self.table_here(interaction, S.all)).id), ephemeral=not post)

    @handles(ui.STANDINGS_PAGES)
    async def standings_page(self, interaction: discord.Interaction, key: str, page: int) -> Page:
        event = await turnabout.get_event(self.db, _key_id(key))
        if interaction.guild_id is not None and event.guild_id != interaction.guild_id:
            raise PermissionDenied("That event belongs to another server.")
        return ui.standings_page(event, page, await event_links(self.bot, event.guild_id, turnabout.KIND, event.id))

    @group.command(name="leave", description="Leave the event: before it begins, withdraw; after, drop from it (asks first).")
    @app_commands.guild_only()
    async def leave(self, interaction: discord.Interaction) -> None:
        event = await self.table_here(interaction, S.active)
        name = turnabout.event_name(event.id)
        if event.status == S.lobby:  # nothing played yet: the entry is withdrawn at once
            left = await turnabout.leave(self.db, event.id, actor_of(interaction))
            await interaction.response.send_message(f"You left {name}: your entry is withdrawn.", ephemeral=True)
            await self.edit_lobby(left)
            return
        if interaction.user.id not in event.player_ids:
            raise UserError("You are not playing in this event.")

        async def drop() -> str:
            await turnabout.drop(self.db, event.id, actor_of(interaction))
            return f"You dropped from {name}."

        await confirm_then_act(
            interaction, f"Drop from {name}? You will not be paired again (a match in progress must still be "
                         "finished) and lose the rating bonus for playing every round.", drop, db=self.db, label="Drop out", keep="Stay in")

    @group.command(name="end", description="End the event: final ranking and rating awards to the leaderboard (organizer; asks first).")
    @app_commands.guild_only()
    async def end(self, interaction: discord.Interaction) -> None:
        event = await self.table_here(interaction, (S.running,))
        async with self.db.read() as session:
            await tables.require_manager(session, turnabout.NOUN, event, actor_of(interaction))

        async def end() -> str:
            await turnabout.end(self.db, event.id, actor_of(interaction))
            return f"{turnabout.event_name(event.id)} has ended."

        await confirm_then_act(
            interaction, f"End {turnabout.event_name(event.id)} now? The final ranking and rating awards are posted "
                         "and recorded; no more rounds can be played.", end, db=self.db, label="End the event", keep="Keep playing",
            around=self.bot.outbox.replies.answering)

    @group.command(name="rating", description="This server's accumulated Turnabout ratings.")
    @app_commands.describe(post=lookups.POST)
    @app_commands.guild_only()
    async def rating(self, interaction: discord.Interaction, post: bool = False) -> None:
        await send_paginated(interaction, ui.RATING_PAGES, str(interaction.guild_id), ephemeral=not post)

    @handles(ui.RATING_PAGES)
    async def ratings_page(self, interaction: discord.Interaction, key: str, page: int) -> Page:
        if _key_id(key) != interaction.guild_id:
            raise PermissionDenied("Those ratings belong to another server.")
        return ui.ratings_page(await turnabout.ratings(self.db, interaction.guild_id), page)


def _key_id(key: str) -> int:
    """A page button's key: an event or server id (anything else was not made by us)."""
    if not key.isascii() or not key.isdigit() or not 0 < int(key) <= tables.MAX_ID:
        raise InvalidPayload()
    return int(key)


async def setup(bot: KitBot) -> None:
    await bot.add_cog(TurnaboutCog(bot))
